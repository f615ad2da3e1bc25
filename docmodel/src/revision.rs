//! Which revision copies a model keeps: earlier versions of a document under `<key><d>v<d><n>` (the seeds'
//! `user:123:v:1`, built by [`revision_key`](crate::revision_key)).

use crate::DocModel;

/// Which versions of a document at version `current` a model keeping `keep` copies holds: the `keep`
/// versions before it, `current - keep ..= current - 1`, never below 1. All arithmetic is checked: any
/// stored `_ver`, up to `u64::MAX`, gives a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RevisionWindow {
    /// The current version: copies are kept below it.
    current: u64,
    /// How many copies are kept.
    keep: u64,
}

impl RevisionWindow {
    /// The window of a document of model `T` at version `current`: `None` for a model that keeps no copies.
    pub(crate) fn of<T: DocModel>(current: u64) -> Option<Self> {
        T::REVISIONS.map(|keep| RevisionWindow::new(current, keep))
    }

    /// The window of a document at version `current` keeping `keep` copies.
    const fn new(current: u64, keep: u64) -> Self {
        RevisionWindow { current, keep }
    }

    /// The version of the document this is the window of.
    pub(crate) const fn current(&self) -> u64 {
        self.current
    }

    /// The oldest version kept, 1 at the least.
    const fn oldest(&self) -> u64 {
        let oldest = self.current.saturating_sub(self.keep);
        if oldest == 0 { 1 } else { oldest }
    }

    /// Whether a copy of `version` is kept.
    pub(crate) const fn contains(&self, version: u64) -> bool {
        self.oldest() <= version && version < self.current
    }

    /// The kept versions, newest first.
    pub(crate) fn versions(&self) -> impl Iterator<Item = u64> + use<> {
        (self.oldest()..self.current).rev()
    }

    /// The version whose copy the next save (from `current` to `current + 1`) leaves outside the window, once
    /// the window is full.
    pub(crate) const fn pruned_by_next_save(&self) -> Option<u64> {
        match self.current.checked_sub(self.keep) {
            Some(0) | None => None,
            Some(version) => Some(version),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RevisionWindow;

    #[test]
    fn the_window_is_the_versions_before_the_current_one() {
        let window = RevisionWindow::new(5, 3);
        assert_eq!(window.versions().collect::<Vec<_>>(), [4, 3, 2]);
        assert!(window.contains(2) && !window.contains(1) && !window.contains(5));
        assert_eq!(window.pruned_by_next_save(), Some(2));
        assert_eq!(RevisionWindow::new(3, 3).pruned_by_next_save(), None);
        assert_eq!(RevisionWindow::new(1, 3).versions().count(), 0);
    }

    #[test]
    fn any_stored_version_gives_a_window() {
        let top = RevisionWindow::new(u64::MAX, 3);
        assert_eq!(
            top.versions().collect::<Vec<_>>(),
            [u64::MAX - 1, u64::MAX - 2, u64::MAX - 3]
        );
        assert!(!top.contains(u64::MAX));
        assert_eq!(RevisionWindow::new(0, u64::MAX).versions().count(), 0);
        assert_eq!(
            RevisionWindow::new(u64::MAX, u64::MAX).pruned_by_next_save(),
            None
        );
        assert!(RevisionWindow::new(u64::MAX, u64::MAX).contains(1));
    }
}
