//! `DocModel::__body_schema`: each stored field of the body with its JSON Schema, and which a document must
//! hold, for `docmodel::json_schema`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::local;
use crate::ast::Complete;
use crate::serde_names::FieldNames;

/// A stored field as the schema needs it, of a model or of an `Embedded` struct.
pub struct SchemaField<'a> {
    pub ident: &'a syn::Ident,
    pub ty: &'a syn::Type,
    pub json: &'a FieldNames,
    /// Whether a document without it reads ([`Field::reads_absent`](crate::ast::Field::reads_absent)).
    pub reads_absent: bool,
}

/// The fields' properties (`(name, schema)` expressions), the names a document must hold, and why the object
/// holds fields the schema cannot name, if it does.
pub struct ObjectParts<'a> {
    pub properties: Vec<TokenStream>,
    pub required: Vec<&'a String>,
    /// The fields a document must hold under one of several names (read from an alias too): their names.
    pub required_any: Vec<TokenStream>,
    pub open: TokenStream,
}

/// The schema's parts of an object of `fields`: the schema of each
/// field's type comes from its `StoredShape` where it has one (the probe's method resolution picks it), an
/// open schema saying so where it has none.
pub fn object<'a>(fields: &[SchemaField<'a>], shapes: &syn::Ident) -> ObjectParts<'a> {
    let mut properties = Vec::new();
    let mut required = Vec::new();
    let mut required_any = Vec::new();
    let mut open = None;
    for field in fields {
        if field.json.flatten.is_some() {
            open = Some(format!(
                "`{}` is `#[serde(flatten)]`, so its fields are stored beside the others under names the \
                 schema does not know",
                field.ident
            ));
            continue;
        }
        let Some(name) = &field.json.serialize else {
            continue;
        };
        properties.push({
            let shape = shape(field, shapes);
            quote!((#name, #shape))
        });
        // A field read under another name too (an alias, a `rename(deserialize = ...)`) may be stored under
        // that name instead.
        for other in field.json.deserialize.iter().filter(|other| *other != name) {
            let shape = shape(field, shapes);
            properties.push(quote!((#other, #shape)));
        }
        if must_hold(field, name) {
            required.push(name);
        } else if !field.reads_absent && field.json.deserialize.contains(name) {
            // Read from other names too: a document must hold it under one of them.
            let names = &field.json.deserialize;
            required_any.push(quote!(&[#(#names),*]));
        }
    }
    let open = match open {
        Some(open) => quote!(::core::option::Option::Some(#open)),
        None => quote!(::core::option::Option::None),
    };
    ObjectParts {
        properties,
        required,
        required_any,
        open,
    }
}

/// `DocModel::__body_schema`, of the model's fields.
pub fn trait_items(model: &Complete) -> TokenStream {
    let shapes = local("shapes");
    let fields: Vec<SchemaField> = model
        .fields
        .iter()
        .map(|field| SchemaField {
            ident: field.ident,
            ty: field.ty,
            json: &field.json,
            reads_absent: field.reads_absent(),
        })
        .collect();
    let ObjectParts {
        properties,
        required,
        required_any,
        open,
    } = object(&fields, &shapes);
    // Each stored field's name in Rust and in the document: a key template names the field, the document
    // stores its value under the other.
    let names = fields.iter().filter_map(|field| {
        let stored = field.json.serialize.as_ref()?;
        let ident = field.ident.to_string();
        Some(quote!((#ident, #stored)))
    });
    // `#[inline]`, as the derive's other functions: no machine code in the models' crate unless it is called.
    quote! {
        #[inline]
        fn __body_schema(#shapes: &mut _docmodel::Shapes) -> __docmodel_private::BodySchema {
            #[allow(unused_imports)]
            use __docmodel_private::{Open as _, ViaShape as _};
            __docmodel_private::BodySchema {
                properties: ::std::vec![#(#properties),*],
                required: &[#(#required),*],
                required_any: &[#(#required_any),*],
                open: #open,
                names: &[#(#names),*],
            }
        }
    }
}

/// The schema of `field`'s stored value.
fn shape(field: &SchemaField, shapes: &syn::Ident) -> TokenStream {
    if field.json.custom {
        let how = match &field.json.with {
            Some(with) => format!("`#[serde(with = \"{with}\")]`"),
            None => "its own `serialize_with` function".to_owned(),
        };
        let description = format!(
            "`{}` is written by {how}, whose stored shape docmodel does not know",
            field.ident
        );
        return quote!(__docmodel_private::open_shape(#description));
    }
    let ty = field.ty;
    let type_name = quote!(#ty).to_string().replace(' ', "");
    quote_spanned! {ty.span()=>
        (&&__docmodel_private::Probe::<#ty>::new()).field_shape(#shapes, #type_name)
    }
}

/// Whether a document must hold the field, stored under `name`, for the object to read: read under that name
/// only, and a document without it does not read. (Whatever the writer leaves out reads when absent: the
/// omit check refuses a model where it would not.)
fn must_hold(field: &SchemaField, name: &str) -> bool {
    let json = field.json;
    let read_only_as_written = json.deserialize.len() == 1 && json.deserialize[0] == name;
    read_only_as_written && !field.reads_absent
}
