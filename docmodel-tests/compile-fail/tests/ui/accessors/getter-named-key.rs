use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "setting", schema = "1.0", key = "setting::{id}")]
struct Setting {
    id: u64,
    #[docmodel(get)]
    key: String,
}

fn main() {}
