//! Timestamps in the body, as serde adapters: `#[serde(with = "docmodel::timestamp::epoch_s")]`.
//!
//! Each adapter writes one of the seeds' forms and reads it back, and reads an ISO-8601 string with a zone
//! (`Z` or an offset) too, the form most existing data has. Its `option` module does the same for an
//! `Option<Timestamp>`, written as `null` when `None`.

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};

use super::{MAX_COMPONENTS, TimeProblem, Timestamp, TimestampFormat, parse_stored};

/// How an adapter stores a timestamp: a format of the envelope's, or the component array.
#[derive(Clone, Copy)]
enum Form {
    Format(TimestampFormat),
    Components,
}

impl Form {
    fn name(self) -> &'static str {
        match self {
            Form::Format(format) => format.name(),
            Form::Components => "components",
        }
    }

    /// Writes `time`, or refuses an instant outside the years 0000 to 9999: every form reads only those,
    /// and a form never writes what it would then refuse to read.
    fn write<S: Serializer>(self, time: Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
        if !time.fits_iso8601() {
            return Err(serde::ser::Error::custom(format_args!(
                "the timestamp {} ms after the epoch is outside the years `{}` reads (0000 to 9999)",
                time.as_millis(),
                self.name()
            )));
        }
        match self {
            Form::Format(TimestampFormat::Iso8601) => serializer.collect_str(&time),
            Form::Format(format) => {
                // Every format but ISO-8601 has a unit.
                serializer.serialize_i64(time.to_epoch(format).unwrap_or(time.as_millis()))
            }
            Form::Components => {
                let components = time.to_components();
                let len = if components[6] == 0 { 6 } else { 7 };
                let mut seq = serializer.serialize_seq(Some(len))?;
                for component in &components[..len] {
                    seq.serialize_element(component)?;
                }
                seq.end()
            }
        }
    }
}

/// Reads what `form` writes, and an ISO-8601 string with a zone.
struct TimeVisitor(Form);

impl TimeVisitor {
    fn count<E: de::Error>(&self, count: i64) -> Result<Timestamp, E> {
        let time = match self.0 {
            Form::Format(format) if format.unit_millis().is_some() => {
                Timestamp::from_epoch(count, format)
            }
            // ISO-8601 and component arrays read a number as milliseconds, the seeds' default.
            _ => Some(Timestamp::from_millis(count)),
        };
        time.filter(|time| time.fits_iso8601()).ok_or_else(|| {
            E::custom(format_args!(
                "the timestamp {count} is out of range for `{}` (years 0000 to 9999)",
                self.0.name()
            ))
        })
    }
}

impl<'de> Visitor<'de> for TimeVisitor {
    type Value = Timestamp;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Form::Format(TimestampFormat::Iso8601) => {
                f.write_str("an ISO-8601 date-time with a zone")
            }
            Form::Components => f.write_str(
                "a component array [year, month, day, hour, minute, second, millisecond] in UTC",
            ),
            Form::Format(format) => write!(
                f,
                "a timestamp in `{}` or an ISO-8601 date-time with a zone",
                format.name()
            ),
        }
    }

    fn visit_i64<E: de::Error>(self, count: i64) -> Result<Timestamp, E> {
        self.count(count)
    }

    fn visit_u64<E: de::Error>(self, count: u64) -> Result<Timestamp, E> {
        let count = i64::try_from(count).map_err(|_| {
            E::custom(format_args!(
                "the timestamp {count} is out of range for `{}`",
                self.0.name()
            ))
        })?;
        self.count(count)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Timestamp, E> {
        parse_stored(text, None).map_err(|problem| match problem {
            TimeProblem::NoZone => E::custom(format_args!(
                "the timestamp {text:?} has no zone (`Z` or an offset such as `+01:00`)"
            )),
            TimeProblem::Malformed => E::custom(format_args!(
                "the timestamp {text:?} is not an ISO-8601 date-time"
            )),
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Timestamp, A::Error> {
        if !matches!(self.0, Form::Components) {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        let mut components = [0i64; MAX_COMPONENTS];
        let mut len = 0;
        while let Some(component) = seq.next_element::<i64>()? {
            let slot = components.get_mut(len).ok_or_else(|| {
                de::Error::custom(format_args!(
                    "a component array has at most {MAX_COMPONENTS} components (year to millisecond)"
                ))
            })?;
            *slot = component;
            len += 1;
        }
        Timestamp::from_components(&components[..len], 0).ok_or_else(|| {
            de::Error::custom(format_args!(
                "{:?} is not a date-time: a component array is year, month, day and perhaps hour, minute, \
                 second and millisecond, each in its range",
                &components[..len]
            ))
        })
    }
}

/// Reads an `Option`: `null` is `None`.
struct OptionVisitor(Form);

impl<'de> Visitor<'de> for OptionVisitor {
    type Value = Option<Timestamp>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        TimeVisitor(self.0).expecting(f)?;
        f.write_str(", or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(TimeVisitor(self.0)).map(Some)
    }
}

macro_rules! adapter {
    ($(#[$doc:meta])* $module:ident, $form:expr) => {
        $(#[$doc])*
        pub mod $module {
            use serde::{Deserializer, Serializer};

            use super::{Form, TimeVisitor};
            use crate::Timestamp;

            const FORM: Form = $form;

            /// Writes `time` in this form.
            pub fn serialize<S: Serializer>(time: &Timestamp, serializer: S) -> Result<S::Ok, S::Error> {
                FORM.write(*time, serializer)
            }

            /// Reads a timestamp written in this form, or an ISO-8601 string with a zone.
            pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Timestamp, D::Error> {
                deserializer.deserialize_any(TimeVisitor(FORM))
            }

            /// The same for an `Option<Timestamp>`: `None` is written and read as `null`.
            pub mod option {
                use serde::{Deserializer, Serializer};

                use super::super::OptionVisitor;
                use super::FORM;
                use crate::Timestamp;

                /// Writes `time` in this form, or `null`.
                pub fn serialize<S: Serializer>(
                    time: &Option<Timestamp>,
                    serializer: S,
                ) -> Result<S::Ok, S::Error> {
                    match time {
                        Some(time) => FORM.write(*time, serializer),
                        None => serializer.serialize_none(),
                    }
                }

                /// Reads `null` as `None`, else as this form does.
                pub fn deserialize<'de, D: Deserializer<'de>>(
                    deserializer: D,
                ) -> Result<Option<Timestamp>, D::Error> {
                    deserializer.deserialize_option(OptionVisitor(FORM))
                }
            }
        }
    };
}

adapter!(
    /// Milliseconds since the epoch: `1544759124478` (13 bytes), what `Timestamp` itself writes.
    epoch_ms,
    Form::Format(crate::TimestampFormat::EpochMs)
);
adapter!(
    /// Seconds since the epoch: `1544759124` (10 bytes), rounded down.
    epoch_s,
    Form::Format(crate::TimestampFormat::EpochS)
);
adapter!(
    /// Minutes since the epoch: `25745985` (8 bytes), rounded down.
    epoch_min,
    Form::Format(crate::TimestampFormat::EpochMin)
);
adapter!(
    /// Hours since the epoch: `429099` (6 bytes), rounded down.
    epoch_h,
    Form::Format(crate::TimestampFormat::EpochH)
);
adapter!(
    /// Days since the epoch: `17879` (5 bytes), rounded down.
    epoch_day,
    Form::Format(crate::TimestampFormat::EpochDay)
);
adapter!(
    /// An ISO-8601 string in UTC with milliseconds: `"2018-12-14T03:45:24.478Z"` (26 bytes with its quotes).
    /// Reads any offset, and a number as milliseconds.
    iso8601,
    Form::Format(crate::TimestampFormat::Iso8601)
);
adapter!(
    /// The data-modeling guide's component array in UTC: `[2018, 12, 14, 3, 45, 24, 478]`, the
    /// millisecond left out when it is 0 (`[2015, 1, 28, 13, 50, 56]`).
    components,
    Form::Components
);

/// Epoch milliseconds, as the `epoch_ms` format writes them.
impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        epoch_ms::serialize(self, serializer)
    }
}

/// Epoch milliseconds within the years 0000 to 9999, or an ISO-8601 string with a zone.
impl<'de> serde::Deserialize<'de> for Timestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        epoch_ms::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;
    use serde::{Deserialize, Serialize};
    use serde_json::json;

    use crate::Timestamp;

    /// One field in each form.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Times {
        ms: Timestamp,
        #[serde(with = "super::epoch_s")]
        s: Timestamp,
        #[serde(with = "super::epoch_min")]
        min: Timestamp,
        #[serde(with = "super::epoch_h")]
        h: Timestamp,
        #[serde(with = "super::epoch_day")]
        day: Timestamp,
        #[serde(with = "super::iso8601")]
        iso: Timestamp,
        #[serde(with = "super::components")]
        parts: Timestamp,
        #[serde(with = "super::epoch_s::option")]
        maybe: Option<Timestamp>,
    }

    const AT: Timestamp = Timestamp::from_millis(1_544_759_124_478);

    fn all(at: Timestamp, maybe: Option<Timestamp>) -> Times {
        Times {
            ms: at,
            s: at,
            min: at,
            h: at,
            day: at,
            iso: at,
            parts: at,
            maybe,
        }
    }

    #[test]
    fn each_form_writes_the_seeds_numbers() {
        assert_eq!(
            serde_json::to_value(all(AT, Some(AT))).unwrap(),
            json!({
                "ms": 1_544_759_124_478_i64, "s": 1_544_759_124, "min": 25_745_985, "h": 429_099,
                "day": 17_879, "iso": "2018-12-14T03:45:24.478Z", "parts": [2018, 12, 14, 3, 45, 24, 478],
                "maybe": 1_544_759_124,
            })
        );
        let whole_second = Timestamp::from_millis(1_422_453_056_000);
        let written = serde_json::to_value(all(whole_second, None)).unwrap();
        assert_eq!(written["parts"], json!([2015, 1, 28, 13, 50, 56]));
        assert_eq!(written["maybe"], json!(null));
    }

    #[test]
    fn each_form_reads_what_it_writes_at_its_precision() {
        let written = serde_json::to_string(&all(AT, Some(AT))).unwrap();
        let read: Times = serde_json::from_str(&written).unwrap();
        assert_eq!((read.ms, read.iso, read.parts), (AT, AT, AT));
        assert_eq!(read.s.as_millis(), 1_544_759_124_000);
        assert_eq!(read.min.as_millis(), 25_745_985 * 60_000);
        assert_eq!(read.h.as_millis(), 429_099 * 3_600_000);
        assert_eq!(read.day.as_millis(), 17_879 * 86_400_000);
        assert_eq!(read.maybe, Some(read.s));
        let none: Times =
            serde_json::from_str(&serde_json::to_string(&all(AT, None)).unwrap()).unwrap();
        assert_eq!(none.maybe, None);
    }

    #[test]
    fn every_form_reads_an_iso_string_with_a_zone() {
        let iso = json!("2018-12-14T04:45:24.478+01:00");
        let read: Times = serde_json::from_value(json!({
            "ms": iso, "s": iso, "min": iso, "h": iso, "day": iso, "iso": iso, "parts": iso, "maybe": iso,
        }))
        .unwrap();
        assert_eq!(read, all(AT, Some(AT)));
    }

    #[test]
    fn what_is_not_a_time_is_an_error_that_says_why() {
        let err = |value: serde_json::Value| {
            serde_json::from_value::<Timestamp>(value)
                .unwrap_err()
                .to_string()
        };
        assert!(
            err(json!("2018-12-14T03:45:24")).contains("has no zone"),
            "{}",
            err(json!("2018-12-14T03:45:24"))
        );
        assert!(err(json!("14/12/2018")).contains("is not an ISO-8601 date-time"));
        assert!(err(json!(i64::MAX)).contains("out of range for `epoch_ms` (years 0000 to 9999)"));
        assert!(err(json!(u64::MAX)).contains("out of range"));
        assert!(err(json!(true)).contains("a timestamp in `epoch_ms`"));
        assert!(err(json!([2018, 12, 14])).contains("invalid type: sequence"));

        #[derive(Debug, Deserialize)]
        struct Parts(
            #[serde(with = "super::components")]
            #[allow(dead_code)]
            Timestamp,
        );
        let parts = |value| {
            serde_json::from_value::<Parts>(value)
                .unwrap_err()
                .to_string()
        };
        assert!(parts(json!([2018, 13, 1])).contains("[2018, 13, 1] is not a date-time"));
        assert!(parts(json!([2018, 1, 1, 0, 0, 0, 0, 0])).contains("at most 7 components"));
        assert!(parts(json!([2018, "1", 1])).contains("invalid type: string"));
    }

    #[test]
    fn iso8601_refuses_to_write_a_year_it_cannot_hold() {
        #[derive(Serialize)]
        struct Iso(#[serde(with = "super::iso8601")] Timestamp);
        let err = serde_json::to_string(&Iso(Timestamp::from_millis(i64::MAX))).unwrap_err();
        assert!(
            err.to_string()
                .contains("outside the years `iso8601` reads (0000 to 9999)"),
            "{err}"
        );
    }

    /// One adapter's property: whatever instant it writes, it reads back (at its unit's precision), and
    /// an instant it refuses to write is one it could not read back.
    fn round_trips<W: Serialize + for<'de> Deserialize<'de>>(
        millis: i64,
        unit: i64,
        wrap: fn(Timestamp) -> W,
        unwrap: fn(W) -> Timestamp,
    ) -> Result<(), TestCaseError> {
        let time = Timestamp::from_millis(millis);
        match serde_json::to_string(&wrap(time)) {
            Ok(written) => {
                let read = serde_json::from_str::<W>(&written)
                    .map_err(|err| TestCaseError::fail(format!("{written} is refused: {err}")))?;
                prop_assert_eq!(unwrap(read).as_millis(), millis.div_euclid(unit) * unit);
            }
            Err(err) => {
                prop_assert!(!time.fits_iso8601(), "{} is refused: {}", millis, err);
                prop_assert!(err.to_string().contains("(0000 to 9999)"), "{}", err);
            }
        }
        Ok(())
    }

    /// Instants anywhere in `i64`, with the edges of the years 0000 to 9999 drawn often.
    fn instants() -> impl Strategy<Value = i64> {
        const FIRST: i64 = -62_167_219_200_000; // 0000-01-01T00:00:00Z
        const END: i64 = 253_402_300_800_000; // 10000-01-01T00:00:00Z
        prop_oneof![
            any::<i64>(),
            FIRST - 200_000_000..FIRST + 200_000_000,
            END - 200_000_000..END + 200_000_000,
            FIRST..END,
            Just(i64::MIN),
            Just(i64::MAX),
            Just(FIRST),
            Just(END - 1),
            Just(END),
        ]
    }

    /// A newtype over one adapter, and the adapter's unit in milliseconds.
    macro_rules! wrapper {
        ($name:ident, $path:literal) => {
            #[derive(Serialize, Deserialize)]
            struct $name(#[serde(with = $path)] Timestamp);
        };
    }
    wrapper!(EpochS, "super::epoch_s");
    wrapper!(EpochMin, "super::epoch_min");
    wrapper!(EpochH, "super::epoch_h");
    wrapper!(EpochDay, "super::epoch_day");
    wrapper!(Iso, "super::iso8601");
    wrapper!(Parts, "super::components");

    /// What a `None` read back stands for in the option modules' property: not the instant written.
    const LOST: Timestamp = Timestamp::from_millis(i64::MIN);

    #[derive(Serialize, Deserialize)]
    struct MaybeS(#[serde(with = "super::epoch_s::option")] Option<Timestamp>);

    #[derive(Serialize, Deserialize)]
    struct MaybeParts(#[serde(with = "super::components::option")] Option<Timestamp>);

    proptest! {
        #[test]
        fn epoch_ms_round_trips(millis in instants()) {
            round_trips(millis, 1, |t| t, |t| t)?;
        }

        #[test]
        fn epoch_s_round_trips(millis in instants()) {
            round_trips(millis, 1_000, EpochS, |w| w.0)?;
        }

        #[test]
        fn epoch_min_round_trips(millis in instants()) {
            round_trips(millis, 60_000, EpochMin, |w| w.0)?;
        }

        #[test]
        fn epoch_h_round_trips(millis in instants()) {
            round_trips(millis, 3_600_000, EpochH, |w| w.0)?;
        }

        #[test]
        fn epoch_day_round_trips(millis in instants()) {
            round_trips(millis, 86_400_000, EpochDay, |w| w.0)?;
        }

        #[test]
        fn iso8601_round_trips(millis in instants()) {
            round_trips(millis, 1, Iso, |w| w.0)?;
        }

        #[test]
        fn components_round_trip(millis in instants()) {
            round_trips(millis, 1, Parts, |w| w.0)?;
        }

        #[test]
        fn the_option_modules_round_trip(millis in instants()) {
            round_trips(millis, 1_000, |t| MaybeS(Some(t)), |w| w.0.unwrap_or(LOST))?;
            round_trips(millis, 1, |t| MaybeParts(Some(t)), |w| w.0.unwrap_or(LOST))?;
        }
    }
}
