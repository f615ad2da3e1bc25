use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// The type renamed under an unchanged version. Its lock is `docmodel-locks/type-renamed/user/1.0.json`,
// beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "member", schema = "1.0", key = "member::{id}")]
struct User {
    id: u64,
}

fn main() {}
