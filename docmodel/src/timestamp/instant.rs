//! [`Timestamp`] and [`TimestampFormat`], re-exported at the crate's root; [`OutOfRange`], in
//! [`timestamp`](crate::timestamp) beside the adapters.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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

/// 0000-01-01T00:00:00Z, the first instant ISO-8601 writes, in milliseconds since the epoch.
const ISO8601_FIRST: i64 = -62_167_219_200_000;
/// 10000-01-01T00:00:00Z, the first instant past the years ISO-8601 writes.
const ISO8601_END: i64 = 253_402_300_800_000;

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
        Timestamp::from(SystemTime::now())
    }

    /// The time components in UTC: `[year, month, day, hour, minute, second, millisecond]`, what
    /// [`Timestamp::from_components`] reads.
    ///
    /// ```
    /// use docmodel::Timestamp;
    ///
    /// let t = Timestamp::from_millis(1_544_759_124_478);
    /// assert_eq!(t.to_components(), [2018, 12, 14, 3, 45, 24, 478]);
    /// assert_eq!(Timestamp::from_components(&t.to_components(), 0), Some(t));
    /// ```
    pub fn to_components(self) -> [i64; 7] {
        let days = self.0.div_euclid(MILLIS_PER_DAY);
        let in_day = self.0.rem_euclid(MILLIS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let (seconds, millis) = (in_day / 1000, in_day % 1000);
        [
            year,
            month,
            day,
            seconds / 3600,
            seconds / 60 % 60,
            seconds % 60,
            millis,
        ]
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
        ISO8601_FIRST <= self.0 && self.0 < ISO8601_END
    }

    /// The whole numbers of `format`'s unit a stored time is read from: the first and the last within the
    /// years ISO-8601 writes ([`Timestamp::fits_iso8601`]); milliseconds for the ISO-8601 format, which
    /// reads a number as those.
    #[cfg_attr(not(feature = "json-schema"), allow(dead_code))]
    pub(crate) const fn epoch_range(format: TimestampFormat) -> (i64, i64) {
        let unit = match format.unit_millis() {
            Some(unit) => unit,
            None => 1,
        };
        // Rounded toward the range: the first whole unit at or after its start, the last before its end.
        let first = ISO8601_FIRST.div_euclid(unit) + (ISO8601_FIRST.rem_euclid(unit) != 0) as i64;
        (first, (ISO8601_END - 1).div_euclid(unit))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]` followed by `Z` or a `±HH:MM` offset.
    pub fn parse_iso8601(text: &str) -> Option<Self> {
        let (local, offset) = parse_local(text)?;
        local.at_offset(offset?)
    }

    /// The instant of the time components `[year, month, day, hour, minute, second, millisecond]` (the
    /// first three required, the rest `0` when left out) at `offset_minutes` east of UTC: the data-modeling
    /// guide's component array `[2015, 1, 28, 13, 50, 56]`. `None` for a component out of its range.
    ///
    /// ```
    /// use docmodel::Timestamp;
    ///
    /// let t = Timestamp::from_components(&[2010, 7, 15, 15, 34, 27], 0).unwrap();
    /// assert_eq!(t.to_string(), "2010-07-15T15:34:27.000Z");
    /// assert_eq!(Timestamp::from_components(&[2010, 13, 1], 0), None);
    /// ```
    pub fn from_components(components: &[i64], offset_minutes: i16) -> Option<Self> {
        let [year, month, day, rest @ ..] = components else {
            return None;
        };
        if rest.len() > 4 {
            return None;
        }
        let part = |at: usize| rest.get(at).copied().unwrap_or(0);
        let local = Local {
            year: *year,
            month: *month,
            day: *day,
            hour: part(0),
            minute: part(1),
            second: part(2),
            millis: part(3),
        };
        if !(0..=9999).contains(year) || !(0..1000).contains(&local.millis) {
            return None;
        }
        local.checked()?.at_offset(i64::from(offset_minutes))
    }
}

/// Why a stored time did not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeProblem {
    /// Not a date-time of any form read.
    Malformed,
    /// A date-time without a zone, and no zone to read it in.
    NoZone,
}

/// Reads an ISO-8601 date-time in any of the forms the seeds print: with `Z` or a `±HH:MM` offset, or
/// without a zone when `zoneless` gives the offset (minutes east of UTC) to read it at; fractions of a second
/// of any length (kept to the millisecond).
pub(crate) fn parse_stored(text: &str, zoneless: Option<i16>) -> Result<Timestamp, TimeProblem> {
    let (local, offset) = parse_local(text).ok_or(TimeProblem::Malformed)?;
    let offset = offset
        .or(zoneless.map(i64::from))
        .ok_or(TimeProblem::NoZone)?;
    local.at_offset(offset).ok_or(TimeProblem::Malformed)
}

/// A date and time of day with no zone yet.
struct Local {
    year: i64,
    month: i64,
    day: i64,
    hour: i64,
    minute: i64,
    second: i64,
    millis: i64,
}

impl Local {
    /// The same, when every component is in its range.
    fn checked(self) -> Option<Self> {
        let date = (1..=12).contains(&self.month)
            && self.day >= 1
            && self.day <= days_in_month(self.year, self.month);
        let time = (0..24).contains(&self.hour)
            && (0..60).contains(&self.minute)
            && (0..60).contains(&self.second);
        (date && time).then_some(self)
    }

    /// The instant this local time is at `offset_minutes` east of UTC, within the years ISO-8601 writes.
    fn at_offset(&self, offset_minutes: i64) -> Option<Timestamp> {
        let days = days_from_civil(self.year, self.month, self.day);
        let seconds = ((self.hour * 60 + self.minute - offset_minutes) * 60) + self.second;
        Some(Timestamp(
            days * MILLIS_PER_DAY + seconds * 1000 + self.millis,
        ))
        .filter(|time| time.fits_iso8601())
    }
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.f...]`, then `Z`, a `±HH:MM` offset (its minutes east of UTC) or nothing.
fn parse_local(text: &str) -> Option<(Local, Option<i64>)> {
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
    let mut local = Local {
        year: num(0..4)?,
        month: num(5..7)?,
        day: num(8..10)?,
        hour: num(11..13)?,
        minute: num(14..16)?,
        second: num(17..19)?,
        millis: 0,
    };
    let mut at = 19;
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
        local.millis = num(at + 1..at + 1 + kept)? * 10i64.pow(3 - kept as u32);
        at += 1 + digits;
    }
    let offset = match b.get(at..)? {
        [] => None,
        b"Z" | b"z" => Some(0),
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let hours = num(at + 1..at + 3)?;
            let minutes = num(at + 4..at + 6)?;
            if hours > 23 || minutes > 59 {
                return None;
            }
            let total = hours * 60 + minutes;
            Some(if *sign == b'-' { -total } else { total })
        }
        _ => return None,
    };
    Some((local.checked()?, offset))
}

/// ISO-8601 in UTC with milliseconds: `2018-12-14T03:45:24.478Z`.
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [year, month, day, hour, minute, second, millis] = self.to_components();
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{millis:03}Z"
        )
    }
}

/// The system time, to the millisecond (rounded down); times beyond ±292 million years are clamped.
impl From<SystemTime> for Timestamp {
    fn from(time: SystemTime) -> Self {
        let millis = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
            Err(before) => {
                let before = before.duration();
                // Rounded down: 1.5 ms before the epoch is -2 ms.
                let whole = before.as_millis() + u128::from(before.subsec_nanos() % 1_000_000 != 0);
                i64::try_from(whole).map_or(i64::MIN, |ms| -ms)
            }
        };
        Timestamp(millis)
    }
}

/// The same instant as a `SystemTime`, where the platform's clock can hold it.
impl TryFrom<Timestamp> for SystemTime {
    type Error = OutOfRange;

    fn try_from(time: Timestamp) -> Result<Self, OutOfRange> {
        let span = Duration::from_millis(time.0.unsigned_abs());
        let converted = if time.0 >= 0 {
            UNIX_EPOCH.checked_add(span)
        } else {
            UNIX_EPOCH.checked_sub(span)
        };
        converted.ok_or(OutOfRange(time))
    }
}

/// A [`Timestamp`] that another time type cannot hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfRange(pub Timestamp);

impl fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the timestamp {} ms after the epoch is out of the target type's range",
            self.0.as_millis()
        )
    }
}

impl std::error::Error for OutOfRange {}

/// The most components a component array has: year to millisecond.
pub(crate) const MAX_COMPONENTS: usize = 7;

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
    fn reads_the_seeds_forms_where_a_zone_is_given() {
        let utc = Timestamp::parse_iso8601("2015-01-28T13:50:56Z").unwrap();
        assert_eq!(parse_stored("2015-01-28T13:50:56", Some(0)), Ok(utc));
        assert_eq!(parse_stored("2015-01-28 13:50:56", Some(0)), Ok(utc));
        assert_eq!(
            parse_stored("2015-01-28T14:50:56", Some(60)),
            Ok(utc),
            "zone-less text read at +01:00"
        );
        assert_eq!(
            parse_stored("2015-01-28T13:50:56", None),
            Err(TimeProblem::NoZone)
        );
        // An offset in the text wins over the zone-less reading.
        assert_eq!(parse_stored("2015-01-28T15:50:56+02:00", Some(60)), Ok(utc));
        assert_eq!(
            parse_stored("2015-01-28T13:50:56.1234567Z", None)
                .unwrap()
                .as_millis(),
            utc.as_millis() + 123
        );
        assert_eq!(
            parse_stored("2015-01-28T13:50:56.5", Some(0))
                .unwrap()
                .as_millis(),
            utc.as_millis() + 500
        );
        for bad in [
            "2015-01-28",
            "2015-01-28T13:50",
            "2015-01-28T13:50:56 Z",
            "2015-02-29T00:00:00",
        ] {
            assert_eq!(
                parse_stored(bad, Some(0)),
                Err(TimeProblem::Malformed),
                "{bad:?}"
            );
        }
        // The strict reader still wants a zone.
        assert_eq!(Timestamp::parse_iso8601("2015-01-28T13:50:56"), None);
    }

    #[test]
    fn reads_component_arrays() {
        let utc = Timestamp::parse_iso8601("2010-07-15T15:34:27Z").unwrap();
        assert_eq!(
            Timestamp::from_components(&[2010, 7, 15, 15, 34, 27], 0),
            Some(utc)
        );
        assert_eq!(
            Timestamp::from_components(&[2010, 7, 15, 17, 34, 27], 120),
            Some(utc)
        );
        assert_eq!(
            Timestamp::from_components(&[2010, 7, 15, 15, 34, 27, 250], 0),
            Some(Timestamp::from_millis(utc.as_millis() + 250))
        );
        assert_eq!(
            Timestamp::from_components(&[2010, 7, 15], 0),
            Timestamp::parse_iso8601("2010-07-15T00:00:00Z")
        );
        for bad in [
            &[2010, 7][..],
            &[2010, 7, 15, 15, 34, 27, 250, 1],
            &[2010, 0, 15],
            &[2010, 2, 29],
            &[2010, 7, 15, 24],
            &[2010, 7, 15, 15, 60],
            &[2010, 7, 15, 15, 34, 27, 1000],
            &[-1, 7, 15],
            &[10_000, 1, 1],
            &[i64::MAX, 1, 1],
            &[2010, 7, 15, i64::MAX],
        ] {
            assert_eq!(Timestamp::from_components(bad, 0), None, "{bad:?}");
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
