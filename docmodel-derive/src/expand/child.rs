//! `impl Child`: for a model with a `#[docmodel(parent)]` field, the parent's model, the parent's key, and
//! the queries that list a parent's items in their order.

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
    // At the field's type: a type that is no parent field is reported there, by `ParentField`'s message.
    let parent_field = quote_spanned!(parent.ty.span()=> <#ty as __docmodel_private::ParentField>);
    let member = parent.ident;
    let order = model
        .fields
        .iter()
        .find(|field| field.order.is_some())
        .map(|order| {
            let member = order.ident;
            quote!(.order_by(&fields.#member))
        });
    quote! {
        #[automatically_derived]
        impl #impl_generics _docmodel::Child for #ident #ty_generics #where_clause {
            type Parent = #parent_field::Parent;

            fn parent_key(&self) -> ::core::option::Option<&_docmodel::Key<Self::Parent>> {
                #parent_field::parent_key(&self.#member)
            }

            fn children_query(parents: &[_docmodel::Key<Self::Parent>]) -> _docmodel::Query<Self> {
                let fields = <Self as _docmodel::DocModel>::fields();
                _docmodel::Query::new(#parent_field::among(&fields.#member, parents)) #order
            }

            fn roots_query() -> _docmodel::Query<Self> {
                let fields = <Self as _docmodel::DocModel>::fields();
                _docmodel::Query::new(#parent_field::none(&fields.#member)) #order
            }
        }
    }
}
