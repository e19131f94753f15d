//! What the classic, the blocked and the atomic filter's tests share.
// Each test file is its own crate and uses some of these, not all.
#![allow(dead_code)]

use bloomlab_classic::MergeError;
use bloomlab_core::Tag;
use bloomlab_core::codec::Writer;
use bloomlab_testkit::codec;
use bloomlab_testkit::keys::members;
use bloomlab_testkit::merge::{self, Merge};

/// The stored form, as hex, of a table of 100 bits and 3 hashes seeded 7
/// that holds 1, 2 and 3, in format `version` (1 or 2: the bits sit where
/// that version's [`Scheme`](bloomlab_core::hash::Scheme) puts them), under
/// the variant tag `variant` and sealed by `crc`: the classic and the atomic
/// filter store the same fields.
pub fn pinned_100_bits(version: u16, variant: &str, crc: &str) -> String {
    let (version, words) = match version {
        1 => ("0100", ["040000000c000001", "8880001000000000"]),
        _ => ("0200", ["0002000004010021", "00c0000002000000"]),
    };
    [
        "424c4d46",                         // magic "BLMF"
        version,                            // format version
        variant,                            // variant
        "d29c963834099d362914eed032e4c7d6", // key of seed 7
        "14000000",                         // 20 bytes of parameters:
        "6400000000000000",                 //   100 bits
        "03000000",                         //   3 hashes
        "0300000000000000",                 //   3 inserts
        "1000000000000000",                 // 16 bytes of payload:
        words[0],                           //   word 0
        words[1],                           //   word 1 (bits 64..100)
        crc,                                // CRC-32
    ]
    .concat()
}

/// A sealed file of variant `tag` with hash key `key`: a table of `size`
/// bits (or blocks) and `hashes` hashes that took `len` inserts, holding
/// `payload`. All three filters store these fields.
pub fn stored(
    tag: Tag,
    key: [u64; 2],
    size: u64,
    hashes: u32,
    len: u64,
    payload: &[u8],
) -> Vec<u8> {
    let params = Writer::new().u64(size).u32(hashes).u64(len).finish();
    codec::sealed(tag, key, params, payload.to_vec())
}

/// Two sets of keys that share some, and a filter of each: `common` is
/// `members` of the first of `seeds`, each set `common` then `members` of
/// its own seed and count, and each filter `seeded(size, hashes, seed,
/// set)` of `shape`, `(size, hashes, seed)`.
pub fn sharing<F>(
    seeded: fn(u64, u32, u64, &[u64]) -> F,
    (size, hashes, seed): (u64, u32, u64),
    seeds: [(u64, usize); 3],
) -> (Vec<u64>, [Vec<u64>; 2], [F; 2]) {
    let [common, a, b] = seeds.map(|(seed, count)| members(seed, count));
    let keys = [a, b].map(|own| [common.clone(), own].concat());
    let filters = [
        seeded(size, hashes, seed, &keys[0]),
        seeded(size, hashes, seed, &keys[1]),
    ];
    (common, keys, filters)
}

/// Asserts that both `merges` (`[union, intersect]`) refuse, and change
/// nothing in, a filter `seeded(size, 4, 1, keys)` merged with a filter
/// `seeded(other_size, 4, 1, keys)` (refused as `NumBits`),
/// `seeded(size, 5, 1, keys)` and `seeded(size, 4, 2, keys)`, where `keys`
/// are `members(keys_seed, 100)`. `sizes` are `size` and `other_size`, each
/// with its bits. `seeded(size, hashes, seed, keys)` builds a filter of
/// `size` bits (or blocks) and `hashes` hashes, keyed by `seed`, holding
/// `keys`.
pub fn assert_mismatches_refused<F>(
    seeded: fn(u64, u32, u64, &[u64]) -> F,
    merges: [Merge<F, MergeError>; 2],
    sizes: [(u64, u64); 2],
    keys_seed: u64,
) where
    F: Clone + PartialEq + std::fmt::Debug,
{
    let keys = members(keys_seed, 100);
    let [(size, ours), (other_size, theirs)] = sizes;
    let hashes = MergeError::NumHashes { ours: 4, theirs: 5 };
    let cases = [
        (other_size, 4, 1, MergeError::NumBits { ours, theirs }),
        (size, 5, 1, hashes),
        (size, 4, 2, MergeError::Hasher),
    ];
    let cases = cases.map(|(m, k, seed, e)| (seeded(m, k, seed, &keys), e));
    merge::assert_mismatches_refused(&seeded(size, 4, 1, &keys), cases, merges);
}
