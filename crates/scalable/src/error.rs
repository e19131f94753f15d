//! The error of building a scalable filter.

use std::fmt;

use bloomlab_core::{ParamError, ShortFloat};

/// Why a [`ScalableBloomFilter`](crate::ScalableBloomFilter) could not be built.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    /// A sizing parameter no filter can be built from: a total rate outside
    /// (0, 1), an initial capacity of zero, or a first layer larger than the
    /// memory cap (see [`Builder::max_bytes`](crate::Builder::max_bytes)).
    Param(ParamError),
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

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Param(e) => e.fmt(f),
            BuildError::GrowthFactor(s) => write!(
                f,
                "growth factor {s} is not supported (use one of {:?})",
                crate::GROWTH_FACTORS
            ),
            BuildError::TighteningRatio(r) => write!(
                f,
                "tightening ratio {} is not strictly between 0 and 1",
                ShortFloat(*r)
            ),
            BuildError::RateUnderflow { fpr, layer: 0, .. } => write!(
                f,
                "false-positive rate {} is too small: the first layer's share of it \
                 is below the smallest normal f64 (2.2e-308)",
                ShortFloat(*fpr)
            ),
            BuildError::RateUnderflow {
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
            BuildError::Layer(e) => write!(f, "the first layer could not be built: {e}"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Param(e) => Some(e),
            BuildError::Layer(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ParamError> for BuildError {
    fn from(e: ParamError) -> Self {
        BuildError::Param(e)
    }
}

impl From<bloomlab_classic::BuildError> for BuildError {
    fn from(e: bloomlab_classic::BuildError) -> Self {
        match e {
            bloomlab_classic::BuildError::Param(p) => BuildError::Param(p),
            other => BuildError::Layer(other),
        }
    }
}
