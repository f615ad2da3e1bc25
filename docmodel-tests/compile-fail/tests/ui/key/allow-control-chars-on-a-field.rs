use serde::{Deserialize, Serialize};

// The key's rules are the model's: allowing control characters in one part is written on the struct.
#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{name}")]
struct User {
    #[docmodel(allow(control_chars_in_keys))]
    name: String,
}

fn main() {}
