//! Cross-cutting checks: placeholders against fields, key parts, accessors, envelope names against the body's
//! JSON names. Every problem is reported; none stops the others from being found.

use crate::ast::{Field, Model, Pattern, Schema, generic_argument, simple_type_name};
use crate::chain;
use crate::envelope::Layout;
use crate::serde_names::FieldNames;

pub fn check(model: &Model, errors: &mut crate::meta::Accumulator) {
    check_key_parts(model, errors);
    for field in &model.fields {
        check_accessors(field, errors);
        check_nested(field.ident, field.nested, &field.json, errors);
    }
    check_envelope_names(model, errors);
    check_root(model, errors);
    check_indexes(model, errors);
    check_children(model, errors);
    crate::omit::check(model, errors);
    if let Some(revisions) = model.revisions
        && **revisions.keep == 0
    {
        errors.push(
            crate::meta::Error::custom(if revisions.age.is_some() {
                "`keep = 0` keeps no copy the count is sure of; keep at least 1"
            } else {
                "`revisions = 0` keeps no copies; leave the option out to keep none"
            })
            .with_span(&revisions.keep.span()),
        );
    }
    if let Some(schema) = &model.schema {
        chain::check(&model.steps, &schema.version, &schema.lit.value(), errors);
        check_unversioned(model, schema, errors);
    }
    check_aliases(model, errors);
    if let Some(span) = model.validate_on_read
        && model.validate.is_none()
        && model.garde.is_none()
    {
        errors.push(
            crate::meta::Error::custom(
                "`validate_on_read` has no rules to run: add `validate = path::to::check` or `garde`",
            )
            .with_span(&span),
        );
    }
    if model.generics.type_params().next().is_some() {
        for step in model.steps.iter().filter(|step| step.typed) {
            errors.push(
                crate::meta::Error::custom(format!(
                    "a model with type parameters cannot list an older model as a step; convert `{}` documents \
                     with a JSON step",
                    step.lit.value()
                ))
                .with_span(step.target),
            );
        }
    }
}

/// `unversioned = "..."` names a version the model reads: not newer than the current schema, and of the
/// current major version or one the chain migrates from.
fn check_unversioned(model: &Model, schema: &Schema, errors: &mut crate::meta::Accumulator) {
    let Some(unversioned) = &model.unversioned else {
        return;
    };
    let (version, current) = (&unversioned.version, &schema.version);
    let problem = if version > current {
        Some(format!(
            "`unversioned = {:?}` is newer than the current schema {:?}: a document without a schema field was \
             written before the model's versions, so it is read as the current one or an older one",
            unversioned.lit.value(),
            schema.lit.value()
        ))
    } else if version.major != current.major
        && !model
            .steps
            .iter()
            .any(|step| step.version.major == version.major)
        && !model
            .steps
            .first()
            .is_some_and(|first| first.typed && first.version > *version)
    {
        let listed: Vec<String> = model.steps.iter().map(|step| step.lit.value()).collect();
        Some(format!(
            "`unversioned = {:?}` is a version no step migrates from (the chain lists {}; the current schema is \
             {:?}): list a step for it in `migrate_from(...)`",
            unversioned.lit.value(),
            if listed.is_empty() {
                "none".to_owned()
            } else {
                listed.join(", ")
            },
            schema.lit.value()
        ))
    } else {
        None
    };
    if let Some(message) = problem {
        errors.push(crate::meta::Error::custom(message).with_span(unversioned.lit));
    }
}

/// Each alias differs from the type and from the other aliases.
fn check_aliases(model: &Model, errors: &mut crate::meta::Accumulator) {
    for (at, alias) in model.aliases.iter().enumerate() {
        let value = alias.value();
        let message = if model.type_name.is_some_and(|name| name.value() == value) {
            format!("the alias {value:?} is the document type itself; list only other spellings")
        } else if model.aliases[..at]
            .iter()
            .any(|earlier| earlier.value() == value)
        {
            format!("the alias {value:?} is listed twice")
        } else {
            continue;
        };
        errors.push(crate::meta::Error::custom(message).with_span(*alias));
    }
}

/// `parent` and `order`: each on one field at most, stored, and `order` only beside a `parent`; the parent
/// field stored as a `Ref` writes it (its type is checked where the expansion asks it for the parent, at
/// the field's type).
fn check_children(model: &Model, errors: &mut crate::meta::Accumulator) {
    let marked = |option: fn(&Field) -> Option<proc_macro2::Span>| {
        model
            .fields
            .iter()
            .filter_map(move |field| Some((field, option(field)?)))
    };
    let parent = marked(|field| field.parent).next();
    for (option, marks) in [
        ("parent", marked(|field| field.parent).collect::<Vec<_>>()),
        ("order", marked(|field| field.order).collect()),
    ] {
        let explain = if option == "parent" {
            "a model's documents are the items of one parent"
        } else {
            "one field gives an item's place among its siblings"
        };
        if let Some((first, _)) = marks.first() {
            for (_, span) in &marks[1..] {
                errors.push(
                    crate::meta::Error::custom(format!(
                        "`#[docmodel({option})]` is on `{}` already: {explain}",
                        first.name()
                    ))
                    .with_span(span),
                );
            }
        }
        for (field, span) in &marks {
            if field.json.serialize.is_none() {
                errors.push(
                    crate::meta::Error::custom(format!(
                        "`#[docmodel({option})]` is on `{}`, which `#[serde(skip...)]` keeps out of the stored \
                         document, so no item could be listed by it",
                        field.name()
                    ))
                    .with_span(span),
                );
            } else if option == "parent" && field.json.custom {
                errors.push(
                    crate::meta::Error::custom(format!(
                        "`#[docmodel(parent)]` is on `{}`, which serde writes its own way (`with`, \
                         `serialize_with`): a parent field is stored as its `Ref` writes it, the parent's key",
                        field.name()
                    ))
                    .with_span(span),
                );
            }
        }
    }
    if parent.is_none() {
        for (_, span) in marked(|field| field.order) {
            errors.push(
                crate::meta::Error::custom(
                    "`#[docmodel(order)]` orders the items of a parent: mark the field that refers to the \
                     parent (a `Ref<Parent>`) `#[docmodel(parent)]`",
                )
                .with_span(&span),
            );
        }
    }
}

/// Each index names stored fields of the body, each once, and no two indexes list the same fields.
fn check_indexes(model: &Model, errors: &mut crate::meta::Accumulator) {
    for (position, index) in model.indexes.iter().enumerate() {
        // An implied index is over a `parent` or `order` field, which `check_children` checks.
        let Some(lit) = index.lit else {
            continue;
        };
        for (at, name) in index.fields.iter().enumerate() {
            if index.fields[..at].contains(name) {
                errors.push(
                    crate::meta::Error::custom(format!(
                        "the index `{}` lists `{name}` twice",
                        lit.value()
                    ))
                    .with_span(lit),
                );
                continue;
            }
            let Some(field) = model.field(name) else {
                let known: Vec<String> = model
                    .fields
                    .iter()
                    .map(|field| format!("`{}`", field.name()))
                    .collect();
                errors.push(
                    crate::meta::Error::custom(format!(
                        "the index `{}` names `{name}`, which is no field of `{}`; its fields are {}",
                        lit.value(),
                        model.ident,
                        known.join(", ")
                    ))
                    .with_span(lit),
                );
                continue;
            };
            if field.json.serialize.is_none() {
                errors.push(
                    crate::meta::Error::custom(format!(
                        "the index `{}` names `{name}`, which `#[serde(skip...)]` keeps out of the stored document, \
                         so no document could be found by it",
                        lit.value(),
                    ))
                    .with_span(lit),
                );
            }
        }
        if model.indexes[..position]
            .iter()
            .any(|earlier| earlier.fields == index.fields)
        {
            errors.push(
                crate::meta::Error::custom(format!(
                    "the index `{}` is declared twice; remove one",
                    lit.value()
                ))
                .with_span(lit),
            );
        }
    }
}

fn check_key_parts(model: &Model, errors: &mut crate::meta::Accumulator) {
    let keys = model.key.iter().map(|key| (key, "key"));
    let lookups = model
        .lookups
        .iter()
        .map(|lookup| (&lookup.pattern, "lookup"));
    for (pattern, what) in keys.chain(lookups) {
        check_parts(model, pattern, what, errors);
    }
    check_ref_ids(model, errors);
    check_from_key(model, errors);
}

/// `from_key`: a part of the model's key that the body does not store, so that a read fills it from the key.
fn check_from_key(model: &Model, errors: &mut crate::meta::Accumulator) {
    for field in &model.fields {
        let Some(span) = field.from_key else { continue };
        let name = field.name();
        if let Some(key) = &model.key
            && !key.template.parts().any(|part| part == name)
        {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`from_key` fills `{name}` from the key's `{{{name}}}` part, and the key `{}` has none; \
                     put `{{{name}}}` in the key, or remove `from_key`",
                    key.lit.value()
                ))
                .with_span(&span),
            );
        }
        if field.json.serialize.is_some() || !field.json.deserialize.is_empty() {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`{name}` is filled from the key (`from_key`), so the body does not store it: add \
                     `#[serde(skip)]` (its type's `Default` stands in until a read fills it from the key)"
                ))
                .with_span(&span),
            );
        }
        if field.nested.is_some() {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`{name}` is filled from the key (`from_key`) and has no stored paths; remove `nested`"
                ))
                .with_span(&span),
            );
        }
    }
}

/// A lookup naming its document by the bare id (`ref_id`) needs a key of one part: the id is that part.
fn check_ref_ids(model: &Model, errors: &mut crate::meta::Accumulator) {
    let Some(key) = &model.key else { return };
    let parts = key.template.parts().count();
    if parts == 1 {
        return;
    }
    for ref_id in model.lookups.iter().filter_map(|lookup| lookup.ref_id) {
        errors.push(
            crate::meta::Error::custom(format!(
                "`ref_id` names the document by its bare id, the one part of its key; the key `{}` has {parts} \
                 parts: leave `ref_id` out, and the lookup document holds the whole key",
                key.lit.value()
            ))
            .with_span(ref_id),
        );
    }
}

/// The placeholders of a key or lookup template name fields whose types can be key parts; a key part has no
/// setter (a lookup part may: the repository moves the lookup document).
fn check_parts(
    model: &Model,
    pattern: &Pattern,
    what: &str,
    errors: &mut crate::meta::Accumulator,
) {
    let lit = pattern.lit;
    for name in pattern.template.parts() {
        let Some(field) = model.field(name) else {
            let known: Vec<String> = model
                .fields
                .iter()
                .map(|field| format!("`{}`", field.ident))
                .collect();
            errors.push(
                crate::meta::Error::custom(format!(
                    "the {what} placeholder `{{{name}}}` names no field of `{}`; its fields are {}",
                    model.ident,
                    known.join(", ")
                ))
                .with_span(lit),
            );
            continue;
        };
        if let (Some(set), "key") = (&field.set, what) {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`{}` is part of the key `{}`, so it cannot have a setter: changing it would move the document \
                     to another key",
                    field.ident,
                    lit.value()
                ))
                .with_span(&set.span),
            );
        }
        // A `from_key` field is filled from the key before anything reads it, lookups included.
        if let (Some((span, option)), false) = (field.json.skip, field.from_key.is_some()) {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`{}` is part of the {what} `{}`, and `#[serde({option})]` keeps it out of the stored document \
                     or out of what is read back, so {consequence}; remove `{option}`",
                    field.ident,
                    lit.value(),
                    consequence = if what == "key" {
                        "a stored document could never be read again under its key"
                    } else {
                        "a stored document could never be found by this lookup"
                    }
                ))
                .with_span(&span),
            );
        }
        if let Some(reason) = not_a_key_part(field.ty) {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`{}` cannot be part of the {what} `{}`: {reason}",
                    field.ident,
                    lit.value()
                ))
                .with_span(field.ty),
            );
        }
    }
}

/// Why a field type can never be a key part, for types the derive can tell by their spelling; other types
/// are checked by the compiler against `docmodel::KeyPart`.
fn not_a_key_part(ty: &syn::Type) -> Option<&'static str> {
    match ty {
        syn::Type::Reference(_) => {
            return Some("a key part is an owned value, such as `String` or `u64`");
        }
        syn::Type::Tuple(_) | syn::Type::Array(_) | syn::Type::Slice(_) => {
            return Some("a key part is one value; use one placeholder per part");
        }
        _ => {}
    }
    if generic_argument(ty, "Option").is_some() {
        return Some("a key part must always have a value, and an `Option` may be `None`");
    }
    if generic_argument(ty, "Vec").is_some() {
        return Some("a key part is one value; use one placeholder per part");
    }
    match simple_type_name(ty)?.as_str() {
        "f32" | "f64" => {
            Some("floating-point numbers have many spellings of one value (`1`, `1.0`, `1e0`)")
        }
        "bool" => {
            Some("a boolean has two values; put the distinction in the type or the key prefix")
        }
        _ => None,
    }
}

/// `nested` gives the paths of the struct a field stores: the field must be stored, in the struct's own form.
/// Shared by the model's fields and an `Embedded` struct's.
pub fn check_nested(
    ident: &syn::Ident,
    nested: Option<proc_macro2::Span>,
    json: &FieldNames,
    errors: &mut crate::meta::Accumulator,
) {
    let Some(span) = nested else { return };
    if let (None, Some((_, option))) = (&json.serialize, json.skip) {
        errors.push(
            crate::meta::Error::custom(format!(
                "`{ident}` is never stored (`#[serde({option})]`), so it has no paths to nest; remove `nested`"
            ))
            .with_span(&span),
        );
    } else if json.custom {
        errors.push(
            crate::meta::Error::custom(format!(
                "`{ident}` is stored the way its serde attribute (`with`, `serialize_with`) writes it, not as the struct's fields, so its \
                 paths would name nothing; remove `nested` (its path compares the stored JSON)"
            ))
            .with_span(&span),
        );
    }
}

fn check_accessors(field: &Field, errors: &mut crate::meta::Accumulator) {
    // `Model::key(parts...)` is generated on every model; an accessor of the same name would clash with it.
    let clash = || {
        crate::meta::Error::custom(
            "an accessor named `key` would clash with the generated key constructor `key(...)`: for a getter, \
             rename the field and keep its JSON name with `#[serde(rename = \"key\")]`; for `push`, choose \
             another name",
        )
    };
    if field.get.is_some() && field.ident == "key" {
        errors.push(clash().with_span(field.ident));
    }
    if let Some(push) = field.push.filter(|push| ***push == "key") {
        errors.push(clash().with_span(&push.span()));
    }

    if let Some(push) = field.push
        && field.vec_item().is_none()
    {
        errors.push(
            crate::meta::Error::custom(format!(
                "`push = {}` adds an element to a `Vec` field, and `{}` is not a `Vec<_>`",
                **push, field.ident
            ))
            .with_span(&push.span()),
        );
    }
}

fn check_envelope_names(model: &Model, errors: &mut crate::meta::Accumulator) {
    check_serde_shape(model, errors);
    let names = model.envelope.and_then(|envelope| envelope.names.as_ref());
    let given = names.into_iter().flat_map(|names| {
        names
            .renamed
            .iter()
            .map(|(_, lit)| lit)
            .chain(names.meta.as_ref())
    });
    for name in given {
        if name.value().is_empty() {
            errors.push(
                crate::meta::Error::custom("an envelope field name cannot be empty")
                    .with_span(name),
            );
        }
    }
    check_legacy_names(model, errors);
    let Some(known) = &model.known_envelope else {
        return;
    };
    // Two envelope fields under one name would be written twice and never read back.
    for (at, (field, name)) in known.fields.iter().enumerate() {
        let Some((first, _)) = known.fields[..at]
            .iter()
            .find(|(_, earlier)| earlier == name)
        else {
            continue;
        };
        let error = crate::meta::Error::custom(format!(
            "the envelope stores both {} and {} as `{name}`",
            first.what(),
            field.what()
        ));
        // At the rename that made the clash: this field's, else the earlier one's.
        let renamed = names.and_then(|names| names.of(*field).or_else(|| names.of(*first)));
        errors.push(match (renamed, model.envelope) {
            (Some(lit), _) => error.with_span(lit),
            (None, Some(envelope)) => error.with_span(&envelope.span()),
            (None, None) => error.with_span(model.ident),
        });
    }
    let reserved = known.reserved();
    let taken = |name: &str| {
        reserved
            .iter()
            .find(|(reserved, _)| *reserved == name)
            .map(|(_, what)| *what)
    };
    if let Some(tag) = &model.serde.tag
        && let Some(what) = taken(&tag.value())
    {
        errors.push(
            crate::meta::Error::custom(format!(
                "serde writes the tag `{}` into the document, and the envelope uses that name for {what}",
                tag.value()
            ))
            .with_span(tag),
        );
    }
    for field in &model.fields {
        let names = field.json.serialize.iter().chain(&field.json.deserialize);
        if let Some((name, what)) = names
            .filter_map(|name| taken(name).map(|what| (name, what)))
            .next()
        {
            errors.push(
                crate::meta::Error::custom(if known.legacy.iter().any(|(_, legacy)| legacy == name) {
                    format!(
                        "the field `{}` is stored as `{name}`, which the envelope reads as {what} (a legacy \
                         name, `envelope(legacy_names(...))`); rename the field (`#[serde(rename = \"...\")]`) \
                         or give the envelope field no legacy name",
                        field.ident
                    )
                } else {
                    format!(
                        "the field `{}` is stored as `{name}`, which the envelope uses for {what}; rename the \
                         field (`#[serde(rename = \"...\")]`) or the envelope field (`envelope(names(...))`)",
                        field.ident
                    )
                })
                .with_span(field.ident),
            );
        }
    }
}

/// The `root` layout's type is the name of its root attribute: a document always has one, and it is no field.
fn check_root(model: &Model, errors: &mut crate::meta::Accumulator) {
    let Some(envelope) = model.envelope else {
        return;
    };
    if envelope.layout.as_deref() != Some(&Layout::Root) {
        return;
    }
    if let Some(untyped) = model.untyped {
        errors.push(
            crate::meta::Error::custom(
                "a document of the `root` layout is named by its type (its one top-level attribute), so it \
                 always has one: remove `untyped`",
            )
            .with_span(untyped),
        );
    }
    if let Some(alias) = model.aliases.first() {
        errors.push(
            crate::meta::Error::custom(
                "the `root` layout names its fields under the root attribute, the type: documents under an \
                 alias's root would need every query written once per spelling, which CouchDB's selectors \
                 cannot; read them with a model of that type, or rewrite them under the model's",
            )
            .with_span(*alias),
        );
    }
    let renamed_type = [envelope.names.as_ref(), envelope.legacy_names.as_ref()]
        .into_iter()
        .flatten()
        .filter_map(|names| names.of(crate::envelope::Field::Type));
    for name in renamed_type {
        errors.push(
            crate::meta::Error::custom(
                "the `root` layout stores no type field (the type is the name of the root attribute): \
                 remove this name",
            )
            .with_span(name),
        );
    }
}

/// `legacy_names(...)`: each names a field the model keeps, under a name no other envelope field (or legacy
/// name) has; the meta object has none.
fn check_legacy_names(model: &Model, errors: &mut crate::meta::Accumulator) {
    let Some(legacy) = model
        .envelope
        .and_then(|envelope| envelope.legacy_names.as_ref())
    else {
        return;
    };
    if let Some(meta) = &legacy.meta {
        errors.push(
            crate::meta::Error::custom(
                "`legacy_names` gives other names of envelope fields; the `meta` object has none (a document \
                 whose envelope object is named otherwise is another layout)",
            )
            .with_span(meta),
        );
    }
    for (at, (field, lit)) in legacy.renamed.iter().enumerate() {
        let name = lit.value();
        if name.is_empty() {
            errors.push(
                crate::meta::Error::custom("an envelope field's legacy name cannot be empty")
                    .with_span(lit),
            );
            continue;
        }
        let Some(known) = &model.known_envelope else {
            continue;
        };
        if !known.fields.iter().any(|(kept, _)| kept == field) {
            errors.push(
                crate::meta::Error::custom(format!(
                    "the model does not keep {}: keep it (`envelope({})`) to read it under a legacy name",
                    field.what(),
                    field.option()
                ))
                .with_span(lit),
            );
            continue;
        }
        let own = known.fields.iter().find(|(_, own)| *own == name);
        let earlier = legacy.renamed[..at]
            .iter()
            .find(|(_, earlier)| earlier.value() == name);
        let taken = match (own, earlier) {
            (Some((other, _)), _) => Some(format!("the name of {}", other.what())),
            (None, Some((other, _))) => Some(format!("a legacy name of {} already", other.what())),
            (None, None) => None,
        };
        if let Some(taken) = taken {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`{name}` is {taken}: a document holding it could not be read back"
                ))
                .with_span(lit),
            );
        }
    }
}

/// A document body is a JSON object whose every field docmodel can see: no `flatten`, no `transparent`.
fn check_serde_shape(model: &Model, errors: &mut crate::meta::Accumulator) {
    if let Some(span) = model.serde.transparent {
        errors.push(
            crate::meta::Error::custom(
                "a document model cannot be `#[serde(transparent)]`: its stored form is an object holding the \
                 envelope and the struct's named fields",
            )
            .with_span(&span),
        );
    }
    for field in &model.fields {
        if let Some(span) = field.json.flatten {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`#[serde(flatten)]` on `{}` hides the names it stores from docmodel, which could then neither \
                     keep the fields this code does not know nor check them against the envelope; declare the \
                     fields on the model",
                    field.ident
                ))
                .with_span(&span),
            );
        }
    }
}
