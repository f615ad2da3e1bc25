use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// A field stored under another name (`serde(rename)`) under an unchanged version. Its lock is
// `docmodel-locks/field-renamed/user/1.0.json`, beside this file.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[serde(rename = "fullName")]
    name: String,
    nickname: Option<String>,
}

fn main() {}
