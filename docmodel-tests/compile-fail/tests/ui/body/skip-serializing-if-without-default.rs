use serde::{Deserialize, Serialize};

// serde's `skip_serializing_if` leaves a field out that must then read back: `tags` has no default, and
// `shipped` is read by its own function, which serde requires, `Option` though it is. `note` is fine.
#[derive(Serialize, Deserialize, docmodel::DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{id}")]
struct Order {
    id: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    #[serde(with = "docmodel::timestamp::iso8601::option", skip_serializing_if = "Option::is_none")]
    shipped: Option<docmodel::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

fn main() {}
