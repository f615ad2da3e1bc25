use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "config", schema = "1.0", key = "config")]
struct Config {
    id: u64,
}

fn main() {}
