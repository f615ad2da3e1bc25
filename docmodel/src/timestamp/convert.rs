//! Conversions to and from the time crates, each behind the feature of its name. A conversion into a
//! [`Timestamp`] rounds down to the millisecond; one out of it fails with [`OutOfRange`] where the other type
//! cannot hold the instant.

#[cfg(feature = "jiff")]
mod jiff_impls {
    use crate::timestamp::{OutOfRange, Timestamp};

    /// The same instant, rounded down to the millisecond.
    impl From<jiff::Timestamp> for Timestamp {
        fn from(time: jiff::Timestamp) -> Self {
            // jiff holds the years -9999 to 9999: its milliseconds always fit.
            Timestamp::from_millis(time.as_nanosecond().div_euclid(1_000_000) as i64)
        }
    }

    /// The same instant, where jiff holds it (-9999-01-02T01:59:59Z to 9999-12-30T22:00:00Z).
    impl TryFrom<Timestamp> for jiff::Timestamp {
        type Error = OutOfRange;

        fn try_from(time: Timestamp) -> Result<Self, OutOfRange> {
            jiff::Timestamp::from_millisecond(time.as_millis()).map_err(|_| OutOfRange(time))
        }
    }
}

#[cfg(feature = "chrono")]
mod chrono_impls {
    use crate::timestamp::{OutOfRange, Timestamp};

    /// The same instant, rounded down to the millisecond.
    impl<Tz: chrono::TimeZone> From<chrono::DateTime<Tz>> for Timestamp {
        fn from(time: chrono::DateTime<Tz>) -> Self {
            Timestamp::from_millis(time.timestamp_millis())
        }
    }

    /// The same instant in UTC, where chrono holds it (about 262,000 years either side of the epoch).
    impl TryFrom<Timestamp> for chrono::DateTime<chrono::Utc> {
        type Error = OutOfRange;

        fn try_from(time: Timestamp) -> Result<Self, OutOfRange> {
            chrono::DateTime::from_timestamp_millis(time.as_millis()).ok_or(OutOfRange(time))
        }
    }
}

#[cfg(feature = "time")]
mod time_impls {
    use crate::timestamp::{OutOfRange, Timestamp};

    /// The same instant, rounded down to the millisecond.
    impl From<time::OffsetDateTime> for Timestamp {
        fn from(time: time::OffsetDateTime) -> Self {
            // `time` holds the years -9999 to 9999 by default, ±999,999 with its `large-dates`: the
            // milliseconds of either fit.
            Timestamp::from_millis(time.unix_timestamp_nanos().div_euclid(1_000_000) as i64)
        }
    }

    /// The same instant in UTC, where `time` holds it.
    impl TryFrom<Timestamp> for time::OffsetDateTime {
        type Error = OutOfRange;

        fn try_from(time: Timestamp) -> Result<Self, OutOfRange> {
            let nanos = i128::from(time.as_millis()) * 1_000_000;
            time::OffsetDateTime::from_unix_timestamp_nanos(nanos).map_err(|_| OutOfRange(time))
        }
    }
}

#[cfg(all(test, feature = "jiff", feature = "chrono", feature = "time"))]
mod tests {
    use crate::timestamp::{OutOfRange, Timestamp};

    #[test]
    fn each_crate_gives_the_same_instant_back() {
        for millis in [
            0,
            1_544_759_124_478,
            -1,
            -62_167_219_200_000,
            253_402_128_000_000,
        ] {
            let t = Timestamp::from_millis(millis);
            let jiff = jiff::Timestamp::try_from(t).unwrap();
            assert_eq!(Timestamp::from(jiff), t);
            let chrono = chrono::DateTime::<chrono::Utc>::try_from(t).unwrap();
            assert_eq!(Timestamp::from(chrono), t);
            let time = time::OffsetDateTime::try_from(t).unwrap();
            assert_eq!(Timestamp::from(time), t);
            assert_eq!(
                chrono.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                t.to_string()
            );
        }
    }

    #[test]
    fn a_finer_instant_rounds_down_and_one_out_of_range_is_refused() {
        let jiff = jiff::Timestamp::from_nanosecond(-1).unwrap();
        assert_eq!(Timestamp::from(jiff), Timestamp::from_millis(-1));
        let time = time::OffsetDateTime::from_unix_timestamp_nanos(1_999_999).unwrap();
        assert_eq!(Timestamp::from(time), Timestamp::from_millis(1));
        let far = Timestamp::from_millis(i64::MAX);
        assert_eq!(jiff::Timestamp::try_from(far), Err(OutOfRange(far)));
        assert_eq!(
            chrono::DateTime::<chrono::Utc>::try_from(far),
            Err(OutOfRange(far))
        );
        assert_eq!(time::OffsetDateTime::try_from(far), Err(OutOfRange(far)));
    }
}
