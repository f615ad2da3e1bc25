//! Which way a stored document goes, by its schema version: read as the current model, up the migration
//! chain from one of its steps, or refused.

use crate::codec::AtSchema;
use crate::migrate::chain::{Migration, Step};
use crate::{DocModel, SchemaVersion};

/// What reading a document of one schema version takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// Read as the current model: its major version, and no listed step for it.
    Read,
    /// Run the chain from this entry.
    Migrate(usize),
    /// A newer major version.
    TooNew,
    /// An older major version no step reads.
    Unsupported,
}

/// The route of a document of schema `version` for model `T`.
pub(crate) fn route<T: DocModel>(version: SchemaVersion) -> Route {
    route_in(T::SCHEMA, T::MIGRATIONS, version)
}

/// What the one-pass reader does at a document of schema `version` for model `T`.
pub(crate) fn at_schema<T: DocModel>(version: SchemaVersion) -> AtSchema {
    match route::<T>(version) {
        Route::Read => AtSchema::Read,
        Route::Migrate(_) => AtSchema::Stop,
        Route::TooNew | Route::Unsupported => AtSchema::Refuse,
    }
}

/// The rules, over a chain listed oldest first:
/// - a newer major version is too new; the current version or a newer minor of it reads as stored;
/// - a document is moved on by the last listed step of its major version at or below it (minor versions only
///   add fields), else by the first listed step of its major version;
/// - an older minor of the current major version reads as stored unless a step was listed for it;
/// - a version older than the whole chain is read by an older model listed first (with its own chain);
/// - anything else is unsupported.
fn route_in<T>(current: SchemaVersion, chain: &[Migration<T>], version: SchemaVersion) -> Route {
    if version.major > current.major {
        return Route::TooNew;
    }
    if version >= current {
        return Route::Read;
    }
    let same_major = |entry: &Migration<T>| entry.from.major == version.major;
    let step_at_or_below = chain
        .iter()
        .rposition(|entry| same_major(entry) && entry.from <= version);
    if version.major == current.major {
        return step_at_or_below.map_or(Route::Read, Route::Migrate);
    }
    if let Some(at) = step_at_or_below.or_else(|| chain.iter().position(same_major)) {
        return Route::Migrate(at);
    }
    match chain.first() {
        Some(first) if matches!(first.step, Step::Typed { .. }) && version < first.from => {
            Route::Migrate(0)
        }
        _ => Route::Unsupported,
    }
}

/// Which versions model `T` reads, for an error about one it does not.
pub(crate) fn supported<T: DocModel>() -> String {
    match T::MIGRATIONS {
        [] => format!(
            "the model has no migration steps; it reads {}.x",
            T::SCHEMA.major
        ),
        _ => format!("the model {}; no step reads this version", readable::<T>()),
    }
}

/// What model `T` reads: `migrates from 1.0, 2.0 and reads 3.x`.
pub(crate) fn readable<T: DocModel>() -> String {
    let listed: Vec<&str> = T::MIGRATIONS.iter().map(|entry| entry.from_text).collect();
    if listed.is_empty() {
        format!("reads {}.x", T::SCHEMA.major)
    } else {
        format!(
            "migrates from {} and reads {}.x",
            listed.join(", "),
            T::SCHEMA.major
        )
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::MigrationError;
    use crate::codec::JsonObject;

    fn json(from: SchemaVersion) -> Migration<()> {
        fn noop(_: &mut JsonObject) -> Result<(), MigrationError> {
            Ok(())
        }
        Migration {
            from,
            from_text: "",
            step: Step::Json {
                name: "noop",
                run: noop,
            },
        }
    }

    fn typed(from: SchemaVersion) -> Migration<()> {
        fn fail(
            _: &[u8],
        ) -> Result<crate::codec::Decoded<()>, crate::migrate::chain::TypedFailure> {
            Err(crate::migrate::chain::TypedFailure::Convert(
                MigrationError::new("unused"),
            ))
        }
        Migration {
            from,
            from_text: "",
            step: Step::Typed {
                name: "Older",
                read: fail,
                #[cfg(feature = "json-schema")]
                schemas: Vec::new,
                #[cfg(feature = "json-schema")]
                model: || serde_json::Value::Null,
            },
        }
    }

    const fn v(major: u64, minor: u64) -> SchemaVersion {
        SchemaVersion::new(major, minor, 0)
    }

    #[test]
    fn the_seeds_user_chain() {
        // User 3.0 with steps from 1.0 and 2.0.
        let chain = [json(v(1, 0)), json(v(2, 0))];
        let route = |version| route_in(v(3, 0), &chain, version);
        assert_eq!(route(v(3, 0)), Route::Read);
        assert_eq!(route(v(3, 4)), Route::Read, "a newer minor reads as stored");
        assert_eq!(route(v(4, 0)), Route::TooNew);
        assert_eq!(route(v(2, 0)), Route::Migrate(1));
        assert_eq!(
            route(v(2, 7)),
            Route::Migrate(1),
            "minor versions only add fields"
        );
        assert_eq!(route(v(1, 0)), Route::Migrate(0));
        assert_eq!(route(v(0, 9)), Route::Unsupported);
    }

    #[test]
    fn steps_within_the_current_major_version() {
        let chain = [json(v(1, 0)), json(v(3, 1))];
        let route = |version| route_in(v(3, 2), &chain, version);
        assert_eq!(
            route(v(3, 0)),
            Route::Read,
            "older than the listed minor: as stored"
        );
        assert_eq!(route(v(3, 1)), Route::Migrate(1));
        assert_eq!(route(v(3, 2)), Route::Read);
        assert_eq!(route(v(2, 0)), Route::Unsupported, "no step of major 2");
    }

    #[test]
    fn the_first_step_of_a_major_version_reads_its_older_minors() {
        let chain = [json(v(1, 2))];
        assert_eq!(route_in(v(2, 0), &chain, v(1, 0)), Route::Migrate(0));
    }

    #[test]
    fn an_older_model_listed_first_reads_what_is_older_than_the_chain() {
        let chain = [typed(v(2, 0)), json(v(3, 0))];
        assert_eq!(route_in(v(4, 0), &chain, v(1, 0)), Route::Migrate(0));
        let json_first = [json(v(2, 0))];
        assert_eq!(route_in(v(4, 0), &json_first, v(1, 0)), Route::Unsupported);
    }

    fn version() -> impl Strategy<Value = SchemaVersion> {
        (0u64..5, 0u64..3, 0u64..2)
            .prop_map(|(major, minor, patch)| SchemaVersion::new(major, minor, patch))
    }

    proptest! {
        /// Whatever the chain, a route never points outside it, never migrates the current schema or a newer
        /// one, and only refuses as too new what has a newer major version.
        #[test]
        fn routes_stay_in_the_chain(
            mut versions in proptest::collection::btree_set(version(), 0..5),
            typed_first in any::<bool>(),
            current in version(),
            found in version(),
        ) {
            versions.retain(|version| *version < current);
            let chain: Vec<Migration<()>> = versions
                .iter()
                .enumerate()
                .map(|(at, version)| if at == 0 && typed_first { typed(*version) } else { json(*version) })
                .collect();
            let route = route_in(current, &chain, found);
            match route {
                Route::Migrate(at) => {
                    prop_assert!(at < chain.len());
                    prop_assert!(found < current);
                    // A step reads its own major version, or (an older model first) anything older.
                    prop_assert!(chain[at].from.major == found.major || (at == 0 && typed_first));
                }
                Route::TooNew => prop_assert!(found.major > current.major),
                Route::Read => prop_assert!(found.major == current.major),
                Route::Unsupported => prop_assert!(found.major < current.major),
            }
            // A version a step is listed for goes through that step.
            if let Some(at) = chain.iter().position(|entry| entry.from == found) {
                prop_assert_eq!(route, Route::Migrate(at));
            }
        }
    }
}
