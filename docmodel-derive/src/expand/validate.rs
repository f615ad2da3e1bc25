//! `validate_body` and `VALIDATES_ON_READ`, from `validate = path`, `garde` and `validate_on_read`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{local, path_text};
use crate::ast::Complete;

pub fn trait_items(model: &Complete) -> TokenStream {
    if model.validate.is_none() && model.garde.is_none() {
        return TokenStream::new();
    }
    let (errors, found, check) = (local("__errors"), local("__found"), local("__validate"));
    let garde = model.garde.map(|span| {
        // Top-level fields by their Rust and stored names, for garde's paths (of Rust names).
        let names = model.fields.iter().filter_map(|field| {
            let stored = field.json.serialize.as_ref()?;
            let rust = field.name();
            Some(quote!((#rust, #stored)))
        });
        // At `garde`, so that a model without garde's derive (or the feature) is reported there.
        quote_spanned! {span=>
            <Self as __docmodel_private::GardeModel>::garde_errors(self, &[#(#names),*], &mut #errors);
        }
    });
    let own = model.validate.map(|path| {
        let empty = format!(
            "refused by `{}`, which named no field",
            path_text(path)
        );
        let pointer = quote_spanned! {path.span()=>
            let #check: fn(&Self) -> ::core::result::Result<(), __docmodel_private::Vec<_docmodel::FieldError>> = #path;
        };
        quote! {
            #pointer
            if let ::core::result::Result::Err(#found) = #check(self) {
                if #found.is_empty() {
                    #errors.push(_docmodel::FieldError::new("", #empty));
                }
                #errors.extend(#found);
            }
        }
    });
    let on_read = model.validate_on_read.is_some().then(|| {
        quote!(
            const VALIDATES_ON_READ: bool = true;
        )
    });
    quote! {
        #on_read
        fn validate_body(&self) -> ::core::result::Result<(), __docmodel_private::Vec<_docmodel::FieldError>> {
            let mut #errors = __docmodel_private::Vec::new();
            #garde
            #own
            if #errors.is_empty() {
                ::core::result::Result::Ok(())
            } else {
                ::core::result::Result::Err(#errors)
            }
        }
    }
}
