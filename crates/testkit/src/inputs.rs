//! Arguments every constructor must refuse with a typed error.

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
