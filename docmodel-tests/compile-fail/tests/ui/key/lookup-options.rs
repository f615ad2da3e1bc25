//! A lookup option the derive does not know, a lookup without its template, and one given twice: each is
//! reported, at once.

use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
#[docmodel(lookup("email::{email}", ref_key))]
#[docmodel(lookup(ref_id))]
#[docmodel(lookup("customer_ref::{customer_no}", ref_id, ref_id))]
#[docmodel(lookup = email)]
struct User {
    id: u64,
    customer_no: u64,
    email: String,
}

fn main() {}
