//! Every bad parameter gives its typed error: one test per parameter.

use bloomlab_core::ParamError;
use bloomlab_scalable::{BuildError, Invalid, ScalableBloomFilter};
use bloomlab_testkit::inputs::{assert_cap_is_exact, assert_refused, assert_refuses_invalid_fprs};

fn with_fpr(p: f64) -> Result<ScalableBloomFilter<u64>, BuildError> {
    ScalableBloomFilter::builder(1_000, p).seed(1).build()
}

fn with_ratio(r: f64) -> Result<ScalableBloomFilter<u64>, BuildError> {
    ScalableBloomFilter::builder(1_000, 0.01)
        .tightening_ratio(r)
        .seed(1)
        .build()
}

fn with_growth(s: u32) -> Result<ScalableBloomFilter<u64>, BuildError> {
    ScalableBloomFilter::builder(1_000, 0.01)
        .growth_factor(s)
        .seed(1)
        .build()
}

#[test]
fn fpr_zero_one_negative_above_one_nan_infinite() {
    assert_refuses_invalid_fprs(with_fpr);
}

#[test]
fn zero_capacity() {
    assert_refused(
        ScalableBloomFilter::<u64>::new(0, 0.01),
        ParamError::ZeroItems,
    );
}

#[test]
fn tightening_zero_one_negative_above_one_nan() {
    for r in [0.0, 1.0, -0.5, 1.2, f64::NAN] {
        let e = with_ratio(r).unwrap_err();
        assert!(
            matches!(e, BuildError::Variant(Invalid::TighteningRatio(got)) if got.to_bits() == r.to_bits()),
            "{r}: {e:?}"
        );
    }
}

#[test]
fn growth_zero_one_five_huge() {
    for s in [0, 1, 5, u32::MAX] {
        assert_eq!(
            with_growth(s).unwrap_err(),
            BuildError::Variant(Invalid::GrowthFactor(s))
        );
    }
}

#[test]
fn growth_two_three_and_four_are_accepted() {
    for s in [2, 3, 4] {
        assert_eq!(with_growth(s).unwrap().growth_factor(), s);
    }
}

#[test]
fn first_layer_above_the_memory_cap() {
    // 1,000 items at 0.15% take 218 words = 1,744 bytes.
    let capped = |cap| {
        ScalableBloomFilter::<u64>::builder(1_000, 0.01)
            .max_bytes(cap)
            .build()
    };
    assert_cap_is_exact(capped, 1_744);
}

#[test]
fn first_layer_beyond_the_address_space() {
    // 2^62 items at 0.15% need 2^65.8 bits: more than a u64 counts.
    let err = ScalableBloomFilter::<u64>::new(1 << 62, 0.01).unwrap_err();
    assert!(
        matches!(err, BuildError::Param(ParamError::TooLarge { .. })),
        "{err:?}"
    );
}

#[test]
fn first_layer_beyond_any_memory() {
    // 2^60 items at 0.15%: 1.95·10^18 bytes, within isize::MAX but beyond
    // any address space, so the allocator refuses it (quickly: the size is
    // found by bisection, not word by word).
    let err = ScalableBloomFilter::<u64>::new(1 << 60, 0.01).unwrap_err();
    assert!(
        matches!(
            err,
            BuildError::Variant(Invalid::Layer(
                bloomlab_classic::BuildError::OutOfMemory { .. }
            ))
        ),
        "{err:?}"
    );
}

#[test]
fn errors_say_what_is_wrong() {
    assert_eq!(
        with_growth(5).unwrap_err().to_string(),
        "growth factor 5 is not supported (use one of [2, 3, 4])"
    );
    assert_eq!(
        with_ratio(1.0).unwrap_err().to_string(),
        "tightening ratio 1 is not strictly between 0 and 1"
    );
    let e: Box<dyn std::error::Error> = Box::new(with_fpr(0.0).unwrap_err());
    assert!(e.source().is_some(), "a parameter error keeps its cause");
}
