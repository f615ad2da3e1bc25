//! The SDK's options of each write: durability, expiry (kept, taken away or set, in whole seconds), CAS.

use std::time::Duration;

use couchbase::durability_level::DurabilityLevel;
use couchbase::error::ErrorKind;
use couchbase::options::kv_binary_options::IncrementOptions;
use couchbase::options::kv_options::{InsertOptions, RemoveOptions, ReplaceOptions};

use crate::store::WriteOptions;
use crate::{Durability, Expiry};

/// The SDK's durability level of `durability`.
pub(super) fn level(durability: Durability) -> Option<DurabilityLevel> {
    match durability {
        Durability::None => None,
        Durability::Majority => Some(DurabilityLevel::MAJORITY),
        Durability::MajorityAndPersistActive => Some(DurabilityLevel::MAJORITY_AND_PERSIST_ACTIVE),
        Durability::PersistToMajority => Some(DurabilityLevel::PERSIST_TO_MAJORITY),
    }
}

/// `duration` in the whole seconds Couchbase counts, rounded up: a document never expires early (the SDK
/// would round 1.5 s down to 1 s).
pub(super) fn whole_seconds(duration: Duration) -> Duration {
    let seconds = duration.as_secs();
    Duration::from_secs(if duration.subsec_nanos() > 0 {
        seconds.saturating_add(1)
    } else {
        seconds
    })
}

/// The SDK's options of an insert by a store of durability `durability` with `options`.
pub(super) fn insert_options(durability: Durability, options: &WriteOptions) -> InsertOptions {
    let mut insert = InsertOptions::new();
    insert.durability_level = level(durability.max(options.durability));
    if let Expiry::After(duration) = options.expiry {
        insert.expiry = Some(whole_seconds(duration));
    }
    insert
}

/// The SDK's options of a replace of `cas`: the document's expiry kept ([`Expiry::Keep`]: Couchbase takes it
/// away on a replace that does not say so), taken away, or set again.
pub(super) fn replace_options(
    durability: Durability,
    options: &WriteOptions,
    cas: u64,
) -> ReplaceOptions {
    let mut replace = ReplaceOptions::new().cas(cas);
    replace.durability_level = level(durability.max(options.durability));
    match options.expiry {
        Expiry::Keep => replace.preserve_expiry = Some(true),
        Expiry::Never => {}
        Expiry::After(duration) => replace.expiry = Some(whole_seconds(duration)),
    }
    replace
}

/// Whether the SDK refused a replace asking to keep the document's expiry because the server does not
/// advertise PreserveExpiry (Couchbase Server before 7.0): refused before it was sent, so nothing was written.
pub(super) fn preserve_expiry_refused(kind: &ErrorKind) -> bool {
    matches!(kind, ErrorKind::InvalidArgument(invalid) if invalid.arg() == Some("preserve_expiry"))
}

/// The options of `replace`, which asked the server to keep the document's expiry, setting it instead: the
/// `expiry` read from the document (`None`: it has none, and a replace without one keeps none).
pub(super) fn keeping(mut replace: ReplaceOptions, expiry: Option<Duration>) -> ReplaceOptions {
    replace.preserve_expiry = None;
    replace.expiry = expiry;
    replace
}

/// What is left at `now` of an expiry at `expires_at` (Couchbase's seconds since the epoch; 0: none), in
/// whole seconds counted from the start of `now`'s second, so that the document never expires early; at least
/// a second (a document past its time is one the server has not purged yet, and goes at once).
pub(super) fn remaining(expires_at: u64, now: std::time::SystemTime) -> Option<Duration> {
    if expires_at == 0 {
        return None;
    }
    let now = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    Some(Duration::from_secs(expires_at.saturating_sub(now).max(1)))
}

pub(super) fn remove_options(
    durability: Durability,
    options: &WriteOptions,
    cas: Option<u64>,
) -> RemoveOptions {
    let mut remove = RemoveOptions::new();
    remove.cas = cas;
    remove.durability_level = level(durability.max(options.durability));
    remove
}

pub(super) fn increment_options(durability: Durability, delta: u64) -> IncrementOptions {
    // A missing counter is created at `initial` without the delta: starting it at `delta` gives the value a
    // counter created at 0 and incremented would have.
    let mut options = IncrementOptions::new().delta(delta).initial(delta);
    options.durability_level = level(durability);
    options
}
