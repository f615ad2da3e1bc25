//! The migration chain: the `migrate_from(...)` steps, checked against each other and the current schema.

use docmodel_shape::SchemaVersion as Version;
use syn::{LitStr, Path};

use crate::attr::StepsAttr;

/// One step of the chain, as the expansion needs it.
pub struct Step<'a> {
    pub version: Version,
    pub lit: &'a LitStr,
    pub target: &'a Path,
    /// `"2.0" = UserV2` names an older model (a type); `"2.0" = phone_to_phones` a JSON step function.
    pub typed: bool,
}

/// The steps of every `migrate_from` in the order written; a version that does not parse is reported and
/// left out.
pub fn steps<'a>(attrs: &'a [StepsAttr], errors: &mut crate::meta::Accumulator) -> Vec<Step<'a>> {
    attrs
        .iter()
        .flat_map(|attr| &attr.0)
        .filter_map(|step| {
            let version = errors.handle(parse_schema(&step.version))?;
            let typed = step.target.segments.last().is_some_and(|last| {
                last.ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
            });
            Some(Step {
                version,
                lit: &step.version,
                target: &step.target,
                typed,
            })
        })
        .collect()
}

/// A schema version, read at expansion time by the grammar the runtime reads documents' versions with
/// (`SchemaVersion`, in `docmodel-shape`): `major.minor` or `major.minor.patch`.
pub fn parse_schema(lit: &LitStr) -> crate::meta::Result<Version> {
    let text = lit.value();
    Version::parse(&text).map_err(|error| {
        // A suffix on a version: the version without it is the one to write.
        let core = text.split(['-', '+']).next().unwrap_or_default();
        let advice = match Version::parse(core) {
            Ok(_) if core != text => format!("write \"{core}\""),
            _ => "for example \"1.0\" or \"1.0.1\"".to_owned(),
        };
        crate::meta::Error::custom(format!("schema {error}: {advice}")).with_span(lit)
    })
}

/// Reports every step that is out of order, listed twice, or at or above the current schema.
pub fn check(
    steps: &[Step],
    current: &Version,
    current_text: &str,
    errors: &mut crate::meta::Accumulator,
) {
    let versions: Vec<Version> = steps.iter().map(|step| step.version).collect();
    for (at, problem) in order_problems(&versions, current) {
        let text = |at: usize| steps[at].lit.value();
        let message = match problem {
            Problem::NotBelowCurrent => format!(
                "a step from {} is at or above the current schema {current_text}; the chain moves older documents \
                 up to it",
                text(at)
            ),
            Problem::ListedTwice => format!("a step from {} is listed twice", text(at)),
            Problem::After(earlier) => format!(
                "steps are listed oldest first, and the step from {} comes after the one from {}",
                text(at),
                text(earlier)
            ),
        };
        errors.push(crate::meta::Error::custom(message).with_span(steps[at].lit));
    }
}

/// What is wrong with one version of a chain.
#[derive(Debug, PartialEq, Eq)]
pub enum Problem {
    NotBelowCurrent,
    ListedTwice,
    /// It is older than the version at this earlier index.
    After(usize),
}

/// The problems of a chain of versions, by index: the derive accepts exactly the chains that are strictly
/// ascending and below the current schema.
pub fn order_problems(versions: &[Version], current: &Version) -> Vec<(usize, Problem)> {
    let mut problems = Vec::new();
    for (at, version) in versions.iter().enumerate() {
        let earlier = &versions[..at];
        if version >= current {
            problems.push((at, Problem::NotBelowCurrent));
        } else if earlier.contains(version) {
            problems.push((at, Problem::ListedTwice));
        } else if let Some(later) = earlier.iter().position(|earlier| earlier > version) {
            problems.push((at, Problem::After(later)));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn version() -> impl Strategy<Value = Version> {
        (0u64..4, 0u64..3, 0u64..2)
            .prop_map(|(major, minor, patch)| Version::new(major, minor, patch))
    }

    proptest! {
        #[test]
        fn accepts_exactly_strictly_ascending_chains_below_the_current_schema(
            versions in proptest::collection::vec(version(), 0..6),
            current in version(),
        ) {
            let accepted = order_problems(&versions, &current).is_empty();
            let ascending = versions.windows(2).all(|pair| pair[0] < pair[1]);
            let below = versions.iter().all(|version| *version < current);
            prop_assert_eq!(accepted, ascending && below, "{:?} below {}", versions, current);
        }
    }

    #[test]
    fn names_the_offending_versions() {
        let v = |major, minor| Version::new(major, minor, 0);
        let problems = order_problems(&[v(2, 0), v(1, 0), v(2, 0), v(3, 0)], &v(3, 0));
        assert_eq!(
            problems,
            [
                (1, Problem::After(0)),
                (2, Problem::ListedTwice),
                (3, Problem::NotBelowCurrent)
            ]
        );
    }
}
