//! BloomFilter: conformance, bit positions above 2^32, merging, the count
//! estimate, Guava's sizing, and the stored bytes.

mod common;

use bloomlab_classic::{BloomFilter, BuildError, MergeError};
use bloomlab_core::hash::{HashFunction, Scheme};
use bloomlab_core::theory::classic;
use bloomlab_core::{DecodeError, DefaultHasher, Membership};
use bloomlab_testkit::codec::{self, hex, unhex};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::rates::assert_in_interval;
use bloomlab_testkit::stats::binomial_interval;
use bloomlab_testkit::{batch, conformance, item_methods};
use std::hash::BuildHasher;

#[test]
fn conformance() {
    conformance::run(|n, p, seed| BloomFilter::builder(n, p).seed(seed).build());
}

#[test]
fn more_than_2_pow_32_bits() {
    let m = (1u64 << 32) + (1 << 20);
    // 512 MiB, zeroed lazily: only the pages written (at most 40,000) are touched.
    let mut f = BloomFilter::builder_with_bits(m, 4)
        .seed(5)
        .build()
        .unwrap();
    assert_eq!(f.num_bits(), m);
    assert_eq!(f.memory_bytes(), (m / 8) as usize);
    let keys = members(6, 10_000);
    f.insert_all(&keys).unwrap();
    assert!(keys.iter().all(|k| f.contains(k)), "a member was lost");

    let mut high: Vec<u64> = keys
        .iter()
        .flat_map(|k| f.scheme().positions(f.hasher().hash_one(k), m).take(4))
        .filter(|&bit| bit >= 1 << 32)
        .collect();
    high.sort_unstable();
    high.dedup();
    // Each of the 40,000 positions lies above 2^32 with probability 2^20/m.
    let (lo, hi) = binomial_interval(40_000, (1u64 << 20) as f64 / m as f64, 0.999);
    assert!(lo > 0);
    assert!(
        (lo..=hi).contains(&(high.len() as u64)),
        "{} high positions",
        high.len()
    );
    // And those bits, exactly, are set in the words past 2^32.
    let words = f.as_words();
    let set_high: u64 = words[1 << 26..]
        .iter()
        .map(|w| u64::from(w.count_ones()))
        .sum();
    assert_eq!(set_high, high.len() as u64);
    assert!(
        high.iter()
            .all(|&b| words[(b / 64) as usize] >> (b % 64) & 1 == 1)
    );

    // 10,000 items in 2^32 bits: the rate is about 10^-20.
    assert_eq!(probes(7, 10_000).filter(|p| f.contains(p)).count(), 0);
}

fn seeded(bits: u64, hashes: u32, seed: u64, keys: &[u64]) -> BloomFilter<u64> {
    seeded_in(Scheme::CURRENT, bits, hashes, seed, keys)
}

fn seeded_in(scheme: Scheme, bits: u64, hashes: u32, seed: u64, keys: &[u64]) -> BloomFilter<u64> {
    let mut f = BloomFilter::builder_with_bits(bits, hashes)
        .seed(seed)
        .build()
        .unwrap()
        .with_scheme(scheme);
    f.insert_all(keys).unwrap();
    f
}

/// [`seeded_in`] hashed with SipHash-1-3, as every filter was when the
/// pinned files were written (and every version-1 file is).
fn sip_in(scheme: Scheme, keys: &[u64]) -> BloomFilter<u64> {
    let mut f = BloomFilter::builder_with_bits(100, 3)
        .hasher(codec::sip_seeded(7))
        .build()
        .unwrap()
        .with_scheme(scheme);
    f.insert_all(keys).unwrap();
    f
}

#[test]
fn union_holds_both_sets_and_equals_inserting_both() {
    let (a_keys, b_keys) = (members(1, 3_000), members(2, 2_000));
    let mut a = seeded(50_000, 5, 9, &a_keys);
    let b = seeded(50_000, 5, 9, &b_keys);
    a.union(&b).unwrap();
    let both = seeded(50_000, 5, 9, &[a_keys.clone(), b_keys.clone()].concat());
    assert_eq!(a.as_words(), both.as_words());
    assert_eq!(a.len(), 5_000);
    assert!(a_keys.iter().chain(&b_keys).all(|k| a.contains(k)));
}

#[test]
fn intersect_keeps_common_items_and_only_common_bits() {
    let seeds = [(3, 1_000), (4, 2_000), (5, 500)];
    let (common, _, [a0, b]) = common::sharing(seeded, (40_000, 6, 9), seeds);
    let mut a = a0.clone();
    a.intersect(&b).unwrap();
    assert!(common.iter().all(|k| a.contains(k)));
    for ((x, y), z) in a.as_words().iter().zip(a0.as_words()).zip(b.as_words()) {
        assert_eq!(*x, y & z);
    }
    assert_eq!(a.len(), 1_500);
    // At most the bits of either, so at most either's rate on fresh probes.
    assert!(a.count_ones() <= a0.count_ones().min(b.count_ones()));
}

#[test]
fn merging_mismatched_filters_fails_and_changes_nothing() {
    let merges = [BloomFilter::union, BloomFilter::intersect];
    common::assert_mismatches_refused(seeded, merges, [(1_000, 1_000), (1_024, 1_024)], 8);
}

#[test]
fn count_estimate_is_within_its_sampling_spread() {
    let n = 100_000u64;
    let f = {
        let mut f = BloomFilter::builder(n as usize, 0.01)
            .seed(17)
            .build()
            .unwrap();
        f.insert_all(&members(18, n as usize)).unwrap();
        f
    };
    let (m, k) = (f.num_bits() as f64, f64::from(f.num_hashes()));
    let ones = f.count_ones() as f64;
    assert_eq!(f.estimate_count(), classic::estimate_count(m, k, ones));

    // Set bits after T = kn uniform throws into m cells: empty cells have mean
    // m·q1 and variance m(m−1)q2 + m·q1 − m²q1², with q_j = (1 − j/m)^T
    // (the occupancy distribution). The estimate is increasing in the set
    // bits, so the 99.9% normal interval of the set bits maps to one for it.
    let t = k * n as f64;
    let q1 = (1.0 - 1.0 / m).powf(t);
    let q2 = (1.0 - 2.0 / m).powf(t);
    let mean = m * (1.0 - q1);
    let sd = (m * (m - 1.0) * q2 + m * q1 - m * m * q1 * q1).sqrt();
    let z = 3.2905; // two-sided 99.9% of the normal distribution
    let lo = classic::estimate_count(m, k, mean - z * sd);
    let hi = classic::estimate_count(m, k, mean + z * sd);
    let est = f.estimate_count();
    assert!(lo < n as f64 && (n as f64) < hi, "{lo}..{hi}");
    assert!(
        (lo..=hi).contains(&est),
        "estimate {est}, allowed {lo:.0}..{hi:.0}"
    );
}

#[test]
fn guava_sizing_reproduces_theory() {
    // Guava sizes 1,000 items at 0.1% as 14,377 bits and 10 hashes.
    assert_eq!(classic::optimal_num_bits(1_000, 0.001), Ok(14_377));
    let keys = members(19, 1_000);
    let f = seeded(14_377, 10, 20, &keys);
    assert_eq!(f.num_bits(), 14_377);
    assert_eq!(f.memory_bytes(), 225 * 8);
    let theory = classic::fpr(14_377.0, 1_000.0, 10.0);
    assert_eq!(f.expected_fpr(), theory);
    assert!((theory - 0.001).abs() < 0.00005, "{theory}");

    // So small a table varies from one key set to the next more than a
    // million probes do, so the probes are checked against this table's own
    // rate, fill^k (exact for independent uniform positions), and the fill
    // against its occupancy distribution.
    let m = 14_377.0f64;
    let t = 10_000.0f64;
    let q1 = (1.0 - 1.0 / m).powf(t);
    let q2 = (1.0 - 2.0 / m).powf(t);
    let sd = (m * (m - 1.0) * q2 + m * q1 - m * m * q1 * q1).sqrt();
    let ones = f.count_ones() as f64;
    assert!(
        (ones - m * (1.0 - q1)).abs() <= 3.2905 * sd,
        "{ones} bits set"
    );
    let own = classic::fpr_from_fill(f.fill_ratio(), 10.0);
    let trials = 1_000_000;
    let hits = probes(21, trials).filter(|p| f.contains(p)).count() as u64;
    assert_in_interval(hits, trials as u64, own, "hits at this table's rate");
}

#[test]
fn stored_bytes_are_pinned() {
    // Of the default hash: its function in the version field's high byte.
    let f = seeded(100, 3, 7, &[1, 2, 3]);
    let bytes = f.to_bytes();
    assert_eq!(codec::stored_hash(&bytes), Some(HashFunction::AesCmac));
    assert_eq!(BloomFilter::from_bytes(&bytes).unwrap(), f);
    // Of SipHash-1-3: the bytes written before AES-CMAC, to the byte.
    let f = sip_in(Scheme::CURRENT, &[1, 2, 3]);
    let bytes = f.to_bytes();
    // Variant 0100: classic.
    let want = common::pinned_100_bits(2, "0100", "d4dd6be8");
    assert_eq!(hex(&bytes), want);
    assert_eq!(BloomFilter::from_bytes(&bytes).unwrap(), f);
}

#[test]
fn version_1_files_keep_their_positions() {
    // The same filter as written before format version 2, whose bits sit
    // where the modular positions put them.
    let old = unhex(&common::pinned_100_bits(1, "0100", "2617d570"));
    let f = BloomFilter::<u64>::from_bytes(&old).unwrap();
    assert_eq!(f.scheme(), Scheme::Modular);
    assert_eq!(f, sip_in(Scheme::Modular, &[1, 2, 3]));
    assert!([1, 2, 3].iter().all(|k| f.contains(k)));
    assert_eq!(f.to_bytes(), old, "written back as read");

    // It merges only with filters that place bits the same way.
    let mut new = sip_in(Scheme::CURRENT, &[4]);
    assert_eq!(
        new.union(&f),
        Err(MergeError::Scheme {
            ours: Scheme::FixedPoint,
            theirs: Scheme::Modular
        })
    );
    assert_eq!(
        new,
        sip_in(Scheme::CURRENT, &[4]),
        "a failed merge changed nothing"
    );
    let mut old_too = sip_in(Scheme::Modular, &[4]);
    old_too.union(&f).unwrap();
    assert!([1, 2, 3, 4].iter().all(|k| old_too.contains(k)));
}

#[test]
fn parameters_that_do_not_fit_the_payload_are_invalid() {
    use bloomlab_classic::{BLOCKED_TAG, CLASSIC_TAG};
    use bloomlab_core::codec::{Envelope, FORMAT_VERSION, Writer};
    let f = seeded(100, 3, 7, &[1, 2, 3]);
    let words: Vec<u8> = f.as_words().iter().flat_map(|w| w.to_le_bytes()).collect();
    let key = f.hasher().key();
    let envelope =
        |bits, hashes, payload: &[u8]| common::stored(CLASSIC_TAG, key, bits, hashes, 3, payload);
    assert_eq!(
        BloomFilter::from_bytes(&envelope(100, 3, &words)),
        Ok(f.clone())
    );
    for (bits, hashes, payload) in [
        (200, 3, &words[..]),      // more bits than the payload holds
        (64, 3, &words[..]),       // fewer
        (100, 3, &words[..8]),     // payload cut short
        (0, 3, &[][..]),           // no bits at all
        (100, 0, &words[..]),      // no hashes
        (100, 65, &words[..]),     // too many hashes
        (u64::MAX, 3, &words[..]), // a size no payload can hold
    ] {
        assert!(
            codec::refuses_parameters::<BloomFilter<u64>>(&envelope(bits, hashes, payload)),
            "{bits} bits, {hashes} hashes, {} bytes",
            payload.len()
        );
    }
    // A bit set past the 100th.
    let mut bad = words.clone();
    bad[15] |= 0x80;
    assert!(matches!(
        BloomFilter::<u64>::from_bytes(&envelope(100, 3, &bad)),
        Err(DecodeError::InvalidParameters { .. })
    ));
    // Longer parameters than the format has.
    let long = Envelope {
        version: FORMAT_VERSION,
        tag: CLASSIC_TAG,
        hash: bloomlab_core::hash::HashFunction::CURRENT,
        key,
        params: Writer::new().u64(100).u32(3).u64(3).u8(0).finish(),
        payload: words.clone(),
    };
    assert!(BloomFilter::<u64>::from_bytes(&long.encode()).is_err());
    // Another variant's envelope.
    let other = Envelope {
        tag: BLOCKED_TAG,
        ..long
    };
    assert!(matches!(
        BloomFilter::<u64>::from_bytes(&other.encode()),
        Err(DecodeError::WrongVariant { .. })
    ));
}

#[test]
fn trait_and_inherent_methods_agree() {
    let keys = members(22, 1_000);
    let start = BloomFilter::builder(1_000, 0.01).seed(3).build().unwrap();
    let methods = item_methods!(BloomFilter<u64>);
    let mut b = batch::assert_trait_methods_agree(&start, &methods, &keys, &[]);
    let h = DefaultHasher::from_seed(3);
    assert!(keys.iter().all(|k| b.contains_hash(h.hash_one(k))));
    b.clear();
    assert!(b.is_empty() && b.count_ones() == 0);
}

#[test]
fn a_foreign_hasher_changes_the_type_and_still_works() {
    use std::hash::BuildHasherDefault;
    let mut f: BloomFilter<str, BuildHasherDefault<std::collections::hash_map::DefaultHasher>> =
        BloomFilter::builder(1_000, 0.01)
            .hasher(BuildHasherDefault::default())
            .build()
            .unwrap();
    f.insert("x").unwrap();
    assert!(f.contains("x"));
    let g = f.clone();
    f.union(&g).unwrap();
}

#[test]
fn errors_display_and_chain() {
    let e = BloomFilter::<u64>::new(0, 0.01).unwrap_err();
    assert!(matches!(e, BuildError::Param(_)));
    assert!(!e.to_string().is_empty());
    assert!(std::error::Error::source(&e).is_some());
    assert!(MergeError::Hasher.to_string().contains("hash"));
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
        let _ = BloomFilter::<u64>::from_bytes(&bytes);
    }

    #[test]
    fn mutated_encodings_never_panic(i in 0usize..200, v in proptest::num::u8::ANY, cut in 0usize..200) {
        let f = seeded(300, 3, 7, &[1, 2, 3]);
        let mut bytes = f.to_bytes();
        let n = bytes.len();
        bytes[i % n] = v;
        bytes.truncate(n - cut % n);
        let _ = BloomFilter::<u64>::from_bytes(&bytes);
    }
}
