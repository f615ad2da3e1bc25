use docmodel::{DocModel, Embedded};
use serde::{Deserialize, Serialize};

// Each mistake is reported, all in one compilation: an option of models on an embedded struct and on its
// field, and `nested` on fields that store no struct of their own, in an embedded struct and in a model.
#[derive(Serialize, Deserialize, Embedded)]
#[docmodel(type = "geo")]
struct Geo {
    #[docmodel(get)]
    lat: f64,
    lon: f64,
}

mod as_text {
    pub fn serialize<S: serde::Serializer, T>(_: &T, _: S) -> Result<S::Ok, S::Error> {
        unimplemented!()
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>, T>(_: D) -> Result<T, D::Error> {
        unimplemented!()
    }
}

#[derive(Serialize, Deserialize, Embedded)]
struct Address {
    city: String,
    #[docmodel(nested)]
    #[serde(skip)]
    cached: Option<Geo>,
    #[docmodel(nested)]
    #[serde(with = "as_text")]
    geo: Geo,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(nested)]
    #[serde(skip_serializing)]
    home: Address,
    #[docmodel(nested)]
    #[serde(with = "as_text")]
    work: Address,
}

fn main() {}
