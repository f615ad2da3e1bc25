use serde::{Deserialize, Serialize};

mod reexported {
    pub use docmodel as runtime;
}

#[derive(Serialize, Deserialize, reexported::runtime::DocModel)]
#[docmodel(type = "user", schema = "1.0", crate = "reexported::runtime")]
struct User {
    id: u64,
}

// The stub impl is at the renamed path, so this use of the model adds no error of its own.
const _: &str = <User as reexported::runtime::DocModel>::TYPE;

fn main() {}
