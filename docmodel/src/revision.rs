//! Which revision copies a model keeps: earlier versions of a document under `<key><d>v<d><n>` (the seeds'
//! `user:123:v:1`, built by [`revision_key`](crate::revision_key)).
//!
//! One question is answered here, [`RevisionWindow::keeps`], and every reader of copies (the save's prune,
//! remove, sweep, the history, a merge) asks it: is the copy of version `v` kept for a document at version
//! `c`? By count (`revisions = N`, or `keep` in `revisions(keep = N, for = "30d")`) the `N` versions below
//! `c` are kept whatever their age. With an age (`for`), a copy past the count is kept too while the time it
//! stopped being current (the `_modified` of the version after it) is no older than the age: a replica that
//! went apart within the age still finds the version it forked from.

use core::time::Duration;

use crate::{DocModel, Timestamp};

/// Which versions of a document at version `current` a model keeping `keep` copies (and, with `age`, those
/// younger than it) holds: the `keep` versions before it, `current - keep ..= current - 1`, never below 1,
/// and below them those displaced no longer than `age` ago. All arithmetic is checked: any stored `_ver`, up
/// to `u64::MAX`, gives a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RevisionWindow {
    /// The current version: copies are kept below it.
    current: u64,
    /// How many copies are kept whatever their age.
    keep: u64,
    /// How long a copy past the count is kept after its version stopped being current.
    age: Option<Duration>,
}

impl RevisionWindow {
    /// The window of a document of model `T` at version `current`: `None` for a model that keeps no copies.
    pub(crate) fn of<T: DocModel>(current: u64) -> Option<Self> {
        T::REVISIONS.map(|keep| RevisionWindow::new(current, keep, T::REVISIONS_FOR))
    }

    /// The window of a document at version `current` keeping `keep` copies, and those younger than `age`.
    const fn new(current: u64, keep: u64, age: Option<Duration>) -> Self {
        RevisionWindow { current, keep, age }
    }

    /// The version of the document this is the window of.
    pub(crate) const fn current(&self) -> u64 {
        self.current
    }

    /// Whether copies past the count are kept while young: the model has `revisions(keep = N, for = ...)`.
    pub(crate) const fn ages(&self) -> bool {
        self.age.is_some()
    }

    /// The oldest version kept by count, 1 at the least.
    const fn oldest(&self) -> u64 {
        let oldest = self.current.saturating_sub(self.keep);
        if oldest == 0 { 1 } else { oldest }
    }

    /// Whether a copy of `version` is kept by count, whatever its age.
    pub(crate) const fn contains(&self, version: u64) -> bool {
        self.oldest() <= version && version < self.current
    }

    /// The versions kept by count, newest first.
    pub(crate) fn versions(&self) -> impl Iterator<Item = u64> + use<> {
        (self.oldest()..self.current).rev()
    }

    /// The newest version past the count (below [`versions`](Self::versions)), whose copy only an age
    /// keeps: `None` while the count holds every earlier version.
    pub(crate) const fn past_count(&self) -> Option<u64> {
        match self.current.checked_sub(self.keep) {
            Some(0 | 1) | None => None,
            Some(oldest) => Some(oldest - 1),
        }
    }

    /// Whether the copy of `version` is kept at `now`, given `displaced`: when it stopped being current (the
    /// `_modified` of the version after it: its copy, or the document when that is the current version).
    /// Kept by count whatever the time; past the count only with an age, and only while `now - displaced`
    /// is at most the age (a copy displaced exactly the age ago is kept, one a millisecond older is not). A
    /// copy whose displacement time is unknown (the copy after it is missing, or carries no `_modified`) is
    /// kept by count alone.
    pub(crate) fn keeps(&self, version: u64, displaced: Option<Timestamp>, now: Timestamp) -> bool {
        if self.contains(version) {
            return true;
        }
        match (self.age, displaced) {
            (Some(age), Some(displaced)) if version != 0 && version < self.current => {
                let elapsed = i128::from(now.as_millis()) - i128::from(displaced.as_millis());
                elapsed <= i128::try_from(age.as_millis()).unwrap_or(i128::MAX)
            }
            _ => false,
        }
    }

    /// The version whose copy the next save (from `current` to `current + 1`) leaves outside the count,
    /// once the window is full; `None` too for a model with an age, whose save decides by the copies'
    /// times ([`keeps`](Self::keeps)) after it commits.
    pub(crate) const fn pruned_by_next_save(&self) -> Option<u64> {
        if self.age.is_some() {
            return None;
        }
        match self.current.checked_sub(self.keep) {
            Some(0) | None => None,
            Some(version) => Some(version),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RevisionWindow;
    use crate::Timestamp;
    use core::time::Duration;

    const DAY: Duration = Duration::from_secs(86_400);

    fn at(millis: i64) -> Timestamp {
        Timestamp::from_millis(millis)
    }

    #[test]
    fn the_window_is_the_versions_before_the_current_one() {
        let window = RevisionWindow::new(5, 3, None);
        assert_eq!(window.versions().collect::<Vec<_>>(), [4, 3, 2]);
        assert!(window.contains(2) && !window.contains(1) && !window.contains(5));
        assert_eq!(window.pruned_by_next_save(), Some(2));
        assert_eq!(window.past_count(), Some(1));
        assert_eq!(RevisionWindow::new(3, 3, None).pruned_by_next_save(), None);
        assert_eq!(RevisionWindow::new(4, 3, None).past_count(), None);
        assert_eq!(RevisionWindow::new(1, 3, None).versions().count(), 0);
    }

    #[test]
    fn any_stored_version_gives_a_window() {
        let top = RevisionWindow::new(u64::MAX, 3, None);
        assert_eq!(
            top.versions().collect::<Vec<_>>(),
            [u64::MAX - 1, u64::MAX - 2, u64::MAX - 3]
        );
        assert!(!top.contains(u64::MAX));
        assert_eq!(RevisionWindow::new(0, u64::MAX, None).versions().count(), 0);
        assert_eq!(
            RevisionWindow::new(u64::MAX, u64::MAX, None).pruned_by_next_save(),
            None
        );
        assert!(RevisionWindow::new(u64::MAX, u64::MAX, None).contains(1));
        let aged = RevisionWindow::new(u64::MAX, 1, Some(Duration::MAX));
        assert!(aged.keeps(1, Some(at(i64::MIN)), at(i64::MAX)));
    }

    #[test]
    fn by_count_alone_a_copy_past_the_count_goes_whatever_its_age() {
        let window = RevisionWindow::new(12, 10, None);
        assert!(window.keeps(2, None, at(0)));
        assert!(!window.keeps(1, Some(at(0)), at(0)));
    }

    #[test]
    fn with_an_age_a_copy_goes_when_both_past_the_count_and_older_than_the_age() {
        let window = RevisionWindow::new(12, 10, Some(DAY));
        let now = 10 * DAY.as_millis() as i64;
        // In the count: kept whatever its age, or with no time at all.
        assert!(window.keeps(2, Some(at(0)), at(now)));
        assert!(window.keeps(2, None, at(now)));
        // Past the count: kept up to exactly the age after it was displaced, not a millisecond more.
        let day = DAY.as_millis() as i64;
        assert!(window.keeps(1, Some(at(now - day)), at(now)));
        assert!(!window.keeps(1, Some(at(now - day - 1)), at(now)));
        assert!(window.keeps(1, Some(at(now)), at(now)));
        // A displacement time from a clock ahead of this one: young.
        assert!(window.keeps(1, Some(at(now + day)), at(now)));
        // The copy after it missing: its time is unknown, and the count decides.
        assert!(!window.keeps(1, None, at(now)));
        // Never the current version, or one above it, or version 0.
        assert!(!window.keeps(12, Some(at(now)), at(now)));
        assert!(!window.keeps(13, Some(at(now)), at(now)));
        assert!(!window.keeps(0, Some(at(now)), at(now)));
        // The save leaves the decision to the times.
        assert_eq!(window.pruned_by_next_save(), None);
        assert_eq!(window.past_count(), Some(1));
    }
}
