use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "reading", schema = "1.0", key = "reading::{value}")]
struct Reading {
    value: f64,
}

fn main() {}
