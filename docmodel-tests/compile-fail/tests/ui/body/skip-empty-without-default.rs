use serde::{Deserialize, Serialize};

// The model's `skip_empty` would leave out `name` and `phones`, which do not read back when absent: one error
// each. `middle_name` (an `Option`), `tags` (a default) and `id` (never empty) are fine.
#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", skip_empty)]
struct User {
    id: u64,
    name: String,
    middle_name: Option<String>,
    phones: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
}

// On a field: the error is at `skip_empty`. An `Option` read by a function of its own has no default either.
#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "note", schema = "1.0", key = "note::{id}")]
struct Note {
    id: u64,
    #[docmodel(skip_empty)]
    text: String,
    #[docmodel(skip_empty)]
    #[serde(deserialize_with = "read_comment")]
    comment: Option<String>,
}

fn read_comment<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::deserialize(d)
}

fn main() {}
