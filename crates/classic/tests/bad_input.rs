//! Every bad constructor input gives its typed error, never a panic.

use bloomlab_classic::{BloomFilter, BuildError};
use bloomlab_core::ParamError;

fn classic(n: usize, p: f64) -> Result<BloomFilter, BuildError> {
    BloomFilter::builder(n, p).seed(1).build()
}

fn bits(m: u64, k: u32) -> Result<BloomFilter, BuildError> {
    BloomFilter::builder_with_bits(m, k).seed(1).build()
}

fn is_invalid_fpr(r: Result<BloomFilter, BuildError>) -> bool {
    matches!(r, Err(BuildError::Param(ParamError::InvalidFpr(_))))
}

#[test]
fn fpr_zero() {
    assert!(is_invalid_fpr(classic(1_000, 0.0)));
}

#[test]
fn fpr_one() {
    assert!(is_invalid_fpr(classic(1_000, 1.0)));
}

#[test]
fn fpr_negative() {
    assert!(is_invalid_fpr(classic(1_000, -0.01)));
}

#[test]
fn fpr_nan() {
    assert!(is_invalid_fpr(classic(1_000, f64::NAN)));
}

#[test]
fn fpr_infinite() {
    assert!(is_invalid_fpr(classic(1_000, f64::INFINITY)));
    assert!(is_invalid_fpr(classic(1_000, f64::NEG_INFINITY)));
}

#[test]
fn zero_items() {
    assert_eq!(
        classic(0, 0.01).unwrap_err(),
        BuildError::Param(ParamError::ZeroItems)
    );
}

#[test]
fn zero_bits() {
    assert_eq!(
        bits(0, 3).unwrap_err(),
        BuildError::Param(ParamError::ZeroBits)
    );
}

#[test]
fn zero_hashes() {
    assert_eq!(
        bits(64, 0).unwrap_err(),
        BuildError::Param(ParamError::ZeroHashes)
    );
}

#[test]
fn too_many_hashes() {
    assert_eq!(
        bits(64, 65).unwrap_err(),
        BuildError::Param(ParamError::TooManyHashes(65))
    );
    assert!(bits(64, 64).is_ok());
}

#[test]
fn overflowing_size() {
    // usize::MAX items at 10^-300 need more bits than a u64 counts.
    assert!(matches!(
        classic(usize::MAX, 1e-300),
        Err(BuildError::Param(ParamError::TooLarge { .. }))
    ));
    // u64::MAX bits fit the arithmetic but no allocator: 2^61 bytes.
    assert!(matches!(
        bits(u64::MAX, 3),
        Err(BuildError::OutOfMemory { .. } | BuildError::Param(ParamError::TooLarge { .. }))
    ));
}

#[test]
fn above_max_bytes() {
    // 1,000,000 items at 1% need 9,592,960 bits: 1,199,120 bytes.
    let err = BloomFilter::builder(1_000_000, 0.01)
        .max_bytes(1 << 20)
        .build()
        .unwrap_err();
    assert!(
        matches!(err, BuildError::Param(ParamError::TooLarge { needed, limit })
            if needed == 1_199_120 && limit == 1 << 20),
        "{err:?}"
    );
    let err = BloomFilter::builder_with_bits(8 * 4_097, 3)
        .max_bytes(4_096)
        .build()
        .unwrap_err();
    assert_eq!(
        err,
        BuildError::Param(ParamError::TooLarge {
            needed: 4_104,
            limit: 4_096
        })
    );
    assert!(
        BloomFilter::builder_with_bits(8 * 4_096, 3)
            .max_bytes(4_096)
            .build()
            .is_ok()
    );
}
