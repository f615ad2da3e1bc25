//! The model's rustdoc: type, key pattern, schema, envelope and an example of the stored JSON, on the
//! generated inherent impl (rustdoc shows it on the model's page).

use proc_macro2::TokenStream;
use quote::quote;

use super::path_text;
use crate::ast::{Complete, Field, generic_argument, simple_type_name};
use crate::envelope::{Field as EnvelopeField, KnownEnvelope, Layout};

pub fn model(model: &Complete) -> TokenStream {
    let text = page(model);
    quote!(#[doc = #text])
}

fn page(model: &Complete) -> String {
    let key = model.key.lit.value();
    let mut page = format!(
        "# `{type_name}` documents\n\n\
         | | |\n|---|---|\n\
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
            "| Revisions | a save keeps the replaced version as `<key>{d}v{d}<n>`, the last {} of them |\n",
            **revisions,
            d = model.key.template.delimiter
        ));
    }
    if !model.lookups.is_empty() {
        let lookups: Vec<String> = model
            .lookups
            .iter()
            .map(|lookup| format!("`{}`", lookup.lit.value()))
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
    let Some(envelope) = &model.known_envelope else {
        if let Some(conventions) = model.conventions {
            page.push_str(&format!(
                "| Envelope | as set by the conventions `{}` |\n",
                path_text(conventions)
            ));
        }
        return page;
    };
    let names: Vec<String> = envelope
        .fields
        .iter()
        .map(|(_, name)| format!("`{name}`"))
        .collect();
    let layout = match envelope.layout {
        Layout::Flat => "flat".to_owned(),
        Layout::Plain => "plain".to_owned(),
        Layout::Meta => format!("meta, under `{}`", envelope.meta_name),
    };
    page.push_str(&format!(
        "| Envelope | {layout}: {}; timestamps `{}` |\n\n## Stored JSON\n\n```json\n{}\n```\n",
        names.join(", "),
        envelope.timestamps.name(),
        example_json(model, envelope)
    ));
    page.push_str(&field_paths(model));
    page
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

fn example_json(model: &Complete, envelope: &KnownEnvelope) -> String {
    let envelope_lines: Vec<String> = envelope
        .fields
        .iter()
        .map(|(field, name)| format!("\"{name}\": {}", envelope_value(model, envelope, *field)))
        .collect();
    let mut lines = Vec::new();
    if envelope.layout == Layout::Meta {
        lines.push(format!(
            "  \"{}\": {{\n    {}\n  }}",
            envelope.meta_name,
            envelope_lines.join(",\n    ")
        ));
    } else {
        lines.extend(envelope_lines.into_iter().map(|line| format!("  {line}")));
    }
    for field in &model.fields {
        if let Some(name) = &field.json.serialize {
            lines.push(format!("  \"{name}\": {}", example_value(field)));
        }
    }
    format!("{{\n{}\n}}", lines.join(",\n"))
}

fn envelope_value(model: &Complete, envelope: &KnownEnvelope, field: EnvelopeField) -> String {
    match field {
        EnvelopeField::Type => format!("\"{}\"", model.type_name.value()),
        EnvelopeField::Schema => format!("\"{}\"", model.schema.lit.value()),
        EnvelopeField::Ver => "1".to_owned(),
        EnvelopeField::CreatedBy | EnvelopeField::ModifiedBy => "\"admin\"".to_owned(),
        EnvelopeField::Geo => "\"US\"".to_owned(),
        EnvelopeField::Created | EnvelopeField::Modified | EnvelopeField::Accessed => {
            envelope.timestamps.example().to_owned()
        }
    }
}

fn example_value(field: &Field) -> &'static str {
    if generic_argument(field.ty, "Vec").is_some() {
        return "[]";
    }
    if generic_argument(field.ty, "Option").is_some() {
        return "null";
    }
    match simple_type_name(field.ty).as_deref() {
        Some("String") => "\"…\"",
        Some("bool") => "false",
        Some("f32" | "f64") => "0.0",
        Some(name)
            if name.starts_with('u')
                || name.starts_with('i') && name[1..].parse::<u8>().is_ok() =>
        {
            "0"
        }
        Some("usize" | "isize") => "0",
        _ => "{…}",
    }
}

#[cfg(test)]
mod tests {
    use darling::FromDeriveInput;

    use super::*;
    use crate::ast::Model;
    use crate::attr::ModelAttr;

    #[test]
    fn the_page_lists_each_field_path_with_its_stored_name() {
        let input: syn::DeriveInput = syn::parse_quote! {
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
        };
        let attr = ModelAttr::from_derive_input(&input).unwrap();
        let mut errors = darling::Error::accumulator();
        let model = Model::from_attr(&attr, &mut errors);
        errors.finish().unwrap();
        let page = page(&model.complete().unwrap());
        let paths = &page[page.find("## Field paths").unwrap()..];
        assert_eq!(
            paths,
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
        let input: syn::DeriveInput = syn::parse_quote! {
            #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
            #[docmodel(validate = rules::check_user, garde, validate_on_read)]
            struct User {
                id: u64,
            }
        };
        let attr = ModelAttr::from_derive_input(&input).unwrap();
        let mut errors = darling::Error::accumulator();
        let model = Model::from_attr(&attr, &mut errors);
        errors.finish().unwrap();
        let page = page(&model.complete().unwrap());
        assert!(
            page.contains(
                "| Validation | `rules::check_user` and its `garde` rules before every write and on every read |\n"
            ),
            "{page}"
        );
    }
}
