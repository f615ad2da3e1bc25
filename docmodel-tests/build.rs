//! `cfg(couchbase_cluster)` when a Couchbase cluster is given (`DOCMODEL_COUCHBASE_URL`): the behavioural
//! suite's Couchbase tests run then, and are reported as ignored, with the variables to set, otherwise.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(couchbase_cluster)");
    println!("cargo::rerun-if-env-changed=DOCMODEL_COUCHBASE_URL");
    println!("cargo::rerun-if-changed=build.rs");
    if std::env::var_os("DOCMODEL_COUCHBASE_URL").is_some_and(|url| !url.is_empty()) {
        println!("cargo::rustc-cfg=couchbase_cluster");
    }
}
