//! AtomicBloomFilter: conformance, concurrent inserts, conversions, and the
//! stored bytes.

mod common;

use bloomlab_classic::{ATOMIC_TAG, AtomicBloomFilter, BloomFilter, CLASSIC_TAG};
use bloomlab_core::codec::Envelope;
use bloomlab_core::hash::Scheme;
use bloomlab_core::{DecodeError, Filter, Membership};
use bloomlab_testkit::codec::{self, hex, unhex};
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::{batch, conformance, item_methods};

#[test]
fn conformance() {
    conformance::run(|n, p, seed| AtomicBloomFilter::builder(n, p).seed(seed).build());
}

#[test]
fn two_threads_lose_no_insert() {
    let f = AtomicBloomFilter::builder(1_000_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    let halves = [members(2, 500_000), members(3, 500_000)];
    std::thread::scope(|s| {
        for keys in &halves {
            let f = &f;
            s.spawn(move || {
                for k in keys {
                    f.insert(k).unwrap();
                }
            });
        }
    });
    assert_eq!(f.len(), 1_000_000);
    let missing = halves.iter().flatten().filter(|k| !f.contains(k)).count();
    assert_eq!(missing, 0);
    // Bit for bit what one thread inserting everything in order sets.
    let mut plain = BloomFilter::builder(1_000_000, 0.01)
        .seed(1)
        .build()
        .unwrap();
    for k in halves.iter().flatten() {
        plain.insert(k).unwrap();
    }
    assert_eq!(f.into_bloom(), plain);
}

#[test]
fn eight_threads_with_overlapping_keys_lose_nothing() {
    // Thread t inserts keys 100,000·t to 100,000·t + 200,000 of 900,000:
    // each window overlaps the next by half, so every key but the first
    // and last 100,000 is inserted by two threads at about the same time.
    let keys = members(10, 900_000);
    let f = AtomicBloomFilter::builder(900_000, 0.01)
        .seed(11)
        .build()
        .unwrap();
    let windows: Vec<&[u64]> = (0..8)
        .map(|t| &keys[t * 100_000..t * 100_000 + 200_000])
        .collect();
    std::thread::scope(|s| {
        for window in &windows {
            let f = &f;
            s.spawn(move || window.iter().for_each(|k| assert!(f.insert(k).is_ok())));
        }
    });
    assert_eq!(f.len(), 8 * 200_000);
    assert_eq!(keys.iter().filter(|k| !f.contains(k)).count(), 0);
    let mut plain = BloomFilter::builder(900_000, 0.01)
        .seed(11)
        .build()
        .unwrap();
    for k in windows.iter().copied().flatten() {
        plain.insert(k).unwrap();
    }
    assert_eq!(f.into_bloom(), plain);
}

#[test]
fn conversions_keep_every_answer() {
    let keys = members(4, 5_000);
    let mut plain = BloomFilter::builder(10_000, 0.01).seed(5).build().unwrap();
    plain.insert_all(&keys).unwrap();
    let atomic = AtomicBloomFilter::from(plain.clone());
    assert_eq!(atomic.len(), plain.len());
    assert_eq!(atomic.num_bits(), plain.num_bits());
    assert_eq!(atomic.num_hashes(), plain.num_hashes());
    assert_eq!(atomic.count_ones(), plain.count_ones());
    assert_eq!(atomic.expected_fpr(), plain.expected_fpr());
    assert_eq!(atomic.estimate_count(), plain.estimate_count());
    let disagree = probes(6, 200_000)
        .chain(keys.iter().copied())
        .filter(|p| atomic.contains(p) != plain.contains(p))
        .count();
    assert_eq!(disagree, 0);
    assert_eq!(atomic.to_bloom(), plain);
    let more = members(7, 100);
    for k in &more {
        assert_eq!(atomic.insert(k), plain.insert(k));
    }
    assert_eq!(atomic.clone().into_bloom(), plain);
    assert_eq!(atomic.into_bloom(), plain);
}

#[test]
fn trait_insert_delegates() {
    let start = AtomicBloomFilter::builder(1_000, 0.01).seed(8).build();
    let methods = item_methods!(AtomicBloomFilter<u64>);
    let keys = members(9, 500);
    let mut b = batch::assert_trait_methods_agree(&start.unwrap(), &methods, &keys, &[]);
    assert_eq!(Filter::len(&b), 500);
    Filter::clear(&mut b);
    assert!(b.is_empty() && b.count_ones() == 0);
}

#[test]
fn stored_bytes_are_pinned_and_match_the_classic_payload() {
    // Hashed with SipHash-1-3, as when the bytes were pinned (the function
    // is the version field's high byte, 0 here).
    let f = AtomicBloomFilter::builder_with_bits(100, 3)
        .hasher(codec::sip_seeded(7))
        .build()
        .unwrap();
    for k in [1u64, 2, 3] {
        f.insert(&k).unwrap();
    }
    let bytes = f.to_bytes();
    // Variant 0300: atomic.
    let want = common::pinned_100_bits(2, "0300", "ea87b87b");
    assert_eq!(hex(&bytes), want);
    // The same fields as the classic filter's encoding, under another tag.
    let plain = Envelope::decode(&f.to_bloom().to_bytes(), CLASSIC_TAG).unwrap();
    let atomic = Envelope::decode(&bytes, ATOMIC_TAG).unwrap();
    assert_eq!(
        (plain.params, plain.payload),
        (atomic.params, atomic.payload)
    );
    let g = AtomicBloomFilter::from_bytes(&bytes).unwrap();
    assert_eq!(g.to_bloom(), f.to_bloom());
    assert!(matches!(
        BloomFilter::<u64>::from_bytes(&bytes),
        Err(DecodeError::WrongVariant { .. })
    ));
}

#[test]
fn version_1_files_keep_their_positions() {
    // The filter of the test above as written before format version 2.
    let old = unhex(&common::pinned_100_bits(1, "0300", "184d06e3"));
    let f = AtomicBloomFilter::<u64>::from_bytes(&old).unwrap();
    assert_eq!(f.scheme(), Scheme::Modular);
    assert!([1u64, 2, 3].iter().all(|k| f.contains(k)));
    assert_eq!(f.to_bytes(), old, "written back as read");
    // Its plain copy keeps the positions too, and is the classic filter
    // that version 1 stored with the same fields.
    let classic = unhex(&common::pinned_100_bits(1, "0100", "2617d570"));
    assert_eq!(
        f.to_bloom(),
        BloomFilter::<u64>::from_bytes(&classic).unwrap()
    );
    assert_eq!(f.to_bloom().scheme(), Scheme::Modular);
}

#[test]
fn parameters_that_do_not_fit_the_payload_are_invalid() {
    let payload = [0u8; 16];
    for (bits, hashes, len) in [
        (200u64, 3u32, 16usize),
        (64, 3, 16),
        (0, 3, 0),
        (100, 0, 16),
        (100, 65, 16),
    ] {
        let bytes = common::stored(ATOMIC_TAG, [1, 2], bits, hashes, 0, &payload[..len]);
        assert!(
            codec::refuses_parameters::<AtomicBloomFilter<u64>>(&bytes),
            "{bits} bits, {hashes} hashes"
        );
    }
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
        let _ = AtomicBloomFilter::<u64>::from_bytes(&bytes);
    }
}
