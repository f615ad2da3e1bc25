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

/// `Ref<T>` stored as the bare id, the one part of `T`'s key (`"3305311F"` rather than `"track::3305311F"`),
/// as the seed's playlists store their tracks: `#[serde(with = "docmodel::ref_id")]`, with `ref_id::option`
/// for an `Option<Ref<T>>` and `ref_id::vec` for a `Vec<Ref<T>>`.
///
/// The id is written as a string and read from a string or an integer; reading builds the key from `T`'s key
/// template and checks it as [`Key::parse`] does. Only a model whose key template has exactly one part can be
/// referred to by a bare id: writing or reading a reference to another fails, naming the template.
///
/// ```
/// use docmodel::{DocModel, Ref};
/// use serde::{Deserialize, Serialize};
/// # #[derive(Serialize, Deserialize, DocModel)]
/// # #[docmodel(type = "track", schema = "1.0", key = "track::{id}")]
/// # struct Track { id: String }
///
/// #[derive(Serialize, Deserialize)]
/// struct Playlist {
///     #[serde(with = "docmodel::ref_id::vec")]
///     tracks: Vec<Ref<Track>>,
/// }
///
/// let playlist: Playlist = serde_json::from_str(r#"{"tracks":["9FFAF88C","3305311F"]}"#)?;
/// assert_eq!(playlist.tracks[1].key().as_str(), "track::3305311F");
/// assert_eq!(serde_json::to_string(&playlist)?, r#"{"tracks":["9FFAF88C","3305311F"]}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub mod ref_id {
    use std::fmt;
    use std::marker::PhantomData;

    use serde::de::{self, Deserialize, Deserializer, Visitor};
    use serde::ser::{self, Serialize, Serializer};

    use super::Ref;
    use crate::key::Segment;
    use crate::{DocModel, Key};

    /// Writes the reference's id.
    pub fn serialize<T: DocModel, S: Serializer>(
        reference: &Ref<T>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(id_of(reference).map_err(ser::Error::custom)?)
    }

    /// Reads an id as a reference.
    pub fn deserialize<'de, T: DocModel, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Ref<T>, D::Error> {
        deserializer.deserialize_any(IdVisitor(PhantomData))
    }

    /// The id of `reference`: the one part of its key.
    fn id_of<T: DocModel>(reference: &Ref<T>) -> Result<&str, String> {
        id_of_key::<T>(reference.key().as_str())
    }

    /// The id in `key`, a key of `T`: its one part.
    pub(crate) fn id_of_key<T: DocModel>(key: &str) -> Result<&str, String> {
        one_part::<T>()?;
        T::KEY
            .split::<1>(T::TYPE, key)
            .map(|[id]| id)
            .map_err(|err| err.to_string())
    }

    /// The reference to the document of `T` whose key has `id` as its one part.
    fn from_id<T: DocModel>(id: &str) -> Result<Ref<T>, String> {
        key_of_id(id).map(Ref)
    }

    /// The key of `T` whose one part is `id`.
    pub(crate) fn key_of_id<T: DocModel>(id: &str) -> Result<Key<T>, String> {
        one_part::<T>()?;
        let template = T::KEY;
        let mut key = String::with_capacity(T::KEY_CAPACITY);
        for (i, segment) in template.segments().iter().enumerate() {
            if i > 0 {
                key.push_str(template.delimiter());
            }
            key.push_str(match segment {
                Segment::Literal(literal) => literal,
                Segment::Part(_) | Segment::Integer { .. } => id,
            });
        }
        Key::parse(&key).map_err(|err| format!("the id {id:?} is not one of `{}`: {err}", T::TYPE))
    }

    /// Refuses a model whose key is not one part with fixed text around it.
    fn one_part<T: DocModel>() -> Result<(), String> {
        match T::KEY.part_names().count() {
            1 => Ok(()),
            parts => Err(format!(
                "a `Ref<{}>` cannot be stored as a bare id: its key template `{}` has {parts} parts, not one",
                T::TYPE,
                T::KEY.pattern()
            )),
        }
    }

    struct IdVisitor<T>(PhantomData<T>);

    impl<T: DocModel> Visitor<'_> for IdVisitor<T> {
        type Value = Ref<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "the id of a `{}` document", T::TYPE)
        }

        fn visit_str<E: de::Error>(self, id: &str) -> Result<Ref<T>, E> {
            from_id(id).map_err(E::custom)
        }

        fn visit_u64<E: de::Error>(self, id: u64) -> Result<Ref<T>, E> {
            self.visit_str(itoa::Buffer::new().format(id))
        }

        fn visit_i64<E: de::Error>(self, id: i64) -> Result<Ref<T>, E> {
            self.visit_str(itoa::Buffer::new().format(id))
        }
    }

    /// A reference written as its id, for the `option` and `vec` forms.
    struct Id<T>(Ref<T>);

    impl<T: DocModel> Serialize for Id<T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serialize(&self.0, serializer)
        }
    }

    impl<'de, T: DocModel> Deserialize<'de> for Id<T> {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserialize(deserializer).map(Id)
        }
    }

    /// `Option<Ref<T>>` as an id or `null`.
    pub mod option {
        use serde::{Deserialize, Deserializer, Serialize, Serializer};

        use super::Id;
        use crate::{DocModel, Ref};

        /// Writes the id, or `null`.
        pub fn serialize<T: DocModel, S: Serializer>(
            reference: &Option<Ref<T>>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            reference
                .as_ref()
                .map(|reference| Id(reference.clone()))
                .serialize(serializer)
        }

        /// Reads an id, or `null` as `None`.
        pub fn deserialize<'de, T: DocModel, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Option<Ref<T>>, D::Error> {
            Ok(Option::<Id<T>>::deserialize(deserializer)?.map(|id| id.0))
        }
    }

    /// `Vec<Ref<T>>` as an array of ids.
    pub mod vec {
        use serde::ser::SerializeSeq;
        use serde::{Deserialize, Deserializer, Serializer};

        use super::Id;
        use crate::{DocModel, Ref};

        /// Writes the ids.
        pub fn serialize<T: DocModel, S: Serializer>(
            references: &[Ref<T>],
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            let mut seq = serializer.serialize_seq(Some(references.len()))?;
            for reference in references {
                seq.serialize_element(super::id_of(reference).map_err(serde::ser::Error::custom)?)?;
            }
            seq.end()
        }

        /// Reads an array of ids.
        pub fn deserialize<'de, T: DocModel, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Vec<Ref<T>>, D::Error> {
            Ok(Vec::<Id<T>>::deserialize(deserializer)?
                .into_iter()
                .map(|id| id.0)
                .collect())
        }
    }
}
