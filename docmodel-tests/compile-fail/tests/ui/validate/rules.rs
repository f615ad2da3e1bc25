use docmodel::{DocModel, FieldError};
use serde::{Deserialize, Serialize};

// A `validate` function of another signature is reported at its path; a model marked `garde` that does not
// derive `garde::Validate` at `garde`.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", validate = is_valid)]
struct User {
    id: u64,
}

fn is_valid(user: &User) -> bool {
    user.id > 0
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{id}", garde, validate = check_order)]
struct Order {
    id: u64,
}

fn check_order(_: &Order) -> Result<(), Vec<FieldError>> {
    Ok(())
}

fn main() {}
