use docmodel::DocModel;
use serde::{Deserialize, Serialize};
use docmodel::{Conventions, EnvelopeField, EnvelopeSpec};

struct Acme;
impl Conventions for Acme {
    const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT.rename(EnvelopeField::Type, "kind");
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", conventions = Acme)]
struct User {
    id: u64,
    kind: String,
}

fn main() {}
