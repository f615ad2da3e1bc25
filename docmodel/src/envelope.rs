//! The managed envelope: the fields docmodel keeps beside a model's own (`_type`, `_schema`, `_ver`, ...).

use crate::timestamp::TimestampFormat;
use crate::{Error, Timestamp};

/// Where the envelope fields go in the stored JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// Top-level fields with a leading underscore: `{"_type": "user", "_schema": "3.0", ..., "userId": 1}`.
    #[default]
    Flat,
    /// Top-level fields without the underscore, which Sync Gateway reserves: `{"type": "user", ...}`.
    Plain,
    /// One object: `{"meta": {"type": "user", "schema": "3.0", ...}, "userId": 1}`.
    Meta,
    /// The data-modeling guide's root attribute: the document is one top-level attribute named by the type,
    /// holding the envelope (as `plain` names it, without the type) and the body:
    /// `{"track": {"schema": "1.0", "ver": 1, ..., "title": "My House"}}`.
    Root,
}

impl Layout {
    /// The name used in `#[docmodel(envelope(layout = "..."))]`.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Flat => "flat",
            Layout::Plain => "plain",
            Layout::Meta => "meta",
            Layout::Root => "root",
        }
    }
}

/// How many fields an envelope has: [`EnvelopeField::ALL`]'s length.
const FIELDS: usize = 11;

/// What a name at the envelope's level of a document is ([`EnvelopeSpec::envelope_at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnvelopeName {
    /// The `meta` layout's object holding the envelope.
    Meta,
    /// A field of the envelope.
    Field(EnvelopeField),
}

/// One field of the envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnvelopeField {
    /// The document type, `_type`. Always written.
    Type,
    /// The schema version, `_schema`. Always written.
    Schema,
    /// The revision counter, `_ver`. Always written.
    Ver,
    /// When the document was created, `_created`.
    Created,
    /// Who created it, `_createdBy` (optional).
    CreatedBy,
    /// When it was last modified, `_modified`.
    Modified,
    /// Who modified it last, `_modifiedBy` (optional).
    ModifiedBy,
    /// When it was last read, `_accessed` (optional).
    Accessed,
    /// A two-letter ISO country code, `_geo` (optional).
    Geo,
    /// On a revision copy only, the key of the document it copies, `_copyOf`: what another client filters
    /// copies out by (`{"_copyOf": {"$exists": false}}` in Mango, `_copyOf IS MISSING` in SQL++). The
    /// repository writes it into each copy it keeps, and never into a document; a model always reads it.
    CopyOf,
    /// On a revision copy only, the digests of the versions saved from it, `_copyNext`: how a merge follows each
    /// side's own history from its document down to the version the sides share, rather than trusting a copy
    /// only one side wrote. The repository writes it into each copy it keeps, beside [`EnvelopeField::CopyOf`],
    /// and never into a document; a model always reads it.
    CopyNext,
}

impl EnvelopeField {
    /// Every field, in the order they are written.
    pub const ALL: [EnvelopeField; FIELDS] = [
        EnvelopeField::Type,
        EnvelopeField::Schema,
        EnvelopeField::Ver,
        EnvelopeField::Created,
        EnvelopeField::CreatedBy,
        EnvelopeField::Modified,
        EnvelopeField::ModifiedBy,
        EnvelopeField::Accessed,
        EnvelopeField::Geo,
        EnvelopeField::CopyOf,
        EnvelopeField::CopyNext,
    ];

    /// The field's name in the `plain` and `meta` layouts: `type`, `createdBy`, ...
    pub const fn plain_name(self) -> &'static str {
        match self {
            EnvelopeField::Type => "type",
            EnvelopeField::Schema => "schema",
            EnvelopeField::Ver => "ver",
            EnvelopeField::Created => "created",
            EnvelopeField::CreatedBy => "createdBy",
            EnvelopeField::Modified => "modified",
            EnvelopeField::ModifiedBy => "modifiedBy",
            EnvelopeField::Accessed => "accessed",
            EnvelopeField::Geo => "geo",
            EnvelopeField::CopyOf => "copyOf",
            EnvelopeField::CopyNext => "copyNext",
        }
    }

    /// The field's name in the `flat` layout: `_type`, `_createdBy`, ...
    pub const fn flat_name(self) -> &'static str {
        match self {
            EnvelopeField::Type => "_type",
            EnvelopeField::Schema => "_schema",
            EnvelopeField::Ver => "_ver",
            EnvelopeField::Created => "_created",
            EnvelopeField::CreatedBy => "_createdBy",
            EnvelopeField::Modified => "_modified",
            EnvelopeField::ModifiedBy => "_modifiedBy",
            EnvelopeField::Accessed => "_accessed",
            EnvelopeField::Geo => "_geo",
            EnvelopeField::CopyOf => "_copyOf",
            EnvelopeField::CopyNext => "_copyNext",
        }
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

/// How a model's envelope is laid out: the layout, the field names, which optional fields are kept and the
/// timestamp format.
///
/// Built in `const` context, so a team writes its choice once in a [`Conventions`] type:
///
/// ```
/// use docmodel::{Conventions, EnvelopeField, EnvelopeSpec, Layout, TimestampFormat};
///
/// pub struct Acme;
/// impl Conventions for Acme {
///     const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT
///         .with_layout(Layout::Plain)
///         .with_timestamps(TimestampFormat::EpochS)
///         .keep(EnvelopeField::ModifiedBy)
///         .rename(EnvelopeField::Type, "docType");
/// }
/// assert_eq!(Acme::ENVELOPE.name(EnvelopeField::Type), "docType");
/// assert_eq!(Acme::ENVELOPE.name(EnvelopeField::Schema), "schema");
/// assert!(Acme::ENVELOPE.keeps(EnvelopeField::ModifiedBy));
/// assert!(!Acme::ENVELOPE.keeps(EnvelopeField::Geo));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvelopeSpec {
    layout: Layout,
    timestamps: TimestampFormat,
    kept: [bool; FIELDS],
    renamed: [Option<&'static str>; FIELDS],
    /// A legacy name of each field, read as the field and never written ([`EnvelopeSpec::with_legacy_name`]).
    legacy: [Option<&'static str>; FIELDS],
    /// Whether any field has a legacy name.
    any_legacy: bool,
    /// The name of each field, resolved from `layout` and `renamed` whenever either changes: reading a
    /// document looks every key up here.
    names: [&'static str; FIELDS],
    /// The first bytes of the kept names (legacy names too), as a 256-bit set: most body keys are told apart by it alone.
    first_bytes: [u64; 4],
    /// For each name length (31 standing for 31 and more), the kept fields with a name of that length, as
    /// bits: an envelope key is compared with one name, not ten.
    by_length: [u16; 32],
    meta_name: &'static str,
    /// The offset, in minutes east of UTC, that stored times without a zone are read at; `None` refuses them.
    zoneless: Option<i16>,
}

impl EnvelopeSpec {
    /// The seeds' default: `flat` layout with `_type`, `_schema`, `_ver`, `_created`, `_modified`, timestamps
    /// in epoch milliseconds.
    pub const DEFAULT: EnvelopeSpec = EnvelopeSpec {
        layout: Layout::Flat,
        timestamps: TimestampFormat::EpochMs,
        kept: [
            true, true, true, true, false, true, false, false, false, true, true,
        ],
        renamed: [None; FIELDS],
        legacy: [None; FIELDS],
        any_legacy: false,
        names: [""; FIELDS],
        first_bytes: [0; 4],
        by_length: [0; 32],
        meta_name: "meta",
        zoneless: None,
    }
    .resolve_names();

    /// The same spec with another layout. Renamed fields keep their names.
    pub const fn with_layout(mut self, layout: Layout) -> Self {
        self.layout = layout;
        self.resolve_names()
    }

    /// The same spec with another timestamp format.
    pub const fn with_timestamps(mut self, format: TimestampFormat) -> Self {
        self.timestamps = format;
        self
    }

    /// The same spec, also keeping the optional `field` (`CreatedBy`, `ModifiedBy`, `Accessed`, `Geo`).
    pub const fn keep(mut self, field: EnvelopeField) -> Self {
        self.kept[field.index()] = true;
        self.resolve_names()
    }

    /// The same spec with `field` stored under `name`.
    pub const fn rename(mut self, field: EnvelopeField, name: &'static str) -> Self {
        self.renamed[field.index()] = Some(name);
        self.resolve_names()
    }

    /// The same spec, also reading `field` where a document stores it under `name`, another program's
    /// spelling of it (the data-modeling guide's track stores `_type` where a model on CouchDB writes `type`).
    /// A document that holds the field under both names is refused, naming both. Documents are written under
    /// the field's own [name](EnvelopeSpec::name) only: a save, or [`Repo::migrate_all`] with
    /// [`MigrateAll::rewrite_adopted`], moves a document to it.
    ///
    /// Reads by key, `find`, `count`, index entries and migration steps see the field under its own name. On
    /// CouchDB, a query tells the model's documents by their type under either name (it reads the model's key
    /// range); one that selects by another envelope field there (counting older schemas, ordering by a time)
    /// sees that field under its own name only.
    ///
    /// ```
    /// use docmodel::{EnvelopeField, EnvelopeSpec, Layout};
    ///
    /// const SPEC: EnvelopeSpec = EnvelopeSpec::DEFAULT
    ///     .with_layout(Layout::Plain)
    ///     .with_legacy_name(EnvelopeField::Type, "_type");
    /// assert_eq!(SPEC.name(EnvelopeField::Type), "type");
    /// assert_eq!(SPEC.legacy_name(EnvelopeField::Type), Some("_type"));
    /// ```
    ///
    /// [`Repo::migrate_all`]: crate::Repo::migrate_all
    /// [`MigrateAll::rewrite_adopted`]: crate::MigrateAll::rewrite_adopted
    pub const fn with_legacy_name(mut self, field: EnvelopeField, name: &'static str) -> Self {
        self.legacy[field.index()] = Some(name);
        self.any_legacy = true;
        self.resolve_names()
    }

    /// The legacy name `field` is also read under, if any ([`EnvelopeSpec::with_legacy_name`]).
    #[inline]
    pub const fn legacy_name(&self, field: EnvelopeField) -> Option<&'static str> {
        self.legacy[field.index()]
    }

    /// What an error names as the field a document's type is read from: its name, or in the `root` layout
    /// the root attribute, whose name is the type.
    pub(crate) const fn type_field_label(&self) -> &'static str {
        match self.layout {
            Layout::Root => "(the root attribute)",
            _ => self.name(EnvelopeField::Type),
        }
    }

    /// Whether `name`, under which [`EnvelopeSpec::field_named`] found `field`, is its legacy name.
    #[inline]
    pub(crate) fn is_legacy_name(&self, field: EnvelopeField, name: &str) -> bool {
        self.any_legacy && name != self.name(field)
    }

    /// Whether any field has a legacy name.
    #[inline]
    pub(crate) const fn has_legacy_names(&self) -> bool {
        self.any_legacy
    }

    /// The same spec with the `meta` layout's object stored under `name`.
    pub const fn with_meta_name(mut self, name: &'static str) -> Self {
        self.meta_name = name;
        self
    }

    /// The same spec, reading stored times that carry no zone (`"2015-01-28T13:50:56"`, the component array
    /// `[2015, 1, 28, 13, 50, 56]`) as times at `offset_minutes` east of UTC (`0` for UTC), as the
    /// data-modeling guide prints them. Without it they are refused, naming the field and the value. Times
    /// are always written back in the spec's own [format](EnvelopeSpec::timestamps), in UTC.
    ///
    /// Panics (at compile time in a `const`) on an offset beyond ±23:59.
    pub const fn with_zoneless_offset(mut self, offset_minutes: i16) -> Self {
        assert!(
            offset_minutes > -24 * 60 && offset_minutes < 24 * 60,
            "a zone offset is within ±23:59"
        );
        self.zoneless = Some(offset_minutes);
        self
    }

    /// The offset stored times without a zone are read at, if any ([`with_zoneless_offset`]).
    ///
    /// [`with_zoneless_offset`]: EnvelopeSpec::with_zoneless_offset
    #[inline]
    pub const fn zoneless_offset(&self) -> Option<i16> {
        self.zoneless
    }

    /// The layout.
    #[inline]
    pub const fn layout(&self) -> Layout {
        self.layout
    }

    /// The timestamp format.
    #[inline]
    pub const fn timestamps(&self) -> TimestampFormat {
        self.timestamps
    }

    /// The name of the object holding the envelope in the `meta` layout.
    #[inline]
    pub const fn meta_name(&self) -> &'static str {
        self.meta_name
    }

    /// Whether documents carry `field`.
    #[inline]
    pub const fn keeps(&self, field: EnvelopeField) -> bool {
        self.kept[field.index()]
    }

    /// The name `field` is stored under (inside the meta object in the `meta` layout).
    #[inline]
    pub const fn name(&self, field: EnvelopeField) -> &'static str {
        self.names[field.index()]
    }

    const fn resolve_names(mut self) -> Self {
        let mut i = 0;
        while i < EnvelopeField::ALL.len() {
            let field = EnvelopeField::ALL[i];
            self.names[i] = match self.renamed[i] {
                Some(name) => name,
                None => match self.layout {
                    Layout::Flat => field.flat_name(),
                    Layout::Plain | Layout::Meta | Layout::Root => field.plain_name(),
                },
            };
            i += 1;
        }
        self.first_bytes = [0; 4];
        self.by_length = [0; 32];
        let mut i = 0;
        while i < EnvelopeField::ALL.len() {
            if self.kept[i] {
                self.index_name(i, self.names[i]);
                if let Some(legacy) = self.legacy[i] {
                    self.index_name(i, legacy);
                }
            }
            i += 1;
        }
        self
    }

    /// Enters `name`, a name of field `i`, in the tables [`EnvelopeSpec::field_named`] looks names up in.
    const fn index_name(&mut self, i: usize, name: &str) {
        let name = name.as_bytes();
        if !name.is_empty() {
            self.first_bytes[(name[0] / 64) as usize] |= 1 << (name[0] % 64);
            self.by_length[length_slot(name.len())] |= 1 << i;
        }
    }

    /// What `name` is at the level of a document that holds the envelope (the top; the root attribute's
    /// object in the `root` layout): the meta object in the `meta` layout, an envelope field by its name or
    /// legacy name in the others, or (`None`) the body's. The reader takes these from the body; the path of
    /// a failed read does not name them.
    #[inline]
    pub(crate) fn envelope_at(&self, name: &[u8]) -> Option<EnvelopeName> {
        match self.layout {
            Layout::Meta => (name == self.meta_name.as_bytes()).then_some(EnvelopeName::Meta),
            Layout::Flat | Layout::Plain | Layout::Root => {
                self.field_named_bytes(name).map(EnvelopeName::Field)
            }
        }
    }

    /// The envelope field stored under the top-level (or, in the `meta` layout, meta-object) name `name`: its
    /// name, or its legacy name.
    #[inline]
    pub(crate) fn field_named(&self, name: &str) -> Option<EnvelopeField> {
        self.field_named_bytes(name.as_bytes())
    }

    /// [`EnvelopeSpec::field_named`], for a name as the bytes of its JSON text without escapes.
    #[inline]
    pub(crate) fn field_named_bytes(&self, name: &[u8]) -> Option<EnvelopeField> {
        let first = *name.first()?;
        if self.first_bytes[usize::from(first / 64)] & (1 << (first % 64)) == 0 {
            return None;
        }
        let mut candidates = self.by_length[length_slot(name.len())];
        while candidates != 0 {
            let at = candidates.trailing_zeros() as usize;
            if self.names[at].as_bytes() == name
                || self.legacy[at].is_some_and(|legacy| legacy.as_bytes() == name)
            {
                return EnvelopeField::ALL.get(at).copied();
            }
            candidates &= candidates - 1;
        }
        None
    }
}

impl Default for EnvelopeSpec {
    fn default() -> Self {
        EnvelopeSpec::DEFAULT
    }
}

/// The attribute a document in `spec`'s layout holds its body under: the type's name `type_name` in the
/// `root` layout (`{"track": {"title": ...}}`); `None` in the others, where the body's fields are the
/// document's own. What reads a body field by its path in a stored document (a merge's rules, a query's
/// cursor, Mango's field names) asks this.
pub(crate) fn body_attribute<'t>(spec: &EnvelopeSpec, type_name: &'t str) -> Option<&'t str> {
    match spec.layout() {
        Layout::Root => Some(type_name),
        Layout::Flat | Layout::Plain | Layout::Meta => None,
    }
}

/// The object of `document` holding its envelope fields as `spec` lays them out: the document itself (`flat`,
/// `plain`), its meta object (`meta`), or the object of its one top-level attribute (`root`); `None` when it
/// has none.
pub(crate) fn envelope_object<'d>(
    spec: &EnvelopeSpec,
    document: &'d mut crate::JsonObject,
) -> Option<&'d mut crate::JsonObject> {
    match spec.layout() {
        Layout::Flat | Layout::Plain => Some(document),
        Layout::Meta => document.get_mut(spec.meta_name())?.as_object_mut(),
        Layout::Root if document.len() == 1 => document.values_mut().next()?.as_object_mut(),
        Layout::Root => None,
    }
}

/// Moves each envelope field `document` stores under its legacy name ([`EnvelopeSpec::with_legacy_name`]) to
/// the field's own name, so that what reads the document as JSON (a migration step, a query run by the
/// repository) sees it as the model names it. Fails, naming both, where a field is stored under both names;
/// the fields before it are moved.
pub(crate) fn rename_legacy(
    spec: &EnvelopeSpec,
    document: &mut crate::JsonObject,
) -> Result<(), Error> {
    if !spec.has_legacy_names() {
        return Ok(());
    }
    let Some(envelope) = envelope_object(spec, document) else {
        return Ok(());
    };
    for field in EnvelopeField::ALL {
        let Some(legacy) = spec.legacy_name(field).filter(|_| spec.keeps(field)) else {
            continue;
        };
        let Some(value) = envelope.remove(legacy) else {
            continue;
        };
        let name = spec.name(field);
        if envelope.contains_key(name) {
            envelope.insert(legacy.to_owned(), value);
            return Err(Error::Codec {
                key: None,
                field: Some(name.to_owned()),
                source: serde::de::Error::custom(format_args!(
                    "duplicate field `{name}`: the document holds it under `{name}` and under its legacy \
                     name `{legacy}`"
                )),
            });
        }
        envelope.insert(name.to_owned(), value);
    }
    Ok(())
}

/// Panics, at compile time when called in a `const`, if a body field's JSON name is an envelope name of `spec`.
pub const fn assert_no_collision(spec: &EnvelopeSpec, body_names: &[&str]) {
    let mut i = 0;
    while i < body_names.len() {
        let name = body_names[i];
        let taken = if matches!(spec.layout, Layout::Meta) {
            str_eq(name, spec.meta_name)
        } else {
            let mut j = 0;
            let mut taken = false;
            while j < EnvelopeField::ALL.len() {
                let field = EnvelopeField::ALL[j];
                taken |= spec.keeps(field)
                    && (str_eq(name, spec.name(field))
                        || matches!(spec.legacy_name(field), Some(legacy) if str_eq(name, legacy)));
                j += 1;
            }
            taken
        };
        if taken {
            panic!(
                "this field's JSON name is taken by an envelope field; rename the field (`#[serde(rename = ...)]`) or the envelope field"
            );
        }
        i += 1;
    }
}

/// Panics, at compile time when called in a `const`, if two kept fields of `spec` share a name or a name is
/// empty.
pub const fn assert_envelope_valid(spec: &EnvelopeSpec) {
    if matches!(spec.layout, Layout::Meta) && spec.meta_name.is_empty() {
        panic!("the envelope's meta object has an empty name");
    }
    let mut i = 0;
    while i < EnvelopeField::ALL.len() {
        if spec.kept[i] {
            if spec.names[i].is_empty() {
                panic!("an envelope field has an empty name");
            }
            let mut j = 0;
            while j < i {
                if spec.kept[j] && str_eq(spec.names[i], spec.names[j]) {
                    panic!(
                        "two envelope fields have the same name; documents could not be read back"
                    );
                }
                j += 1;
            }
            if let Some(legacy) = spec.legacy[i] {
                let mut j = 0;
                while j < EnvelopeField::ALL.len() {
                    let taken = spec.kept[j]
                        && (str_eq(legacy, spec.names[j])
                            || (j != i
                                && matches!(spec.legacy[j], Some(other) if str_eq(legacy, other))));
                    if taken {
                        panic!(
                            "an envelope field's legacy name is a name of another envelope field, or its own; documents could not be read back"
                        );
                    }
                    j += 1;
                }
            }
        }
        i += 1;
    }
}

/// Panics, at compile time when called in a `const`, if `spec` lays documents out under their root attribute
/// and the model reads other spellings of its type (`aliases`) or documents without one (`untyped`).
pub const fn assert_root_layout(spec: &EnvelopeSpec, aliases: usize, untyped: bool) {
    if matches!(spec.layout, Layout::Root) && aliases > 0 {
        panic!(
            "the `root` layout names fields under the root attribute, the type: a model of it cannot read aliases"
        );
    }
    if matches!(spec.layout, Layout::Root) && untyped {
        panic!(
            "a document of the `root` layout always has a type, its root attribute: remove `untyped`"
        );
    }
}

/// Panics, at compile time when called in a `const`, if a key template's delimiter is not the conventions'.
pub const fn assert_delimiter(required: Option<&str>, delimiter: &str) {
    if let Some(required) = required
        && !str_eq(required, delimiter)
    {
        panic!(
            "this key template's delimiter is not the one its conventions require (`Conventions::DELIMITER`)"
        );
    }
}

const fn length_slot(len: usize) -> usize {
    if len < 31 { len } else { 31 }
}

/// `a == b`, in a `const`.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A team's envelope choices, written once and named by every model with `#[docmodel(conventions = T)]`.
///
/// The seeds insist on one enterprise-wide choice of layout, names and timestamp format; a `Conventions`
/// type is that choice in code. Options in a model's own `envelope(...)` are applied on top.
///
/// ```
/// use docmodel::{Conventions, DocModel, EnvelopeSpec, Layout, TimestampFormat};
///
/// pub struct Mobile;
/// impl Conventions for Mobile {
///     // Sync Gateway reserves top-level names starting with `_`.
///     const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT.with_layout(Layout::Plain).with_timestamps(TimestampFormat::EpochS);
/// }
///
/// #[derive(serde::Serialize, serde::Deserialize, DocModel)]
/// #[docmodel(type = "note", schema = "1.0", key = "note::{id}", conventions = Mobile)]
/// struct Note { id: u64 }
///
/// assert_eq!(Note::ENVELOPE, Mobile::ENVELOPE);
/// ```
pub trait Conventions {
    /// The envelope every model naming these conventions starts from.
    const ENVELOPE: EnvelopeSpec;

    /// The key delimiter every model naming these conventions must use (`"::"`, `":"`, ...); `None` lets
    /// each key template choose. A template with another delimiter fails to compile.
    const DELIMITER: Option<&'static str> = None;
}

/// The conventions of a model that names none: [`EnvelopeSpec::DEFAULT`].
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultConventions;

impl Conventions for DefaultConventions {
    const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT;
}

/// The envelope values of one document.
///
/// `ver` counts saves (1 after the first insert); the timestamps and actors are kept by the repository, or set
/// by hand. Fields the model's [`EnvelopeSpec`] does not keep are neither written nor read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Envelope {
    /// The revision counter, `_ver`.
    pub ver: u64,
    /// On a revision copy read as a document ([`Repo::revisions`](crate::Repo::revisions)), the key of the
    /// document it copies, `_copyOf`; `None` on a document docmodel wrote, and on a copy written before copies
    /// carried it. The repository marks the copies it keeps from their stored bytes, and a restored version
    /// is written without it; a document another program stored with the field keeps it.
    pub copy_of: Option<String>,
    /// `_created`.
    pub created: Option<Timestamp>,
    /// `_createdBy`.
    pub created_by: Option<String>,
    /// `_modified`.
    pub modified: Option<Timestamp>,
    /// `_modifiedBy`.
    pub modified_by: Option<String>,
    /// `_accessed`.
    pub accessed: Option<Timestamp>,
    /// `_geo`, a two-letter ISO country code.
    pub geo: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_are_the_seeds() {
        let names: Vec<&str> = EnvelopeField::ALL
            .into_iter()
            .filter(|field| EnvelopeSpec::DEFAULT.keeps(*field))
            .map(|field| EnvelopeSpec::DEFAULT.name(field))
            .collect();
        assert_eq!(
            names,
            [
                "_type",
                "_schema",
                "_ver",
                "_created",
                "_modified",
                "_copyOf",
                "_copyNext"
            ]
        );
        assert_eq!(
            EnvelopeSpec::DEFAULT.field_named("_modified"),
            Some(EnvelopeField::Modified)
        );
        assert_eq!(
            EnvelopeSpec::DEFAULT.field_named("_createdBy"),
            None,
            "not kept"
        );
        assert_eq!(EnvelopeSpec::DEFAULT.field_named("firstName"), None);
    }

    #[test]
    fn renames_survive_a_change_of_layout() {
        let spec = EnvelopeSpec::DEFAULT
            .rename(EnvelopeField::Type, "kind")
            .with_layout(Layout::Plain);
        assert_eq!(spec.name(EnvelopeField::Type), "kind");
        assert_eq!(spec.name(EnvelopeField::Schema), "schema");
        assert_eq!(
            spec.with_layout(Layout::Flat).name(EnvelopeField::Schema),
            "_schema"
        );
    }
}
