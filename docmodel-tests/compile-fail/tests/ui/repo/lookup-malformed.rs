use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", lookup = "customer_ref{customer_no}")]
struct User {
    id: u64,
    customer_no: u64,
}

fn main() {}
