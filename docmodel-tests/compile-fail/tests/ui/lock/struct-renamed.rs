use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// The struct renamed, and a field added: the locks are by the type, so its lock
// (`docmodel-locks/struct-renamed/user/1.0.json`, written by `User`) still holds it, and the error says whose
// lock it is.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct Customer {
    id: u64,
    name: String,
    age: u32,
}

fn main() {}
