//! What differs between a locked shape and the model's: [`Change`], by field and, for the structs a body
//! holds, by their JSON Schemas; and the fix a message names.

use std::fmt;

use crate::Record;

/// What changed in the structs a body holds, by their JSON Schemas: a field of one added (required or not),
/// removed, of another shape, made required. A struct no longer held is the change of the field that held it.
pub fn defs_changes(
    locked: &serde_json::Map<String, serde_json::Value>,
    current: &serde_json::Map<String, serde_json::Value>,
) -> Vec<Change> {
    use serde_json::Value;
    let properties = |def: &Value| def.get("properties").and_then(Value::as_object).cloned();
    let required = |def: &Value, name: &str| {
        def.get("required")
            .and_then(Value::as_array)
            .is_some_and(|names| names.iter().any(|known| known == name))
    };
    let mut changes = Vec::new();
    for (name, old) in locked {
        let Some(new) = current.get(name) else {
            continue;
        };
        let (Some(old_fields), Some(new_fields)) = (properties(old), properties(new)) else {
            if old != new {
                changes.push(Change::TypeChanged {
                    stored: name.clone(),
                    from: old.to_string(),
                    to: new.to_string(),
                });
            }
            continue;
        };
        for (field, old_shape) in &old_fields {
            let stored = format!("{name}.{field}");
            match new_fields.get(field) {
                None => changes.push(Change::Removed { stored }),
                Some(new_shape) => {
                    if new_shape != old_shape {
                        changes.push(Change::TypeChanged {
                            stored: stored.clone(),
                            from: old_shape.to_string(),
                            to: new_shape.to_string(),
                        });
                    }
                    if required(new, field) && !required(old, field) {
                        changes.push(Change::MadeRequired { stored });
                    }
                }
            }
        }
        for field in new_fields
            .keys()
            .filter(|field| !old_fields.contains_key(*field))
        {
            changes.push(Change::Added {
                stored: format!("{name}.{field}"),
                required: required(new, field),
            });
        }
    }
    changes
}

/// One difference between a locked shape and the model's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// A stored field the lock does not have, and whether a document without it does not read.
    Added {
        /// Its stored name.
        stored: String,
        /// Whether it is required.
        required: bool,
    },
    /// A field of the lock the model no longer stores.
    Removed {
        /// Its stored name.
        stored: String,
    },
    /// A field stored under another name.
    Renamed {
        /// The Rust field.
        field: String,
        /// Its stored name in the lock.
        from: String,
        /// Its stored name now.
        to: String,
    },
    /// A field of another type.
    TypeChanged {
        /// Its stored name.
        stored: String,
        /// Its type in the lock.
        from: String,
        /// Its type now.
        to: String,
    },
    /// A field a document could leave out, and now must hold.
    MadeRequired {
        /// Its stored name.
        stored: String,
    },
    /// A name the field was read from that it no longer is (an `alias` dropped).
    NoLongerRead {
        /// Its stored name.
        stored: String,
        /// The name no longer read.
        name: String,
    },
    /// The type's name.
    TypeRenamed {
        /// The lock's.
        from: String,
        /// The model's.
        to: String,
    },
}

impl Change {
    /// Whether an older minor version read without a step may differ by it: a field added that reads when
    /// missing. (For docmodel's checks; not public API.)
    #[doc(hidden)]
    pub fn is_additive(&self) -> bool {
        matches!(
            self,
            Change::Added {
                required: false,
                ..
            }
        )
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Added { stored, required } => write!(
                f,
                "field `{stored}` added{}",
                if *required {
                    ", required (a stored document without it does not read)"
                } else {
                    ""
                }
            ),
            Change::Removed { stored } => write!(f, "field `{stored}` removed"),
            Change::Renamed { field, from, to } => {
                write!(f, "field `{field}` renamed: stored as `{to}`, was `{from}`")
            }
            Change::TypeChanged { stored, from, to } => {
                write!(f, "field `{stored}` changed type: `{to}`, was `{from}`")
            }
            Change::MadeRequired { stored } => write!(
                f,
                "field `{stored}` made required: a stored document without it no longer reads"
            ),
            Change::NoLongerRead { stored, name } => write!(
                f,
                "field `{stored}` no longer read from `{name}`: a stored document holding it there loses it"
            ),
            Change::TypeRenamed { from, to } => write!(
                f,
                "the type renamed: `{to}`, was `{from}`: stored documents of `{from}` no longer read"
            ),
        }
    }
}

/// What changed from `locked` to `current`: in the lock's order, then the fields added.
pub fn changes(locked: &[Record], current: &[Record]) -> Vec<Change> {
    let mut changes = Vec::new();
    for old in locked {
        match current.iter().find(|new| new.stored == old.stored) {
            Some(new) => {
                if new.ty != old.ty {
                    changes.push(Change::TypeChanged {
                        stored: old.stored.clone(),
                        from: old.ty.clone(),
                        to: new.ty.clone(),
                    });
                }
                if new.required && !old.required {
                    changes.push(Change::MadeRequired {
                        stored: old.stored.clone(),
                    });
                }
                let now = new.read_names();
                for name in old
                    .read_names()
                    .into_iter()
                    .filter(|name| !now.contains(name))
                {
                    changes.push(Change::NoLongerRead {
                        stored: old.stored.clone(),
                        name,
                    });
                }
            }
            None => {
                let renamed = current.iter().find(|new| {
                    new.field == old.field && !locked.iter().any(|known| known.stored == new.stored)
                });
                changes.push(match renamed {
                    Some(new) => Change::Renamed {
                        field: old.field.clone(),
                        from: old.stored.clone(),
                        to: new.stored.clone(),
                    },
                    None => Change::Removed {
                        stored: old.stored.clone(),
                    },
                });
            }
        }
    }
    for new in current {
        let known = locked.iter().any(|old| old.stored == new.stored);
        let renamed = changes
            .iter()
            .any(|change| matches!(change, Change::Renamed { to, .. } if *to == new.stored));
        if !known && !renamed {
            changes.push(Change::Added {
                stored: new.stored.clone(),
                required: new.required,
            });
        }
    }
    changes
}

/// The type renamed from `locked` to `current`, unless `aliases` (the model's old names, which still read)
/// hold `locked`.
pub fn type_change(locked: &str, current: &str, aliases: &[&str]) -> Option<Change> {
    (locked != current && !aliases.contains(&locked)).then(|| Change::TypeRenamed {
        from: locked.to_owned(),
        to: current.to_owned(),
    })
}

/// What to do about `changes` of the locked version `major.minor` (shown as `version`): keep the old type
/// readable, bump the minor version (every change adds a field that reads when missing), or bump the major
/// version with a step from this one.
pub fn fix(changes: &[Change], major: u64, minor: u64, version: &str) -> String {
    let renamed = changes.iter().find_map(|change| match change {
        Change::TypeRenamed { from, .. } => Some(from),
        _ => None,
    });
    if let Some(from) = renamed {
        format!("keep the old name readable with `aliases(\"{from}\")`")
    } else if changes.iter().all(Change::is_additive) {
        format!(
            "every change adds a field that reads when missing: bump the minor version (`schema = \"{major}.{}\"`)",
            minor + 1
        )
    } else {
        format!(
            "bump the major version (`schema = \"{}.0\"`) and add a step from this one \
             (`migrate_from(\"{version}\" = step)`)",
            major + 1
        )
    }
}
