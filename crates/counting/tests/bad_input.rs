//! Every bad parameter is a typed error, one test per kind of case.

use bloomlab_core::ParamError;
use bloomlab_counting::{BuildError, CountingBloomFilter, Invalid};
use bloomlab_testkit::inputs::{assert_cap_is_exact, assert_refused, assert_refuses_invalid_fprs};

#[test]
fn unsupported_widths() {
    for width in [0, 32] {
        assert_eq!(
            CountingBloomFilter::<u64>::with_counters(64, 3, width).unwrap_err(),
            BuildError::Variant(Invalid::UnsupportedWidth(width))
        );
    }
    let e = CountingBloomFilter::<u64>::builder(100, 0.01).counter_width(3);
    assert_eq!(
        e.build().unwrap_err(),
        BuildError::Variant(Invalid::UnsupportedWidth(3))
    );
}

#[test]
fn supported_widths_build() {
    for width in [4, 8, 16] {
        let f: CountingBloomFilter<u64> =
            CountingBloomFilter::with_counters(100, 3, width).unwrap();
        assert_eq!(f.counter_width(), width);
        assert_eq!(f.counter_max(), (1 << width) - 1);
        assert_eq!(f.memory_bytes(), (100 * width as usize).div_ceil(64) * 8);
    }
}

#[test]
fn fpr_zero_one_negative_nan_infinite() {
    assert_refuses_invalid_fprs(|p| CountingBloomFilter::<u64>::new(100, p));
}

#[test]
fn zero_items() {
    assert_refused(
        CountingBloomFilter::<u64>::new(0, 0.01),
        ParamError::ZeroItems,
    );
}

#[test]
fn zero_counters() {
    assert_refused(
        CountingBloomFilter::<u64>::with_counters(0, 3, 4),
        ParamError::ZeroBits,
    );
}

#[test]
fn zero_hashes() {
    assert_refused(
        CountingBloomFilter::<u64>::with_counters(64, 0, 4),
        ParamError::ZeroHashes,
    );
}

#[test]
fn too_many_hashes() {
    assert_refused(
        CountingBloomFilter::<u64>::with_counters(64, 65, 4),
        ParamError::TooManyHashes(65),
    );
    assert!(CountingBloomFilter::<u64>::with_counters(64, 64, 4).is_ok());
}

#[test]
fn larger_than_allowed() {
    let bytes = CountingBloomFilter::<u64>::new(1_000, 0.01)
        .unwrap()
        .memory_bytes();
    let capped = |cap| {
        CountingBloomFilter::<u64>::builder(1_000, 0.01)
            .max_bytes(cap)
            .build()
    };
    assert_cap_is_exact(capped, bytes);
}

#[test]
fn larger_than_any_platform() {
    let built = CountingBloomFilter::<u64>::with_counters(u64::MAX, 3, 16);
    let needed = (u128::from(u64::MAX) * 16).div_ceil(64) * 8;
    let limit = isize::MAX as u128;
    assert_refused(built, ParamError::TooLarge { needed, limit });
}

#[test]
fn errors_display_and_source() {
    let e = BuildError::Variant(Invalid::UnsupportedWidth(3));
    assert!(e.to_string().contains("3 bits"));
    assert!(std::error::Error::source(&e).is_none());
    let e = BuildError::from(ParamError::ZeroItems);
    assert!(std::error::Error::source(&e).is_some());
    assert!(!e.to_string().is_empty());
}
