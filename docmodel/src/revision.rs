//! Revision copies: earlier versions of a document under `<key><d>v<d><n>`, the seeds' `user:123:v:1`.

use crate::DocModel;

/// The key of the copy of version `version` of the document under `key`.
///
/// ```
/// # use docmodel::DocModel;
/// # #[derive(serde::Serialize, serde::Deserialize, DocModel)]
/// # #[docmodel(type = "user", schema = "1.0", key = "user:{id}")]
/// # struct User { id: u64 }
/// assert_eq!(docmodel::revision_key::<User>("user:123", 1), "user:123:v:1");
/// ```
pub fn revision_key<T: DocModel>(key: &str, version: u64) -> String {
    let mut text = revision_prefix::<T>(key);
    text.push_str(itoa::Buffer::new().format(version));
    text
}

/// The prefix every revision copy of the document under `key` shares: `user:123:v:`.
pub(crate) fn revision_prefix<T: DocModel>(key: &str) -> String {
    let delimiter = T::KEY.delimiter;
    let mut text = String::with_capacity(key.len() + 2 * delimiter.len() + 21);
    text.push_str(key);
    text.push_str(delimiter);
    text.push('v');
    text.push_str(delimiter);
    text
}

/// The version a revision key holds, if `copy_key` is one of `key`'s.
pub(crate) fn revision_number<T: DocModel>(key: &str, copy_key: &str) -> Option<u64> {
    let number = copy_key.strip_prefix(&revision_prefix::<T>(key))?;
    let version: u64 = number.parse().ok()?;
    (itoa::Buffer::new().format(version) == number).then_some(version)
}
