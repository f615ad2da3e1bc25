//! The reserved words of SQL++ for Query (N1QL), the query language of Couchbase Server.
//!
//! Source: the SQL++ reference page "Reserved Words",
//! <https://docs.couchbase.com/server/current/n1ql/n1ql-language-reference/reservedwords.html>.
//! The list was taken from the page's AsciiDoc source in the repository the page is built from,
//! `couchbaselabs/docs-devex`, file
//! `modules/n1ql/pages/n1ql-language-reference/reservedwords.adoc`, at commit
//! `07453931ce875dbfbe2fa3e090961117a3ba843b` ("Add new reserved words", 2025-09-15, pull request
//! #423). The part of the published page that could be read (from `_INDEX_CONDITION` to
//! `INTERSECT`) gives the same words.
//!
//! SQL++ keywords are case-insensitive, so [`is_reserved`] ignores ASCII case. A reserved word can
//! still be used as a name when it is escaped in backticks (`` `user` ``).
//!
//! Cross-check against the lexer of the query service, `couchbase/query`, file
//! `parser/n1ql/n1ql.nex` (stored version `00a31ca17e1717d8a58c6062edebe982425740be`). That copy
//! predates the docs page; every keyword it lexes is on the page. The page also lists:
//! - `minus`, `semi`, `not_a_token` and `namespace_id`, which the lexer does not read as words:
//!   they are the parser's names for the `-` and `;` symbols, for `!`, and for an identifier that
//!   names a namespace and is followed by `:`. The page keeps them, and so does this list.
//! - `cache`, `maxvalue`, `minvalue`, `next`, `nextval`, `prev`, `previous`, `prevval`, `restart`,
//!   `sequence` (sequences), and `roles`, `users`, `vector`: none of these is in that copy of the
//!   lexer, which is older than the features that use them.

/// The SQL++ reserved words, in lowercase and sorted, so [`slice::binary_search`] works on it.
pub const SQLPP_RESERVED: &[&str] = &[
    "_index_condition",
    "_index_key",
    "advise",
    "all",
    "alter",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "at",
    "begin",
    "between",
    "binary",
    "boolean",
    "break",
    "bucket",
    "build",
    "by",
    "cache",
    "call",
    "case",
    "cast",
    "cluster",
    "collate",
    "collection",
    "commit",
    "committed",
    "connect",
    "continue",
    "correlated",
    "cover",
    "create",
    "current",
    "cycle",
    "database",
    "dataset",
    "datastore",
    "declare",
    "decrement",
    "default",
    "delete",
    "derived",
    "desc",
    "describe",
    "distinct",
    "do",
    "drop",
    "each",
    "element",
    "else",
    "end",
    "escape",
    "every",
    "except",
    "exclude",
    "execute",
    "exists",
    "explain",
    "false",
    "fetch",
    "filter",
    "first",
    "flatten",
    "flatten_keys",
    "flush",
    "following",
    "for",
    "force",
    "from",
    "fts",
    "function",
    "golang",
    "grant",
    "group",
    "groups",
    "gsi",
    "hash",
    "having",
    "if",
    "ignore",
    "ilike",
    "in",
    "include",
    "increment",
    "index",
    "infer",
    "inline",
    "inner",
    "insert",
    "intersect",
    "into",
    "is",
    "isolation",
    "javascript",
    "join",
    "key",
    "keys",
    "keyspace",
    "known",
    "language",
    "last",
    "lateral",
    "left",
    "let",
    "letting",
    "level",
    "like",
    "limit",
    "lsm",
    "map",
    "mapping",
    "matched",
    "materialized",
    "maxvalue",
    "merge",
    "minus",
    "minvalue",
    "missing",
    "namespace",
    "namespace_id",
    "nest",
    "next",
    "nextval",
    "nl",
    "no",
    "not",
    "not_a_token",
    "nth_value",
    "null",
    "nulls",
    "number",
    "object",
    "offset",
    "on",
    "option",
    "options",
    "or",
    "order",
    "others",
    "outer",
    "over",
    "parse",
    "partition",
    "password",
    "path",
    "pool",
    "preceding",
    "prepare",
    "prev",
    "previous",
    "prevval",
    "primary",
    "private",
    "privilege",
    "probe",
    "procedure",
    "public",
    "range",
    "raw",
    "read",
    "realm",
    "recursive",
    "reduce",
    "rename",
    "replace",
    "respect",
    "restart",
    "restrict",
    "return",
    "returning",
    "revoke",
    "right",
    "role",
    "roles",
    "rollback",
    "row",
    "rows",
    "satisfies",
    "savepoint",
    "schema",
    "scope",
    "select",
    "self",
    "semi",
    "sequence",
    "set",
    "show",
    "some",
    "start",
    "statistics",
    "string",
    "system",
    "then",
    "ties",
    "to",
    "tran",
    "transaction",
    "trigger",
    "true",
    "truncate",
    "unbounded",
    "under",
    "union",
    "unique",
    "unknown",
    "unnest",
    "unset",
    "update",
    "upsert",
    "use",
    "user",
    "users",
    "using",
    "validate",
    "value",
    "valued",
    "values",
    "vector",
    "via",
    "view",
    "when",
    "where",
    "while",
    "window",
    "with",
    "within",
    "work",
    "xor",
];

/// The length in bytes of the longest word in [`SQLPP_RESERVED`] (`_index_condition`).
const LONGEST: usize = 16;

/// Whether `name`, compared without regard to ASCII case, is a SQL++ reserved word.
///
/// A name longer than the longest reserved word is not one, and is not examined further. A shorter
/// one is lowercased into a buffer on the stack; nothing is allocated.
pub fn is_reserved(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.len() > LONGEST {
        return false;
    }
    let mut buffer = [0u8; LONGEST];
    let lower = &mut buffer[..bytes.len()];
    lower.copy_from_slice(bytes);
    lower.make_ascii_lowercase();
    let lower: &[u8] = lower;
    SQLPP_RESERVED
        .binary_search_by(|word| word.as_bytes().cmp(lower))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_without_duplicates() {
        for pair in SQLPP_RESERVED.windows(2) {
            assert!(
                pair[0] < pair[1],
                "{:?} must come before {:?}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn the_list_is_lowercase() {
        for word in SQLPP_RESERVED {
            assert_eq!(*word, word.to_ascii_lowercase());
        }
    }

    #[test]
    fn longest_is_the_length_of_the_longest_word() {
        let longest = SQLPP_RESERVED.iter().map(|word| word.len()).max();
        assert_eq!(longest, Some(LONGEST));
    }

    #[test]
    fn these_words_are_reserved() {
        for name in [
            "user", "value", "order", "select", "bucket", "role", "insert", "cluster",
        ] {
            assert!(is_reserved(name), "{name}");
        }
    }

    #[test]
    fn the_first_and_last_words_are_found() {
        assert!(is_reserved("_index_condition"));
        assert!(is_reserved("xor"));
    }

    #[test]
    fn ordinary_names_are_not_reserved() {
        for name in ["first_name", "userId", "", "users_", "_index_condition_"] {
            assert!(!is_reserved(name), "{name}");
        }
    }

    #[test]
    fn case_is_ignored() {
        assert!(is_reserved("Select"));
        assert!(is_reserved("ORDER"));
        assert!(is_reserved("uSeR"));
        assert!(is_reserved("_INDEX_KEY"));
    }

    #[test]
    fn a_name_longer_than_any_word_is_not_reserved() {
        assert!(!is_reserved("a_name_much_longer_than_any_reserved_word"));
    }

    #[test]
    fn non_ascii_names_are_not_reserved() {
        assert!(!is_reserved("sélect"));
        assert!(!is_reserved("ORDER\u{212A}"));
    }
}
