//! Where a model's locks are: `docmodel-locks/<file>/<type>/<version>.json` beside the file the model is
//! written in. One directory per document type (not per Rust struct), so that renaming a struct keeps its
//! locks, and the structs of one type's versions in one file (`UserV1`, `User`) share its history.

use std::path::{Path, PathBuf};

use crate::Shape;

/// The directory of the locks, beside a model's source file.
pub const LOCKS: &str = "docmodel-locks";

/// The locks of the models written in `source` (`src/models.rs`): `src/docmodel-locks/models/`.
pub fn lock_root(source: &Path) -> Option<PathBuf> {
    let file = source.file_stem()?.to_str()?;
    Some(source.parent()?.join(LOCKS).join(file))
}

/// The directory of type `type_name`'s locks under `root`: the type's name, each character other than an
/// ASCII letter, digit, `_` or `-` (and a leading `.`) written `%XX` by its UTF-8 bytes, so that every type
/// is one directory of its own.
pub fn model_dir(root: &Path, type_name: &str) -> PathBuf {
    let mut name = String::with_capacity(type_name.len());
    for (at, c) in type_name.char_indices() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' || (c == '.' && at > 0) {
            name.push(c);
        } else {
            let mut bytes = [0; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                name.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    root.join(name)
}

/// The lock of `version` (as `SchemaVersion` shows it) in `dir`.
pub fn lock_file(dir: &Path, version: &str) -> PathBuf {
    dir.join(format!("{version}.json"))
}

/// Where model `model` (its Rust name) of `type_name` finds no lock of `version` in its own directory: the
/// lock of that version that belongs to it elsewhere under `root`, if one does: one that names `model` as
/// its writer (or names none) under one of its `aliases` (old type names: the type was renamed, and its
/// locks stayed under the old name), or one that names `model` as its writer under any other type (the type
/// renamed without an alias). A lock another struct wrote is that struct's, never this one's. Its path and
/// shape.
pub fn moved_lock(
    root: &Path,
    model: &str,
    type_name: &str,
    version: &str,
    aliases: &[&str],
) -> Option<(PathBuf, Shape)> {
    let read = |path: PathBuf| {
        let shape = Shape::parse(&std::fs::read_to_string(&path).ok()?).ok()?;
        Some((path, shape))
    };
    let by_alias = aliases.iter().find_map(|alias| {
        read(lock_file(&model_dir(root, alias), version))
            .filter(|(_, shape)| shape.model.as_deref().is_none_or(|writer| writer == model))
    });
    if by_alias.is_some() {
        return by_alias;
    }
    let own = model_dir(root, type_name);
    let mut others: Vec<PathBuf> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|entry| entry.path())
        .filter(|dir| *dir != own)
        .collect();
    others.sort();
    others
        .into_iter()
        .filter_map(|dir| read(lock_file(&dir, version)))
        .find(|(_, shape)| shape.model.as_deref() == Some(model))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_lock_is_found_only_where_it_is_the_models() {
        let root =
            std::env::temp_dir().join(format!("docmodel-shape-moved-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |type_name: &str, model: Option<&str>| {
            let dir = model_dir(&root, type_name);
            std::fs::create_dir_all(&dir).unwrap();
            let shape = Shape {
                type_name: type_name.to_owned(),
                schema: "1.0".to_owned(),
                model: model.map(str::to_owned),
                fields: Vec::new(),
                defs: None,
            };
            std::fs::write(lock_file(&dir, "1.0"), shape.lock_text()).unwrap();
        };
        write("user", Some("User"));
        write("client", None);
        let found = |model: &str, type_name: &str, aliases: &[&str]| {
            moved_lock(&root, model, type_name, "1.0", aliases).map(|(_, shape)| shape.type_name)
        };
        // Renamed without an alias: found by the struct the lock names.
        assert_eq!(found("User", "member", &[]).as_deref(), Some("user"));
        // Through an alias: the lock's writer is this struct, or unknown.
        assert_eq!(found("User", "member", &["user"]).as_deref(), Some("user"));
        assert_eq!(
            found("Member", "member", &["client"]).as_deref(),
            Some("client")
        );
        // A lock another struct wrote is that struct's: a new type naming its type as an alias has none.
        assert_eq!(found("Member", "member", &["user"]), None);
        // Another version: none.
        assert!(moved_lock(&root, "User", "member", "2.0", &[]).is_none());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn every_type_is_a_directory_of_its_own() {
        let root = Path::new("locks");
        let name = |type_name: &str| {
            model_dir(root, type_name)
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(name("user"), "user");
        assert_eq!(name("com.example.user"), "com.example.user");
        assert_eq!(name("a/b"), "a%2Fb");
        assert_eq!(name(".."), "%2E.");
        assert_eq!(name("café"), "caf%C3%A9");
        assert_eq!(
            lock_root(Path::new("src/models.rs")),
            Some(PathBuf::from("src/docmodel-locks/models"))
        );
    }
}
