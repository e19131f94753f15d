//! Bad input: typed errors, never a panic; and the conformance suite.

use bloomlab_core::ParamError;
use bloomlab_quotient::{BuildError, InsertError, Invalid, MergeError, QuotientFilter};
use bloomlab_testkit::{conformance, inputs};

#[test]
fn conformance() {
    conformance::run(|n, p, seed| QuotientFilter::builder(n, p).seed(seed).build());
    conformance::run(|n, p, seed| {
        QuotientFilter::builder(n, p)
            .growth(true)
            .seed(seed)
            .build()
    });
}

#[test]
fn bad_rates_and_sizes_are_refused() {
    inputs::assert_refuses_invalid_fprs(|p| QuotientFilter::<u64>::new(1_000, p));
    inputs::assert_refused(QuotientFilter::<u64>::new(0, 0.01), ParamError::ZeroItems);
    let too_many = 1usize << 41;
    assert_eq!(
        QuotientFilter::<u64>::new(too_many, 0.01).unwrap_err(),
        BuildError::Variant(Invalid::TooManyItems(too_many as u64))
    );
    // 2^39 slots need 25 bits of quotient... and 1e-12 needs 40 more.
    assert_eq!(
        QuotientFilter::<u64>::new(1 << 38, 1e-12).unwrap_err(),
        BuildError::Variant(Invalid::FprUnreachable(1e-12))
    );
    for (q, r) in [(0, 8), (41, 8), (10, 0), (10, 55), (40, 25)] {
        let e = QuotientFilter::<u64>::builder_with_bits(q, r)
            .build()
            .unwrap_err();
        assert!(
            matches!(
                e,
                BuildError::Variant(Invalid::QuotientBits(_) | Invalid::RemainderBits { .. })
            ),
            "{q} {r}: {e:?}"
        );
        assert!(!e.to_string().is_empty());
    }
    inputs::assert_cap_is_exact(
        |cap| {
            QuotientFilter::<u64>::builder(1_000, 0.01)
                .max_bytes(cap)
                .build()
        },
        QuotientFilter::<u64>::new(1_000, 0.01)
            .unwrap()
            .memory_bytes(),
    );
}

#[test]
fn merges_of_filters_that_differ_are_refused() {
    let a = QuotientFilter::<u64>::builder_with_bits(8, 8)
        .seed(1)
        .build()
        .unwrap();
    let cases = [
        (
            QuotientFilter::builder_with_bits(8, 8)
                .seed(2)
                .build()
                .unwrap(),
            MergeError::Hasher,
        ),
        (
            QuotientFilter::builder_with_bits(9, 8)
                .seed(1)
                .build()
                .unwrap(),
            MergeError::Shape {
                what: "canonical slots",
            },
        ),
        (
            QuotientFilter::builder_with_bits(8, 9)
                .seed(1)
                .build()
                .unwrap(),
            MergeError::Shape {
                what: "remainder bits",
            },
        ),
        (
            QuotientFilter::builder_with_bits(8, 8)
                .growth(true)
                .seed(1)
                .build()
                .unwrap(),
            MergeError::Shape {
                what: "growth schedule or expansions",
            },
        ),
    ];
    bloomlab_testkit::merge::assert_mismatches_refused(&a, cases, [QuotientFilter::merge]);
    // Two filters that together pass the maximum load.
    let mut full = a.clone();
    for k in 0..200u64 {
        full.insert(&k).unwrap();
    }
    let mut other = a.clone();
    for k in 1_000..1_100u64 {
        other.insert(&k).unwrap();
    }
    let before = full.clone();
    assert!(matches!(
        full.merge(&other),
        Err(MergeError::Full { capacity: 243, .. })
    ));
    assert!(full == before);
    // Within the load, everything of both is kept.
    let mut half = a.clone();
    for k in 0..100u64 {
        half.insert(&k).unwrap();
    }
    half.merge(&other).unwrap();
    assert_eq!(half.len(), 200);
    assert!((0..100u64).chain(1_000..1_100).all(|k| half.contains(&k)));
}

#[test]
fn a_growing_filter_stops_at_its_byte_limit() {
    let mut f = QuotientFilter::<u64>::builder(100, 0.01)
        .growth(true)
        .max_bytes(20_000)
        .seed(3)
        .build()
        .unwrap();
    let mut stored = 0u64;
    let full = loop {
        match f.insert(&stored) {
            Ok(_) => stored += 1,
            Err(e) => break e,
        }
    };
    assert_eq!(full, bloomlab_core::InsertError::Full);
    assert!(f.memory_bytes() <= 20_000 && f.expansions() >= 2);
    assert!((0..stored).all(|k| f.contains(&k)));
}

#[test]
fn a_promise_past_64_bits_stops_growth_with_nothing_lost() {
    // At 1e-12 the first table's remainders take 41 bits; each doubling
    // adds a bit to the quotient and about one to the newest remainder, so
    // after a few doublings the two would need more than the 64 bits they
    // share: inserts are refused from there, and every item taken before is
    // still found.
    let mut f = QuotientFilter::<u64>::builder(100, 1e-12)
        .growth(true)
        .seed(4)
        .build()
        .unwrap();
    let mut taken = Vec::new();
    for i in 0..1_000_000u64 {
        match f.insert(&i) {
            Ok(_) => taken.push(i),
            Err(e) => {
                assert_eq!(e, InsertError::Full, "insert {i}");
                break;
            }
        }
    }
    assert!(
        (100..1_000_000).contains(&taken.len()),
        "{} taken",
        taken.len()
    );
    assert!(taken.iter().all(|i| f.contains(i)));
    assert_eq!(f.len(), taken.len());
}
