//! The runtime's public surface, listed item by item in `docmodel/public-api.txt`, so that a change of it
//! shows in review. The list comes from rustdoc's JSON output (the unstable `--output-format json`, enabled
//! on the stable toolchain with `RUSTC_BOOTSTRAP=1`); items hidden from the docs (`__private`, the trait's
//! generated items) are not part of it.
//!
//! After a deliberate change: `DOCMODEL_BLESS=1 cargo test -p docmodel-tests --test suite public_api -- --ignored`,
//! then read the diff of `public-api.txt`.
//!
//! The listing builds docmodel with every feature, the Couchbase SDK's C code included, in a target directory
//! of its own: most of a cold run of the README's test command. It is ignored there, and `.ci/run` runs it
//! (`-- --ignored`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

#[test]
#[ignore = "not run: the public API listing builds docmodel with every feature (the Couchbase SDK's C code \
            included); `.ci/run` runs it: `cargo test -p docmodel-tests --test suite public_api -- --ignored`"]
fn public_api_is_the_listed_one() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let target = workspace.join("target/public-api");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(workspace)
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove("RUSTDOCFLAGS")
        .args([
            "rustdoc",
            "-p",
            "docmodel",
            "--lib",
            "--features",
            "uuid,semver,couchdb,couchbase,garde,hashed,jiff,chrono,time,tracing",
        ])
        .arg("--target-dir")
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "rustdoc failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json = std::fs::read(target.join("doc/docmodel.json")).unwrap();
    let krate: Value = serde_json::from_slice(&json).unwrap();
    let listed = render(&krate);

    let file = workspace.join("docmodel/public-api.txt");
    if std::env::var_os("DOCMODEL_BLESS").is_some() {
        std::fs::write(&file, &listed).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&file).unwrap_or_default();
    if expected != listed {
        let (old, new): (BTreeSet<&str>, BTreeSet<&str>) =
            (expected.lines().collect(), listed.lines().collect());
        let removed: Vec<&&str> = old.difference(&new).collect();
        let added: Vec<&&str> = new.difference(&old).collect();
        panic!(
            "the public API changed; if that is meant, run `DOCMODEL_BLESS=1 cargo test -p docmodel-tests --test suite \
             public_api -- --ignored` and commit `docmodel/public-api.txt`\nremoved: {removed:#?}\nadded: {added:#?}"
        );
    }
}

/// One line per public item, sorted: `kind path`.
fn render(krate: &Value) -> String {
    let index = &krate["index"];
    let mut lines = BTreeSet::new();
    let root = id_key(&krate["root"]);
    walk(index, &root, "", None, &mut lines);
    let mut text: String = lines.into_iter().map(|line| line + "\n").collect();
    if text.is_empty() {
        text.push('\n');
    }
    text
}

fn id_key(id: &Value) -> String {
    match id {
        Value::String(id) => id.clone(),
        other => other.to_string(),
    }
}

/// Lists the item `id` under `parent`, as `name` when a re-export renames it.
fn walk(index: &Value, id: &str, parent: &str, name: Option<&str>, out: &mut BTreeSet<String>) {
    let Some(item) = index.get(id) else { return };
    let Some((kind, inner)) = item["inner"]
        .as_object()
        .and_then(|inner| inner.iter().next())
    else {
        return;
    };
    let name = name
        .or(item["name"].as_str())
        .or(inner["name"].as_str())
        .unwrap_or("");
    let path = if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}::{name}")
    };
    match kind.as_str() {
        "module" => {
            if !parent.is_empty() {
                out.insert(format!("mod {path}"));
            }
            for child in inner["items"].as_array().into_iter().flatten() {
                walk(index, &id_key(child), &path, None, out);
            }
        }
        "use" => {
            let target = id_key(&inner["id"]);
            let glob = inner["is_glob"].as_bool().unwrap_or(false);
            match index.get(&target) {
                Some(_) if glob => {
                    let module = &index[&target]["inner"]["module"];
                    for child in module["items"].as_array().into_iter().flatten() {
                        walk(index, &id_key(child), parent, None, out);
                    }
                }
                Some(_) => walk(index, &target, parent, inner["name"].as_str(), out),
                None => {
                    let source = inner["source"].as_str().unwrap_or("?");
                    out.insert(format!("pub use {path} = {source}"));
                }
            }
        }
        "struct" | "enum" | "union" => {
            out.insert(format!("{kind} {path}"));
            let fields = inner["kind"]["plain"]["fields"].as_array();
            for field in fields.into_iter().flatten() {
                let field = &index[&id_key(field)];
                if let Some(field_name) = field["name"].as_str() {
                    out.insert(format!("field {path}::{field_name}"));
                }
            }
            for variant in inner["variants"].as_array().into_iter().flatten() {
                let variant = &index[&id_key(variant)];
                if let Some(variant_name) = variant["name"].as_str() {
                    out.insert(format!("variant {path}::{variant_name}"));
                }
            }
            for imp in inner["impls"].as_array().into_iter().flatten() {
                list_impl(index, &index[&id_key(imp)], &path, out);
            }
        }
        "trait" => {
            out.insert(format!("trait {path}"));
            for member in inner["items"].as_array().into_iter().flatten() {
                list_member(index, &id_key(member), &path, out);
            }
        }
        other => {
            out.insert(format!("{} {path}", short_kind(other)));
        }
    }
}

/// The methods and constants of an inherent impl, and the trait of a trait impl (not auto or blanket ones).
fn list_impl(index: &Value, imp: &Value, path: &str, out: &mut BTreeSet<String>) {
    let inner = &imp["inner"]["impl"];
    if inner["is_synthetic"].as_bool() == Some(true) || !inner["blanket_impl"].is_null() {
        return;
    }
    if let Some(name) = inner["trait"]["path"].as_str() {
        let name = name.rsplit("::").next().unwrap_or(name);
        if name == "StructuralPartialEq" {
            // The marker of a derived `PartialEq`, listed already.
            return;
        }
        let negative = if inner["is_negative"].as_bool() == Some(true) {
            "!"
        } else {
            ""
        };
        out.insert(format!("impl {negative}{name} for {path}"));
        return;
    }
    for member in inner["items"].as_array().into_iter().flatten() {
        list_member(index, &id_key(member), path, out);
    }
}

fn list_member(index: &Value, id: &str, path: &str, out: &mut BTreeSet<String>) {
    let member = &index[id];
    let Some(kind) = member["inner"]
        .as_object()
        .and_then(|inner| inner.keys().next())
    else {
        return;
    };
    if let Some(name) = member["name"].as_str() {
        out.insert(format!("{} {path}::{name}", short_kind(kind)));
    }
}

fn short_kind(kind: &str) -> &str {
    match kind {
        "function" => "fn",
        "constant" | "assoc_const" => "const",
        "type_alias" | "assoc_type" => "type",
        "proc_macro" => "derive",
        other => other,
    }
}
