//! The schema lock: each version's stored shape, kept in a file beside the model's source
//! (`docmodel-locks/<file>/<Model>/<version>.json`). The derive writes the model's shape as `DocModel::SHAPE`, and
//! when the lock of the version it declares exists, compares the two and fails at `schema = "..."` on a
//! difference. The generated code includes the lock's bytes, so that a change to the file rebuilds the model.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Complete;

/// One stored field as the lock records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRecord {
    /// The Rust field's name.
    pub field: String,
    /// The name it is stored under.
    pub stored: String,
    /// Its type, as written (spaces left out).
    pub ty: String,
    /// Whether a document without it does not read.
    pub required: bool,
    /// The names it is read from, where they are not just the one it is stored under (`alias`,
    /// `rename(deserialize = ...)`); empty otherwise.
    pub reads: Vec<String>,
}

/// The stored fields of the model, in order.
pub fn records(model: &Complete) -> Vec<FieldRecord> {
    model
        .fields
        .iter()
        .filter_map(|field| {
            let stored = field.json.serialize.clone()?;
            let ty = field.ty;
            let reads_missing = field.json.default
                || model.serde.default
                || crate::expand::schema::optional_type(field.ty);
            let reads = match field.json.deserialize.as_slice() {
                [only] if *only == stored => Vec::new(),
                names => names.to_vec(),
            };
            Some(FieldRecord {
                field: field.name(),
                stored,
                ty: type_text(ty),
                required: !reads_missing,
                reads,
            })
        })
        .collect()
}

/// A type as the lock records it: as written, without spaces and without the paths in front of names
/// (`Vec<Phone>` for `Vec<crate::Phone>`, `String` for `std::string::String`), so that naming one type
/// another way is not a change.
pub fn type_text(ty: &syn::Type) -> String {
    let written = quote!(#ty).to_string().replace(' ', "");
    let mut text = String::with_capacity(written.len());
    let mut word = String::new();
    let mut rest = written.as_str();
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("::") {
            // A path's segment before `::`: left out.
            word.clear();
            rest = after;
            continue;
        }
        rest = &rest[c.len_utf8()..];
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            text.push_str(&word);
            word.clear();
            text.push(c);
        }
    }
    text.push_str(&word);
    text
}

/// The version as lock files are named: `major.minor`, and `.patch` when it is not 0 (`SchemaVersion`'s
/// `Display`).
pub fn version_text(version: &semver::Version) -> String {
    match version.patch {
        0 => format!("{}.{}", version.major, version.minor),
        patch => format!("{}.{}.{patch}", version.major, version.minor),
    }
}

/// Whether `DOCMODEL_BLESS=1` is set for this build: the locks are being written again, and the model is
/// not held to the old one.
fn blessing() -> bool {
    std::env::var("DOCMODEL_BLESS").is_ok_and(|value| value == "1")
}

/// The directory of the model's locks: `docmodel-locks/<file>/<Model>/` beside the file the model is written
/// in (`src/docmodel-locks/models/User/` for `User` in `src/models.rs`): one per model, as a crate may have
/// several models of one type (in tests, say).
pub fn directory(source: Option<&Path>, model: &syn::Ident) -> Option<PathBuf> {
    // Cargo gives rustc paths relative to the workspace, which is the macro's working directory too.
    let source = std::path::absolute(source?).ok()?;
    let file = source.file_stem()?.to_str()?;
    let model = model.to_string();
    let model = model.strip_prefix("r#").unwrap_or(&model);
    Some(
        source
            .parent()?
            .join("docmodel-locks")
            .join(file)
            .join(model),
    )
}

/// What a lock file holds: the type's name and its fields, read from its JSON.
fn read_lock(text: &str) -> Result<(String, Vec<FieldRecord>), String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|err| format!("it is not JSON: {err}"))?;
    let type_name = value
        .get("type")
        .and_then(serde_json::Value::as_str)
        .ok_or("it has no `type`")?
        .to_owned();
    let fields = value
        .get("fields")
        .and_then(serde_json::Value::as_array)
        .ok_or("it has no `fields` list")?;
    let fields = fields
        .iter()
        .map(|field| {
            let text = |name: &str| {
                field
                    .get(name)
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| format!("a field has no `{name}`"))
            };
            Ok(FieldRecord {
                field: text("field")?,
                stored: text("stored")?,
                ty: text("type")?,
                required: field
                    .get("required")
                    .and_then(serde_json::Value::as_bool)
                    .ok_or("a field has no `required`")?,
                reads: field
                    .get("reads")
                    .and_then(serde_json::Value::as_array)
                    .map(|names| {
                        names
                            .iter()
                            .filter_map(|name| name.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect::<Result<_, String>>()?;
    Ok((type_name, fields))
}

/// One difference between the locked shape and the model's.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// A field stored that the lock does not have: whether it is required.
    Added {
        stored: String,
        required: bool,
    },
    Removed {
        stored: String,
    },
    Renamed {
        field: String,
        from: String,
        to: String,
    },
    TypeChanged {
        stored: String,
        from: String,
        to: String,
    },
    MadeRequired {
        stored: String,
    },
    /// A name the field was read from that it no longer is.
    NoLongerRead {
        stored: String,
        name: String,
    },
    /// The type's name.
    TypeRenamed {
        from: String,
        to: String,
    },
}

impl Change {
    /// Whether a minor version may make it: a field added that reads when missing.
    fn is_additive(&self) -> bool {
        matches!(
            self,
            Change::Added {
                required: false,
                ..
            }
        )
    }
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::Added { stored, required } => write!(
                f,
                "field `{stored}` added{}",
                if *required {
                    ", required (a stored document without it does not read)"
                } else {
                    ""
                }
            ),
            Change::Removed { stored } => write!(f, "field `{stored}` removed"),
            Change::Renamed { field, from, to } => {
                write!(f, "field `{field}` renamed: stored as `{to}`, was `{from}`")
            }
            Change::TypeChanged { stored, from, to } => {
                write!(f, "field `{stored}` changed type: `{to}`, was `{from}`")
            }
            Change::MadeRequired { stored } => write!(
                f,
                "field `{stored}` made required: a stored document without it no longer reads"
            ),
            Change::NoLongerRead { stored, name } => write!(
                f,
                "field `{stored}` no longer read from `{name}`: a stored document holding it there loses it"
            ),
            Change::TypeRenamed { from, to } => write!(
                f,
                "the type renamed: `{to}`, was `{from}`: stored documents of `{from}` no longer read"
            ),
        }
    }
}

/// What changed from `locked` to `current`, in the lock's order, then the fields added.
pub fn changes(locked: &[FieldRecord], current: &[FieldRecord]) -> Vec<Change> {
    let mut changes = Vec::new();
    for old in locked {
        match current.iter().find(|new| new.stored == old.stored) {
            Some(new) => {
                if new.ty != old.ty {
                    changes.push(Change::TypeChanged {
                        stored: old.stored.clone(),
                        from: old.ty.clone(),
                        to: new.ty.clone(),
                    });
                }
                if new.required && !old.required {
                    changes.push(Change::MadeRequired {
                        stored: old.stored.clone(),
                    });
                }
                let reads = |record: &FieldRecord| match record.reads.is_empty() {
                    true => vec![record.stored.clone()],
                    false => record.reads.clone(),
                };
                let now = reads(new);
                for name in reads(old).into_iter().filter(|name| !now.contains(name)) {
                    changes.push(Change::NoLongerRead {
                        stored: old.stored.clone(),
                        name,
                    });
                }
            }
            None => match current.iter().find(|new| {
                new.field == old.field && !locked.iter().any(|l| l.stored == new.stored)
            }) {
                Some(new) => changes.push(Change::Renamed {
                    field: old.field.clone(),
                    from: old.stored.clone(),
                    to: new.stored.clone(),
                }),
                None => changes.push(Change::Removed {
                    stored: old.stored.clone(),
                }),
            },
        }
    }
    for new in current {
        let known = locked.iter().any(|old| old.stored == new.stored);
        let renamed = changes
            .iter()
            .any(|change| matches!(change, Change::Renamed { to, .. } if *to == new.stored));
        if !known && !renamed {
            changes.push(Change::Added {
                stored: new.stored.clone(),
                required: new.required,
            });
        }
    }
    changes
}

/// Compares the model with the lock of its version, if there is one: an error at `schema = "..."` naming every
/// change and what to do, or the lock file's path (for the expansion to include).
pub fn check(model: &Complete, source: Option<&Path>) -> Result<Option<PathBuf>, darling::Error> {
    let Some(dir) = directory(source, model.ident) else {
        return Ok(None);
    };
    let version = version_text(&model.schema.version);
    let path = dir.join(format!("{version}.json"));
    // Shown as it is beside the model's source: the same on every machine.
    let file = source
        .and_then(Path::file_stem)
        .and_then(|stem| stem.to_str())
        .unwrap_or_default();
    let ident = model.ident.to_string();
    let name = ident.strip_prefix("r#").unwrap_or(&ident);
    let shown = format!("docmodel-locks/{file}/{name}/{version}.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => {
            return Err(darling::Error::custom(format!(
                "the lock `{shown}` (beside this file) does not read: {err}"
            ))
            .with_span(model.schema.lit));
        }
    };
    let (locked_type, locked) = read_lock(&text).map_err(|why| {
        darling::Error::custom(format!(
            "the lock `{shown}` (beside this file) does not read: {why}; delete it, and write it again with \
             `DOCMODEL_BLESS=1 cargo test`"
        ))
        .with_span(model.schema.lit)
    })?;
    if blessing() {
        return Ok(Some(path));
    }
    let mut changes = changes(&locked, &records(model));
    // A type renamed with its old name kept as an alias still reads its documents.
    let aliased = model
        .aliases
        .iter()
        .any(|alias| alias.value() == locked_type);
    if locked_type != model.type_name.value() && !aliased {
        changes.insert(
            0,
            Change::TypeRenamed {
                from: locked_type,
                to: model.type_name.value(),
            },
        );
    }
    if changes.is_empty() {
        return Ok(Some(path));
    }
    let listed: Vec<String> = changes
        .iter()
        .map(|change| format!("  - {change}"))
        .collect();
    let (major, minor) = (model.schema.version.major, model.schema.version.minor);
    let renamed = changes.iter().find_map(|change| match change {
        Change::TypeRenamed { from, .. } => Some(from.clone()),
        _ => None,
    });
    let fix = if let Some(from) = renamed {
        format!("keep the old name readable with `aliases(\"{from}\")`")
    } else if changes.iter().all(Change::is_additive) {
        format!(
            "every change adds a field that reads when missing: bump the minor version (`schema = \"{major}.{}\"`)",
            minor + 1
        )
    } else {
        format!(
            "bump the major version (`schema = \"{}.0\"`) and add a step from this one \
             (`migrate_from(\"{version}\" = step)`)",
            major + 1
        )
    };
    Err(darling::Error::custom(format!(
        "`{}` {version} is locked with another stored shape (`{shown}`, beside this file):\n{}\n{fix}; or, \
         if {version} was never released, write its lock again: `DOCMODEL_BLESS=1 cargo test` (which builds \
         the model without this check)",
        model.type_name.value(),
        listed.join("\n")
    ))
    .with_span(model.schema.lit))
}

/// `const SHAPE` and `const LOCK_DIR`.
pub fn trait_items(model: &Complete, source: Option<&Path>) -> TokenStream {
    let fields = records(model).into_iter().map(|record| {
        let FieldRecord {
            field,
            stored,
            ty,
            required,
            reads,
        } = record;
        let reads = (!reads.is_empty()).then(|| quote!(.reads(&[#(#reads),*])));
        quote!(_docmodel::lock::FieldShape::new(#field, #stored, #ty, #required) #reads)
    });
    let dir = directory(source, model.ident)
        .and_then(|dir| dir.to_str().map(str::to_owned))
        .map(|dir| quote!(::core::option::Option::Some(#dir)))
        .unwrap_or_else(|| quote!(::core::option::Option::None));
    quote! {
        const SHAPE: &'static [_docmodel::lock::FieldShape] = &[#(#fields),*];
        const LOCK_DIR: ::core::option::Option<&'static str> = #dir;
    }
}

/// The lock's bytes, included so that an edit of the file rebuilds the model (and the derive compares again).
pub fn tracked(lock: Option<&Path>) -> TokenStream {
    match lock.and_then(Path::to_str) {
        Some(lock) => quote!(
            const _: &[u8] = ::core::include_bytes!(#lock);
        ),
        None => TokenStream::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cases the runtime's comparison (`docmodel/src/lock/changes.rs`, used by `docmodel::lock::check`) is
    /// held to as well: both read its `cases.json`, so the two stay in step.
    #[test]
    fn changes_are_the_runtimes() {
        let cases: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../../docmodel/src/lock/cases.json")).unwrap();
        let record = |field: &serde_json::Value| FieldRecord {
            field: field[0].as_str().unwrap().to_owned(),
            stored: field[1].as_str().unwrap().to_owned(),
            ty: field[2].as_str().unwrap().to_owned(),
            required: field[3].as_bool().unwrap(),
            reads: field[4]
                .as_array()
                .unwrap()
                .iter()
                .map(|name| name.as_str().unwrap().to_owned())
                .collect(),
        };
        for case in cases {
            let fields = |side: &str| -> Vec<FieldRecord> {
                case[side].as_array().unwrap().iter().map(record).collect()
            };
            let found: Vec<String> = changes(&fields("locked"), &fields("current"))
                .iter()
                .map(ToString::to_string)
                .collect();
            let expected: Vec<&str> = case["changes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|change| change.as_str().unwrap())
                .collect();
            assert_eq!(found, expected, "{}", case["what"]);
        }
    }

    #[test]
    fn types_are_compared_without_their_paths() {
        let text = |ty: &str| type_text(&syn::parse_str(ty).unwrap());
        assert_eq!(text("std::string::String"), "String");
        assert_eq!(text("Vec < crate::models::Phone >"), "Vec<Phone>");
        assert_eq!(text("::core::option::Option<u64>"), "Option<u64>");
        assert_eq!(text("HashMap<String, Vec<u8>>"), "HashMap<String,Vec<u8>>");
    }
}
