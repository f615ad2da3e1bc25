use docmodel::DocModel;

#[derive(DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
union User {
    id: u64,
}

fn main() {}
