//! [`Partition`]: one of n disjoint parts of a whole-store job, chosen by a stable function of the key.

use std::fmt;
use std::str::FromStr;

use crate::lineage::fmix64;

/// One part of a whole-store job split `count` ways: the keys `k` with `Partition::of(k, count) == index`.
///
/// n tasks, processes or machines each given a different part of the same `count` run one job together
/// ([`MigrateAll::partition`](crate::MigrateAll::partition), [`Walk::partition`](crate::Walk::partition)):
/// every key falls in exactly one part, whatever the store holds and whoever computes it, so the parts' runs
/// together visit what one run visits, and each part keeps its own cursor and report and resumes alone. Each
/// part still lists the model's whole key range (the listing is cheap next to the reads and writes it saves);
/// it reads and writes only its own documents.
///
/// The function is part of the contract, so a program in another language can split a job the same way:
/// FNV-1a (64-bit) of the key's UTF-8 bytes, mixed by MurmurHash3's 64-bit finalizer, then `(h * count) >>
/// 64`. It never changes between versions.
///
/// ```
/// use docmodel::Partition;
///
/// let parts: Vec<Partition> = (0..4).map(|i| Partition::new(i, 4)).collect::<Result<_, _>>()?;
/// for key in ["user::1", "user::2", "order::7"] {
///     assert_eq!(parts.iter().filter(|part| part.holds(key)).count(), 1);
/// }
/// assert_eq!("2/4".parse::<Partition>()?, parts[2]);
/// assert_eq!(Partition::new(4, 4).unwrap_err().to_string(), "partition 4/4: the index must be below the count");
/// # Ok::<(), docmodel::PartitionError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Partition {
    index: u32,
    count: u32,
}

impl Partition {
    /// The whole job, in one part.
    pub const WHOLE: Partition = Partition { index: 0, count: 1 };

    /// Part `index` (from 0) of `count`. Fails when `count` is 0 or `index` is not below it.
    pub const fn new(index: u32, count: u32) -> Result<Partition, PartitionError> {
        if count == 0 || index >= count {
            return Err(PartitionError::OutOfRange { index, count });
        }
        Ok(Partition { index, count })
    }

    /// Which part, from 0.
    pub const fn index(&self) -> u32 {
        self.index
    }

    /// How many parts the job is split into.
    pub const fn count(&self) -> u32 {
        self.count
    }

    /// Whether `key` is in this part.
    pub fn holds(&self, key: &str) -> bool {
        self.count == 1 || Partition::of(key, self.count) == self.index
    }

    /// The part (from 0) of `count` that `key` falls in; `count` 0 is taken as 1.
    pub fn of(key: &str, count: u32) -> u32 {
        let hash = fmix64(fnv1a64(key.as_bytes()));
        ((u128::from(hash) * u128::from(count.max(1))) >> 64) as u32
    }
}

impl Default for Partition {
    fn default() -> Self {
        Partition::WHOLE
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// `"i/n"`: part `i` of `n`, as [`Partition`]'s `Display` writes it (for a command line or an environment
/// variable).
impl FromStr for Partition {
    type Err = PartitionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let not_a_partition = || PartitionError::Syntax(text.to_owned());
        let (index, count) = text.split_once('/').ok_or_else(not_a_partition)?;
        let number = |part: &str| part.trim().parse::<u32>().map_err(|_| not_a_partition());
        Partition::new(number(index)?, number(count)?)
    }
}

/// Why a [`Partition`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PartitionError {
    /// The count is 0, or the index is not below it.
    OutOfRange {
        /// The index given.
        index: u32,
        /// The count given.
        count: u32,
    },
    /// The text is not `index/count`.
    Syntax(String),
}

impl std::fmt::Display for PartitionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PartitionError::OutOfRange { index, count } => write!(
                f,
                "partition {index}/{count}: {}",
                if *count == 0 {
                    "a job has at least one part"
                } else {
                    "the index must be below the count"
                }
            ),
            PartitionError::Syntax(text) => {
                write!(
                    f,
                    "`{text}` is not a partition: write it `index/count`, as `0/4`"
                )
            }
        }
    }
}

impl std::error::Error for PartitionError {}

/// FNV-1a, 64 bits.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The function is a contract with programs in other languages: these values never change.
    #[test]
    fn the_function_is_the_documented_one() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        let parts: Vec<u32> = ["user::1", "user::2", "user::3", "order::1", "é::1"]
            .iter()
            .map(|key| Partition::of(key, 4))
            .collect();
        assert_eq!(parts, PINNED);
    }

    /// What [`Partition::of`] gives the keys of the test above, in 4 parts, computed from the documented
    /// function by a separate implementation (Python's integers).
    const PINNED: [u32; 5] = [2, 0, 1, 2, 3];

    #[test]
    fn every_key_is_in_one_part_and_the_parts_are_even() {
        for count in [1, 2, 3, 4, 7, 16] {
            let parts: Vec<Partition> = (0..count)
                .map(|index| Partition::new(index, count).unwrap())
                .collect();
            let mut sizes = vec![0u32; count as usize];
            for n in 0..10_000 {
                let key = format!("user::{n}");
                let holders: Vec<&Partition> = parts.iter().filter(|p| p.holds(&key)).collect();
                assert_eq!(holders.len(), 1, "{key} in {count} parts");
                sizes[holders[0].index() as usize] += 1;
            }
            let even = 10_000 / count;
            for size in sizes {
                assert!(
                    size.abs_diff(even) * 10 < even,
                    "{count} parts: {size} keys against {even}"
                );
            }
        }
    }

    #[test]
    fn bad_partitions_are_refused_by_name() {
        assert_eq!(
            Partition::new(0, 0).unwrap_err().to_string(),
            "partition 0/0: a job has at least one part"
        );
        assert_eq!(
            "3/2".parse::<Partition>().unwrap_err().to_string(),
            "partition 3/2: the index must be below the count"
        );
        assert_eq!(
            "3 of 4".parse::<Partition>().unwrap_err().to_string(),
            "`3 of 4` is not a partition: write it `index/count`, as `0/4`"
        );
        assert_eq!("1/2".parse::<Partition>().unwrap().to_string(), "1/2");
        assert!(Partition::WHOLE.holds("anything"));
    }
}
