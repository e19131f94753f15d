//! The stored form: round trips, pinned bytes, and every kind of bad input
//! refused with a typed error (or, for a change that leaves a valid
//! filter, read as that filter).

use bloomlab_quotient::{DecodeError, QuotientFilter, TAG};
use bloomlab_testkit::codec::{read_pinned, refuses_variant, sealed};
use bloomlab_testkit::keys::members;
use proptest::prelude::*;

fn small() -> QuotientFilter<u64> {
    let mut f = QuotientFilter::<u64>::builder_with_bits(6, 5)
        .seed(7)
        .build()
        .unwrap();
    for k in [1, 2, 3, 3] {
        f.insert(&k).unwrap();
    }
    f
}

#[test]
fn value_stability() {
    let back = read_pinned(&small(), PINNED);
    assert!([1, 2, 3].iter().all(|k| back.contains(k)));
    assert_eq!(back.count(&3), 2);
    assert!(back == small());
}

/// Envelope (magic, version 2 with AES-CMAC, tag 9, key), parameters (q 6,
/// 5-bit slots of fixed remainders, no growth, 4 items), 2 blocks of 7
/// words and their offsets, checksum.
const PINNED: &str = concat!(
    "424c4d4602010900d29c963834099d362914eed032e4c7d6",
    "1e000000",
    "060500050000000000000000000000000000000000000400000000000000",
    "ab00000000000000",
    "000080000020000200008000002000040000000000000000000000000000a000000000000000000000000000120000000000008073000000",
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    "000000",
    "f3468f90",
);

/// Filters of every kind the format holds: empty, fixed, crowded, grown.
fn filters() -> Vec<QuotientFilter<u64>> {
    let mut out = vec![small()];
    out.push(
        QuotientFilter::builder_with_bits(3, 64 - 3)
            .seed(1)
            .build()
            .unwrap(),
    );
    let mut crowded = QuotientFilter::builder_with_bits(8, 3)
        .seed(2)
        .build()
        .unwrap();
    for k in members(3, 243) {
        crowded.insert(&k).unwrap();
    }
    out.push(crowded);
    let mut grown = QuotientFilter::builder(50, 0.1)
        .growth(true)
        .seed(4)
        .build()
        .unwrap();
    for k in members(5, 5_000) {
        grown.insert(&k).unwrap();
    }
    assert!(grown.expansions() >= 6);
    // Enough expansions that some remainders ran out.
    assert!(grown.remainder_lengths()[0] > 0);
    out.push(grown);
    out
}

#[test]
fn round_trips() {
    for f in filters() {
        let bytes = f.to_bytes();
        let back = QuotientFilter::<u64>::from_bytes(&bytes).unwrap();
        assert!(back == f);
        assert_eq!(back.remainder_lengths(), f.remainder_lengths());
        assert_eq!(back.expected_fpr(), f.expected_fpr());
        assert_eq!(back.to_bytes(), bytes);
    }
}

#[test]
fn every_truncation_is_refused() {
    for f in filters().into_iter().take(3) {
        let bytes = f.to_bytes();
        for cut in 0..bytes.len() {
            assert!(
                QuotientFilter::<u64>::from_bytes(&bytes[..cut]).is_err(),
                "{cut}"
            );
        }
    }
}

/// Flips every bit of the parameters and the payload with the checksum
/// recomputed: each is refused, or reads as a filter that passes every
/// check (and answers as its bytes say, without panicking).
#[test]
fn every_resealed_bit_flip_is_refused_or_harmless() {
    for f in filters().into_iter().take(3) {
        let bytes = f.to_bytes();
        let env = bloomlab_core::codec::Envelope::decode(&bytes, TAG).unwrap();
        let mut accepted = 0;
        for part in 0..2 {
            let len = if part == 0 {
                env.params.len()
            } else {
                env.payload.len()
            };
            for bit in 0..len * 8 {
                let (mut params, mut payload) = (env.params.clone(), env.payload.clone());
                let target = if part == 0 { &mut params } else { &mut payload };
                target[bit / 8] ^= 1 << (bit % 8);
                let forged = sealed(TAG, env.key, params, payload);
                if let Ok(mut g) = QuotientFilter::<u64>::from_bytes(&forged) {
                    accepted += 1;
                    for k in 0..100u64 {
                        let _ = g.contains(&k);
                        let _ = g.insert(&k);
                        let _ = g.remove(&k);
                    }
                    let _ = g.expected_fpr();
                }
            }
        }
        // A flipped bit of a slot's value is a valid filter of other items
        // only where the run stays sorted: never most of them.
        assert!(accepted < env.payload.len() * 8, "{accepted}");
    }
}

#[test]
fn unflipped_checksum_and_other_faults_are_typed() {
    let bytes = small().to_bytes();
    let mut bad = bytes.clone();
    let i = bad.len() / 2;
    bad[i] ^= 1;
    assert!(matches!(
        QuotientFilter::<u64>::from_bytes(&bad),
        Err(DecodeError::ChecksumMismatch { .. })
    ));
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert_eq!(
        QuotientFilter::<u64>::from_bytes(&magic).unwrap_err(),
        DecodeError::BadMagic
    );
    let cuckoo = bloomlab_core::Tag::new(6, "CuckooFilter");
    assert!(refuses_variant::<QuotientFilter<u64>>(cuckoo));
    let mut long = bytes.clone();
    long.push(0);
    assert!(QuotientFilter::<u64>::from_bytes(&long).is_err());
}

#[cfg(feature = "serde")]
#[test]
fn serde_goes_through_the_envelope() {
    let f = small();
    let json = serde_json::to_string(&f).unwrap();
    let back: QuotientFilter<u64> = serde_json::from_str(&json).unwrap();
    assert!(back == f);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = QuotientFilter::<u64>::from_bytes(&bytes);
    }

    #[test]
    fn arbitrary_payloads_behind_valid_parameters_never_panic(
        payload in proptest::collection::vec(any::<u8>(), 2 * 7 * 8 + 2),
    ) {
        let env = bloomlab_core::codec::Envelope::decode(&small().to_bytes(), TAG).unwrap();
        let forged = sealed(TAG, env.key, env.params, payload);
        if let Ok(mut g) = QuotientFilter::<u64>::from_bytes(&forged) {
            for k in 0..20u64 {
                let _ = g.insert(&k);
                prop_assert!(g.contains(&k) || g.len() == g.capacity() as usize);
            }
        }
    }
}
