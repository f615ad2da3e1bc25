//! Every diagnostic the derive emits, with rustc's own output as the snapshot (`TRYBUILD=overwrite`
//! regenerates the `.stderr` files; read the diff before committing it).
//!
//! trybuild builds the cases and docmodel's dependencies in a target directory of its own, a second build of
//! them that costs the README's test command a tenth of its time; there the test is reported as ignored, and
//! `.ci/run` runs it. After a change to the derive: `cargo test -p docmodel-compile-fail -- --ignored`.

#[test]
#[ignore = "run by .ci/run (a second build of docmodel's dependencies): after a change to the derive, \
            `cargo test -p docmodel-compile-fail -- --ignored`"]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*/*.rs");
}
