//! Schema versions as documents carry them: semver, with `major.minor` allowed.

use semver::Version;

/// Parses a schema version: `"3.0"` is 3.0.0, `"3.0.1"` is itself. Pre-release and build suffixes are refused:
/// a stored schema names a released model.
///
/// ```
/// assert_eq!(docmodel::parse_schema("3.0").unwrap(), docmodel::semver::Version::new(3, 0, 0));
/// assert!(docmodel::parse_schema("three").is_err());
/// ```
pub fn parse_schema(text: &str) -> Result<Version, String> {
    let core = text.split(['-', '+']).next().unwrap_or_default();
    let dots = core.bytes().filter(|b| *b == b'.').count();
    let version = match dots {
        1 => Version::parse(&format!("{text}.0")),
        2 => Version::parse(text),
        _ => {
            return Err(format!(
                "{text:?} is not a version of the form `major.minor` or `major.minor.patch`"
            ));
        }
    }
    .map_err(|err| format!("{text:?} is not a semver version: {err}"))?;
    if !version.pre.is_empty() || !version.build.is_empty() {
        return Err(format!(
            "{text:?} has a pre-release or build suffix, which a schema version cannot have"
        ));
    }
    Ok(version)
}
