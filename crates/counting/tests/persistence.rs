//! The envelope format: pinned bytes, round trips, and typed errors for
//! parameters that do not fit.

mod common;

use std::hash::BuildHasher;

use bloomlab_core::codec::{FORMAT_VERSION, Writer};
use bloomlab_core::hash::{HashFunction, Scheme};
use bloomlab_core::{DecodeError, DefaultHasher, Persist};
use bloomlab_counting::{CountingBloomFilter, MergeError, TAG};
use bloomlab_testkit::codec;
use proptest::prelude::*;

/// The pinned filter: hashed with SipHash-1-3, as when its bytes were
/// pinned (the function is the version field's high byte, 0 here).
fn small() -> CountingBloomFilter<u64> {
    let mut f = CountingBloomFilter::builder_with_counters(20, 3)
        .hasher(codec::sip_seeded(7))
        .build()
        .unwrap();
    for i in 1..=5u64 {
        f.insert(&i).unwrap();
    }
    f.insert(&3u64).unwrap();
    f
}

#[test]
fn value_stability() {
    let f = small();
    assert_eq!(f.scheme(), Scheme::CURRENT);
    let bytes = f.to_bytes();
    assert_eq!(
        codec::hex(&bytes),
        pinned(2),
        "the encoding of a seeded filter changed"
    );
    assert_eq!(bytes[4..6], FORMAT_VERSION.to_le_bytes());
    assert_eq!(FORMAT_VERSION, 2);
    // The same filter of the default hash: AES-128-CMAC in the high byte.
    let mut f = common::seeded::<u64>(20, 3, 7);
    for item in ITEMS {
        f.insert(&item).unwrap();
    }
    let bytes = f.to_bytes();
    assert_eq!(bytes[4..6], [2, HashFunction::AesCmac.id()]);
    assert_eq!(CountingBloomFilter::from_bytes(&bytes).unwrap(), f);
}

/// The filter as written in format `version`: magic, version, tag 4
/// (counting), the key of seed 7, 21 bytes of parameters (width 4, 20
/// counters, 3 hashes, len 6), 16 bytes of payload (two words; the counters
/// sum to 18 = 6 inserts × 3), CRC-32. In version 2 the counters are those
/// of [`Scheme::FixedPoint`] positions; in version 1, written before it,
/// those of [`Scheme::Modular`]. Files of version 1 must keep reading, and
/// be written back as they were.
fn pinned(version: u16) -> String {
    let (version, words, crc) = match version {
        1 => ("0100", ["1010000300213020", "0212000000000000"], "b234a729"),
        _ => ("0200", ["1000002101210250", "0120000000000000"], "a1b9eaac"),
    };
    [
        "424c4d46",
        version,
        "0400",
        "d29c963834099d362914eed032e4c7d6",
        "15000000",
        "04",
        "1400000000000000",
        "03000000",
        "0600000000000000",
        "1000000000000000",
        words[0],
        words[1],
        crc,
    ]
    .concat()
}

/// The counters `items` set at `scheme`'s positions in a filter of 20
/// counters, 3 hashes, seed 7.
fn counters_of(scheme: Scheme, items: &[u64]) -> Vec<u32> {
    let hasher = codec::sip_seeded(7);
    let mut counters = vec![0; 20];
    for item in items {
        for p in scheme.positions(hasher.hash_one(item), 20).take(3) {
            counters[p as usize] += 1;
        }
    }
    counters
}

const ITEMS: [u64; 6] = [1, 2, 3, 4, 5, 3];

#[test]
fn version_one_files_keep_their_positions() {
    let bytes = codec::unhex(&pinned(1));
    let old = CountingBloomFilter::<u64>::from_bytes(&bytes).unwrap();
    assert_eq!(old.scheme(), Scheme::Modular);
    assert_eq!(
        (
            old.num_counters(),
            old.num_hashes(),
            old.counter_width(),
            old.len()
        ),
        (20, 3, 4, 6)
    );
    let counters: Vec<u32> = (0..20).map(|i| old.counter(i).unwrap()).collect();
    assert_eq!(counters, counters_of(Scheme::Modular, &ITEMS));
    for i in 1..=5u64 {
        assert!(old.contains(&i), "item {i}");
    }
    assert_eq!(old.count(&3u64), 2);
    // The answers of a version-1 filter are those of its modular positions.
    for probe in 0..1_000u64 {
        let hash = old.hasher().hash_one(probe);
        let want = Scheme::Modular
            .positions(hash, 20)
            .take(3)
            .all(|p| counters[p as usize] != 0);
        assert_eq!(old.contains(&probe), want, "probe {probe}");
    }
    // Written back in version 1, byte for byte, after a change undone too.
    assert_eq!(old.to_bytes(), bytes);
    let mut changed = old.clone();
    changed.insert(&99u64).unwrap();
    changed.remove(&99u64).unwrap();
    assert_eq!(changed.scheme(), Scheme::Modular);
    assert_eq!(changed.to_bytes(), bytes);
    assert_eq!(<CountingBloomFilter<u64> as Persist>::to_bytes(&old), bytes);
}

#[test]
fn new_filters_use_the_current_positions() {
    let new = small();
    let counters: Vec<u32> = (0..20).map(|i| new.counter(i).unwrap()).collect();
    assert_eq!(counters, counters_of(Scheme::CURRENT, &ITEMS));
    let g = CountingBloomFilter::<u64>::from_bytes(&new.to_bytes()).unwrap();
    assert_eq!(g.scheme(), Scheme::CURRENT);
    assert!(g == new);
}

#[test]
fn filters_of_different_schemes_do_not_merge() {
    let mut old = CountingBloomFilter::<u64>::from_bytes(&codec::unhex(&pinned(1))).unwrap();
    let mut new = small();
    let (old_bytes, new_bytes) = (old.to_bytes(), new.to_bytes());
    let mismatch = MergeError::Scheme {
        ours: Scheme::Modular,
        theirs: Scheme::FixedPoint,
    };
    assert_eq!(old.union(&new), Err(mismatch));
    assert_eq!(&old | &new, Err(mismatch));
    assert_eq!(
        new.union(&old),
        Err(MergeError::Scheme {
            ours: Scheme::FixedPoint,
            theirs: Scheme::Modular,
        })
    );
    assert!(!mismatch.to_string().is_empty());
    assert_eq!(old.to_bytes(), old_bytes, "a refused merge changes nothing");
    assert_eq!(new.to_bytes(), new_bytes, "a refused merge changes nothing");
    assert!(old != new);
    // The empty companion of a version-1 filter keeps its scheme, and merges.
    let mut companion = CountingBloomFilter::compatible_with(&old).unwrap();
    assert_eq!(companion.scheme(), Scheme::Modular);
    companion.insert(&9u64).unwrap();
    old.union(&companion).unwrap();
    assert!(old.contains(&9u64) && old.contains(&1u64));
    assert_eq!(old.len(), 7);
}

#[test]
fn round_trip_every_width() {
    for width in [4, 8, 16] {
        let mut f = CountingBloomFilter::builder_with_counters(1_001, 5)
            .counter_width(width)
            .seed(3)
            .build()
            .unwrap();
        for i in 0..300u64 {
            f.insert(&i).unwrap();
        }
        // Saturate one counter so the decoder must recount it.
        for _ in 0..70_000 {
            f.insert(&0u64).unwrap();
        }
        let g = CountingBloomFilter::from_bytes(&f.to_bytes()).unwrap();
        assert_eq!(g.as_words(), f.as_words());
        assert_eq!(
            (g.num_counters(), g.num_hashes(), g.counter_width(), g.len()),
            (1_001, 5, width, f.len())
        );
        assert_eq!(g.saturated_counters(), f.saturated_counters());
        assert!(g.saturated_counters() >= 1);
        assert_eq!(g.hasher().key(), DefaultHasher::from_seed(3).key());
        assert_eq!(
            <CountingBloomFilter<u64> as Persist>::to_bytes(&g),
            f.to_bytes()
        );
    }
}

fn envelope(width: u8, counters: u64, hashes: u32, len: u64, words: &[u64]) -> Vec<u8> {
    forged(
        Writer::new().u8(width).u64(counters).u32(hashes).u64(len),
        words,
    )
}

/// A file of the parameters `params` and the payload `words`, sealed.
fn forged(params: &mut Writer, words: &[u64]) -> Vec<u8> {
    let payload = Writer::new().words(words).finish();
    codec::sealed(TAG, [1, 2], params.finish(), payload)
}

fn invalid(bytes: &[u8]) -> bool {
    codec::refuses_parameters::<CountingBloomFilter<u64>>(bytes)
}

#[test]
fn well_formed_envelope_decodes() {
    let f: CountingBloomFilter<u64> =
        CountingBloomFilter::from_bytes(&envelope(4, 20, 3, 1, &[0x111, 0])).unwrap();
    assert_eq!(f.counter(0), Some(1));
    assert_eq!(f.counter(20), None);
}

#[test]
fn unsupported_width_in_the_bytes() {
    for width in [0, 3, 5, 32, 255] {
        assert!(
            invalid(&envelope(width, 16, 3, 0, &[0; 2])),
            "width {width}"
        );
    }
}

#[test]
fn zero_counters_in_the_bytes() {
    assert!(invalid(&envelope(4, 0, 3, 0, &[])));
}

#[test]
fn bad_hash_counts_in_the_bytes() {
    assert!(invalid(&envelope(4, 16, 0, 0, &[0])));
    assert!(invalid(&envelope(4, 16, 65, 0, &[0])));
}

#[test]
fn payload_of_the_wrong_size() {
    assert!(invalid(&envelope(4, 16, 3, 0, &[0, 0])));
    assert!(invalid(&envelope(4, 17, 3, 0, &[0])));
    assert!(invalid(&envelope(8, 16, 3, 0, &[0])));
    // Counters whose words would not fit any address space.
    assert!(invalid(&envelope(16, u64::MAX, 3, 0, &[0])));
}

#[test]
fn bits_past_the_last_counter() {
    assert!(invalid(&envelope(4, 17, 3, 0, &[0, 0x10])));
    assert!(invalid(&envelope(16, 1, 3, 0, &[1 << 16])));
    assert!(!invalid(&envelope(16, 1, 3, 0, &[0xffff])));
}

#[test]
fn trailing_parameter_bytes() {
    let bytes = forged(Writer::new().u8(4).u64(16).u32(3).u64(0).u8(0), &[0]);
    assert!(invalid(&bytes));
}

#[test]
fn short_parameters() {
    let bytes = forged(Writer::new().u8(4).u64(16), &[0]);
    assert_eq!(
        CountingBloomFilter::<u64>::from_bytes(&bytes).unwrap_err(),
        DecodeError::Truncated
    );
}

#[test]
fn another_variant() {
    let mut bytes = envelope(4, 16, 3, 0, &[0]);
    bytes[6] = 1; // the classic tag; fix the checksum so only the tag is wrong
    let n = bytes.len();
    let crc = crc32(&bytes[..n - 4]);
    bytes[n - 4..].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(
        CountingBloomFilter::<u64>::from_bytes(&bytes).unwrap_err(),
        DecodeError::WrongVariant {
            expected: TAG,
            found: 1
        }
    );
}

/// CRC-32 (IEEE), bit by bit: enough for a test.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xedb8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = CountingBloomFilter::<u64>::from_bytes(&bytes);
    }

    #[test]
    fn arbitrary_parameters_never_panic(width in any::<u8>(), counters in any::<u64>(),
                                        hashes in any::<u32>(), len in any::<u64>(),
                                        words in prop::collection::vec(any::<u64>(), 0..8)) {
        if let Ok(f) = CountingBloomFilter::<u64>::from_bytes(&envelope(width, counters, hashes, len, &words)) {
            prop_assert_eq!(f.as_words(), &words[..]);
            prop_assert!(f.saturated_counters() <= f.num_counters());
        }
    }
}
