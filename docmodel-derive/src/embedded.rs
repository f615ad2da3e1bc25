//! `#[derive(Embedded)]`: the field paths of a struct stored inside a model's body. A model's field marked
//! `#[docmodel(nested)]` gives them under its own path (`Model::fields().address.city`).
//!
//! The paths follow serde's names as the model's do (`serde_names`); a field marked `nested` nests again.
//! On an error the derive emits every error found and a stub impl, so one mistake causes one error.

use crate::meta::{Accumulator, Flag, FromMeta, each_option, set};
use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Ident, Path, Type, Visibility};

use crate::ast::replace_self;
use crate::expand::schema::{ObjectParts, SchemaField};
use crate::serde_names::{Container, FieldNames};
use crate::valid;

/// `#[docmodel(...)]` on the struct.
struct EmbeddedAttr {
    ident: Ident,
    vis: Visibility,
    fields: Vec<EmbeddedFieldAttr>,
    /// The struct's `#[serde(...)]` attributes.
    attrs: Vec<Attribute>,
    krate: Option<Path>,
}

/// `#[docmodel(nested)]` on a field: the only option of an embedded struct's field.
struct EmbeddedFieldAttr {
    ident: Option<Ident>,
    ty: Type,
    /// The field's `#[serde(...)]` attributes.
    attrs: Vec<Attribute>,
    nested: Flag,
}

impl EmbeddedAttr {
    /// The struct's options and its fields', every error collected.
    fn from_derive_input(input: &DeriveInput) -> crate::meta::Result<Self> {
        let mut errors = Accumulator::default();
        let mut krate = None;
        let items = crate::meta::docmodel_items(&input.attrs, &mut errors);
        each_option(&items, &["crate"], &[], &mut errors, |_, meta, errors| {
            set(&mut krate, meta, errors);
        });
        let mut fields = Vec::new();
        if let syn::Data::Struct(data) = &input.data {
            for field in &data.fields {
                let mut nested = Flag::default();
                let items = crate::meta::docmodel_items(&field.attrs, &mut errors);
                each_option(&items, &["nested"], &[], &mut errors, |_, meta, errors| {
                    nested = errors.handle(Flag::from_meta(meta)).unwrap_or_default();
                });
                fields.push(EmbeddedFieldAttr {
                    ident: field.ident.clone(),
                    ty: field.ty.clone(),
                    attrs: crate::meta::forwarded(&field.attrs, &["serde"]),
                    nested,
                });
            }
        }
        errors.finish_with(EmbeddedAttr {
            ident: input.ident.clone(),
            vis: input.vis.clone(),
            fields,
            attrs: crate::meta::forwarded(&input.attrs, &["serde"]),
            krate,
        })
    }
}

/// A stored field of the struct, with its JSON names.
struct Member<'a> {
    ident: &'a Ident,
    ty: &'a Type,
    nested: bool,
    json: FieldNames,
}

pub fn derive(input: &DeriveInput) -> TokenStream {
    if let Err(error) = check_shape(input) {
        return stub(input, error.to_compile_error());
    }
    let attr = match EmbeddedAttr::from_derive_input(input) {
        Ok(attr) => attr,
        Err(errors) => return stub(input, errors.write_errors()),
    };
    let mut errors = crate::meta::Accumulator::default();
    let members = members(&attr, &mut errors);
    match errors.finish() {
        Ok(()) => expand(&attr, &members),
        Err(errors) => stub(input, errors.write_errors()),
    }
}

/// A struct with named fields and no parameters: its paths are the names serde stores it under.
fn check_shape(input: &DeriveInput) -> syn::Result<()> {
    if let Some(param) = input.generics.params.first() {
        return Err(syn::Error::new_spanned(
            param,
            "`Embedded` gives paths to the fields of a struct without parameters; a generic struct has none: \
             give the model's field a concrete struct, or leave `nested` off and compare it as a whole",
        ));
    }
    crate::expand::named_struct(
        input,
        "`Embedded` gives paths to the named fields serde stores as a JSON object; only a struct with named \
         fields has them",
    )
}

/// The struct's fields with their JSON names; `flatten`, `transparent` and a `nested` field that stores no
/// struct of its own are reported.
fn members<'a>(attr: &'a EmbeddedAttr, errors: &mut crate::meta::Accumulator) -> Vec<Member<'a>> {
    let Some(container) =
        errors.handle(Container::from_attrs(&attr.attrs).map_err(crate::meta::Error::from))
    else {
        return Vec::new();
    };
    if let Some(span) = container.transparent {
        errors.push(
            crate::meta::Error::custom(
                "an `Embedded` struct cannot be `#[serde(transparent)]`: it is stored as its one field, which has \
                 no paths of its own; leave the derive off and compare the field as a whole",
            )
            .with_span(&span),
        );
    }
    let mut members = Vec::new();
    for field in &attr.fields {
        let Some(ident) = field.ident.as_ref() else {
            continue;
        };
        let Some(json) = errors.handle(
            container
                .field_names(ident, &field.ty, &field.attrs)
                .map_err(crate::meta::Error::from),
        ) else {
            continue;
        };
        if let Some(span) = json.flatten {
            errors.push(
                crate::meta::Error::custom(format!(
                    "`#[serde(flatten)]` on `{ident}` hides the names it stores, so it can have no paths; declare \
                     its fields on `{}`",
                    attr.ident
                ))
                .with_span(&span),
            );
        }
        let nested = field.nested.is_present();
        valid::check_nested(ident, nested.then(|| field.nested.span()), &json, errors);
        members.push(Member {
            ident,
            ty: &field.ty,
            nested,
            json,
        });
    }
    members
}

fn expand(attr: &EmbeddedAttr, members: &[Member]) -> TokenStream {
    let krate = runtime(attr.krate.as_ref());
    let private = crate::runtime::private_module();
    let vis = &attr.vis;
    let ident = &attr.ident;
    let fields_ident = format_ident!("{}Fields", ident);
    let model = format_ident!("__M");
    let stored: Vec<(&Member, &str)> = members
        .iter()
        .filter_map(|member| Some((member, member.json.serialize.as_deref()?)))
        .collect();
    let declarations = stored.iter().map(|(member, name)| {
        let member_ident = member.ident;
        let ty = replace_self(member.ty.to_token_stream(), &ident.to_token_stream());
        let (ty, doc) = if member.nested {
            (
                quote_spanned!(member.ty.span()=> <#ty as _docmodel::Embedded>::Fields<#model>),
                format!("`{member_ident}`, stored as `\"{name}\"`: the paths of the struct it holds, and `whole()`."),
            )
        } else if member.json.custom {
            (
                quote!(_docmodel::Field<#model, __docmodel_private::JsonValue>),
                format!("`{member_ident}`, stored as `\"{name}\"` in the form its serde attribute writes."),
            )
        } else {
            (
                quote!(_docmodel::Field<#model, #ty>),
                format!("`{member_ident}`, stored as `\"{name}\"`."),
            )
        };
        quote!(#[doc = #doc] #vis #member_ident: #ty,)
    });
    let page = crate::expand::docs::embedded(
        ident,
        &members
            .iter()
            .map(|member| crate::expand::docs::EmbeddedMember {
                ident: member.ident,
                ty: member.ty,
                json: &member.json,
                nested: member.nested,
            })
            .collect::<Vec<_>>(),
    );
    let at = crate::expand::local("at");
    // Field names are not hygienic: this one is spelled so no user's field takes it.
    let whole = format_ident!("__docmodel_whole");
    let initializers = stored.iter().map(|(member, name)| {
        let member_ident = member.ident;
        if member.nested {
            let ty = replace_self(member.ty.to_token_stream(), &ident.to_token_stream());
            // All at the field's type, so a type without paths is one error there, not one per use.
            let mut member_ident = member_ident.clone();
            member_ident.set_span(member.ty.span());
            quote_spanned!(member.ty.span()=>
                #member_ident: <#ty as _docmodel::Embedded>::fields_at(#at.child(#name)),
            )
        } else {
            quote!(#member_ident: #at.child(#name),)
        }
    });
    let doc = format!(
        "The stored fields of [`{ident}`] inside a model `__M`, each a typed path for filters and queries: a \
         model's field marked `#[docmodel(nested)]` holding a `{ident}` gives them."
    );
    let whole_doc = format!(
        "The path of the `{ident}` itself: for `exists`, `missing` and `is_null`, or to compare it whole."
    );
    let shapes = crate::expand::local("shapes");
    let name_text = ident.to_string();
    let schema_fields: Vec<SchemaField> = members
        .iter()
        .map(|member| SchemaField {
            ident: member.ident,
            ty: member.ty,
            json: &member.json,
            reads_absent: member.json.absent.reads(),
        })
        .collect();
    let ObjectParts {
        properties,
        required,
        required_any,
        open,
    } = crate::expand::schema::object(&schema_fields, &shapes);
    let stored_shape = cfg!(feature = "json-schema").then(|| {
        quote! {
            #[automatically_derived]
            impl _docmodel::StoredShape for #ident {
                #[inline]
                fn stored_shape(#shapes: &mut _docmodel::Shapes) -> _docmodel::JsonValue {
                    #shapes.define::<Self>(#name_text, |#shapes| {
                        #[allow(unused_imports)]
                        use __docmodel_private::{Open as _, ViaShape as _};
                        __docmodel_private::object_shape(
                            ::std::vec![#(#properties),*],
                            &[#(#required),*],
                            &[#(#required_any),*],
                            #open,
                        )
                    })
                }
            }
        }
    });
    quote! {
        #[doc(hidden)]
        #[allow(non_upper_case_globals, unused_qualifications, unused_imports)]
        const _: () = {
            use #krate as _docmodel;
            use #krate::#private as __docmodel_private;

            #[doc = #doc]
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #fields_ident<#model> {
                #(#declarations)*
                #whole: _docmodel::Field<#model, #ident>,
            }

            #[automatically_derived]
            impl<#model> #fields_ident<#model> {
                #[doc = #whole_doc]
                #[must_use]
                #vis fn whole(&self) -> &_docmodel::Field<#model, #ident> {
                    &self.#whole
                }
            }

            #page
            #[automatically_derived]
            impl #ident {}

            #stored_shape

            #[automatically_derived]
            impl _docmodel::Embedded for #ident {
                type Fields<#model> = #fields_ident<#model>;

                fn fields_at<#model>(#at: _docmodel::Field<#model, Self>) -> #fields_ident<#model> {
                    #fields_ident {
                        #(#initializers)*
                        #whole: #at,
                    }
                }
            }
        };
    }
}

/// The errors, and an impl with no paths, so that a model nesting the struct adds no errors of its own.
fn stub(input: &DeriveInput, errors: TokenStream) -> TokenStream {
    let krate = runtime(crate::fallback::scan_crate(input).as_ref());
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        #errors

        #[allow(unused_qualifications)]
        #[automatically_derived]
        impl #impl_generics #krate::Embedded for #ident #ty_generics #where_clause {
            type Fields<__M> = ();

            fn fields_at<__M>(_: #krate::Field<__M, Self>) {}
        }
    }
}

fn runtime(krate: Option<&Path>) -> Path {
    krate
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(::docmodel))
}
