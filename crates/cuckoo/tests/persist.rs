//! Persistence: round trips, pinned bytes, and every kind of bad input.

use bloomlab_core::codec::Writer;
use bloomlab_core::{DecodeError, Membership, Persist, Tag};
use bloomlab_cuckoo::{Builder, CuckooFilter, TAG};
use bloomlab_testkit::codec::{self, hex, unhex};
use bloomlab_testkit::keys::{members, probes};

/// A table of `buckets` buckets of 8-bit fingerprints, shaped further by
/// `shape`, with 20 relocations and seed 7 under SipHash-1-3 (as when the
/// bytes below were pinned), holding 1 to 5.
fn filled(buckets: u64, shape: impl FnOnce(Builder<u64>) -> Builder<u64>) -> CuckooFilter<u64> {
    let builder = CuckooFilter::builder_with_buckets(buckets, 8);
    let builder = shape(builder).max_relocations(20);
    let mut cf = builder.hasher(codec::sip_seeded(7)).build().unwrap();
    for k in 1..=5u64 {
        cf.insert(&k).unwrap();
    }
    cf
}

/// 4 buckets of 2 slots.
fn small() -> CuckooFilter<u64> {
    filled(4, |b| b.bucket_size(2))
}

/// The envelope's header of [`filled`]'s tables, as hex: how the pinned
/// bytes below start.
const HEADER: &str = concat!(
    "424c4d46",                         // magic
    "0200",                             // format version 2
    "0600",                             // variant: cuckoo
    "d29c963834099d362914eed032e4c7d6", // hash key from seed 7
    "19000000",                         // 25 parameter bytes
);

/// Value stability: the exact bytes of a small seeded filter. A change here
/// is a format change (or a change in hashing) and needs a new form of the
/// parameters, or a new format version.
#[test]
fn bytes_are_pinned() {
    // With the default hash, AES-128-CMAC, recorded in the high byte.
    let mut cf = CuckooFilter::builder_with_buckets(4, 8)
        .bucket_size(2)
        .seed(7)
        .build()
        .unwrap();
    cf.insert_all(&[1u64, 2, 3, 4, 5]).unwrap();
    let bytes = cf.to_bytes();
    assert_eq!(bytes[4..6], [2, 1]);
    assert!(CuckooFilter::<u64>::from_bytes(&bytes).unwrap() == cf);
    let bytes = small().to_bytes();
    let expected = [
        HEADER,
        "02",               //   2 slots per bucket
        "08",               //   8-bit fingerprints
        "80",               //   the any-count form
        "00",               //   plain layout
        "01",               //   alternate bucket (h(fp) − i) mod m
        "0400000000000000", //   4 buckets
        "14000000",         //   20 relocations
        "0500000000000000", //   5 items
        "0800000000000000", // 8 payload bytes
        "0000e70081e59f50", // 4 buckets × 2 slots × 8 bits, 3 empty slots
        "b1c240f1",         // CRC-32
    ]
    .concat();
    assert_eq!(hex(&bytes), expected);
    // Format version 1 stored a cuckoo filter the same way.
    let v1 = expected
        .replacen("0200", "0100", 1)
        .replace("b1c240f1", "da330fab");
    assert!(CuckooFilter::<u64>::from_bytes(&unhex(&v1)).unwrap() == small());
}

/// The same for a semi-sorted table: 3 buckets of 4 · 8 − 4 = 28 bits.
#[test]
fn semi_sorted_bytes_are_pinned() {
    let cf = filled(3, |b| b.semi_sorted(true));
    let expected = [
        HEADER,
        "04",               //   4 slots per bucket
        "08",               //   8-bit fingerprints
        "80",               //   the any-count form
        "01",               //   semi-sorted
        "01",               //   alternate bucket (h(fp) − i) mod m
        "0300000000000000", //   3 buckets
        "14000000",         //   20 relocations
        "0500000000000000", //   5 items
        "1000000000000000", // 16 payload bytes: 84 bits of buckets
        "00000000ba107512", //   bucket 0 empty, bucket 1 (index 0xba0,
        "02000f0000000000", //   suffixes 0, 1, 5, 7), bucket 2
        "1bfb2e5b",         // CRC-32
    ]
    .concat();
    assert_eq!(hex(&cf.to_bytes()), expected);
    // One bucket empty, one holding 2 fingerprints, one 3 (bucket 1: its
    // first slot, prefix 0 and suffix 0, is the empty one, sorted first).
    assert_eq!(cf.occupancy(), [1, 0, 1, 1, 0]);
    assert!(CuckooFilter::<u64>::from_bytes(&cf.to_bytes()).unwrap() == cf);
}

#[test]
fn round_trip_every_shape() {
    for (b, semi) in [(2, false), (4, false), (4, true), (8, false)] {
        for f in [4, 7, 12, 16, 20, 32] {
            for buckets in [64, 37] {
                let mut cf = CuckooFilter::builder_with_buckets(buckets, f)
                    .bucket_size(b)
                    .semi_sorted(semi)
                    .seed(u64::from(b * f))
                    .build()
                    .unwrap();
                let keys = members(u64::from(f), cf.capacity() as usize / 2);
                cf.insert_all(&keys).unwrap();
                let bytes = cf.to_bytes();
                let back = CuckooFilter::from_bytes(&bytes).unwrap();
                assert!(back == cf, "b {b} f {f} semi {semi} m {buckets}");
                assert_eq!(back.max_relocations(), cf.max_relocations());
                assert_eq!(back.is_semi_sorted(), semi);
                assert_eq!(<CuckooFilter<u64> as Persist>::to_bytes(&back), bytes);
                assert!(probes(3, 10_000).all(|p| back.contains(&p) == cf.contains(&p)));
            }
        }
    }
}

/// Builds an envelope with the given parameters (any-count form) and
/// payload, so the checksum is right and only the parameters are wrong.
#[allow(clippy::too_many_arguments)]
fn forged(
    b: u8,
    f: u8,
    layout: u8,
    alt: u8,
    buckets: u64,
    relocations: u32,
    len: u64,
    payload: Vec<u8>,
) -> Vec<u8> {
    let params = Writer::new()
        .u8(b)
        .u8(f)
        .u8(0x80)
        .u8(layout)
        .u8(alt)
        .u64(buckets)
        .u32(relocations)
        .u64(len)
        .finish();
    codec::sealed(TAG, [1, 2], params, payload)
}

/// The same in the first, power-of-two form.
fn forged_legacy(b: u8, f: u8, log2: u8, relocations: u32, len: u64, payload: Vec<u8>) -> Vec<u8> {
    let params = Writer::new()
        .u8(b)
        .u8(f)
        .u8(log2)
        .u32(relocations)
        .u64(len)
        .finish();
    codec::sealed(TAG, [1, 2], params, payload)
}

fn invalid(bytes: &[u8]) -> bool {
    codec::refuses_parameters::<CuckooFilter<u64>>(bytes)
}

#[test]
fn parameters_that_do_not_fit_are_rejected() {
    // A good one first: 4 buckets of 2 × 8 bits = one word.
    let good = |b, f, layout, alt, buckets, len, payload| {
        forged(b, f, layout, alt, buckets, 500, len, payload)
    };
    assert!(CuckooFilter::<u64>::from_bytes(&good(2, 8, 0, 1, 4, 0, vec![0; 8])).is_ok());
    assert!(CuckooFilter::<u64>::from_bytes(&good(2, 8, 0, 0, 4, 0, vec![0; 8])).is_ok());
    // 3 buckets of 2 × 8 bits: 48 bits, one word.
    assert!(CuckooFilter::<u64>::from_bytes(&good(2, 8, 0, 1, 3, 0, vec![0; 8])).is_ok());
    // 5 semi-sorted buckets of 4 · 9 − 4 = 32 bits: 160 bits, three words.
    assert!(CuckooFilter::<u64>::from_bytes(&good(4, 9, 1, 1, 5, 0, vec![0; 24])).is_ok());
    // (b, f, layout, map, buckets, len, payload bytes): one field off each.
    for (b, f, layout, alt, buckets, len, bytes, what) in [
        (3, 8, 0, 1, 4, 0, 8, "bucket size"),
        (2, 3, 0, 1, 4, 0, 8, "narrow fingerprint"),
        (2, 33, 0, 1, 4, 0, 40, "wide fingerprint"),
        (2, 8, 2, 1, 4, 0, 8, "unknown layout"),
        (2, 8, 1, 1, 4, 0, 8, "semi-sorted 2-slot buckets"),
        (2, 8, 0, 2, 4, 0, 8, "unknown map"),
        (2, 8, 0, 0, 3, 0, 8, "XOR over 3 buckets"),
        (2, 8, 0, 1, 0, 0, 0, "no buckets"),
        (2, 8, 0, 1, (1 << 32) + 1, 0, 8, "2^32 + 1 buckets"),
        (2, 8, 0, 1, u64::MAX, 0, 8, "2^64 − 1 buckets"),
        (2, 8, 0, 1, 4, 0, 16, "payload too long"),
        (2, 8, 0, 1, 4, 0, 7, "payload too short"),
        (2, 8, 0, 1, 4, 1, 8, "count without items"),
    ] {
        let bytes = good(b, f, layout, alt, buckets, len, vec![0; bytes]);
        assert!(invalid(&bytes), "{what}");
    }
    assert!(
        invalid(&forged(2, 8, 0, 1, 4, u32::MAX, 0, vec![0; 8])),
        "relocations"
    );
    let mut one = vec![0; 8];
    one[0] = 9;
    assert!(CuckooFilter::<u64>::from_bytes(&good(2, 8, 0, 1, 4, 1, one.clone())).is_ok());
    assert!(
        invalid(&good(2, 8, 0, 1, 4, 2, one)),
        "count above the table"
    );
    // 2 buckets of 2 × 4 bits use 16 of the word's 64 bits: the rest must be 0.
    let mut tail = vec![0; 8];
    tail[7] = 0x80;
    assert!(
        invalid(&good(2, 4, 0, 1, 2, 1, tail)),
        "bits past the table"
    );
    // A semi-sorted bucket must be in its one sorted form: index 3,876 is
    // past the last, and suffixes 7 then 3 under equal prefixes are unsorted.
    let mut past = vec![0; 8];
    past[..2].copy_from_slice(&3_876u16.to_le_bytes());
    assert!(invalid(&good(4, 8, 1, 1, 2, 0, past)), "index past 3,875");
    let unsorted = (7u64 << 20) | (3u64 << 24); // prefixes 0,0,0,0; suffixes 0,0,7,3
    assert!(
        invalid(&good(4, 8, 1, 1, 2, 2, unsorted.to_le_bytes().to_vec())),
        "unsorted suffixes"
    );
    let sorted = (3u64 << 20) | (7u64 << 24);
    assert!(
        CuckooFilter::<u64>::from_bytes(&good(4, 8, 1, 1, 2, 2, sorted.to_le_bytes().to_vec()))
            .is_ok()
    );
    // Extra parameter bytes.
    let mut params = Writer::new()
        .u8(2)
        .u8(8)
        .u8(0x80)
        .u8(0)
        .u8(1)
        .u64(4)
        .u32(500)
        .u64(0)
        .finish();
    params.push(0);
    assert!(invalid(&codec::sealed(TAG, [1, 2], params, vec![0; 8])));
}

#[test]
fn first_form_parameters_that_do_not_fit_are_rejected() {
    let good = forged_legacy(2, 8, 2, 500, 0, vec![0; 8]);
    assert!(CuckooFilter::<u64>::from_bytes(&good).is_ok());
    // (b, f, log2 buckets, relocations, len, payload bytes): one field off
    // each. The first form never held more than 16 bits.
    for (b, f, log2, relocations, len, bytes, what) in [
        (3, 8, 2, 500, 0, 8, "bucket size"),
        (2, 3, 2, 500, 0, 8, "narrow fingerprint"),
        (2, 17, 2, 500, 0, 24, "wide fingerprint"),
        (2, 8, 33, 500, 0, 8, "2^33 buckets"),
        (2, 8, 200, 500, 0, 8, "2^200 buckets"),
        (2, 8, 2, u32::MAX, 0, 8, "relocations"),
        (2, 8, 2, 500, 0, 16, "payload too long"),
        (2, 8, 2, 500, 1, 8, "count without items"),
    ] {
        let bytes = forged_legacy(b, f, log2, relocations, len, vec![0; bytes]);
        assert!(invalid(&bytes), "{what}");
    }
}

#[test]
fn envelope_faults_are_typed() {
    let bytes = small().to_bytes();
    assert_eq!(
        CuckooFilter::<u64>::from_bytes(b"BLMX"),
        Err(DecodeError::BadMagic)
    );
    let bloom = Tag::new(1, "BloomFilter");
    assert!(codec::refuses_variant::<CuckooFilter<u64>>(bloom));
    let mut flipped = bytes.clone();
    let last_payload = bytes.len() - 5;
    flipped[last_payload] ^= 1;
    assert!(matches!(
        CuckooFilter::<u64>::from_bytes(&flipped),
        Err(DecodeError::ChecksumMismatch { .. })
    ));
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
        let _ = CuckooFilter::<u64>::from_bytes(&bytes);
    }
}
