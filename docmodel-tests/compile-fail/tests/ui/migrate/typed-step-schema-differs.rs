use docmodel::DocModel;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "2.1", key = "user::{id}")]
struct UserV2 {
    id: u64,
}

impl From<UserV2> for User {
    fn from(old: UserV2) -> Self {
        User { id: old.id }
    }
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "3.0", key = "user::{id}")]
#[docmodel(migrate_from("2.0" = UserV2))]
struct User {
    id: u64,
}

fn main() {}
