//! Persistence: round trips, pinned bytes, and every kind of bad input.

use bloomlab_core::codec::{Envelope, Variant, Writer};
use bloomlab_core::{DecodeError, Membership, Persist};
use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::keys::{members, probes};

fn small() -> CuckooFilter<u64> {
    let mut cf = CuckooFilter::builder_with_buckets(4, 8)
        .bucket_size(2)
        .max_relocations(20)
        .seed(7)
        .build()
        .unwrap();
    for k in 1..=5u64 {
        cf.insert(&k).unwrap();
    }
    cf
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Value stability: the exact bytes of a small seeded filter. A change here
/// is a format change (or a change in hashing) and needs a new format version.
#[test]
fn bytes_are_pinned() {
    let bytes = small().to_bytes();
    let expected = [
        "424c4d46",                         // magic
        "0100",                             // format version 1
        "0600",                             // variant: cuckoo
        "d29c963834099d362914eed032e4c7d6", // hash key from seed 7
        "0f000000",                         // 15 parameter bytes:
        "02",                               //   2 slots per bucket
        "08",                               //   8-bit fingerprints
        "02",                               //   2^2 buckets
        "14000000",                         //   20 relocations
        "0500000000000000",                 //   5 items
        "0800000000000000",                 // 8 payload bytes
        "0000e70081e59f50",                 // 4 buckets × 2 slots × 8 bits, 3 empty slots
        "e10bbb2c",                         // CRC-32
    ]
    .concat();
    assert_eq!(hex(&bytes), expected);
}

#[test]
fn round_trip_every_shape() {
    for b in [2, 4, 8] {
        for f in [4, 7, 12, 16] {
            let mut cf = CuckooFilter::builder_with_buckets(1 << 6, f)
                .bucket_size(b)
                .seed(u64::from(b * f))
                .build()
                .unwrap();
            let keys = members(u64::from(f), cf.capacity() as usize / 2);
            cf.insert_all(&keys).unwrap();
            let bytes = cf.to_bytes();
            let back = CuckooFilter::from_bytes(&bytes).unwrap();
            assert!(back == cf, "b {b} f {f}");
            assert_eq!(back.max_relocations(), cf.max_relocations());
            assert_eq!(<CuckooFilter<u64> as Persist>::to_bytes(&back), bytes);
            assert!(probes(3, 10_000).all(|p| back.contains(&p) == cf.contains(&p)));
        }
    }
}

/// Builds an envelope with the given parameter fields and payload, so the
/// checksum is right and only the parameters are wrong.
fn forged(b: u8, f: u8, log2: u8, relocations: u32, len: u64, payload: Vec<u8>) -> Vec<u8> {
    Envelope {
        variant: Variant::Cuckoo,
        key: [1, 2],
        params: Writer::new()
            .u8(b)
            .u8(f)
            .u8(log2)
            .u32(relocations)
            .u64(len)
            .finish(),
        payload,
    }
    .encode()
}

fn invalid(bytes: &[u8]) -> bool {
    matches!(
        CuckooFilter::<u64>::from_bytes(bytes),
        Err(DecodeError::InvalidParameters { .. })
    )
}

#[test]
fn parameters_that_do_not_fit_are_rejected() {
    // A good one first: 4 buckets of 2 × 8 bits = one word.
    let good = forged(2, 8, 2, 500, 0, vec![0; 8]);
    assert!(CuckooFilter::<u64>::from_bytes(&good).is_ok());
    assert!(invalid(&forged(3, 8, 2, 500, 0, vec![0; 8])), "bucket size");
    assert!(
        invalid(&forged(2, 3, 2, 500, 0, vec![0; 8])),
        "narrow fingerprint"
    );
    assert!(
        invalid(&forged(2, 17, 2, 500, 0, vec![0; 8])),
        "wide fingerprint"
    );
    assert!(
        invalid(&forged(2, 8, 33, 500, 0, vec![0; 8])),
        "2^33 buckets"
    );
    assert!(
        invalid(&forged(2, 8, 200, 500, 0, vec![0; 8])),
        "2^200 buckets"
    );
    assert!(
        invalid(&forged(2, 8, 2, u32::MAX, 0, vec![0; 8])),
        "relocations"
    );
    assert!(
        invalid(&forged(2, 8, 2, 500, 0, vec![0; 16])),
        "payload too long"
    );
    assert!(
        invalid(&forged(2, 8, 2, 500, 0, vec![0; 7])),
        "payload too short"
    );
    assert!(
        invalid(&forged(2, 8, 2, 500, 1, vec![0; 8])),
        "count without items"
    );
    let mut one = vec![0; 8];
    one[0] = 9;
    assert!(CuckooFilter::<u64>::from_bytes(&forged(2, 8, 2, 500, 1, one.clone())).is_ok());
    assert!(
        invalid(&forged(2, 8, 2, 500, 2, one)),
        "count above the table"
    );
    // 2 buckets of 2 × 4 bits use 16 of the word's 64 bits: the rest must be 0.
    let mut tail = vec![0; 8];
    tail[7] = 0x80;
    assert!(
        invalid(&forged(2, 4, 1, 500, 1, tail)),
        "bits past the table"
    );
    // Extra parameter bytes.
    let mut params = Writer::new().u8(2).u8(8).u8(2).u32(500).u64(0).finish();
    params.push(0);
    let long = Envelope {
        variant: Variant::Cuckoo,
        key: [1, 2],
        params,
        payload: vec![0; 8],
    };
    assert!(invalid(&long.encode()));
}

#[test]
fn envelope_faults_are_typed() {
    let bytes = small().to_bytes();
    assert_eq!(
        CuckooFilter::<u64>::from_bytes(b"BLMX"),
        Err(DecodeError::BadMagic)
    );
    let other = Envelope {
        variant: Variant::Classic,
        key: [0, 0],
        params: vec![],
        payload: vec![],
    };
    assert!(matches!(
        CuckooFilter::<u64>::from_bytes(&other.encode()),
        Err(DecodeError::WrongVariant { .. })
    ));
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
