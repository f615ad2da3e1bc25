use docmodel::Embedded;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Embedded)]
#[serde(transparent)]
struct PostalCode {
    code: String,
}

#[derive(Serialize, Deserialize)]
struct Extra {
    note: String,
}

#[derive(Serialize, Deserialize, Embedded)]
struct Address {
    city: String,
    #[serde(flatten)]
    extra: Extra,
}

fn main() {}
