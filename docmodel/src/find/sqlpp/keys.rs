//! Key listings in SQL++: a page of the keys under a prefix or in a range, by `META().id`, and the index that
//! serves them. What [`Store::scan`](crate::store::Store::scan) is on Couchbase, whose key-value API lists no
//! keys.

#[cfg(any(test, feature = "couchbase"))]
use serde_json::Value;

#[cfg(any(test, feature = "couchbase"))]
use super::{ALIAS, successor};
use super::{Params, Statement, push_identifier};

/// The name of the index over `META().id` that serves a key listing ([`create_key_index`]).
pub(crate) const KEY_INDEX: &str = "docmodel__keys";

/// The statement creating the index over `META().id` that key listings read: one per collection, shared by
/// every model, created by [`Repo::ensure_indexes`](crate::Repo::ensure_indexes) (`IF NOT EXISTS`).
pub(crate) fn create_key_index() -> Statement {
    let mut head = String::from("CREATE INDEX IF NOT EXISTS ");
    push_identifier(&mut head, KEY_INDEX);
    head.push_str(" ON ");
    Statement::around_keyspace(head, "(META().id)", Params::default())
}

/// One page of the keys `k` with `start <= k` (and `k < end` where there is an end), after `after`, in
/// byte order (SQL++ compares strings by their UTF-8 bytes), at most `limit` of them: `SELECT RAW
/// META(d).id ... ORDER BY META(d).id LIMIT $limit`, a keyset page read from [`KEY_INDEX`] in its order.
#[cfg(any(test, feature = "couchbase"))]
pub(crate) fn key_page(
    start: &str,
    end: Option<&str>,
    after: Option<&str>,
    limit: usize,
) -> Statement {
    let mut params = Params::default();
    let id = format!("META({ALIAS}).id");
    // After `after`, when it is not below the start: one bound, the tighter.
    let (op, from) = match after {
        Some(after) if after >= start => (">", after),
        _ => (">=", start),
    };
    let from = params.named("from", Value::String(from.to_owned()));
    let mut text = format!(" AS {ALIAS} WHERE {id} {op} {from}");
    if let Some(end) = end {
        let end = params.named("to", Value::String(end.to_owned()));
        text.push_str(&format!(" AND {id} < {end}"));
    }
    text.push_str(&format!(" ORDER BY {id} LIMIT $limit"));
    params.named(
        "limit",
        Value::from(u64::try_from(limit).unwrap_or(u64::MAX)),
    );
    Statement::around_keyspace(format!("SELECT RAW {id} FROM "), text, params)
        .served_by(KEY_INDEX.to_owned())
}

/// [`key_page`] of the keys under `prefix`: from the prefix to its [`successor`], the least string above
/// every string that starts with it.
#[cfg(any(test, feature = "couchbase"))]
pub(crate) fn prefix_page(prefix: &str, after: Option<&str>, limit: usize) -> Statement {
    key_page(prefix, successor(prefix).as_deref(), after, limit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::find::sqlpp::Keyspace;

    fn keyspace() -> Keyspace {
        Keyspace {
            bucket: "shop".into(),
            scope: "sales".into(),
            collection: "orders".into(),
        }
    }

    fn request(statement: &Statement) -> Value {
        serde_json::from_slice(&statement.request().unwrap()).unwrap()
    }

    /// The statements' text, as the store sends them; each is accepted by Couchbase's own grammar
    /// (`../shared/tools/sqlpp-check`, run on these texts when they were written).
    #[test]
    fn a_page_of_keys_is_a_keyset_page_of_meta_id_with_every_value_a_parameter() {
        let first = prefix_page("user::", None, 1000);
        assert_eq!(
            first.text_in(&keyspace()),
            "SELECT RAW META(d).id FROM `shop`.`sales`.`orders` AS d WHERE META(d).id >= $from AND \
             META(d).id < $to ORDER BY META(d).id LIMIT $limit"
        );
        assert_eq!(
            request(&first),
            serde_json::json!({
                "statement": ["SELECT RAW META(d).id FROM ", " AS d WHERE META(d).id >= $from AND META(d).id < $to ORDER BY META(d).id LIMIT $limit"],
                "args": {"from": "user::", "to": "user:;", "limit": 1000},
                "index": "docmodel__keys",
            })
        );
        let next = prefix_page("user::", Some("user::41"), 2);
        assert_eq!(
            next.text_in(&keyspace()),
            "SELECT RAW META(d).id FROM `shop`.`sales`.`orders` AS d WHERE META(d).id > $from AND \
             META(d).id < $to ORDER BY META(d).id LIMIT $limit"
        );
        assert_eq!(
            request(&next)["args"],
            serde_json::json!({"from": "user::41", "to": "user:;", "limit": 2})
        );
        // A cursor below the start (a listing resumed from another prefix's key) starts at the start.
        assert_eq!(
            request(&prefix_page("user::", Some("order::9"), 5))["args"],
            serde_json::json!({"from": "user::", "to": "user:;", "limit": 5})
        );
        // No prefix, or one of `char::MAX`s only: no end.
        for prefix in ["", "\u{10FFFF}"] {
            let page = prefix_page(prefix, None, 5);
            assert_eq!(
                page.text_in(&keyspace()),
                "SELECT RAW META(d).id FROM `shop`.`sales`.`orders` AS d WHERE META(d).id >= $from \
                 ORDER BY META(d).id LIMIT $limit"
            );
            assert_eq!(request(&page)["args"]["from"], prefix);
        }
        // A range, its end as given.
        assert_eq!(
            request(&key_page("a::1", Some("a::5"), Some("a::2"), 3))["args"],
            serde_json::json!({"from": "a::2", "to": "a::5", "limit": 3})
        );
        // A prefix ending in the last character before the surrogates.
        assert_eq!(
            request(&prefix_page("k\u{D7FF}", None, 1))["args"]["to"],
            "k\u{E000}"
        );
    }

    #[test]
    fn the_key_index_is_one_per_collection_over_meta_id() {
        assert_eq!(
            create_key_index().text_in(&keyspace()),
            "CREATE INDEX IF NOT EXISTS `docmodel__keys` ON `shop`.`sales`.`orders`(META().id)"
        );
    }
}
