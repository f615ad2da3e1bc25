//! Whether the Couchbase cluster `DOCMODEL_COUCHBASE_URL` (and `_USER`, `_PASSWORD`, `_BUCKET`) names has a
//! query service, as the store finds it out (a key index created on a new collection, or the store's error
//! naming the missing service): prints `service` or `none`, what `.ci/run` passes to the suite's build as
//! `DOCMODEL_COUCHBASE_QUERY` (see `docmodel_tests::couchbase`).

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a Tokio runtime");
    let service = runtime.block_on(docmodel_tests::couchbase::has_query_service());
    println!("{}", if service { "service" } else { "none" });
}
