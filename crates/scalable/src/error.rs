//! The error of building a scalable filter.

use std::fmt;

use bloomlab_core::ShortFloat;

/// Why a [`ScalableBloomFilter`](crate::ScalableBloomFilter) could not be
/// built: a sizing parameter ([`Param`](bloomlab_core::BuildError::Param):
/// a total rate outside (0, 1), an initial capacity of zero, or a first
/// layer larger than the memory cap, see
/// [`Builder::max_bytes`](crate::Builder::max_bytes)), or one of this
/// crate's [`Invalid`] reasons. A first layer the allocator refused is
/// [`Invalid::Layer`], with the classic error.
pub type BuildError = bloomlab_core::BuildError<Invalid>;

/// What only this crate's builder refuses: the
/// [`Variant`](bloomlab_core::BuildError::Variant) of its [`BuildError`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Invalid {
    /// A growth factor other than those in
    /// [`GROWTH_FACTORS`](crate::GROWTH_FACTORS).
    GrowthFactor(u32),
    /// A tightening ratio that is not strictly between 0 and 1.
    TighteningRatio(f64),
    /// The rate a layer must be built for, `fpr·(1 − r)·r^layer`, falls below
    /// the smallest normal `f64` (about 2.2e-308) at a layer the filter can
    /// reach: with `layer` 0 the total rate is too small; otherwise the
    /// tightening ratio is, for this initial capacity and growth factor.
    RateUnderflow {
        /// The total rate given.
        fpr: f64,
        /// The tightening ratio given.
        tightening: f64,
        /// The first layer whose rate underflows.
        layer: u32,
    },
    /// The classic filter of the first layer could not be built (for
    /// instance, the allocator refused its table).
    Layer(bloomlab_classic::BuildError),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::GrowthFactor(s) => write!(
                f,
                "growth factor {s} is not supported (use one of {:?})",
                crate::GROWTH_FACTORS
            ),
            Invalid::TighteningRatio(r) => write!(
                f,
                "tightening ratio {} is not strictly between 0 and 1",
                ShortFloat(*r)
            ),
            Invalid::RateUnderflow { fpr, layer: 0, .. } => write!(
                f,
                "false-positive rate {} is too small: the first layer's share of it \
                 is below the smallest normal f64 (2.2e-308)",
                ShortFloat(*fpr)
            ),
            Invalid::RateUnderflow {
                fpr,
                tightening,
                layer,
            } => write!(
                f,
                "tightening ratio {} is too small for a total rate of {}: layer {layer} \
                 would need a rate of fpr·(1 − r)·r^{layer}, below the smallest normal \
                 f64 (2.2e-308); use a larger ratio",
                ShortFloat(*tightening),
                ShortFloat(*fpr)
            ),
            Invalid::Layer(e) => write!(f, "the first layer could not be built: {e}"),
        }
    }
}

impl std::error::Error for Invalid {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Invalid::Layer(e) => Some(e),
            _ => None,
        }
    }
}

/// The error of a first layer the classic builder refused: its sizing
/// parameter as this filter's, anything else as [`Invalid::Layer`].
pub(crate) fn from_layer(e: bloomlab_classic::BuildError) -> BuildError {
    match e {
        bloomlab_classic::BuildError::Param(p) => BuildError::Param(p),
        other => BuildError::Variant(Invalid::Layer(other)),
    }
}
