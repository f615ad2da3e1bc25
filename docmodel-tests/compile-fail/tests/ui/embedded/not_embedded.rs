use docmodel::{DocModel, Embedded};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Phone {
    number: String,
}

#[derive(Serialize, Deserialize, Embedded)]
struct Address {
    city: String,
}

// `nested` needs a struct that derives `Embedded`, or an `Option` of one; a list of them has no paths.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "user", schema = "1.0", key = "user::{id}")]
struct User {
    id: u64,
    #[docmodel(nested)]
    phone: Phone,
    #[docmodel(nested)]
    addresses: Vec<Address>,
    #[docmodel(nested)]
    home: Address,
}

fn main() {
    let fields = User::fields();
    // A city is text, and an address has no `town`.
    let _ = fields.home.city.eq(7);
    let _ = fields.home.town;
}

// The same inside an embedded struct.
#[derive(Serialize, Deserialize, Embedded)]
struct Contact {
    #[docmodel(nested)]
    phone: Option<Phone>,
}
