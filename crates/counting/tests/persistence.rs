//! The envelope format: pinned bytes, round trips, and typed errors for
//! parameters that do not fit.

mod common;

use bloomlab_core::codec::Writer;
use bloomlab_core::{DecodeError, DefaultHasher, Persist};
use bloomlab_counting::{CountingBloomFilter, TAG};
use bloomlab_testkit::codec;
use proptest::prelude::*;

fn small() -> CountingBloomFilter<u64> {
    let mut f = common::seeded(20, 3, 7);
    for i in 1..=5u64 {
        f.insert(&i).unwrap();
    }
    f.insert(&3u64).unwrap();
    f
}

#[test]
fn value_stability() {
    let bytes = small().to_bytes();
    assert_eq!(
        codec::hex(&bytes),
        PINNED,
        "the encoding of a seeded filter changed"
    );
}

/// magic, version 1, tag 4 (counting), the key of seed 7, 21 bytes of
/// parameters (width 4, 20 counters, 3 hashes, len 6), 16 bytes of payload
/// (two words; the counters sum to 18 = 6 inserts × 3), CRC-32.
const PINNED: &str = concat!(
    "424c4d46",
    "0100",
    "0400",
    "d29c963834099d362914eed032e4c7d6",
    "15000000",
    "04",
    "1400000000000000",
    "03000000",
    "0600000000000000",
    "1000000000000000",
    "1010000300213020",
    "0212000000000000",
    "b234a729",
);

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
