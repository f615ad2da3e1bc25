//! Which version a document was saved from, as each side of a replication shows it: every revision copy
//! records the digests of the versions saved from it ([`EnvelopeField::CopyNext`](crate::EnvelopeField::CopyNext),
//! `_copyNext`), so that a merge follows each side's own history from its document down through the copies, and
//! takes as the base only a version that both sides' histories reach. A copy only one side wrote is never
//! taken for the other side's.
//!
//! A digest is of the bytes the repository writes for a version ([`Doc::to_vec_as_read`](crate::Doc) of the
//! version with its own envelope, without the copy's markers, and without `_accessed`, which a touch writes in
//! place in the same version): what a save writes, and what reading that version back and writing it again
//! gives on any replica, whatever the store did to its text.

/// What marks an entry of a copy's record ([`EnvelopeField::CopyNext`](crate::EnvelopeField::CopyNext)) as a
/// digest the copy's own version had before a merge renumbered it (`"=<digest>"`), rather than the digest of a
/// version saved from it: a merge keeps the versions it displaces as copies of the versions after its own, and
/// another side's history that holds one of them at its first number still meets it there.
pub(crate) const WAS: &str = "=";

/// What joins the two digests of an entry of a copy's record ([`EnvelopeField::CopyNext`](crate::EnvelopeField::CopyNext))
/// that a copy inherited from a copy it was written over (`"<next><FROM><version>"`): the version digested
/// `next` was saved from the version digested `version`, which that copy held. A copy replicated ahead of
/// its document holds another side's version under the number this side saves from; the save writes its
/// own copy over it ([`link`]), and the other side's history still steps through the number, without the
/// content, down to the copies below.
pub(crate) const FROM: &str = "<";

/// The entry recording that the version digested `next` was saved from the version digested `version`, for
/// a copy written over the copy that recorded it ([`FROM`]).
pub(crate) fn link(next: &str, version: &str) -> String {
    format!("{next}{FROM}{version}")
}

/// The two digests of an entry [`link`] made: the version saved, and the one it was saved from.
pub(crate) fn parse_link(entry: &str) -> Option<(&str, &str)> {
    entry.split_once(FROM)
}

/// The number of hex digits of a digest: 128 bits.
pub(crate) const DIGEST_LEN: usize = 32;

/// The digest a copy records for the version a save writes as `bytes` ([`digest`]): of the bytes themselves, or,
/// for a model that keeps `_accessed` (`envelope(accessed)`), of the bytes without it, since a touch writes it
/// in place, in the same version (`codec::unmarked`).
pub fn version_digest<T: crate::DocModel>(bytes: &[u8]) -> String {
    let accessed = T::ENVELOPE.keeps(crate::EnvelopeField::Accessed);
    match accessed
        .then(|| crate::codec::unmarked::<T>(bytes))
        .flatten()
    {
        Some(version) => digest(&version),
        None => digest(bytes),
    }
}

/// The digest of `bytes`, a version as the repository writes it: 32 lowercase hex digits.
///
/// Not a cryptographic hash: it tells versions apart, not writers (anyone who can write the store can
/// write any version). Two 64-bit lanes over the bytes as little-endian words, each with its own multiplier,
/// mixed into each other at the end: the same digest on every platform and in every release.
pub fn digest(bytes: &[u8]) -> String {
    const K1: u64 = 0x9E37_79B9_7F4A_7C15;
    const K2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    let len = bytes.len() as u64;
    let (mut a, mut b) = (
        len ^ 0x243F_6A88_85A3_08D3,
        len.rotate_left(32) ^ 0x1319_8A2E_0370_7344,
    );
    let mut chunks = bytes.chunks_exact(16);
    for chunk in &mut chunks {
        let (x, y) = chunk.split_at(8);
        a = (a ^ word(x)).wrapping_mul(K1).rotate_left(31);
        b = (b ^ word(y)).wrapping_mul(K2).rotate_left(29);
    }
    let rest = chunks.remainder();
    let (x, y) = rest.split_at(rest.len().min(8));
    a = (a ^ word(x)).wrapping_mul(K1).rotate_left(31);
    b = (b ^ word(y)).wrapping_mul(K2).rotate_left(29);
    let (high, low) = (fmix64(a ^ b.rotate_left(17)), fmix64(b ^ a.rotate_left(43)));
    let mut out = String::with_capacity(DIGEST_LEN);
    for part in [high, low] {
        for shift in (0..16).rev() {
            let digit = ((part >> (shift * 4)) & 0xF) as u8;
            out.push(char::from(match digit {
                0..=9 => b'0' + digit,
                _ => b'a' + digit - 10,
            }));
        }
    }
    out
}

/// Up to 8 bytes as a little-endian word, zero-filled.
fn word(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// MurmurHash3's 64-bit finaliser: every bit of the input moves every bit of the output (a partition's part
/// is taken from its high bits, `repo/partition.rs`).
pub(crate) const fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

#[cfg(test)]
mod tests {
    use super::{DIGEST_LEN, digest};

    #[test]
    fn a_digest_is_fixed_and_tells_versions_apart() {
        // Fixed across platforms and releases: copies written by one are read by the next.
        assert_eq!(digest(b""), digest(b""));
        assert_eq!(digest(br#"{"_ver":2}"#).len(), DIGEST_LEN);
        assert_eq!(
            digest(br#"{"_type":"user","_ver":2}"#),
            "dcb695645dcd4d41e50991e982501469"
        );
        // One bit, a byte moved, a byte more: each another digest.
        let base = br#"{"_type":"user","_ver":2,"name":"Joe"}"#.to_vec();
        let mut seen = std::collections::BTreeSet::from([digest(&base)]);
        for at in 0..base.len() {
            let mut flipped = base.clone();
            flipped[at] ^= 1;
            assert!(seen.insert(digest(&flipped)), "bit at {at}");
        }
        let mut longer = base.clone();
        longer.push(0);
        assert!(seen.insert(digest(&longer)));
        assert!(seen.insert(digest(&base[..base.len() - 1])));
    }
}
