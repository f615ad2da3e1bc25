//! Lookup documents: alternative keys of a document (the seeds' `customer_ref::12345 -> {"ref": ...}`).

use crate::reference::ref_id;
use crate::{DocModel, Error, Key, KeyTemplate};

/// One lookup of a model: a key template over its fields, whose document names the model's document.
/// Generated from `#[docmodel(lookup = "customer_ref::{customer_no}")]`.
pub struct Lookup<T: 'static> {
    /// The lookup key's template.
    pub template: KeyTemplate,
    /// Appends the lookup key of a body to a string.
    pub write: fn(&T, &mut String) -> Result<(), Error>,
    /// `lookup("...", ref_id)`: the lookup document names its document by the bare id, the one part of the
    /// model's key (`{"ref": "mmustermann@domain.com"}`), not by the whole key.
    pub ref_id: bool,
}

impl<T> std::fmt::Debug for Lookup<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lookup")
            .field("template", &self.template.pattern())
            .field("ref_id", &self.ref_id)
            .finish()
    }
}

/// Whether the lookup document under `lookup` names its document by the bare id: `lookup` is a key of one of
/// `T`'s lookups declared `ref_id`. An index entry, or a lookup naming the whole key, is not.
fn by_id<T: DocModel>(lookup: &str) -> bool {
    T::LOOKUPS
        .iter()
        .any(|each| each.ref_id && each.template.matches(lookup))
}

/// The stored form of the lookup document (or index entry) under `lookup` naming the document under `key`:
/// `{"ref":"user::123"}`, or `{"ref":"123"}` where its lookup is declared `ref_id`.
pub(crate) fn lookup_document<T: DocModel>(lookup: &str, key: &str) -> Vec<u8> {
    let named = match by_id::<T>(lookup) {
        // The derive allows `ref_id` only where the key has one part, and `key` is one of the model's.
        true => ref_id::id_of_key::<T>(key).unwrap_or(key),
        false => key,
    };
    serde_json::to_vec(&serde_json::json!({ "ref": named })).unwrap_or_default()
}

/// The key of the document the lookup document (or index entry) `bytes` under `lookup` names, if `bytes` are
/// exactly a lookup document: an object holding one string field `ref` and nothing else, in the form its
/// lookup declares (the key, or with `ref_id` the bare id). Anything else under a lookup key is somebody
/// else's document.
pub(crate) fn lookup_target<T: DocModel>(lookup: &str, bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Target {
        #[serde(rename = "ref")]
        target: String,
    }
    let named = serde_json::from_slice::<Target>(bytes).ok()?.target;
    match by_id::<T>(lookup) {
        true => ref_id::key_of_id::<T>(&named).ok().map(Key::into_string),
        false => Some(named),
    }
}
