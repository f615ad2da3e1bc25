//! Envelope timestamps and the formats they are stored in.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A point in time, in milliseconds since the Unix epoch (UTC).
///
/// The envelope stores it in the [`TimestampFormat`] the model chose; reading it back gives the same instant
/// at that format's precision.
///
/// ```
/// use docmodel::Timestamp;
///
/// let t = Timestamp::from_millis(1_544_759_124_478);
/// assert_eq!(t.to_string(), "2018-12-14T03:45:24.478Z");
/// assert_eq!(Timestamp::parse_iso8601("2018-12-14T03:45:24.478Z"), Some(t));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

/// How envelope timestamps (`_created`, `_modified`, `_accessed`) are written.
///
/// The seeds' advice: epoch numbers are 11 or more bytes smaller than ISO-8601 strings, and a coarser precision
/// saves more. Reading accepts what the format writes; an ISO-8601 string is accepted in every format. An
/// epoch value outside the years 0000 to 9999 in the model's unit is refused, naming the field: changing a
/// model's format is a schema change with a migration step (see the [derive's docs](crate::DocModel)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimestampFormat {
    /// Milliseconds since the epoch: `1544759124478` (13 bytes).
    #[default]
    EpochMs,
    /// Seconds since the epoch: `1544759124` (10 bytes).
    EpochS,
    /// Minutes since the epoch: `25745985` (8 bytes).
    EpochMin,
    /// Hours since the epoch: `429099` (6 bytes).
    EpochH,
    /// Days since the epoch: `17879` (5 bytes).
    EpochDay,
    /// An ISO-8601 UTC string: `"2018-12-14T03:45:24.478Z"` (24 bytes).
    Iso8601,
}

impl TimestampFormat {
    /// Milliseconds in one unit of an epoch format; `None` for ISO-8601.
    pub const fn unit_millis(self) -> Option<i64> {
        match self {
            TimestampFormat::EpochMs => Some(1),
            TimestampFormat::EpochS => Some(1_000),
            TimestampFormat::EpochMin => Some(60_000),
            TimestampFormat::EpochH => Some(3_600_000),
            TimestampFormat::EpochDay => Some(86_400_000),
            TimestampFormat::Iso8601 => None,
        }
    }

    /// The name used in `#[docmodel(envelope(timestamps = "..."))]`.
    pub const fn name(self) -> &'static str {
        match self {
            TimestampFormat::EpochMs => "epoch_ms",
            TimestampFormat::EpochS => "epoch_s",
            TimestampFormat::EpochMin => "epoch_min",
            TimestampFormat::EpochH => "epoch_h",
            TimestampFormat::EpochDay => "epoch_day",
            TimestampFormat::Iso8601 => "iso8601",
        }
    }
}

const MILLIS_PER_DAY: i64 = 86_400_000;

impl Timestamp {
    /// The instant `millis` milliseconds after the Unix epoch.
    pub const fn from_millis(millis: i64) -> Self {
        Timestamp(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn as_millis(self) -> i64 {
        self.0
    }

    /// The current time of the system clock.
    pub fn now() -> Self {
        let millis = match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
            Err(before) => i64::try_from(before.duration().as_millis()).map_or(i64::MIN, |ms| -ms),
        };
        Timestamp(millis)
    }

    /// The number an epoch format stores: whole units since the epoch, rounded down; `None` for ISO-8601.
    ///
    /// ```
    /// use docmodel::{Timestamp, TimestampFormat};
    ///
    /// let t = Timestamp::from_millis(1_544_759_124_478);
    /// assert_eq!(t.to_epoch(TimestampFormat::EpochS), Some(1_544_759_124));
    /// assert_eq!(t.to_epoch(TimestampFormat::Iso8601), None);
    /// ```
    pub const fn to_epoch(self, format: TimestampFormat) -> Option<i64> {
        match format.unit_millis() {
            Some(unit) => Some(self.0.div_euclid(unit)),
            None => None,
        }
    }

    /// The instant `count` units of an epoch format after the epoch; `None` on overflow or for ISO-8601.
    pub const fn from_epoch(count: i64, format: TimestampFormat) -> Option<Self> {
        let Some(unit) = format.unit_millis() else {
            return None;
        };
        match count.checked_mul(unit) {
            Some(millis) => Some(Timestamp(millis)),
            None => None,
        }
    }

    /// Whether ISO-8601 can write this instant: years 0000 to 9999.
    pub const fn fits_iso8601(self) -> bool {
        // 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z.
        -62_167_219_200_000 <= self.0 && self.0 < 253_402_300_800_000
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]` followed by `Z` or a `±HH:MM` offset.
    pub fn parse_iso8601(text: &str) -> Option<Self> {
        let b = text.as_bytes();
        let num = |range: std::ops::Range<usize>| -> Option<i64> {
            let digits = b.get(range)?;
            digits.iter().try_fold(0i64, |acc, &d| {
                d.is_ascii_digit().then(|| acc * 10 + i64::from(d - b'0'))
            })
        };
        let sep = |at: usize, expected: &[u8]| b.get(at).is_some_and(|c| expected.contains(c));
        if !(sep(4, b"-") && sep(7, b"-") && sep(10, b"Tt ") && sep(13, b":") && sep(16, b":")) {
            return None;
        }
        let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
        let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
            return None;
        }
        if hour > 23 || minute > 59 || second > 59 {
            return None;
        }
        let mut at = 19;
        let mut millis = 0;
        if sep(at, b".") {
            let digits = b[at + 1..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            if digits == 0 {
                return None;
            }
            // Keep millisecond precision; further digits are read and dropped.
            let kept = digits.min(3);
            millis = num(at + 1..at + 1 + kept)? * 10i64.pow(3 - kept as u32);
            at += 1 + digits;
        }
        let offset_minutes = match b.get(at..)? {
            b"Z" | b"z" => 0,
            [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
                let hours = num(at + 1..at + 3)?;
                let minutes = num(at + 4..at + 6)?;
                let _ = (h1, h2, m1, m2);
                if hours > 23 || minutes > 59 {
                    return None;
                }
                let total = hours * 60 + minutes;
                if *sign == b'-' { -total } else { total }
            }
            _ => return None,
        };
        let days = days_from_civil(year, month, day);
        let seconds = ((hour * 60 + minute - offset_minutes) * 60) + second;
        Some(Timestamp(days * MILLIS_PER_DAY + seconds * 1000 + millis))
            .filter(|time| time.fits_iso8601())
    }
}

/// ISO-8601 in UTC with milliseconds: `2018-12-14T03:45:24.478Z`.
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.0.div_euclid(MILLIS_PER_DAY);
        let in_day = self.0.rem_euclid(MILLIS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let (seconds, millis) = (in_day / 1000, in_day % 1000);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60
        )
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's `days_from_civil` and `civil_from_days` (proleptic Gregorian calendar).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_the_seed_date() {
        let t = Timestamp::from_millis(1_544_759_124_478);
        assert_eq!(t.to_string(), "2018-12-14T03:45:24.478Z");
        assert_eq!(
            t.to_epoch(TimestampFormat::EpochMs),
            Some(1_544_759_124_478)
        );
        assert_eq!(t.to_epoch(TimestampFormat::EpochS), Some(1_544_759_124));
        assert_eq!(t.to_epoch(TimestampFormat::EpochMin), Some(25_745_985));
        assert_eq!(t.to_epoch(TimestampFormat::EpochH), Some(429_099));
        assert_eq!(t.to_epoch(TimestampFormat::EpochDay), Some(17_879));
        assert_eq!(
            Timestamp::from_epoch(i64::MAX, TimestampFormat::EpochS),
            None
        );
    }

    #[test]
    fn iso_range_is_four_digit_years() {
        let first = Timestamp::parse_iso8601("0000-01-01T00:00:00.000Z").unwrap();
        let last = Timestamp::parse_iso8601("9999-12-31T23:59:59.999Z").unwrap();
        assert!(first.fits_iso8601() && last.fits_iso8601());
        assert!(!Timestamp::from_millis(first.as_millis() - 1).fits_iso8601());
        assert!(!Timestamp::from_millis(last.as_millis() + 1).fits_iso8601());
        assert_eq!(last.to_string(), "9999-12-31T23:59:59.999Z");
    }

    #[test]
    fn parses_offsets_and_fractions() {
        let utc = Timestamp::parse_iso8601("2018-12-14T03:45:24.478Z").unwrap();
        assert_eq!(
            Timestamp::parse_iso8601("2018-12-14T05:45:24.478+02:00"),
            Some(utc)
        );
        assert_eq!(
            Timestamp::parse_iso8601("2018-12-14T03:45:24.478912Z"),
            Some(utc)
        );
        assert_eq!(
            Timestamp::parse_iso8601("2018-12-14T03:45:24Z")
                .unwrap()
                .as_millis(),
            1_544_759_124_000
        );
        assert_eq!(
            Timestamp::parse_iso8601("1969-12-31T23:59:59.999Z")
                .unwrap()
                .as_millis(),
            -1
        );
    }

    #[test]
    fn refuses_malformed_dates() {
        for bad in [
            "",
            "2018-12-14",
            "2018-02-30T00:00:00Z",
            "2018-12-14T24:00:00Z",
            "2018-12-14T03:45:24",
            "2018-12-14T03:45:24.Z",
            "2018-12-14T03:45:24+0200",
            "２018-12-14T03:45:24Z",
            "2018-12-14T03:45:24Zjunk",
        ] {
            assert_eq!(Timestamp::parse_iso8601(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn round_trips_across_eras() {
        for millis in [
            i64::from(i32::MIN) * 1000,
            -86_400_001,
            0,
            951_782_400_000,
            4_102_444_800_000,
        ] {
            let t = Timestamp::from_millis(millis);
            assert_eq!(Timestamp::parse_iso8601(&t.to_string()), Some(t), "{t}");
        }
    }
}
