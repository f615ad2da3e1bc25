//! `ref_id` on the lookups of a model whose key has two parts: there is no bare id; each is reported.

use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{domain}::{id}")]
#[docmodel(lookup("customer_ref::{customer_no}", ref_id))]
#[docmodel(lookup("email::{email}", ref_id))]
struct User {
    domain: String,
    id: u64,
    customer_no: u64,
    email: String,
}

fn main() {}
