use docmodel::DocModel;
use serde::{Deserialize, Serialize};

// Each mistake is reported, all in one compilation: an alias that is the type, one listed twice, one with a
// space, one that is not a string; an `untyped` that is neither "accept" nor "refuse"; a zone that is not one.
#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "userprofile", schema = "1.0", key = "userprofile::{username}")]
#[docmodel(aliases("userProfile", "userprofile", "userProfile", "user profile", UserProfile))]
#[docmodel(untyped = "maybe", envelope(zoneless = "CET"))]
struct UserProfile {
    username: String,
}

#[derive(Serialize, Deserialize, DocModel)]
#[docmodel(type = "country", schema = "1.0", key = "country::{code}")]
#[docmodel(envelope(zoneless = "+24:00"))]
struct Country {
    code: String,
}

fn main() {}
