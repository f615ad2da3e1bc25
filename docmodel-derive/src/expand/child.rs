//! `impl Child`: for a model with a `#[docmodel(parent)]` field, the parent's model, the parent's key, and
//! the queries that list a parent's items in their order; and for a model with `items(...)`, the `DocModel`
//! items that remove them with it.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Complete, replace_self};

/// The impl, or nothing for a model without a parent field (checked in `valid.rs`: one at most).
pub fn impl_child(model: &Complete, generics: &syn::Generics) -> TokenStream {
    let Some(parent) = model.fields.iter().find(|field| field.parent.is_some()) else {
        return TokenStream::new();
    };
    let ident = model.ident;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let (_, model_ty_generics, _) = model.generics.split_for_impl();
    let ty = replace_self(
        parent.ty.to_token_stream(),
        &quote!(#ident #model_ty_generics),
    );
    // Each path whole at the field's type: a type that is no parent field is reported there, once, by
    // `ParentField`'s message.
    let span = parent.ty.span();
    let parent_type = quote_spanned!(span=> <#ty as __docmodel_private::ParentField>::Parent);
    let parent_key = quote_spanned!(span=> <#ty as __docmodel_private::ParentField>::parent_key);
    let set = quote_spanned!(span=> <#ty as __docmodel_private::ParentField>::set);
    let among = quote_spanned!(span=> <#ty as __docmodel_private::ParentField>::among);
    let none = quote_spanned!(span=> <#ty as __docmodel_private::ParentField>::none);
    let member = parent.ident;
    let order = model
        .fields
        .iter()
        .find(|field| field.order.is_some())
        .map(|order| {
            let member = order.ident;
            quote!(.order_by(&fields.#member))
        });
    // The impl's one requirement of the type, so that a type that is no parent field fails it alone.
    let mut where_clause = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    where_clause
        .predicates
        .push(syn::parse_quote_spanned!(span=> #ty: __docmodel_private::ParentField));
    let listed = listed_by_parent(model, parent, generics);
    quote! {
        #listed

        #[automatically_derived]
        impl #impl_generics _docmodel::Child for #ident #ty_generics #where_clause {
            type Parent = #parent_type;

            fn parent_key(&self) -> ::core::option::Option<&_docmodel::Key<Self::Parent>> {
                #parent_key(&self.#member)
            }

            fn set_parent(&mut self, parent: _docmodel::Key<Self::Parent>) {
                #set(&mut self.#member, parent)
            }

            fn children_query(parents: &[_docmodel::Key<Self::Parent>]) -> _docmodel::Query<Self> {
                let fields = <Self as _docmodel::DocModel>::fields();
                _docmodel::Query::new(#among(&fields.#member, parents)) #order
            }

            fn roots_query() -> _docmodel::Query<Self> {
                let fields = <Self as _docmodel::DocModel>::fields();
                _docmodel::Query::new(#none(&fields.#member)) #order
            }
        }
    }
}

/// `impl Parent`, for a model with `items(...)`: what a removal with items asks of the model.
pub fn impl_parent(model: &Complete, generics: &syn::Generics) -> TokenStream {
    if model.items.is_empty() {
        return TokenStream::new();
    }
    let ident = model.ident;
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics _docmodel::Parent for #ident #ty_generics #where_clause {}
    }
}

/// `ITEMS`, `check_items` and `remove_items` in the `DocModel` impl, for a model with `items(...)`: each model's items
/// removed in turn. An item model whose parent is another model fails at its path (the key's type differs).
pub fn trait_items(model: &Complete) -> TokenStream {
    if model.items.is_empty() {
        return TokenStream::new();
    }
    // Only the model's own bounds here: a path that is no `Child` of this model is reported once, by the
    // removal below.
    let checks = model.items.iter().map(|path| {
        quote_spanned!(path.span()=> __docmodel_private::check_items::<Self, #path, S>(repo, key).await?;)
    });
    let removals = model.items.iter().map(|path| {
        quote_spanned!(path.span()=> __docmodel_private::remove_items::<#path, S>(repo, key, above).await?;)
    });
    let types = model
        .items
        .iter()
        .map(|path| quote_spanned!(path.span()=> <#path as _docmodel::DocModel>::TYPE));
    quote! {
        const ITEMS: &'static [&'static str] = &[#(#types),*];

        fn check_items<'a, 's: 'a, S: _docmodel::store::Store>(
            repo: &'a _docmodel::Repo<Self, &'s S>,
            key: &'a _docmodel::Key<Self>,
        ) -> __docmodel_private::Removal<'a> {
            ::std::boxed::Box::pin(async move {
                #(#checks)*
                ::core::result::Result::Ok(())
            })
        }

        fn remove_items<'a, 's: 'a, S: _docmodel::store::Store>(
            repo: &'a _docmodel::Repo<Self, &'s S>,
            key: &'a _docmodel::Key<Self>,
            above: &'a [::std::string::String],
        ) -> __docmodel_private::Removal<'a> {
            ::std::boxed::Box::pin(async move {
                #(#removals)*
                ::core::result::Result::Ok(())
            })
        }
    }
}

/// A compile-time assertion that the parent model, where it names its items (`items(...)`), names this one:
/// otherwise a removal of a parent with its items would leave this model's items behind. Only for a model
/// without generics (a free constant cannot name them) whose parent field is written `Ref<...>` or
/// `Option<Ref<...>>`: any other type is reported by `ParentField` alone, once.
fn listed_by_parent(
    model: &Complete,
    parent: &crate::ast::Field<'_>,
    generics: &syn::Generics,
) -> TokenStream {
    let Some(referred) = referred(parent.ty).filter(|_| generics.params.is_empty()) else {
        return TokenStream::new();
    };
    let ident = model.ident;
    let ty = &parent.ty;
    let referred = referred.to_token_stream().to_string().replace(' ', "");
    let message = format!(
        "`{ident}` is an item of `{referred}` (its field `{}`), and `{referred}`'s `items(...)` does not name \
         it: removing a `{referred}` with its items would leave its `{ident}` items behind; add `{ident}` there",
        parent.ident,
    );
    quote_spanned! {ty.span()=>
        const _: () = {
            let items = <<#ty as __docmodel_private::ParentField>::Parent as _docmodel::DocModel>::ITEMS;
            if !__docmodel_private::listed(items, <#ident as _docmodel::DocModel>::TYPE) {
                ::core::panic!(#message);
            }
        };
    }
}

/// `P` where `ty` is written `Ref<P>` or `Option<Ref<P>>` (by the last segment of each path).
fn referred(ty: &syn::Type) -> Option<&syn::Type> {
    fn argument<'t>(ty: &'t syn::Type, name: &str) -> Option<&'t syn::Type> {
        let syn::Type::Path(path) = ty else {
            return None;
        };
        let segment = path
            .path
            .segments
            .last()
            .filter(|segment| segment.ident == name)?;
        let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
            return None;
        };
        match args.args.first()? {
            syn::GenericArgument::Type(inner) => Some(inner),
            _ => None,
        }
    }
    argument(ty, "Ref").or_else(|| argument(argument(ty, "Option")?, "Ref"))
}
