//! Lookup documents: alternative keys of a document (the seeds' `customer_ref::12345 -> {"ref": ...}`).

use crate::{Error, KeyTemplate};

/// One lookup of a model: a key template over its fields, whose document holds the model's key. Generated
/// from `#[docmodel(lookup = "customer_ref::{customer_no}")]`.
pub struct Lookup<T: 'static> {
    /// The lookup key's template.
    pub template: KeyTemplate,
    /// Appends the lookup key of a body to a string.
    pub write: fn(&T, &mut String) -> Result<(), Error>,
}

impl<T> std::fmt::Debug for Lookup<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Lookup")
            .field(&self.template.pattern())
            .finish()
    }
}

/// The stored form of a lookup document: `{"ref":"user::123"}`.
pub(crate) fn lookup_document(key: &str) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({ "ref": key })).unwrap_or_default()
}

/// The key a lookup document refers to, if `bytes` are exactly a lookup document: an object holding one
/// string field `ref` and nothing else. Anything else under a lookup key is somebody else's document.
pub(crate) fn lookup_target(bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Target {
        #[serde(rename = "ref")]
        target: String,
    }
    serde_json::from_slice::<Target>(bytes)
        .ok()
        .map(|found| found.target)
}
