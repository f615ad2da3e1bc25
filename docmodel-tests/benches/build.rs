//! Writes `wide.rs` into `OUT_DIR`: models of 10 and 100 body fields for the unknown-fields benchmark
//! (`unknown.rs`), too long to write by hand. (Not 1,000: serde_derive's code for a struct of 1,000 fields
//! alone takes over ten CPU-minutes to compile in release, before docmodel's.)

use std::fmt::Write as _;

/// The body widths the unknown-fields benchmark measures.
const WIDTHS: [usize; 2] = [10, 100];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("wide.rs"), wide_models()).expect("OUT_DIR is writable");
}

/// For each width `n`: `WideN`, a docmodel model of `n` body fields (`id` and `field0001`...), and
/// `HandWideN`, the same fields and the envelope's as a plain serde struct.
fn wide_models() -> String {
    let mut code = String::new();
    for n in WIDTHS {
        let fields: String = (1..n)
            .map(|i| format!("    pub field{i:04}: String,\n"))
            .collect();
        write!(
            code,
            "/// A model of {n} body fields.
#[derive(Debug, serde::Serialize, serde::Deserialize, docmodel::DocModel)]
#[docmodel(type = \"wide\", schema = \"1.0\", key = \"wide::{{id}}\")]
pub struct Wide{n} {{
    pub id: u64,
{fields}}}

/// [`Wide{n}`] as a hand-written serde struct with the envelope's fields: the floor, read and dropped.
#[derive(Debug, serde::Deserialize)]
#[allow(dead_code)]
pub struct HandWide{n} {{
    #[serde(rename = \"_type\")]
    pub doc_type: String,
    #[serde(rename = \"_schema\")]
    pub schema: String,
    #[serde(rename = \"_ver\")]
    pub ver: u64,
    pub id: u64,
{fields}}}

"
        )
        .expect("writing to a String");
    }
    code
}
