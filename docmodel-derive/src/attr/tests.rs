//! What `#[docmodel(...)]` accepts and refuses, read as darling read it: the cases the compile-fail snapshots do
//! not show.

use super::*;

fn model(input: DeriveInput) -> Result<ModelAttr> {
    ModelAttr::from_derive_input(&input)
}

fn errors(input: DeriveInput) -> Vec<String> {
    match model(input) {
        Ok(_) => Vec::new(),
        Err(error) => error.messages().into_iter().map(str::to_owned).collect(),
    }
}

#[test]
fn a_turbofish_with_several_arguments_is_one_value() {
    let read = model(syn::parse_quote! {
        #[docmodel(type = "user", validate = check::<u8, u16>, garde)]
        struct User { id: u64 }
    });
    let read = read.unwrap_or_else(|error| panic!("{:?}", error.messages()));
    let validate = read.validate.as_ref().map(crate::meta::path_name);
    assert_eq!(validate.as_deref(), Some("check"));
    assert!(read.garde.is_present());
}

#[test]
fn a_count_reads_from_a_number_or_a_string_of_one() {
    for input in [
        syn::parse_quote! { #[docmodel(revisions = 10)] struct User { id: u64 } },
        syn::parse_quote! { #[docmodel(revisions = "10")] struct User { id: u64 } },
        syn::parse_quote! { #[docmodel(revisions(keep = "10", for = "30d"))] struct User { id: u64 } },
    ] {
        let read = model(input).unwrap_or_else(|error| panic!("{:?}", error.messages()));
        assert_eq!(
            read.revisions.as_ref().map(|revisions| *revisions.keep),
            Some(10)
        );
    }
    assert_eq!(
        errors(syn::parse_quote! { #[docmodel(revisions = "ten")] struct User { id: u64 } }),
        ["Unknown value: `ten`"]
    );
}

#[test]
fn a_keep_that_does_not_read_is_one_error_not_two() {
    assert_eq!(
        errors(
            syn::parse_quote! { #[docmodel(revisions(keep = 1.5, for = "30d"))] struct User { id: u64 } }
        ),
        ["Unexpected type `float`"]
    );
    assert_eq!(
        errors(syn::parse_quote! { #[docmodel(revisions(for = "30d"))] struct User { id: u64 } }),
        ["Missing field `keep`"]
    );
}

#[test]
fn a_value_left_out_is_its_options_error_and_the_others_are_still_read() {
    assert_eq!(
        errors(syn::parse_quote! { #[docmodel(untyped = 5, garde = )] struct User { id: u64 } }),
        ["Unexpected type `int`", "expected a value after `=`"]
    );
}

#[test]
fn envelope_formats_read_as_strings_or_as_one_word_in_a_list() {
    let read = model(syn::parse_quote! {
        #[docmodel(envelope(layout(plain), timestamps = "epoch_s"))]
        struct User { id: u64 }
    });
    let read = read.unwrap_or_else(|error| panic!("{:?}", error.messages()));
    let envelope = read.envelope.as_ref().map(|envelope| {
        (
            envelope.layout.as_deref().copied(),
            envelope.timestamps.as_deref().copied(),
        )
    });
    assert_eq!(
        envelope,
        Some((Some(Layout::Plain), Some(Timestamps::EpochS)))
    );
    assert_eq!(
        errors(syn::parse_quote! { #[docmodel(envelope(layout(nested)))] struct User { id: u64 } }),
        ["Unknown value: `nested`. Available values: `flat`, `meta`, `plain`, `root`"]
    );
}

#[test]
fn a_bare_attribute_says_nothing_and_brackets_hold_a_list() {
    let read = model(syn::parse_quote! {
        #[docmodel(type = "user", envelope[layout = "plain"])]
        struct User {
            #[docmodel]
            id: u64,
        }
    });
    let read = read.unwrap_or_else(|error| panic!("{:?}", error.messages()));
    assert_eq!(read.fields.len(), 1);
    assert!(read.fields[0].get.is_none());
    let layout = read
        .envelope
        .as_ref()
        .and_then(|envelope| envelope.layout.as_deref().copied());
    assert_eq!(layout, Some(Layout::Plain));
}

#[test]
fn options_given_twice_across_attributes_are_reported_once_each() {
    assert_eq!(
        errors(syn::parse_quote! {
            #[docmodel(type = "user", tpye = "x")]
            #[docmodel(type = "person", garde, garde)]
            struct User { id: u64 }
        }),
        [
            "Unknown field: `tpye`. Did you mean `type`?",
            "Duplicate field `type`",
            "Duplicate field `garde`"
        ]
    );
}

#[test]
fn a_flag_given_an_empty_list_is_an_error_not_a_panic() {
    assert_eq!(
        errors(syn::parse_quote! { #[docmodel(type = "user", garde())] struct User { id: u64 } }),
        ["Unexpected meta-item format `list`"]
    );
}
