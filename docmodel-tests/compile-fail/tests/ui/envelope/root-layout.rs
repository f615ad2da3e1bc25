//! The `root` layout names the type by its root attribute: `untyped`, and a name for the type field, have
//! nothing to act on, and `aliases` would need every query once per root name. Each is reported, at once.

use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", schema = "1.0", key = "track::{id}", untyped = "accept", aliases("Track"))]
#[docmodel(envelope(layout = "root", names(type = "kind"), legacy_names(type = "_type")))]
struct Track {
    id: String,
}

fn main() {}
