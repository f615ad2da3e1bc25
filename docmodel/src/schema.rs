//! Schema versions as documents carry them: semver, with `major.minor` allowed.

use semver::Version;

/// Parses a schema version: `"3.0"` is 3.0.0, `"3.0.1"` is itself. Pre-release and build suffixes are refused:
/// a stored schema names a released model.
///
/// It runs on every document read, so it does not allocate unless it fails.
///
/// ```
/// use docmodel::{parse_schema, semver::Version};
///
/// assert_eq!(parse_schema("3.0").unwrap(), Version::new(3, 0, 0));
/// assert_eq!(parse_schema("3.0.1").unwrap(), Version::new(3, 0, 1));
/// assert!(parse_schema("three").is_err());
/// assert!(parse_schema("3").is_err());
/// assert!(parse_schema("3.01").is_err(), "semver refuses leading zeros");
/// assert!(parse_schema("3.0.0-beta").is_err());
/// ```
#[inline]
pub fn parse_schema(text: &str) -> Result<Version, String> {
    let mut numbers = [0u64; 3];
    let mut count = 0;
    for part in text.split('.') {
        let number = numbers.get_mut(count).ok_or_else(|| not_a_version(text))?;
        *number = parse_number(part).ok_or_else(|| not_a_version(text))?;
        count += 1;
    }
    if count < 2 {
        return Err(not_a_version(text));
    }
    Ok(Version::new(numbers[0], numbers[1], numbers[2]))
}

/// A semver number: digits, no leading zero but for `0` itself.
fn parse_number(part: &str) -> Option<u64> {
    let canonical = !part.is_empty()
        && part.bytes().all(|b| b.is_ascii_digit())
        && (part == "0" || !part.starts_with('0'));
    canonical.then(|| part.parse().ok()).flatten()
}

fn not_a_version(text: &str) -> String {
    if text.contains(['-', '+']) {
        format!("{text:?} has a pre-release or build suffix, which a schema version cannot have")
    } else {
        format!("{text:?} is not a version of the form `major.minor` or `major.minor.patch`")
    }
}
