use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Owner {
    name: String,
}

// The model's only `nested` field, and its last: one error, at the field's type (not one more at the struct
// and two at the derive, wherever the paths struct must be sized).
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "pet", schema = "1.0", key = "pet::{id}")]
struct Pet {
    id: u64,
    #[docmodel(nested)]
    owner: Owner,
}

fn main() {}
