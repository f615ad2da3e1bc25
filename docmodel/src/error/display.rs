//! [`Error`]'s message and source: one arm a variant, in the enum's order.

use std::error::Error as StdError;
use std::fmt;

use super::{
    ChangesLabel, Checked, DocLabel, Error, FieldLabel, ForModel, Found, KeyPrefix, Keys, Limit,
    Versions,
};
use crate::validate::Listed;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotFound { key } => write!(f, "document `{key}` not found"),
            Error::Conflict { key } => write!(
                f,
                "document `{key}` was changed by another writer since it was read; nothing was written"
            ),
            Error::AlreadyExists { key } => {
                write!(f, "document `{key}` already exists; nothing was written")
            }
            Error::DuplicateValue { lookup, keys } => write!(
                f,
                "the lookup `{lookup}` names more than one document holding its value (written on servers that \
                 replicate each other): {}; settle it with `Repo::settle_lookup`",
                Keys(keys)
            ),
            Error::WrongType {
                key,
                field,
                expected,
                found,
            } => write!(
                f,
                "{}: expected `{field}` to be {expected:?}, {}",
                DocLabel(key),
                Found(field, found)
            ),
            Error::MissingSchema { key, field } => write!(
                f,
                "{}: the document has no `{field}` field; docmodel cannot tell which schema it follows",
                DocLabel(key)
            ),
            Error::SchemaTooNew {
                key,
                found,
                current,
            } => write!(
                f,
                "{}: schema {found} is newer than this model's {current}; upgrade the code that reads it",
                DocLabel(key)
            ),
            Error::UnsupportedSchema {
                key,
                found,
                current,
                reason,
            } => write!(
                f,
                "{}: cannot read schema {found:?} with this model (schema {current}): {reason}",
                DocLabel(key)
            ),
            Error::Migration {
                key,
                from,
                to,
                source,
            } => write!(
                f,
                "{}: migrating from schema {from} to {to} failed: {source}",
                DocLabel(key)
            ),
            Error::InvalidKey { model, key, reason } => {
                write!(f, "invalid key {key:?}{}: {reason}", ForModel(model))
            }
            Error::Validation { key, errors } => write!(f, "{}{}", KeyPrefix(key), Listed(errors)),
            Error::Application { key, source } => {
                write!(f, "{}the update was stopped: {source}", KeyPrefix(key))
            }
            Error::Store { key, kind, source } => {
                write!(f, "{}{}: {source}", KeyPrefix(key), kind.describe())
            }
            Error::VersionLimit { key, ver } => write!(
                f,
                "document `{key}` is at version {ver}, the last one `_ver` can count; nothing was written"
            ),
            Error::OverLimit {
                key,
                limit,
                found,
                max,
            } => write!(
                f,
                "document `{key}` {}, over the limit of {max} (`{}`); nothing was written",
                limit.describe(*found),
                limit.setting()
            ),
            Error::MergeConflict { key, conflicts } => write!(
                f,
                "document `{key}`: both sides changed {} differently, and no merge rule of the model decides: {}; \
                 nothing was written",
                crate::merge::Places(conflicts.len()),
                crate::merge::Listed(conflicts)
            ),
            Error::ItemsNotMigrated {
                key,
                items,
                count,
                schema,
            } => write!(
                f,
                "document `{key}` was not removed with its items: {count} `{items}` {} stored at a schema older than \
                 {schema}, which a find by the parent may miss; migrate them first (`Repo::migrate_all`); nothing was \
                 written",
                if *count == 1 {
                    "document is"
                } else {
                    "documents are"
                }
            ),
            Error::CompactionHorizon {
                log,
                horizon,
                limit,
            } => write!(
                f,
                "the event log `{log}` cannot be compacted to {horizon}: {}; nothing was changed",
                Limit(limit)
            ),
            Error::NoMergeBase {
                key,
                versions,
                checked,
            } => write!(
                f,
                "document `{key}`: no version both sides descend from is kept: the sides are at versions {}, and {}; \
                 nothing was written: resolve a conflict with a pick, such as `Resolve::highest_version()`, or make \
                 a stale edit again on the document read anew",
                Versions(versions),
                Checked(checked)
            ),
            Error::MergeHistoryMissing {
                key,
                versions,
                missing,
            } => write!(
                f,
                "document `{key}`: the sides (at versions {}) are not yet shown to descend from one version: this \
                 store holds no copy of version {} that records the side above it as saved from it (copies still \
                 replicating, or pruned); nothing was written: merge again once the copies have replicated",
                Versions(versions),
                Versions(missing)
            ),
            Error::SchemaMismatch {
                type_name,
                version,
                recorded,
                ours,
                changes,
            } => write!(
                f,
                "model `{type_name}` {version}: the store records another stored shape for this version (fingerprint \
                 {recorded}) than this program's ({ours}){}; a program changed the model without bumping its schema \
                 version: bump it (see `docmodel::lock`), or, if {version} was never released, remove the record \
                 `docmodel::schema::{type_name}::{version}` from the store",
                ChangesLabel(changes)
            ),
            Error::Codec { key, field, source } => {
                write!(f, "{}{}: {source}", DocLabel(key), FieldLabel(field))
            }
            #[cfg(feature = "hashed")]
            Error::HashKey { reason } => write!(f, "hash key: {reason}"),
        }
    }
}

impl StdError for Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        match self {
            Error::Migration { source, .. } => Some(source),
            Error::Application { source, .. } | Error::Store { source, .. } => Some(&**source),
            Error::Codec { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StoreErrorKind;

    #[test]
    fn the_source_is_the_wrapped_error_and_only_that() {
        let store = Error::Store {
            key: Some("user::1".into()),
            kind: StoreErrorKind::Transient,
            source: "connection reset".into(),
        };
        assert_eq!(
            store.source().map(ToString::to_string).as_deref(),
            Some("connection reset")
        );
        let application = Error::application("the account is frozen");
        assert_eq!(
            application.source().map(ToString::to_string).as_deref(),
            Some("the account is frozen")
        );
        let json = serde_json::from_str::<u64>("x").unwrap_err().to_string();
        let codec = Error::Codec {
            key: None,
            field: None,
            source: serde_json::from_str::<u64>("x").unwrap_err(),
        };
        assert_eq!(codec.source().map(ToString::to_string), Some(json));
        assert!(
            Error::NotFound {
                key: "user::1".into()
            }
            .source()
            .is_none()
        );
    }
}
