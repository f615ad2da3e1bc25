//! The model's rustdoc: type, key pattern, schema, envelope, an example of the stored JSON, each field with
//! its own docs, and the other documents the model writes, on the generated inherent impl (rustdoc shows it
//! on the model's page).
//!
//! Everything here is what `docmodel`'s writer does (`codec/ser.rs`: the envelope, then the body's fields in
//! declaration order, then the unknown fields kept from a read). Where the JSON of a value cannot be known
//! from its type's name, the example holds a string naming the type instead (`"<Status>"`), never a guess.

mod shape;

use proc_macro2::TokenStream;
use quote::quote;

use super::path_text;
use crate::ast::{Complete, Field};
use crate::envelope::{Field as EnvelopeField, KnownEnvelope, Layout};
use crate::serde_names::FieldNames;
use shape::{field_shape, stored_shape, type_text};

pub fn model(model: &Complete) -> TokenStream {
    let text = page(model);
    quote!(#[doc = #text])
}

/// A field of a struct deriving `Embedded`, as its page lists it.
pub struct EmbeddedMember<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    pub json: &'a FieldNames,
    pub nested: bool,
}

/// The page of a struct deriving `Embedded`, on a generated inherent impl as a model's is: the object a
/// model's `nested` field stores it as, and each field's form. A model's page links here, since the derive
/// of the model sees only the model's own tokens.
pub fn embedded(ident: &syn::Ident, members: &[EmbeddedMember]) -> TokenStream {
    let paths = "their paths follow this field's";
    let mut lines = Vec::new();
    let mut items = Vec::new();
    for member in members {
        let declared = format!("`{}: {}`", member.ident, type_text(member.ty));
        let Some(name) = &member.json.serialize else {
            let option = member.json.skip.map_or("skip", |(_, option)| option);
            items.push(format!("- {declared} is not stored (`serde({option})`)."));
            continue;
        };
        let shape = stored_shape(member.ty, member.json, member.nested.then_some(paths));
        lines.push(format!("  \"{name}\": {}", shape.example));
        let mut form = shape.form;
        if member.json.skip_serializing_if.is_some() {
            form.push_str("; left out when its `skip_serializing_if` function says so");
        }
        items.push(format!("- `\"{name}\"` ({declared}): {form}."));
    }
    let placeholders = lines.iter().any(|line| line.contains("\"<"));
    let mut text = format!(
        "# Stored JSON\n\nInside a model's document, under a field of type `{ident}` marked \
         `#[docmodel(nested)]`:\n\n```json\n{{\n{}\n}}\n```\n",
        lines.join(",\n")
    );
    if placeholders {
        text.push_str(
            "\nA value `\"<...>\"` stands for one the derive cannot know from the type's name: it names the \
             type and, where docmodel knows it, the form (see Fields).\n",
        );
    }
    if !items.is_empty() {
        text.push_str(&format!("\n## Fields\n\n{}\n", items.join("\n")));
    }
    quote!(#[doc = #text])
}

fn page(model: &Complete) -> String {
    let mut page = summary(model);
    page.push_str(&stored_json(model));
    page.push_str(&fields(model));
    page.push_str(&field_paths(model));
    page.push_str(&other_documents(model));
    page
}

/// The title and the table of the model's options.
fn summary(model: &Complete) -> String {
    let key = model.key.lit.value();
    let mut page = format!(
        "# `{type_name}` documents\n\n\
         | Model | [`{ident}`] |\n|---|---|\n\
         | Type | `{type_name}` |\n\
         | Schema | `{schema}` |\n\
         | Key | `{key}` (delimiter `{delimiter}`; built by [`{ident}::key`]) |\n",
        type_name = model.type_name.value(),
        schema = model.schema.lit.value(),
        delimiter = model.key.template.delimiter,
        ident = model.ident,
    );
    if !model.steps.is_empty() {
        let steps: Vec<String> = model
            .steps
            .iter()
            .map(|step| {
                let kind = if step.typed {
                    "older model"
                } else {
                    "JSON step"
                };
                format!(
                    "`{}` by `{}` ({kind})",
                    step.lit.value(),
                    path_text(step.target)
                )
            })
            .collect();
        page.push_str(&format!(
            "| Migrates from | {}; each step moves a document to the next version listed, the last to `{}` |\n",
            steps.join(", "),
            model.schema.lit.value()
        ));
    }
    if let Some(revisions) = model.revisions {
        page.push_str(&format!(
            "| Revisions | a save keeps the replaced version under `{}`, {} |\n",
            revision_pattern(model),
            kept_copies(revisions),
        ));
    }
    if !model.lookups.is_empty() {
        let lookups: Vec<String> = model
            .lookups
            .iter()
            .map(|lookup| format!("`{}`", lookup.pattern.lit.value()))
            .collect();
        page.push_str(&format!("| Lookups | {} |\n", lookups.join(", ")));
    }
    let mut existing = Vec::new();
    if let Some(unversioned) = &model.unversioned {
        existing.push(format!(
            "one without a schema field is read as `{}`",
            unversioned.lit.value()
        ));
    }
    if !model.aliases.is_empty() {
        let aliases: Vec<String> = model
            .aliases
            .iter()
            .map(|alias| format!("`{}`", alias.value()))
            .collect();
        existing.push(format!(
            "the types {} read as `{}` and are written back as it",
            aliases.join(", "),
            model.type_name.value()
        ));
    }
    if model.accepts_untyped {
        existing.push("one without a type field reads by key".to_owned());
    }
    if let Some(legacy) = model
        .envelope
        .and_then(|envelope| envelope.legacy_names.as_ref())
        .filter(|legacy| !legacy.renamed.is_empty())
    {
        let renamed: Vec<String> = legacy
            .renamed
            .iter()
            .map(|(field, lit)| {
                let own = envelope_name(model, *field)
                    .map_or_else(|| field.what().to_owned(), |name| format!("`{name}`"));
                format!("`{}` as {own}", lit.value())
            })
            .collect();
        existing.push(format!(
            "envelope fields under legacy names read, and are written back under the model's: {}",
            renamed.join(", ")
        ));
    }
    if !existing.is_empty() {
        page.push_str(&format!(
            "| Existing documents | {} |\n",
            existing.join("; ")
        ));
    }
    let mut rules = Vec::new();
    if let Some(validate) = model.validate {
        rules.push(format!("`{}`", path_text(validate)));
    }
    if model.garde.is_some() {
        rules.push("its `garde` rules".to_owned());
    }
    if !rules.is_empty() {
        let when = if model.validate_on_read.is_some() {
            "before every write and on every read"
        } else {
            "before every write"
        };
        page.push_str(&format!(
            "| Validation | {} {when} |\n",
            rules.join(" and ")
        ));
    }
    if !model.indexes.is_empty() {
        let indexes: Vec<String> = model
            .indexes
            .iter()
            .map(|index| format!("`{}`", index.fields.join(", ")))
            .collect();
        page.push_str(&format!(
            "| Indexes | {} (`Repo::find` reads these instead of every document when a filter fixes their fields) |\n",
            indexes.join("; ")
        ));
    }
    match (&model.known_envelope, model.conventions) {
        (Some(envelope), _) => {
            // The copy marker is on the revision copies only; the stored JSON's notes say so.
            let names: Vec<String> = envelope
                .fields
                .iter()
                .filter(|(field, _)| {
                    !matches!(field, EnvelopeField::CopyOf | EnvelopeField::CopyNext)
                })
                // The root layout's type is its root attribute.
                .filter(|(field, _)| {
                    *field != EnvelopeField::Type || envelope.layout != Layout::Root
                })
                .map(|(_, name)| format!("`{name}`"))
                .collect();
            let layout = match envelope.layout {
                Layout::Flat => "flat".to_owned(),
                Layout::Plain => "plain".to_owned(),
                Layout::Meta => format!("meta, under `{}`", envelope.meta_name),
                Layout::Root => format!(
                    "root, under `{}`, the type, which holds the rest",
                    model.type_name.value()
                ),
            };
            page.push_str(&format!(
                "| Envelope | {layout}: {}; timestamps `{}` |\n",
                names.join(", "),
                envelope.timestamps.name(),
            ));
        }
        (None, Some(conventions)) => page.push_str(&format!(
            "| Envelope | as the conventions `{}` set it{} (`{}::ENVELOPE`) |\n",
            path_text(conventions),
            if model.envelope.is_some() {
                ", with this model's `envelope(...)` options on top"
            } else {
                ""
            },
            model.ident
        )),
        (None, None) => {}
    }
    page
}

/// `## Stored JSON`: an example document under the model's key, and what the example cannot show.
fn stored_json(model: &Complete) -> String {
    let mut lines = Vec::new();
    let mut notes = Vec::new();
    match &model.known_envelope {
        Some(envelope) => {
            let envelope_lines: Vec<String> = envelope
                .fields
                .iter()
                // A document never carries it: only the revision copies the repository keeps. The root layout
                // names the type by its root attribute.
                .filter(|(field, _)| {
                    !matches!(field, EnvelopeField::CopyOf | EnvelopeField::CopyNext)
                })
                .filter(|(field, _)| {
                    *field != EnvelopeField::Type || envelope.layout != Layout::Root
                })
                .map(|(field, name)| {
                    format!("\"{name}\": {}", envelope_value(model, envelope, *field))
                })
                .collect();
            if model.revisions.is_some()
                && let Some((_, name)) = envelope
                    .fields
                    .iter()
                    .find(|(field, _)| *field == EnvelopeField::CopyOf)
            {
                let next = envelope
                    .fields
                    .iter()
                    .find(|(field, _)| *field == EnvelopeField::CopyNext)
                    .map_or("", |(_, name)| name.as_str());
                notes.push(format!(
                    "A revision copy holds the document as it was, with `\"{name}\"` added{}: the key of \
                     the document it copies, which a query of another client leaves copies out by; and \
                     `\"{next}\"`, the digests of the versions saved from it, by which a merge follows each \
                     side's history.",
                    match envelope.layout {
                        Layout::Meta => " to its envelope object",
                        Layout::Root => " to its root attribute's object",
                        Layout::Flat | Layout::Plain => "",
                    }
                ));
            }
            if envelope.layout == Layout::Meta {
                lines.push(format!(
                    "  \"{}\": {{\n    {}\n  }}",
                    envelope.meta_name,
                    envelope_lines.join(",\n    ")
                ));
            } else {
                lines.extend(envelope_lines.into_iter().map(|line| format!("  {line}")));
            }
            notes.push(
                "An envelope field without a value (a time before a `Repo` writes the document, an actor the \
                 `Repo` was not given) is left out, never written as `null`."
                    .to_owned(),
            );
        }
        None => {
            let conventions = model
                .conventions
                .map_or_else(|| "its conventions".to_owned(), path_text);
            lines.push(format!("  \"<envelope: as {conventions} sets it>\": \"…\""));
            notes.push(format!(
                "The envelope's fields come from the conventions `{conventions}`, which the derive cannot \
                 see: they are written first, at the top level or under the meta object as its layout says \
                 (`{}::ENVELOPE` holds them), then the body.",
                model.ident
            ));
        }
    }
    if let Some(tag) = &model.serde.tag {
        lines.push(format!(
            "  \"{}\": \"<{}: its serde name>\"",
            tag.value(),
            model.ident
        ));
    }
    let mut placeholders = false;
    for field in &model.fields {
        let Some(name) = &field.json.serialize else {
            continue;
        };
        let shape = field_shape(model, field);
        placeholders |= shape.example.contains("\"<");
        lines.push(format!("  \"{name}\": {}", shape.example));
        if let Some(when) = left_out(field) {
            notes.push(format!("`\"{name}\"` is left out {when}."));
        }
    }
    if let Some(skip_empty) = model.skip_empty {
        notes.push(if skip_empty.default {
            "The model's `skip_empty(default)` leaves out any body field that is empty (`null`, `\"\"`, `[]`, `{}`) \
             or equal to its type's `Default`."
                .to_owned()
        } else {
            "The model's `skip_empty` leaves out a body field that is empty (`null`, `\"\"`, `[]`, `{}`) where it \
             can be: an `Option`, a `Presence`, a string, sequence, set or map, or a field with a serde default."
                .to_owned()
        });
    }
    if placeholders {
        notes.push(
            "A value `\"<...>\"` stands for one the derive cannot know from the type's name: it names the \
             type and, where docmodel knows it, the form (see Fields)."
                .to_owned(),
        );
    }
    notes.push(
        "Fields a read found but this model does not know are kept and written back after these."
            .to_owned(),
    );
    let root = model
        .known_envelope
        .as_ref()
        .filter(|envelope| envelope.layout == Layout::Root);
    let object = match root {
        // One attribute, the type, holding the document's object.
        Some(_) => format!(
            "  \"{}\": {{\n{}\n  }}",
            model.type_name.value(),
            lines
                .iter()
                .map(|line| format!("  {line}"))
                .collect::<Vec<_>>()
                .join(",\n")
        ),
        None => lines.join(",\n"),
    };
    // With docmodel's `json-schema`, where the model has one.
    let schema = if cfg!(feature = "json-schema") {
        format!(
            "\nIts JSON Schema, for the other clients of the same database: \
             `docmodel::json_schema::<{}>()`; `Repo::ensure_validation` has CouchDB enforce it on every write.\n",
            model.ident
        )
    } else {
        String::new()
    };
    format!(
        "\n## Stored JSON\n\nThe document under `{}`:\n\n```json\n{{\n{object}\n}}\n```\n\n- {}\n{schema}",
        model.key.lit.value(),
        notes.join("\n- "),
    )
}

fn envelope_value(model: &Complete, envelope: &KnownEnvelope, field: EnvelopeField) -> String {
    match field {
        EnvelopeField::Type => format!("\"{}\"", model.type_name.value()),
        EnvelopeField::Schema => format!("\"{}\"", model.schema.lit.value()),
        EnvelopeField::Ver => "1".to_owned(),
        // Values of the application's: placeholders, as for body fields the derive cannot know.
        EnvelopeField::CreatedBy | EnvelopeField::ModifiedBy => {
            "\"<the actor: Repo::actor>\"".to_owned()
        }
        EnvelopeField::Geo => "\"<a country code>\"".to_owned(),
        EnvelopeField::Created | EnvelopeField::Modified | EnvelopeField::Accessed => {
            envelope.timestamps.example().to_owned()
        }
        EnvelopeField::CopyOf => format!("\"{}\"", model.key.lit.value()),
        EnvelopeField::CopyNext => "[\"<digest>\"]".to_owned(),
    }
}

/// `## Fields`: every field of the struct in writing order, with its JSON name, its form and its own docs
/// (whether or not it has accessors).
fn fields(model: &Complete) -> String {
    if model.fields.is_empty() {
        return String::new();
    }
    let items: Vec<String> = model
        .fields
        .iter()
        .map(|field| {
            let declared = format!("`{}: {}`", field.ident, type_text(field.ty));
            let head = match &field.json.serialize {
                Some(name) => {
                    let mut form = field_shape(model, field).form;
                    if let Some(when) = left_out(field) {
                        form.push_str(&format!("; left out {when}"));
                    }
                    format!("`\"{name}\"` ({declared}): {form}.")
                }
                None if field.from_key.is_some() => format!(
                    "{declared} is not stored: a read takes it from the key's `{{{}}}` part (`from_key`).",
                    field.name()
                ),
                None => {
                    let option = field.json.skip.map_or("skip", |(_, option)| option);
                    format!("{declared} is not stored (`serde({option})`).")
                }
            };
            match doc_text(field) {
                Some(docs) => format!("- {head}\n\n{}", indent(&docs)),
                None => format!("- {head}"),
            }
        })
        .collect();
    format!("\n## Fields\n\n{}\n", items.join("\n\n"))
}

/// When the writer leaves a stored field out by the field's own options: "when it is `Missing`, or when ...".
/// (The model's `skip_empty` is said once, for every field.)
fn left_out(field: &Field) -> Option<String> {
    let mut cases = Vec::new();
    if field.is_presence() {
        cases.push("when it is `Missing`".to_owned());
    }
    if let Some(skip_empty) = field.skip_empty {
        cases.push(if skip_empty.default {
            "when it is empty (`null`, `\"\"`, `[]`, `{}`) or equal to its type's `Default`"
                .to_owned()
        } else {
            "when it is empty (`null`, `\"\"`, `[]`, `{}`)".to_owned()
        });
    }
    if field.json.skip_serializing_if.is_some() {
        cases.push("when its `skip_serializing_if` function says so".to_owned());
    }
    (!cases.is_empty()).then(|| cases.join(", or "))
}

/// The field's own `///` docs, unindented as rustdoc does, if it has any.
fn doc_text(field: &Field) -> Option<String> {
    let text: Vec<String> = field
        .docs
        .iter()
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(text),
                        ..
                    }),
                ..
            }) => Some(text.value()),
            _ => None,
        })
        .collect();
    let text = text.join("\n");
    let margin = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()?;
    let lines: Vec<&str> = text
        .lines()
        .map(|line| line.get(margin..).unwrap_or("").trim_end())
        .collect();
    Some(lines.join("\n").trim_matches('\n').to_owned())
}

/// `text` as the body of a list item.
fn indent(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("  {line}")
            }
        })
        .collect();
    lines.join("\n")
}

/// The typed paths `Model::fields()` gives, with the JSON names they stand for.
fn field_paths(model: &Complete) -> String {
    let rows: Vec<String> = model
        .fields
        .iter()
        .filter_map(|field| {
            let name = field.json.serialize.as_ref()?;
            let form = if field.nested.is_some() {
                " and the paths of the struct it holds under it (`.whole()` for the struct itself)"
            } else if field.json.custom {
                " (as its serde attribute writes it; compared as JSON)"
            } else {
                ""
            };
            Some(format!(
                "| `{ident}::fields().{member}` | `\"{name}\"`{form} |\n",
                ident = model.ident,
                member = field.ident
            ))
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "\n## Field paths\n\nFor filters and queries (`DocModel::fields`); the envelope's \
         are under `{ident}::fields().envelope()`.\n\n| path | stored as |\n|---|---|\n{}",
        rows.concat(),
        ident = model.ident
    )
}

/// The name `field` is stored under, where the derive sees the model's whole envelope.
fn envelope_name<'m>(model: &'m Complete<'_, '_>, field: EnvelopeField) -> Option<&'m str> {
    let envelope = model.known_envelope.as_ref()?;
    envelope
        .fields
        .iter()
        .find(|(known, _)| *known == field)
        .map(|(_, name)| name.as_str())
}

/// `## Other documents`: what the model writes besides its documents, each under its key pattern (the
/// runtime's `keyspace::of` lists the same patterns).
fn other_documents(model: &Complete) -> String {
    let key = model.key.lit.value();
    let delimiter = &model.key.template.delimiter;
    let mut rows = Vec::new();
    for lookup in &model.lookups {
        let names = match lookup.ref_id {
            None => format!("`{{\"ref\":\"<key: {key}>\"}}`: the key of the document it finds"),
            Some(_) => {
                let part = model.key.template.parts().next().unwrap_or_default();
                format!(
                    "`{{\"ref\":\"<{part}>\"}}`: the bare id of the document it finds (`ref_id`), the \
                     `{{{part}}}` of `{key}`"
                )
            }
        };
        rows.push(format!(
            "| `{}` (lookup) | {names}; claimed before the document is written, moved when the fields it is \
             built from change |\n",
            lookup.pattern.lit.value()
        ));
    }
    if let Some(revisions) = model.revisions {
        let ver = envelope_name(model, EnvelopeField::Ver)
            .map_or_else(|| "its version".to_owned(), |name| format!("`{name}`"));
        let marker = envelope_name(model, EnvelopeField::CopyOf).map_or_else(
            || "the copy marker".to_owned(),
            |name| format!("`\"{name}\": \"<key>\"`"),
        );
        let next = envelope_name(model, EnvelopeField::CopyNext).map_or_else(
            || "the record of the versions saved from it".to_owned(),
            |name| format!("`\"{name}\": [\"<digest>\"]`"),
        );
        rows.push(format!(
            "| `{}` (revision copy) | the document as it was when {ver} was `n`, the same bytes with {marker} \
             first (the key of the document; other clients leave copies out by it) and {next} last (the \
             versions saved from it, which a merge follows); each save writes one, and the last {} are kept{} \
             |\n",
            revision_pattern(model),
            **revisions.keep,
            kept_for(revisions)
        ));
    }
    rows.extend(index_rows(model));
    if !model.items.is_empty() {
        rows.push(format!(
            "| `removing{delimiter}{}{delimiter}{key}` (removal marker) | `{{\"removing\":\"<key>\"}}`: while \
             `Repo::remove_with_items` removes the document with its items; one a failure left is finished by \
             `Repo::finish_removals` |\n",
            model.type_name.value()
        ));
    }
    rows.push(format!(
        "| `count{delimiter}{}` (id counter) | `{{\"value\":42}}`: the last id `Repo::next_id` handed out \
         (on Couchbase, the server's own counter: `42`); written only by `next_id` |\n",
        model.type_name.value()
    ));
    let indexes = if model.indexes.is_empty() {
        ""
    } else {
        "\nWith indexes, a model keeps one more, `@schema`, so that a find counts the documents below its \
         schema. Index entries and markers are kept on stores that can list keys (`MemoryStore`, `Redb`); \
         CouchDB keeps its indexes itself.\n"
    };
    format!(
        "\n## Other documents\n\nBesides the documents under `{key}`, the model's repository writes:\n\n\
         | key | holds |\n|---|---|\n{}{indexes}",
        rows.concat()
    )
}

/// The entries and markers of the model's indexes, and of the `@schema` index a model with indexes keeps over
/// its schema field, which a repository writes on stores that can list keys.
fn index_rows(model: &Complete) -> Vec<String> {
    if model.indexes.is_empty() {
        return Vec::new();
    }
    let mut indexes: Vec<(String, Vec<String>, String)> = model
        .indexes
        .iter()
        .map(|index| {
            let paths: Vec<String> = index
                .fields
                .iter()
                .map(|field| {
                    let stored = model
                        .field(field)
                        .and_then(|field| field.json.serialize.as_deref())
                        .unwrap_or(field);
                    format!("[\"{stored}\"]")
                })
                .collect();
            let fields: Vec<String> = index
                .fields
                .iter()
                .map(|field| format!("`{field}`"))
                .collect();
            (index.name(), paths, fields.join(", "))
        })
        .collect();
    let schema_path = match &model.known_envelope {
        Some(envelope) => {
            let name = envelope
                .fields
                .iter()
                .find(|(field, _)| *field == EnvelopeField::Schema)
                .map_or("", |(_, name)| name.as_str());
            match envelope.layout {
                Layout::Meta => format!("[\"{}\",\"{name}\"]", envelope.meta_name),
                // The root layout's paths are its root attribute's object's.
                Layout::Flat | Layout::Plain | Layout::Root => format!("[\"{name}\"]"),
            }
        }
        None => "[\"<the schema field's path>\"]".to_owned(),
    };
    indexes.push(("@schema".to_owned(), vec![schema_path], "schema".to_owned()));
    let d = &model.key.template.delimiter;
    let prefix = format!("index{d}{}{d}", model.type_name.value());
    let key = model.key.lit.value();
    indexes
        .iter()
        .map(|(name, paths, values)| {
            format!(
                "| `{prefix}{name}{d}<values><key>` (index entry) | `{{\"ref\":\"<key: {key}>\"}}`, one per \
                 document, `<values>` being its {values} written to sort as they compare |\n\
                 | `{prefix}{name}` (index marker) | `{{\"complete\":true,\"index\":\"{name}\",\"paths\":[{}]}}` \
                 once `Repo::ensure_indexes` has built the index |\n",
                paths.join(",")
            )
        })
        .collect()
}

/// The key pattern of the revision copies: `<key><d>v<d>{n}`, as `docmodel::revision_key` builds them.
fn revision_pattern(model: &Complete) -> String {
    let delimiter = &model.key.template.delimiter;
    format!("{}{delimiter}v{delimiter}{{n}}", model.key.lit.value())
}

/// Which copies the model keeps, as its page says it: `the last 10 of them`, or with an age `the last 10 of
/// them, and any older one for 30d after it was replaced`.
fn kept_copies(revisions: crate::ast::Revisions<'_>) -> String {
    format!(
        "the last {} of them{}",
        **revisions.keep,
        kept_for(revisions)
    )
}

/// What an age adds to the count: `, and any older one for 30d after it was replaced`, or nothing.
fn kept_for(revisions: crate::ast::Revisions<'_>) -> String {
    revisions.age.map_or_else(String::new, |age| {
        format!(
            ", and any older one for {} after it was replaced",
            age.lit.value()
        )
    })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::ast::Model;
    use crate::attr::ModelAttr;

    fn page_of(input: &syn::DeriveInput) -> String {
        let attr = ModelAttr::from_derive_input(input).unwrap();
        let mut errors = crate::meta::Accumulator::default();
        let model = Model::from_attr(&attr, &mut errors);
        errors.finish().unwrap();
        page(&model.complete().unwrap())
    }

    /// The part of `page` from `heading` to the next heading.
    fn section<'p>(page: &'p str, heading: &str) -> &'p str {
        let start = page
            .find(heading)
            .unwrap_or_else(|| panic!("no {heading}: {page}"));
        let rest = &page[start + heading.len()..];
        let end = rest
            .find("\n## ")
            .map_or(page.len(), |end| start + heading.len() + end);
        &page[start..end]
    }

    #[test]
    fn the_page_lists_each_field_path_with_its_stored_name() {
        let page = page_of(&syn::parse_quote! {
            #[serde(rename_all = "camelCase")]
            #[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
            struct Order {
                order_id: u64,
                #[serde(rename = "state")]
                status: String,
                #[serde(skip)]
                cache: u64,
                #[docmodel(nested)]
                ship_to: Address,
            }
        });
        assert_eq!(
            section(&page, "## Field paths"),
            "## Field paths\n\nFor filters and queries (`DocModel::fields`); the \
             envelope's are under `Order::fields().envelope()`.\n\n| path | stored as |\n|---|---|\n\
             | `Order::fields().order_id` | `\"orderId\"` |\n\
             | `Order::fields().status` | `\"state\"` |\n\
             | `Order::fields().ship_to` | `\"shipTo\"` and the paths of the struct it holds under it \
             (`.whole()` for the struct itself) |\n"
        );
    }

    #[test]
    fn the_page_says_which_rules_run_and_when() {
        let page = page_of(&syn::parse_quote! {
            #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
            #[docmodel(validate = rules::check_user, garde, validate_on_read)]
            struct User {
                id: u64,
            }
        });
        assert!(
            page.contains(
                "| Validation | `rules::check_user` and its `garde` rules before every write and on every read |\n"
            ),
            "{page}"
        );
    }

    #[test]
    fn a_conventions_model_shows_its_body_and_where_the_envelope_goes() {
        let page = page_of(&syn::parse_quote! {
            #[docmodel(type = "note", schema = "1.0", key = "note:{id}", conventions = Mobile)]
            struct Note {
                id: u64,
                /// Written by hand.
                text: String,
            }
        });
        assert!(
            page.contains("| Envelope | as the conventions `Mobile` set it (`Note::ENVELOPE`) |\n"),
            "{page}"
        );
        let json = section(&page, "## Stored JSON");
        assert!(
            json.contains(
                "```json\n{\n  \"<envelope: as Mobile sets it>\": \"…\",\n  \"id\": 0,\n  \"text\": \"…\"\n}\n```"
            ),
            "{json}"
        );
        assert!(
            section(&page, "## Fields")
                .contains("- `\"text\"` (`text: String`): a string.\n\n  Written by hand."),
            "{page}"
        );
    }
}
