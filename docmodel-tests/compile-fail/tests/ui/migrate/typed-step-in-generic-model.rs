use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "event", schema = "2.0", key = "event::{id}", migrate_from("1.0" = EventV1))]
struct Event<P> {
    id: u64,
    payload: P,
}

fn main() {}
