//! The write decorator every protocol step writes through.

use crate::store::{Layer, Store, WriteOptions};

/// A repository's store with the repository's [`WriteOptions`] on every write (the options of the call are
/// replaced): what the protocol's code writes through, so no write can forget them.
pub(super) struct Writing<'s, S> {
    pub(super) store: &'s S,
    pub(super) options: WriteOptions,
}

impl<S: Store> Layer for Writing<'_, S> {
    type Inner = S;

    fn inner(&self) -> &S {
        self.store
    }

    fn write_options<'a>(&'a self, _given: &'a WriteOptions) -> &'a WriteOptions {
        &self.options
    }
}
