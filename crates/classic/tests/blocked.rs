//! BlockedBloomFilter in both layouts: conformance, merging, the count
//! estimate, and the stored bytes.

mod common;

use bloomlab_classic::{BLOCKED_TAG, BlockLayout, BlockedBloomFilter};
use bloomlab_core::codec::{Envelope, NEWEST_VERSION};
use bloomlab_core::hash::HashFunction;
use bloomlab_core::theory::{blocked, sectored};
use bloomlab_core::{DefaultHasher, Membership};
use bloomlab_testkit::codec::{self, hex, unhex};
use bloomlab_testkit::keys::members;
use bloomlab_testkit::{batch, conformance, item_methods};
use std::hash::BuildHasher;

#[test]
fn conformance() {
    conformance::run(|n, p, seed| BlockedBloomFilter::builder(n, p).seed(seed).build());
    conformance::run(|n, p, seed| {
        BlockedBloomFilter::builder(n, p)
            .layout(BlockLayout::Positions)
            .seed(seed)
            .build()
    });
}

fn seeded_in(
    layout: BlockLayout,
    blocks: u64,
    hashes: u32,
    seed: u64,
    keys: &[u64],
) -> BlockedBloomFilter<u64> {
    let mut f = BlockedBloomFilter::builder_with_blocks(blocks, hashes)
        .layout(layout)
        .seed(seed)
        .build()
        .unwrap();
    f.insert_all(keys).unwrap();
    f
}

/// A filter in the positions layout, which takes any `k`.
fn seeded(blocks: u64, hashes: u32, seed: u64, keys: &[u64]) -> BlockedBloomFilter<u64> {
    seeded_in(BlockLayout::Positions, blocks, hashes, seed, keys)
}

/// [`seeded_in`] hashed with SipHash-1-3, as the pinned files were.
fn sip_in(layout: BlockLayout, blocks: u64, hashes: u32, keys: &[u64]) -> BlockedBloomFilter<u64> {
    let mut f = BlockedBloomFilter::builder_with_blocks(blocks, hashes)
        .layout(layout)
        .hasher(codec::sip_seeded(7))
        .build()
        .unwrap();
    f.insert_all(keys).unwrap();
    f
}

/// A filter of the default hash writes its function, AES-128-CMAC, in the
/// version field's high byte and reads back equal.
fn default_hash_round_trips(f: &BlockedBloomFilter<u64>) {
    let bytes = f.to_bytes();
    assert_eq!(codec::stored_hash(&bytes), Some(HashFunction::AesCmac));
    assert_eq!(&BlockedBloomFilter::from_bytes(&bytes).unwrap(), f);
}

#[test]
fn sizing_is_the_fewest_blocks_that_reach_the_rate() {
    let f: BlockedBloomFilter<u64> = BlockedBloomFilter::builder(100_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    let (b, k) = (f.num_blocks(), f.num_hashes());
    assert_eq!((f.layout(), k), (BlockLayout::Sectors, 8));
    assert!(sectored::fpr_exact(64, 8, b, 100_000, k) <= 0.01);
    for k in [8, 16, 24] {
        assert!(
            sectored::fpr_exact(64, 8, b - 1, 100_000, k) > 0.01,
            "k = {k}"
        );
    }
    assert_eq!(f.memory_bytes() as u64, b * 64);
    assert_eq!(f.num_bits(), b * 512);

    let f: BlockedBloomFilter<u64> = BlockedBloomFilter::builder(100_000, 0.01)
        .layout(BlockLayout::Positions)
        .seed(1)
        .build()
        .unwrap();
    let (b, k) = (f.num_blocks(), f.num_hashes());
    assert!(blocked::fpr_exact(512, b, 100_000, k) <= 0.01);
    for k in 1..=16 {
        assert!(blocked::fpr_exact(512, b - 1, 100_000, k) > 0.01, "k = {k}");
    }
    assert_eq!(f.memory_bytes() as u64, b * 64);
}

#[test]
fn union_equals_inserting_both_and_intersect_keeps_common_items() {
    let seeds = [(1, 500), (2, 1_500), (3, 1_000)];
    let (common, [a_keys, b_keys], [a, b]) = common::sharing(seeded, (60, 6, 4), seeds);

    let mut u = a.clone();
    u.union(&b).unwrap();
    assert_eq!(u, {
        let mut both = seeded(60, 6, 4, &[a_keys.clone(), b_keys.clone()].concat());
        // len counts inserts: the common keys went in twice either way.
        assert_eq!(both.len(), 3_500);
        both.clear();
        for k in a_keys.iter().chain(&b_keys) {
            both.insert(k).unwrap();
        }
        both
    });
    assert_eq!(u.len(), 3_500);

    let mut i = a.clone();
    i.intersect(&b).unwrap();
    assert!(common.iter().all(|k| i.contains(k)));
    assert!(i.count_ones() <= a.count_ones().min(b.count_ones()));
    assert_eq!(i.len(), 1_500);
    let mut ii = i.clone();
    ii.union(&a).unwrap();
    ii.intersect(&a).unwrap();
    assert_eq!(ii.count_ones(), a.count_ones(), "i ⊆ a, so (i ∪ a) ∩ a = a");
}

#[test]
fn union_in_the_sectors_layout_equals_inserting_both() {
    let (a_keys, b_keys) = (members(2, 1_500), members(3, 1_000));
    let a = seeded_in(BlockLayout::Sectors, 60, 8, 4, &a_keys);
    let b = seeded_in(BlockLayout::Sectors, 60, 8, 4, &b_keys);
    let mut u = a.clone();
    u.union(&b).unwrap();
    let both = seeded_in(BlockLayout::Sectors, 60, 8, 4, &[a_keys, b_keys].concat());
    assert_eq!(u, both);
    let mut i = a.clone();
    i.intersect(&b).unwrap();
    assert!(i.count_ones() <= a.count_ones().min(b.count_ones()));
}

#[test]
fn merging_mismatched_filters_fails_and_changes_nothing() {
    // 10 and 11 blocks of 512 bits.
    let sizes = [(10, 5_120), (11, 5_632)];
    let merges = [BlockedBloomFilter::union, BlockedBloomFilter::intersect];
    common::assert_mismatches_refused(seeded, merges, sizes, 5);
}

/// The centre and standard deviation of a blocked filter's count estimate,
/// given how many items each block received: each block is `groups`
/// independent groups of `b` cells (its words in the sectors layout, the
/// whole block otherwise), each item throwing `kf` uniform positions into
/// each group, and the estimate is `n̂ = h(Z) = −B ln(Z/m) / hit` of the
/// table's zero cells Z out of m, `hit = 1 − (1 − 1/b)^kf`.
///
/// A group's zero cells follow the occupancy law of T = items·kf uniform
/// throws into b cells (mean `b(1 − 1/b)^T`, the variance below), and the
/// groups are independent given the loads, so Z has the sum of their means
/// and variances. To second order the estimate is centred on
/// `h(μ) + h''(μ)·Var Z / 2`, with variance `h'(μ)²·Var Z`.
fn estimate_centre_and_sd(load: &[u32], b: f64, kf: f64, groups: f64) -> (f64, f64) {
    let (mut mu, mut var) = (0.0, 0.0);
    for &i in load {
        let t = f64::from(i) * kf;
        let q1 = (1.0 - 1.0 / b).powf(t);
        let q2 = (1.0 - 2.0 / b).powf(t);
        mu += groups * b * q1;
        var += groups * (b * (b - 1.0) * q2 + b * q1 - b * b * q1 * q1);
    }
    let blocks = load.len() as f64;
    let m = blocks * groups * b;
    let hit = 1.0 - (1.0 - 1.0 / b).powf(kf);
    let h = -blocks * (mu / m).ln() / hit;
    let h1 = blocks / (hit * mu);
    let h2 = blocks / (hit * mu * mu);
    (h + h2 * var / 2.0, h1 * var.sqrt())
}

#[test]
fn count_estimate_is_within_its_sampling_spread() {
    // (layout, k, cells per group, groups per block)
    for (layout, k, b, groups) in [
        (BlockLayout::Positions, 6u32, 512.0f64, 1.0f64),
        (BlockLayout::Sectors, 8, 64.0, 8.0),
    ] {
        let blocks = 1_000u64;
        let keys = members(6, 20_000);
        let f = seeded_in(layout, blocks, k, 7, &keys);
        let est = f.estimate_count();
        let mut load = vec![0u32; blocks as usize];
        for key in &keys {
            let h = f.hasher().hash_one(key);
            load[bloomlab_core::hash::reduce(h, blocks) as usize] += 1;
        }
        let kf = f64::from(k) / groups;
        let (centre, sd) = estimate_centre_and_sd(&load, b, kf, groups);
        // 3.29 sd: the 99.9% normal interval.
        assert!(
            (est - centre).abs() <= 3.2905 * sd,
            "{layout:?}: estimate {est}, centre {centre:.1}, sd {sd:.1}"
        );
    }

    let full = seeded(1, 64, 8, &members(9, 10_000));
    assert_eq!(full.estimate_count(), f64::INFINITY);
    let full = seeded_in(BlockLayout::Sectors, 1, 64, 8, &members(9, 10_000));
    assert_eq!(full.estimate_count(), f64::INFINITY);
}

/// The stored form, as hex, of a filter of one block seeded 7 that holds 1,
/// 2 and 3: format `version`, `hashes` (as hex), the block's eight words
/// (little-endian hex, apart by white space) and the CRC-32 that seals
/// them.
fn one_block(version: &str, hashes: &str, words: &str, crc: &str) -> String {
    [
        "424c4d46",                         // magic "BLMF"
        version,                            // format version
        "0200",                             // variant: blocked
        "d29c963834099d362914eed032e4c7d6", // key of seed 7
        "14000000",                         // 20 bytes of parameters:
        "0100000000000000",                 //   1 block
        hashes,                             //   k
        "0300000000000000",                 //   3 inserts
        "4000000000000000",                 // 64 bytes of payload, the block's words
    ]
    .concat()
        + &words.split_whitespace().collect::<String>()
        + crc
}

/// A filter of one block in `layout` with `hashes` hashes holding 1, 2 and
/// 3, hashed with SipHash-1-3 as the pinned files were, and its bytes; the
/// same filter of the default hash round-trips.
fn pinned_block(layout: BlockLayout, hashes: u32) -> (BlockedBloomFilter<u64>, Vec<u8>) {
    default_hash_round_trips(&seeded_in(layout, 1, hashes, 7, &[1, 2, 3]));
    let f = sip_in(layout, 1, hashes, &[1, 2, 3]);
    let bytes = f.to_bytes();
    (f, bytes)
}

#[test]
fn stored_bytes_are_pinned() {
    let (f, bytes) = pinned_block(BlockLayout::Positions, 3);
    let words = "0000040008000000 0040000000000000 0000400800000000 0040010000000001
                 0000000000000000 0000000800000000 0000000000000000 0000000000000000";
    let stored = |version, crc| one_block(version, "03000000", words, crc);
    assert_eq!(hex(&bytes), stored("0200", "9073527e"));
    assert_eq!(BlockedBloomFilter::from_bytes(&bytes).unwrap(), f);
    // Format version 1 placed a blocked filter's bits the same way.
    let old = unhex(&stored("0100", "a8d8fa7c"));
    assert_eq!(BlockedBloomFilter::from_bytes(&old).unwrap(), f);
}

/// The sectors layout is written in format version 3: each item sets one
/// bit in each 64-bit word.
#[test]
fn stored_bytes_of_the_sectors_layout_are_pinned() {
    let (f, bytes) = pinned_block(BlockLayout::Sectors, 8);
    let words = "0000000000044001 8000000002080000 0000001000200400 0000000080401000
                 0080000010000001 0008010000000020 4000000080040000 0000100014000000";
    assert_eq!(
        hex(&bytes),
        one_block("0300", "08000000", words, "e2670ef7")
    );
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), NEWEST_VERSION);
    assert!(f.words().all(|w| w.count_ones() == 3));
    assert_eq!(BlockedBloomFilter::from_bytes(&bytes).unwrap(), f);
}

#[test]
fn parameters_that_do_not_fit_the_payload_are_invalid() {
    let f = seeded(2, 3, 7, &[1, 2, 3]);
    let bytes = f.to_bytes();
    let env = Envelope::decode(&bytes, BLOCKED_TAG).unwrap();
    let key = f.hasher().key();
    let envelope = |blocks, hashes, payload: &[u8]| {
        common::stored(BLOCKED_TAG, key, blocks, hashes, 3, payload)
    };
    assert_eq!(
        BlockedBloomFilter::from_bytes(&envelope(2, 3, &env.payload)),
        Ok(f)
    );
    for (blocks, hashes, payload) in [
        (3, 3, &env.payload[..]),
        (1, 3, &env.payload[..]),
        (2, 3, &env.payload[..64]),
        (0, 3, &[][..]),
        (2, 0, &env.payload[..]),
        (2, 65, &env.payload[..]),
        (u64::MAX, 3, &env.payload[..]),
    ] {
        let bytes = envelope(blocks, hashes, payload);
        assert!(
            codec::refuses_parameters::<BlockedBloomFilter<u64>>(&bytes),
            "{blocks} blocks, {hashes} hashes, {} bytes",
            payload.len()
        );
    }
}

#[test]
fn trait_and_inherent_methods_agree() {
    let keys = members(10, 1_000);
    let start = BlockedBloomFilter::builder(1_000, 0.01).seed(3).build();
    let methods = item_methods!(BlockedBloomFilter<u64>);
    let mut b = batch::assert_trait_methods_agree(&start.unwrap(), &methods, &keys, &[]);
    let h = DefaultHasher::from_seed(3);
    assert!(keys.iter().all(|k| b.contains_hash(h.hash_one(k))));
    b.clear();
    assert!(b.is_empty() && b.count_ones() == 0 && b.expected_fpr() == 0.0);
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
        let _ = BlockedBloomFilter::<u64>::from_bytes(&bytes);
    }
}
