//! `to_bloom` hands out a classic filter that answers exactly alike (for an
//! overloaded filter too: `deletion.rs`, after the peer's failure case).

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use bloomlab_core::codec::{Envelope, Writer};
use bloomlab_core::hash::Scheme;
use bloomlab_core::{DefaultHasher, Filter, Membership};
use bloomlab_counting::{CountingBloomFilter, TAG};
use bloomlab_testkit::keys::{members, probes};

#[test]
fn answers_identically_at_every_width() {
    for width in [4, 8, 16] {
        // 1,001 counters: not a multiple of 64, so the last bit word is partial.
        let mut f = CountingBloomFilter::builder_with_counters(1_001, 5)
            .counter_width(width)
            .seed(u64::from(width))
            .build()
            .unwrap();
        let keys = members(40, 300);
        f.insert_all(&keys).unwrap();
        for k in &keys[..100] {
            f.remove(k).unwrap();
        }
        let bloom = f.to_bloom();
        assert_eq!(
            (bloom.num_bits(), bloom.num_hashes(), bloom.len()),
            (1_001, 5, 200)
        );
        let nonzero = (0..1_001).filter(|&i| f.counter(i) != Some(0)).count() as u64;
        assert_eq!(bloom.count_ones(), nonzero);
        for i in 0..1_001u64 {
            let bit = bloom.as_words()[(i / 64) as usize] >> (i % 64) & 1 == 1;
            assert_eq!(bit, f.counter(i) != Some(0), "counter {i}, width {width}");
        }
        assert!(keys[100..].iter().all(|k| bloom.contains(k)));
        let disagree = keys
            .iter()
            .copied()
            .chain(probes(41, 100_000))
            .filter(|p| bloom.contains(p) != f.contains(p))
            .count();
        assert_eq!(disagree, 0, "width {width}");
        assert_eq!(Filter::expected_fpr(&bloom), f.expected_fpr());
    }
}

#[test]
fn keeps_a_custom_hasher() {
    let mut f = CountingBloomFilter::builder(1_000, 0.01)
        .hasher(RandomState::new())
        .build()
        .unwrap();
    f.insert_all(&members(7, 1_000)).unwrap();
    let bloom = f.to_bloom();
    let disagree = probes(8, 100_000)
        .filter(|p| bloom.contains(p) != f.contains(p))
        .count();
    assert_eq!(disagree, 0);
    assert!(members(7, 1_000).iter().all(|k| bloom.contains(k)));
}

#[test]
fn empty_filter_gives_an_empty_bloom() {
    let f: CountingBloomFilter<u64> = CountingBloomFilter::builder(100, 0.01)
        .seed(1)
        .build()
        .unwrap();
    let bloom = f.to_bloom();
    assert_eq!(bloom.count_ones(), 0);
    assert!(bloom.is_empty());
    assert_eq!(bloom.num_bits(), f.num_counters());
}

#[test]
fn keeps_the_positions_of_a_version_one_file() {
    // A filter written in format version 1, hashed with SipHash-1-3 as every
    // filter then was: its counters are read as placed by the modular
    // positions.
    let hasher = DefaultHasher::from_seed_with(bloomlab_core::hash::HashFunction::SipHash13, 5);
    let keys = members(50, 150);
    let mut counters = vec![0u64; 1_001];
    for k in &keys {
        for p in Scheme::Modular.positions(hasher.hash_one(k), 1_001).take(5) {
            counters[p as usize] += 1;
        }
    }
    let mut words = vec![0u64; 1_001usize.div_ceil(16)];
    for (i, &c) in counters.iter().enumerate() {
        words[i / 16] |= c.min(15) << (i % 16 * 4);
    }
    let params = Writer::new().u8(4).u64(1_001).u32(5).u64(150).finish();
    let mut env = Envelope::of_words(TAG, &hasher, params, words);
    env.version = 1;
    let f: CountingBloomFilter<u64> = CountingBloomFilter::from_bytes(&env.encode()).unwrap();
    assert_eq!(f.scheme(), Scheme::Modular);
    assert!(keys.iter().all(|k| f.contains(k)));
    let bloom = f.to_bloom();
    assert_eq!(bloom.scheme(), Scheme::Modular);
    assert!(keys.iter().all(|k| bloom.contains(k)));
    let disagree = probes(51, 100_000)
        .filter(|p| bloom.contains(p) != f.contains(p))
        .count();
    assert_eq!(disagree, 0);
}
