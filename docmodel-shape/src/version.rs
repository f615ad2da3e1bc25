//! Schema versions as documents carry them: `major.minor` or `major.minor.patch`. One grammar, which the
//! derive reads the versions a model declares with at compile time and the runtime reads the versions
//! documents carry with (re-exported as `docmodel::SchemaVersion`).

use std::fmt;
use std::str::FromStr;

/// A model's schema version, as stored in `_schema`: `"3.0"` is 3.0.0, `"3.0.1"` is itself.
///
/// Versions order as (major, minor, patch). A stored schema names a released model, so there is no
/// pre-release or build part; parsing refuses them, as it refuses leading zeros (`"3.01"`), so that one
/// version has one spelling.
///
/// ```
/// # use docmodel_shape as docmodel;
/// use docmodel::SchemaVersion;
///
/// let version: SchemaVersion = "3.0".parse()?;
/// assert_eq!(version, SchemaVersion::new(3, 0, 0));
/// assert_eq!(version.to_string(), "3.0", "written as documents carry it");
/// assert_eq!(SchemaVersion::new(3, 0, 1).to_string(), "3.0.1");
/// assert!(SchemaVersion::new(2, 9, 0) < version);
///
/// let err = SchemaVersion::parse("3.0.0-beta").unwrap_err();
/// assert_eq!(err.text(), "3.0.0-beta");
/// assert_eq!(
///     err.to_string(),
///     r#""3.0.0-beta" has a pre-release or build suffix, which a schema version cannot have"#
/// );
/// assert!(SchemaVersion::parse("3").is_err());
/// assert!(SchemaVersion::parse("3.01").is_err());
/// # Ok::<(), docmodel::SchemaVersionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SchemaVersion {
    /// A change no older reader can follow; older major versions are read through migration steps.
    pub major: u64,
    /// Added fields: an older minor version of the current major version reads as stored.
    pub minor: u64,
    /// A fix that changes no field.
    pub patch: u64,
}

impl SchemaVersion {
    /// The version `major.minor.patch`.
    pub const fn new(major: u64, minor: u64, patch: u64) -> Self {
        SchemaVersion {
            major,
            minor,
            patch,
        }
    }

    /// Parses `major.minor` or `major.minor.patch`.
    ///
    /// It runs on every document read, so it does not allocate unless it fails.
    pub fn parse(text: &str) -> Result<Self, SchemaVersionError> {
        SchemaVersion::parse_bytes(text.as_bytes()).ok_or_else(|| SchemaVersionError::new(text))
    }

    /// [`SchemaVersion::parse`] of text still in a document's bytes.
    #[doc(hidden)]
    pub fn parse_bytes(text: &[u8]) -> Option<Self> {
        let mut numbers = [0u64; 3];
        let mut count = 0;
        for part in text.split(|&byte| byte == b'.') {
            *numbers.get_mut(count)? = parse_number(part)?;
            count += 1;
        }
        let [major, minor, patch] = numbers;
        (count >= 2).then_some(SchemaVersion::new(major, minor, patch))
    }
}

/// A number of a version: digits, no leading zero but for `0` itself, no more than a `u64` holds.
fn parse_number(part: &[u8]) -> Option<u64> {
    if part.is_empty() || (part.len() > 1 && part[0] == b'0') {
        return None;
    }
    part.iter().try_fold(0u64, |number, &byte| {
        let digit = byte.checked_sub(b'0').filter(|digit| *digit <= 9)?;
        number.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

impl FromStr for SchemaVersion {
    type Err = SchemaVersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        SchemaVersion::parse(text)
    }
}

/// `major.minor`, with `.patch` only when it is not 0: the form the seeds' documents carry.
impl fmt::Display for SchemaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)?;
        if self.patch != 0 {
            write!(f, ".{}", self.patch)?;
        }
        Ok(())
    }
}

/// Text that is not a schema version, as [`SchemaVersion::parse`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaVersionError {
    text: String,
}

impl SchemaVersionError {
    fn new(text: &str) -> Self {
        SchemaVersionError {
            text: text.to_owned(),
        }
    }

    /// The text that was refused.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for SchemaVersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = &self.text;
        if text.contains(['-', '+']) {
            write!(
                f,
                "{text:?} has a pre-release or build suffix, which a schema version cannot have"
            )
        } else {
            write!(
                f,
                "{text:?} is not a version of the form `major.minor` or `major.minor.patch`"
            )
        }
    }
}

impl std::error::Error for SchemaVersionError {}

/// ```
/// # use docmodel_shape as docmodel;
/// use docmodel::SchemaVersion;
///
/// let version = semver::Version::from(SchemaVersion::new(3, 0, 1));
/// assert_eq!(version, semver::Version::new(3, 0, 1));
/// ```
#[cfg(feature = "semver")]
impl From<SchemaVersion> for semver::Version {
    fn from(version: SchemaVersion) -> Self {
        semver::Version::new(version.major, version.minor, version.patch)
    }
}

/// A semver version without pre-release or build parts.
///
/// ```
/// # use docmodel_shape as docmodel;
/// use docmodel::SchemaVersion;
///
/// let version = SchemaVersion::try_from(semver::Version::new(3, 0, 0))?;
/// assert_eq!(version, SchemaVersion::new(3, 0, 0));
/// let beta = semver::Version::parse("3.0.0-beta").unwrap();
/// assert!(SchemaVersion::try_from(beta).is_err());
/// # Ok::<(), docmodel::SchemaVersionError>(())
/// ```
#[cfg(feature = "semver")]
impl TryFrom<semver::Version> for SchemaVersion {
    type Error = SchemaVersionError;

    fn try_from(version: semver::Version) -> Result<Self, Self::Error> {
        if !version.pre.is_empty() || !version.build.is_empty() {
            return Err(SchemaVersionError::new(&version.to_string()));
        }
        Ok(SchemaVersion::new(
            version.major,
            version.minor,
            version.patch,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_two_spellings_and_refuses_the_rest() {
        assert_eq!(SchemaVersion::parse("3.0"), Ok(SchemaVersion::new(3, 0, 0)));
        assert_eq!(
            SchemaVersion::parse("3.0.1"),
            Ok(SchemaVersion::new(3, 0, 1))
        );
        for bad in [
            "",
            "3",
            "3.",
            ".3",
            "3.0.0.0",
            "3.01",
            "03.0",
            "+3.0",
            "3.0-rc",
            "three",
            "3.x",
            "-1.0",
            "3.\u{663}",
            "3..0",
            "18446744073709551616.0",
        ] {
            assert_eq!(
                SchemaVersion::parse(bad).map_err(|err| err.text().to_owned()),
                Err(bad.to_owned()),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn display_parses_back() {
        for version in [
            SchemaVersion::new(0, 0, 0),
            SchemaVersion::new(3, 0, 0),
            SchemaVersion::new(3, 1, 4),
            SchemaVersion::new(u64::MAX, 0, u64::MAX),
        ] {
            assert_eq!(SchemaVersion::parse(&version.to_string()), Ok(version));
        }
    }

    #[test]
    fn orders_by_major_then_minor_then_patch() {
        let v = SchemaVersion::new;
        assert!(v(1, 9, 9) < v(2, 0, 0));
        assert!(v(2, 0, 9) < v(2, 1, 0));
        assert!(v(2, 1, 0) < v(2, 1, 1));
    }
}
