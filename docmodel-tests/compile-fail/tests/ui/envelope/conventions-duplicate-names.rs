use docmodel::{Conventions, DocModel, EnvelopeField, EnvelopeSpec};
use serde::{Deserialize, Serialize};

struct Acme;
impl Conventions for Acme {
    const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT.rename(EnvelopeField::Created, "_modified");
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", conventions = Acme)]
struct User {
    id: u64,
}

fn main() {}
