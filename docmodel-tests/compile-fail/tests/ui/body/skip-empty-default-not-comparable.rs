use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Default)]
struct Settings {
    theme: String,
}

// `skip_empty(default)` compares the field with its type's default: the type must be `PartialEq` and `Default`.
#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(skip_empty(default))]
    #[serde(default)]
    settings: Settings,
}

fn main() {}
