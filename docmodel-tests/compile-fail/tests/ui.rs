//! Every diagnostic the derive emits, with rustc's own output as the snapshot (`TRYBUILD=overwrite`
//! regenerates the `.stderr` files; read the diff before committing it).

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
}
