//! The stored shape of a docmodel model's schema version, as its schema lock records it ([`Shape`], one
//! [`Record`] per stored field), and what differs between two shapes ([`Change`], [`changes`]): written once,
//! and used by docmodel's derive (the compile-time check of a model against the lock of its version), by
//! `docmodel::lock::check` (every locked version, at test time) and by `Repo::ensure_schema` (the record a
//! store keeps, and its [`fingerprint`](Shape::fingerprint)).
//!
//! It also holds the grammar of schema versions ([`SchemaVersion`]), which the derive reads a model's declared
//! versions with and the runtime reads documents' versions with.
//!
//! Not public API: use it through `docmodel`, which pins this crate's version and re-exports [`Change`] as
//! `docmodel::lock::Change` and [`SchemaVersion`] as `docmodel::SchemaVersion`.

// docs.rs: each feature-gated item says which feature it needs (the `semver` conversions of `SchemaVersion`).
#![cfg_attr(docsrs, feature(doc_cfg))]

mod changes;
mod layout;
mod version;

pub use changes::{Change, changes, defs_changes, fix, type_change};
pub use layout::{LOCKS, lock_file, lock_root, model_dir, moved_lock};
pub use version::{SchemaVersion, SchemaVersionError};

use serde_json::{Map, Value};

/// One stored field of a model at a schema version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The Rust field's name.
    pub field: String,
    /// The name it is stored under.
    pub stored: String,
    /// Its type as written, without the paths in front of names (`Vec<Phone>`).
    pub ty: String,
    /// Whether a document without it does not read.
    pub required: bool,
    /// The names it is read from, where they are not just `stored` (`alias`, `rename(deserialize = ...)`);
    /// empty otherwise.
    pub reads: Vec<String>,
}

impl Record {
    /// The names it is read from.
    pub fn read_names(&self) -> Vec<String> {
        match self.reads.is_empty() {
            true => vec![self.stored.clone()],
            false => self.reads.clone(),
        }
    }

    /// As a lock records it: `{"field":..,"stored":..,"type":..,"required":..}`, with `"reads"` where there
    /// are other names.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("field".into(), self.field.clone().into());
        object.insert("stored".into(), self.stored.clone().into());
        object.insert("type".into(), self.ty.clone().into());
        object.insert("required".into(), self.required.into());
        if !self.reads.is_empty() {
            object.insert("reads".into(), self.reads.clone().into());
        }
        Value::Object(object)
    }

    /// Reads what [`to_json`](Record::to_json) writes.
    pub fn from_json(value: &Value) -> Result<Self, String> {
        let text = |name: &str| {
            value
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("a field has no `{name}`"))
        };
        Ok(Record {
            field: text("field")?,
            stored: text("stored")?,
            ty: text("type")?,
            required: value
                .get("required")
                .and_then(Value::as_bool)
                .ok_or("a field has no `required`")?,
            reads: match value.get("reads") {
                None => Vec::new(),
                Some(names) => names
                    .as_array()
                    .and_then(|names| {
                        names
                            .iter()
                            .map(|name| name.as_str().map(str::to_owned))
                            .collect()
                    })
                    .ok_or("a field's `reads` is not a list of names")?,
            },
        })
    }
}

/// A model's stored shape at one schema version: what a lock file and a store's schema record hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// The document type.
    pub type_name: String,
    /// The schema version, as `SchemaVersion` shows it (`3.0`).
    pub schema: String,
    /// The Rust struct's name, where recorded: who wrote the lock (a lock names it since the lock
    /// directories are by type).
    pub model: Option<String>,
    /// The stored fields, in the struct's order.
    pub fields: Vec<Record>,
    /// The shapes of the structs the body holds, by name (the JSON Schema's `$defs`), where known: with
    /// docmodel's feature `json-schema`.
    pub defs: Option<Map<String, Value>>,
}

impl Shape {
    /// Reads a lock file's text (or a schema record's JSON).
    pub fn parse(text: &str) -> Result<Self, String> {
        let value: Value =
            serde_json::from_str(text).map_err(|err| format!("it is not JSON: {err}"))?;
        Self::from_json(&value)
    }

    /// Reads a lock's JSON.
    pub fn from_json(value: &Value) -> Result<Self, String> {
        let text = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
        let fields = value
            .get("fields")
            .and_then(Value::as_array)
            .ok_or("it has no `fields` list")?;
        Ok(Shape {
            type_name: text("type").ok_or("it has no `type`")?,
            schema: text("schema").ok_or("it has no `schema`")?,
            model: text("model"),
            fields: fields
                .iter()
                .map(Record::from_json)
                .collect::<Result<_, _>>()?,
            defs: match value.get("defs") {
                None => None,
                Some(Value::Object(defs)) => Some(defs.clone()),
                Some(_) => return Err("its `defs` is not an object".to_owned()),
            },
        })
    }

    /// The JSON a lock file holds, with a field per line (for diffs): the file's text.
    pub fn lock_text(&self) -> String {
        let line = |value: Value| value.to_string();
        let mut text = format!(
            "{{\n  \"type\": {},\n  \"schema\": {},\n",
            line(self.type_name.clone().into()),
            line(self.schema.clone().into())
        );
        if let Some(model) = &self.model {
            text.push_str(&format!("  \"model\": {},\n", line(model.clone().into())));
        }
        text.push_str("  \"fields\": [\n");
        for (at, field) in self.fields.iter().enumerate() {
            let comma = if at + 1 < self.fields.len() { "," } else { "" };
            text.push_str(&format!("    {}{comma}\n", line(field.to_json())));
        }
        text.push_str("  ]");
        if let Some(defs) = &self.defs {
            let defs = serde_json::to_string_pretty(defs).unwrap_or_default();
            text.push_str(",\n  \"defs\": ");
            text.push_str(&defs.replace('\n', "\n  "));
        }
        text.push_str("\n}\n");
        text
    }

    /// The JSON a store's schema record holds (`Repo::ensure_schema`): the lock's, with its fingerprint.
    pub fn record(&self) -> Value {
        let mut record = Map::new();
        record.insert("docmodel".into(), "schema".into());
        record.insert("type".into(), self.type_name.clone().into());
        record.insert("schema".into(), self.schema.clone().into());
        record.insert("fingerprint".into(), self.fingerprint().into());
        record.insert(
            "fields".into(),
            Value::Array(self.fields.iter().map(Record::to_json).collect()),
        );
        if let Some(defs) = &self.defs {
            record.insert("defs".into(), Value::Object(defs.clone()));
        }
        Value::Object(record)
    }

    /// An identifier of the stored fields, as 16 hex digits of a hash: each field's stored name, type,
    /// whether it is required and the names it is read from (sorted: the order of the fields and their Rust
    /// names are not the stored shape): two shapes whose fields are alike in all of these have one
    /// fingerprint. The structs the body holds are left out, as a program built without docmodel's feature
    /// `json-schema` does not know them: [`compare`](Shape::compare) looks at them where both shapes do.
    pub fn fingerprint(&self) -> String {
        let mut fields: Vec<String> = self
            .fields
            .iter()
            .map(|field| {
                let mut reads = field.read_names();
                reads.sort_unstable();
                Value::Array(vec![
                    field.stored.clone().into(),
                    field.ty.clone().into(),
                    field.required.into(),
                    reads.into(),
                ])
                .to_string()
            })
            .collect();
        fields.sort_unstable();
        // FNV-1a, 64 bits: stable across programs and releases, as a record in a store must be.
        let hash = fields
            .concat()
            .bytes()
            .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
                (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
            });
        format!("{hash:016x}")
    }

    /// What changed from this shape (a lock's) to `current` (the model's): the type renamed (unless
    /// `aliases`, the model's old names, keep it), each field by [`changes`], and the structs the body holds
    /// where both know them.
    pub fn compare(&self, current: &Shape, aliases: &[&str]) -> Vec<Change> {
        let mut found: Vec<Change> = type_change(&self.type_name, &current.type_name, aliases)
            .into_iter()
            .collect();
        found.extend(changes(&self.fields, &current.fields));
        if let (Some(locked), Some(now)) = (&self.defs, &current.defs) {
            found.extend(defs_changes(locked, now));
        }
        found
    }
}
