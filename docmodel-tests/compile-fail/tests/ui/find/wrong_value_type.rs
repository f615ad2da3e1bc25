use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[serde(rename_all = "camelCase")]
#[docmodel(type = "order", schema = "1.0", key = "order::{order_id}")]
struct Order {
    order_id: u64,
    customer_no: u64,
    tags: Vec<String>,
}

fn main() {
    let fields = Order::fields();
    // A number field compared with text, and a tag list searched for a number: neither compiles.
    let _ = fields.customer_no.eq("12345");
    let _ = fields.tags.contains(7);
    // A field the model does not have.
    let _ = fields.customer;
}
