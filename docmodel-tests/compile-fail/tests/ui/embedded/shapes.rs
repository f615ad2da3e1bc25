use docmodel::Embedded;
use serde::{Deserialize, Serialize};

// Only a struct with named fields and no parameters has paths: each of these is one error.
#[derive(Serialize, Deserialize, Embedded)]
enum Kind {
    Home,
    Work,
}

#[derive(Serialize, Deserialize, Embedded)]
struct Point(f64, f64);

#[derive(Serialize, Deserialize, Embedded)]
struct Nothing;

#[derive(Serialize, Deserialize, Embedded)]
struct Tagged<T> {
    tag: T,
}

fn main() {}
