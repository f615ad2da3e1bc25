//! Conventions that lay documents out under their root attribute, for a model reading aliases: the compiler
//! refuses it, as the derive does for `envelope(layout = "root")`.

use docmodel::{Conventions, DocModel, EnvelopeSpec, Layout};
use serde::{Deserialize, Serialize};

struct Rooted;
impl Conventions for Rooted {
    const ENVELOPE: EnvelopeSpec = EnvelopeSpec::DEFAULT.with_layout(Layout::Root);
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", aliases("Track"), schema = "1.0", key = "track::{id}", conventions = Rooted)]
struct Track {
    id: u64,
}

fn main() {}
