//! `legacy_names(...)`: a legacy name that is a name of the envelope already, or given to two fields, or
//! empty; one for a field the model does not keep; one for the meta object; and a body field stored under a
//! legacy name. Each is reported, at once.

use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "track", schema = "1.0", key = "track::{id}")]
#[docmodel(envelope(
    layout = "plain",
    legacy_names(
        type = "schema",
        created = "_type",
        modified = "_type",
        ver = "",
        created_by = "author",
        meta = "_meta",
        schema = "_schema",
    )
))]
struct Track {
    id: String,
    #[serde(rename = "_schema")]
    version: String,
}

fn main() {}
