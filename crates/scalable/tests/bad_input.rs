//! Every bad parameter gives its typed error: one test per case.

use bloomlab_core::ParamError;
use bloomlab_scalable::{BuildError, ScalableBloomFilter};

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
fn fpr_zero() {
    assert_eq!(
        with_fpr(0.0).unwrap_err(),
        BuildError::Param(ParamError::InvalidFpr(0.0))
    );
}

#[test]
fn fpr_one() {
    assert_eq!(
        with_fpr(1.0).unwrap_err(),
        BuildError::Param(ParamError::InvalidFpr(1.0))
    );
}

#[test]
fn fpr_negative() {
    assert_eq!(
        with_fpr(-0.1).unwrap_err(),
        BuildError::Param(ParamError::InvalidFpr(-0.1))
    );
}

#[test]
fn fpr_above_one() {
    assert_eq!(
        with_fpr(1.5).unwrap_err(),
        BuildError::Param(ParamError::InvalidFpr(1.5))
    );
}

#[test]
fn fpr_nan() {
    assert!(matches!(
        with_fpr(f64::NAN),
        Err(BuildError::Param(ParamError::InvalidFpr(p))) if p.is_nan()
    ));
}

#[test]
fn fpr_infinite() {
    assert!(matches!(
        with_fpr(f64::INFINITY),
        Err(BuildError::Param(ParamError::InvalidFpr(_)))
    ));
}

#[test]
fn zero_capacity() {
    assert_eq!(
        ScalableBloomFilter::<u64>::new(0, 0.01).unwrap_err(),
        BuildError::Param(ParamError::ZeroItems)
    );
}

#[test]
fn tightening_zero() {
    assert_eq!(
        with_ratio(0.0).unwrap_err(),
        BuildError::TighteningRatio(0.0)
    );
}

#[test]
fn tightening_one() {
    assert_eq!(
        with_ratio(1.0).unwrap_err(),
        BuildError::TighteningRatio(1.0)
    );
}

#[test]
fn tightening_negative() {
    assert_eq!(
        with_ratio(-0.5).unwrap_err(),
        BuildError::TighteningRatio(-0.5)
    );
}

#[test]
fn tightening_above_one() {
    assert_eq!(
        with_ratio(1.2).unwrap_err(),
        BuildError::TighteningRatio(1.2)
    );
}

#[test]
fn tightening_nan() {
    assert!(matches!(
        with_ratio(f64::NAN),
        Err(BuildError::TighteningRatio(r)) if r.is_nan()
    ));
}

#[test]
fn growth_zero() {
    assert_eq!(with_growth(0).unwrap_err(), BuildError::GrowthFactor(0));
}

#[test]
fn growth_one() {
    assert_eq!(with_growth(1).unwrap_err(), BuildError::GrowthFactor(1));
}

#[test]
fn growth_five() {
    assert_eq!(with_growth(5).unwrap_err(), BuildError::GrowthFactor(5));
}

#[test]
fn growth_huge() {
    assert_eq!(
        with_growth(u32::MAX).unwrap_err(),
        BuildError::GrowthFactor(u32::MAX)
    );
}

#[test]
fn growth_two_three_and_four_are_accepted() {
    for s in [2, 3, 4] {
        assert_eq!(with_growth(s).unwrap().growth_factor(), s);
    }
}

#[test]
fn first_layer_above_the_memory_cap() {
    // 1,000 items at 0.15% take 212 words = 1,696 bytes.
    let err = ScalableBloomFilter::<u64>::builder(1_000, 0.01)
        .max_bytes(1_695)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::Param(ParamError::TooLarge {
            needed: 1_696,
            limit: 1_695
        })
    );
    assert!(
        ScalableBloomFilter::<u64>::builder(1_000, 0.01)
            .max_bytes(1_696)
            .build()
            .is_ok()
    );
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
            BuildError::Layer(bloomlab_classic::BuildError::OutOfMemory { .. })
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
