//! Conventions whose legacy name is a name of another envelope field, and a body field stored under a
//! legacy name of the conventions: the compiler refuses both.

use docmodel::{Conventions, DocModel, EnvelopeField, EnvelopeSpec};
use serde::{Deserialize, Serialize};

struct Acme;
impl Conventions for Acme {
    const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT.with_legacy_name(EnvelopeField::Created, "_modified");
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}", conventions = Acme)]
struct User {
    id: u64,
}

struct Legacy;
impl Conventions for Legacy {
    const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT.with_legacy_name(EnvelopeField::Type, "docType");
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "order", schema = "1.0", key = "order::{id}", conventions = Legacy)]
#[serde(rename_all = "camelCase")]
struct Order {
    id: u64,
    doc_type: String,
}

fn main() {}
