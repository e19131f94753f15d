//! Arguments every constructor must refuse with a typed error.

use std::error::Error;
use std::fmt::Debug;

use bloomlab_core::ParamError;

/// False-positive rates outside `(0, 1)`: the ends, either side of them,
/// NaN and the infinities.
pub const INVALID_FPRS: [f64; 8] = [
    0.0,
    1.0,
    -0.01,
    -0.1,
    1.5,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

/// Whether `e` refuses the rate `fpr`, naming it to the bit (NaN included).
pub fn refuses_fpr(e: &ParamError, fpr: f64) -> bool {
    matches!(e, ParamError::InvalidFpr(got) if got.to_bits() == fpr.to_bits())
}

/// Asserts that `built`, what a constructor returned, is the refusal
/// `param`, in the constructor's own error type.
pub fn assert_refused<F, E>(built: Result<F, E>, param: ParamError)
where
    E: From<ParamError> + PartialEq + Debug,
{
    assert_eq!(built.err(), Some(E::from(param)));
}

/// Asserts that a memory cap is exact: `build(needed)`, a constructor with
/// a cap of `needed` bytes, succeeds, and `build(needed - 1)` is refused
/// with [`ParamError::TooLarge`] naming both numbers.
pub fn assert_cap_is_exact<F, E>(build: impl Fn(usize) -> Result<F, E>, needed: usize)
where
    E: From<ParamError> + PartialEq + Debug,
{
    assert!(build(needed).is_ok(), "a cap of {needed} bytes refused");
    let too_large = ParamError::TooLarge {
        needed: needed as u128,
        limit: needed as u128 - 1,
    };
    assert_eq!(build(needed - 1).err(), Some(E::from(too_large)));
}

/// Asserts that `build` refuses every rate of [`INVALID_FPRS`] with an
/// error whose source is the [`ParamError`] naming that rate (to the bit).
pub fn assert_refuses_invalid_fprs<F, E>(build: impl Fn(f64) -> Result<F, E>)
where
    E: Error + 'static,
{
    for p in INVALID_FPRS {
        let e = build(p).err();
        let param = e.as_ref().and_then(Error::source);
        assert!(
            param
                .and_then(|s| s.downcast_ref::<ParamError>())
                .is_some_and(|e| refuses_fpr(e, p)),
            "{p}: {e:?}"
        );
    }
}
