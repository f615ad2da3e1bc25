//! The model's rustdoc: type, key pattern, schema, envelope and an example of the stored JSON, on the
//! generated inherent impl (rustdoc shows it on the model's page).

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::{Field, Model, generic_argument, simple_type_name};
use crate::attr::LayoutAttr;
use crate::valid::KnownEnvelope;

use super::migrate::path_text;

pub fn model(model: &Model) -> TokenStream {
    let text = page(model);
    quote!(#[doc = #text])
}

fn page(model: &Model) -> String {
    let key = model.key_lit.value();
    let mut page = format!(
        "# `{type_name}` documents\n\n\
         | | |\n|---|---|\n\
         | Type | `{type_name}` |\n\
         | Schema | `{schema}` |\n\
         | Key | `{key}` (delimiter `{delimiter}`; built by [`{ident}::key`]) |\n",
        type_name = model.type_name.value(),
        schema = model.schema_lit.value(),
        delimiter = model.key.delimiter,
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
            model.schema_lit.value()
        ));
    }
    if let Some(revisions) = model.revisions {
        page.push_str(&format!(
            "| Revisions | a save keeps the replaced version as `<key>{d}v{d}<n>`, the last {} of them |\n",
            **revisions,
            d = model.key.delimiter
        ));
    }
    if !model.lookups.is_empty() {
        let lookups: Vec<String> = model
            .lookups
            .iter()
            .map(|(_, lit)| format!("`{}`", lit.value()))
            .collect();
        page.push_str(&format!("| Lookups | {} |\n", lookups.join(", ")));
    }
    let Some(envelope) = KnownEnvelope::of(model) else {
        if let Some(conventions) = model.conventions {
            let path = quote!(#conventions).to_string().replace(' ', "");
            page.push_str(&format!(
                "| Envelope | as set by the conventions `{path}` |\n"
            ));
        }
        return page;
    };
    let names: Vec<String> = envelope
        .fields
        .iter()
        .map(|(name, _)| format!("`{name}`"))
        .collect();
    let layout = match envelope.layout {
        LayoutAttr::Flat => "flat".to_owned(),
        LayoutAttr::Plain => "plain".to_owned(),
        LayoutAttr::Meta => format!("meta, under `{}`", envelope.meta_name),
    };
    page.push_str(&format!(
        "| Envelope | {layout}: {}; timestamps `{}` |\n\n## Stored JSON\n\n```json\n{}\n```\n",
        names.join(", "),
        envelope.timestamps,
        example_json(model, &envelope)
    ));
    page
}

fn example_json(model: &Model, envelope: &KnownEnvelope) -> String {
    let envelope_lines: Vec<String> = envelope
        .fields
        .iter()
        .map(|(name, what)| format!("\"{name}\": {}", envelope_value(model, envelope, what)))
        .collect();
    let mut lines = Vec::new();
    if envelope.layout == LayoutAttr::Meta {
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

fn envelope_value(model: &Model, envelope: &KnownEnvelope, what: &str) -> String {
    match what {
        "the document type" => format!("\"{}\"", model.type_name.value()),
        "the schema version" => format!("\"{}\"", model.schema_lit.value()),
        "the revision counter" => "1".to_owned(),
        "who created the document" | "who modified it last" => "\"admin\"".to_owned(),
        "the country code" => "\"US\"".to_owned(),
        _ => match envelope.timestamps {
            "epoch_s" => "1544759124",
            "epoch_min" => "25745985",
            "epoch_h" => "429099",
            "epoch_day" => "17879",
            "iso8601" => "\"2018-12-14T03:45:24.478Z\"",
            _ => "1544759124478",
        }
        .to_owned(),
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
