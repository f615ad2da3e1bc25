//! Listing keys a page at a time: [`ScanPage`], what one [`Store::scan`] asks for, and [`KeyPages`], a whole
//! listing walked page by page in memory bounded by its page.

use super::Store;
use crate::Error;

/// How many keys a [`KeyPages`] asks a store for at a time, unless told.
pub(crate) const DEFAULT_PAGE: usize = 1000;

/// The page of a key listing one [`Store::scan`] or [`Store::scan_range`] asks for: the keys after `after`
/// (the last key of the page before; `None` for the listing's first page), at most `limit` of them. A store
/// returns fewer than `limit` only when the listing has no more. (A page of documents a query found is
/// [`docmodel::Page`](crate::Page).)
///
/// ```
/// use docmodel::store::{MemoryStore, ScanPage, Store};
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// for key in ["user::1", "user::2", "user::3", "order::1"] {
///     store.insert(key, b"{}").await?;
/// }
/// assert_eq!(store.scan("user::", ScanPage::first(2)).await?, ["user::1", "user::2"]);
/// assert_eq!(store.scan("user::", ScanPage::after("user::2", 2)).await?, ["user::3"]);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ScanPage<'a> {
    /// The key the page starts after, which it does not list: the last key of the page before.
    pub after: Option<&'a str>,
    /// At most how many keys the page lists.
    pub limit: usize,
}

impl<'a> ScanPage<'a> {
    /// A listing's first page, of at most `limit` keys.
    pub const fn first(limit: usize) -> Self {
        ScanPage { after: None, limit }
    }

    /// The page after the key `after`, of at most `limit` keys.
    pub const fn after(after: &'a str, limit: usize) -> Self {
        ScanPage {
            after: Some(after),
            limit,
        }
    }
}

/// What a [`KeyPages`] lists: the keys under a prefix, or those in a range.
#[derive(Debug, Clone)]
enum Span {
    Prefix(String),
    Range { start: String, end: String },
}

/// Every key under a prefix (or in a range), listed a page at a time: [`Store::scan`] (or
/// [`Store::scan_range`]) called page after page, each starting after the last key of the one before. What
/// whole-store work walks; memory holds one page.
///
/// ```
/// use docmodel::store::{KeyPages, MemoryStore, Store};
///
/// # pollster::block_on(async {
/// let store = MemoryStore::new();
/// for n in 1..=5 {
///     store.insert(&format!("user::{n}"), b"{}").await?;
/// }
/// let mut pages = KeyPages::prefix(&store, "user::").page_size(2);
/// let mut sizes = Vec::new();
/// while let Some(page) = pages.next_page().await? {
///     sizes.push(page.len());
/// }
/// assert_eq!(sizes, [2, 2, 1]);
/// assert_eq!(pages.cursor(), Some("user::5"));
///
/// // A listing resumed after a key it stopped at.
/// let mut rest = KeyPages::prefix(&store, "user::").resume_after("user::3");
/// assert_eq!(rest.next_page().await?.unwrap(), ["user::4", "user::5"]);
/// # Ok::<(), docmodel::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
#[must_use = "a listing lists nothing until `next_page` is awaited"]
pub struct KeyPages<'s, S: ?Sized> {
    store: &'s S,
    span: Span,
    after: Option<String>,
    size: usize,
    done: bool,
}

impl<'s, S: Store + ?Sized> KeyPages<'s, S> {
    /// The keys of `store` that start with `prefix`, in the store's key order.
    pub fn prefix(store: &'s S, prefix: impl Into<String>) -> Self {
        KeyPages::new(store, Span::Prefix(prefix.into()))
    }

    /// The keys `k` of `store` with `start <= k < end`.
    pub fn range(store: &'s S, start: impl Into<String>, end: impl Into<String>) -> Self {
        KeyPages::new(
            store,
            Span::Range {
                start: start.into(),
                end: end.into(),
            },
        )
    }

    fn new(store: &'s S, span: Span) -> Self {
        KeyPages {
            store,
            span,
            after: None,
            size: DEFAULT_PAGE,
            done: false,
        }
    }

    /// At most `keys` keys a page (at least one; 1,000 unless set).
    pub fn page_size(mut self, keys: usize) -> Self {
        self.size = keys.max(1);
        self
    }

    /// Starts after `key`: a listing resumed where an earlier one stopped ([`cursor`](KeyPages::cursor)).
    pub fn resume_after(mut self, key: impl Into<String>) -> Self {
        self.after = Some(key.into());
        self
    }

    /// The next page of keys, or `None` when the listing is over. A page is never empty.
    pub async fn next_page(&mut self) -> Result<Option<Vec<String>>, Error> {
        if self.done {
            return Ok(None);
        }
        let page = ScanPage {
            after: self.after.as_deref(),
            limit: self.size,
        };
        let keys = match &self.span {
            Span::Prefix(prefix) => self.store.scan(prefix, page).await?,
            Span::Range { start, end } => self.store.scan_range(start, end, page).await?,
        };
        self.done = keys.len() < self.size;
        match keys.last() {
            None => Ok(None),
            Some(last) => {
                self.after = Some(last.clone());
                Ok(Some(keys))
            }
        }
    }

    /// The store listed.
    pub(crate) fn store(&self) -> &'s S {
        self.store
    }

    /// Whether the listing is over: it listed its last page, and [`next_page`](KeyPages::next_page) has
    /// nothing more.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The last key listed (or the key it resumed after): where a listing resumed from here starts.
    pub fn cursor(&self) -> Option<&str> {
        self.after.as_deref()
    }
}
