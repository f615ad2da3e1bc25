//! How each envelope field's value reads: its text (type, schema), the revision counter, the times in every
//! form the model's format and `zoneless` allow, and the revision-copy marker. Each refuses what it cannot
//! read with an error naming the field and showing the value.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use crate::envelope::EnvelopeSpec;
use crate::timestamp::{self, MAX_COMPONENTS, TimeProblem};
use crate::{Timestamp, TimestampFormat};

/// A string field of the envelope, borrowed where the input allows.
pub(super) struct TextVisitor(pub(super) &'static str);

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a string in the envelope field `{}`", self.0)
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_owned()))
    }

    /// Text a `serde_json::Value` hands over, moved rather than copied.
    fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text))
    }
}

pub(super) fn read_timestamp<'de, D: Deserializer<'de>>(
    deserializer: D,
    spec: &EnvelopeSpec,
    name: &'static str,
) -> Result<Option<Timestamp>, D::Error> {
    deserializer.deserialize_any(TimestampVisitor {
        format: spec.timestamps(),
        zoneless: spec.zoneless_offset(),
        name,
    })
}

/// `_ver`: a whole number. Anything else is most likely a field of the document's own under the name the
/// envelope's counter takes (the seeds' track stores `"ver": "1.0"`), which the error says.
pub(super) struct VerVisitor(pub(super) &'static str);

impl VerVisitor {
    fn clash<E: de::Error>(&self, shown: fmt::Arguments<'_>) -> E {
        E::custom(format_args!(
            "`{name}` = {shown} is not a revision count: `{name}` is the envelope's revision counter, a whole \
             number; if the documents use `{name}` for something of their own, store the counter under \
             another name (`#[docmodel(envelope(names(ver = \"...\")))]`) and declare `{name}` on the model",
            name = self.0
        ))
    }
}

impl<'de> Visitor<'de> for VerVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a revision count in `{}`", self.0)
    }

    fn visit_u64<E: de::Error>(self, count: u64) -> Result<u64, E> {
        Ok(count)
    }

    fn visit_i64<E: de::Error>(self, count: i64) -> Result<u64, E> {
        u64::try_from(count).map_err(|_| self.clash(format_args!("{count}")))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<u64, E> {
        Err(self.clash(format_args!("{value}")))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<u64, E> {
        Err(self.clash(format_args!("{text:?}")))
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<u64, E> {
        Err(self.clash(format_args!("{value}")))
    }

    fn visit_unit<E: de::Error>(self) -> Result<u64, E> {
        Err(self.clash(format_args!("null")))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<u64, A::Error> {
        Err(self.clash(format_args!("an array")))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<u64, A::Error> {
        Err(self.clash(format_args!("an object")))
    }
}

struct TimestampVisitor {
    format: TimestampFormat,
    zoneless: Option<i16>,
    name: &'static str,
}

impl TimestampVisitor {
    fn timestamp<E: de::Error>(&self, count: i64) -> Result<Option<Timestamp>, E> {
        // An ISO-8601 model reading a number takes it as milliseconds, the seeds' default, and only within
        // the years it can write back.
        // An epoch value is only read within the years 0000 to 9999: a value written in a finer unit (a model
        // whose `epoch_ms` became `epoch_s`) is refused rather than read as a date 1000 times too far away.
        let time = match self.format {
            TimestampFormat::Iso8601 => Some(Timestamp::from_millis(count)),
            format => Timestamp::from_epoch(count, format),
        };
        time.filter(|time| time.fits_iso8601())
            .map(Some)
            .ok_or_else(|| {
                E::custom(format_args!(
                    "the timestamp `{}` = {count} is out of range for `{}` (years 0000 to 9999); a change of \
                     timestamp format is a schema change, which a migration step converts",
                    self.name,
                    self.format.name()
                ))
            })
    }

    fn no_zone<E: de::Error>(&self, shown: fmt::Arguments<'_>) -> E {
        E::custom(format_args!(
            "the timestamp `{}` = {shown} has no zone; to read such times, say which zone they were written \
             in: `#[docmodel(envelope(zoneless = \"utc\"))]` (or an offset such as \"+01:00\")",
            self.name
        ))
    }
}

impl<'de> Visitor<'de> for TimestampVisitor {
    type Value = Option<Timestamp>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a timestamp in `{}` ({}, an ISO-8601 string or a component array)",
            self.name,
            self.format.name()
        )
    }

    fn visit_i64<E: de::Error>(self, count: i64) -> Result<Self::Value, E> {
        self.timestamp(count)
    }

    fn visit_u64<E: de::Error>(self, count: u64) -> Result<Self::Value, E> {
        let count = i64::try_from(count).map_err(|_| {
            E::custom(format_args!(
                "the timestamp `{}` = {count} is out of range",
                self.name
            ))
        })?;
        self.timestamp(count)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        match timestamp::parse_stored(text, self.zoneless) {
            Ok(time) => Ok(Some(time)),
            Err(TimeProblem::NoZone) => Err(self.no_zone(format_args!("{text:?}"))),
            Err(TimeProblem::Malformed) => Err(E::custom(format_args!(
                "the timestamp `{}` = {text:?} is not an ISO-8601 date-time",
                self.name
            ))),
        }
    }

    /// The data-modeling guide's component array, `[2015, 1, 28, 13, 50, 56]`: a time without a zone.
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut components = [0i64; MAX_COMPONENTS + 1];
        let mut len = 0;
        while let Some(component) = seq.next_element_seed(ComponentSeed(self.name))? {
            if len == components.len() {
                break;
            }
            components[len] = component;
            len += 1;
        }
        let shown = Components(&components[..len]);
        if len == components.len() {
            // More than a component array holds: read no further.
            return Err(de::Error::custom(format_args!(
                "the timestamp `{}` = {shown} has more than {MAX_COMPONENTS} components (year, month, day, hour, \
                 minute, second, millisecond)",
                self.name
            )));
        }
        let Some(offset) = self.zoneless else {
            return Err(self.no_zone(format_args!("{shown}")));
        };
        Timestamp::from_components(&components[..len], offset)
            .map(Some)
            .ok_or_else(|| {
                de::Error::custom(format_args!(
                    "the timestamp `{}` = {shown} is not a date-time: a component array is year, month, day and \
                     perhaps hour, minute, second and millisecond, each in its range",
                    self.name
                ))
            })
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// One component of a component array: a whole number.
struct ComponentSeed(&'static str);

impl<'de> DeserializeSeed<'de> for ComponentSeed {
    type Value = i64;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<i64, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ComponentSeed {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a whole number in the component array of the timestamp `{}`",
            self.0
        )
    }

    fn visit_i64<E: de::Error>(self, component: i64) -> Result<i64, E> {
        Ok(component)
    }

    fn visit_u64<E: de::Error>(self, component: u64) -> Result<i64, E> {
        i64::try_from(component).map_err(|_| {
            E::custom(format_args!(
                "the timestamp `{}` has the component {component}, out of any range",
                self.0
            ))
        })
    }
}

/// A component array as it was stored: `[2010, 7, 15]`.
struct Components<'c>(&'c [i64]);

impl fmt::Display for Components<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (at, component) in self.0.iter().enumerate() {
            if at > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{component}")?;
        }
        f.write_str("]")
    }
}

/// The revision-copy marker: the key of the document a copy copies, or nothing (`null`). Anything else is
/// most likely a field of the document's own under the marker's name, which the error says.
pub(super) struct CopyOfVisitor(pub(super) &'static str);

impl<'de> Visitor<'de> for CopyOfVisitor {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a key in `{name}`, docmodel's revision-copy marker; if the documents use `{name}` for something of \
             their own, store the marker under another name (`#[docmodel(envelope(names(copy_of = \"...\")))]`)",
            name = self.0
        )
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Some(key.to_owned()))
    }

    fn visit_string<E: de::Error>(self, key: String) -> Result<Self::Value, E> {
        Ok(Some(key))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The digests of the versions saved from a revision copy ([`EnvelopeField::CopyNext`](crate::EnvelopeField::CopyNext)):
/// a list of strings, or nothing (`null`), checked without being kept (a merge reads them from the copy's
/// bytes). Anything else is most likely a field of the document's own under the name, which the error says.
pub(super) struct CopyNextVisitor(pub(super) &'static str);

impl<'de> Visitor<'de> for CopyNextVisitor {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a list of digests in `{name}`, docmodel's record of the versions saved from a revision copy; if the \
             documents use `{name}` for something of their own, store the record under another name \
             (`#[docmodel(envelope(names(copy_next = \"...\")))]`)",
            name = self.0
        )
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element_seed(DigestSeed(self.0))?.is_some() {}
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(())
    }
}

/// One entry of a copy's record: a string, read without keeping it.
struct DigestSeed(&'static str);

impl<'de> de::DeserializeSeed<'de> for DigestSeed {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for DigestSeed {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        CopyNextVisitor(self.0).expecting(f)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}
