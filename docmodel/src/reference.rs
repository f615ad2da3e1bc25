//! `Ref<T>`: a typed reference from one document to another, stored as the other's key.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{DocModel, Key};

/// A reference to a document of model `T`, stored in JSON as its key string (`"user::123"`).
///
/// Reading a body checks that the text is a key of `T`'s shape; loading it with
/// [`Repo::load`](crate::Repo::load) checks the stored document's `_type`.
///
/// ```
/// use docmodel::{DocModel, Ref};
/// # #[derive(Debug, serde::Serialize, serde::Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
/// # struct User { id: u64 }
///
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Session {
///     user: Ref<User>,
/// }
///
/// let session: Session = serde_json::from_str(r#"{"user":"user::123"}"#).unwrap();
/// assert_eq!(session.user.key().as_str(), "user::123");
/// assert!(serde_json::from_str::<Session>(r#"{"user":"order::1"}"#).is_err());
/// ```
pub struct Ref<T: ?Sized>(Key<T>);

impl<T: DocModel> Ref<T> {
    /// A reference to the document under `key`.
    pub fn new(key: Key<T>) -> Self {
        Ref(key)
    }

    /// The key it refers to.
    pub fn key(&self) -> &Key<T> {
        &self.0
    }
}

impl<T: DocModel> From<Key<T>> for Ref<T> {
    fn from(key: Key<T>) -> Self {
        Ref(key)
    }
}

impl<T: ?Sized> Clone for Ref<T> {
    fn clone(&self) -> Self {
        Ref(self.0.clone())
    }
}

impl<T: ?Sized> PartialEq for Ref<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<T: ?Sized> Eq for Ref<T> {}

impl<T: ?Sized> fmt::Debug for Ref<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Ref").field(&self.0.as_str()).finish()
    }
}

impl<T: ?Sized> Serialize for Ref<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de, T: DocModel> Deserialize<'de> for Ref<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Key::deserialize(deserializer).map(Ref)
    }
}
