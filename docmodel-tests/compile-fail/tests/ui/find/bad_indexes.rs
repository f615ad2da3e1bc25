use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// Each mistake is reported, all in one compilation: an unknown field, a field serde never stores, a field
// listed twice, an empty name, and the same index twice.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
#[docmodel(index = "customer", index = "cache", index = "customer_no, customer_no")]
#[docmodel(index = "customer_no,", index = "customer_no", index = "customer_no")]
struct Order {
    order_id: u64,
    customer_no: u64,
    #[serde(skip)]
    cache: u64,
}

fn main() {}
