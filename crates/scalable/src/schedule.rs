//! The growth schedule: how many items and what rate each layer gets.

use bloomlab_core::theory::scalable;
use std::hash::BuildHasher;

use bloomlab_classic::BloomFilter;
use bloomlab_core::{ParamError, check_fpr};

use crate::error::{BuildError, Invalid};

/// The growth factors a filter accepts: 2 (the default, and RedisBloom's),
/// 3 and 4 (Almeida et al.'s choice for fast growth).
///
/// Larger factors are refused: right after a layer is added the filter holds
/// up to `s` times the memory its items need, and the paper's analysis stops
/// at 4. Fractional factors would round every layer's capacity.
pub const GROWTH_FACTORS: [u32; 3] = [2, 3, 4];

/// The default growth factor `s`.
pub const DEFAULT_GROWTH_FACTOR: u32 = 2;

/// The default tightening ratio `r`, in the 0.8–0.9 that Almeida et al.
/// recommend.
pub const DEFAULT_TIGHTENING_RATIO: f64 = 0.85;

/// The limit when the caller sets none: the most bytes a `Vec` can hold.
const NO_LIMIT: usize = isize::MAX as usize;

/// Everything that decides a filter's layers: checked once, then trusted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Schedule {
    /// `n0`, items in layer 0.
    pub initial_capacity: u64,
    /// `P`, the total rate the chain keeps.
    pub fpr: f64,
    /// `s`.
    pub growth: u32,
    /// `r`.
    pub tightening: f64,
    /// The most bytes all layers together may take.
    pub max_bytes: Option<usize>,
}

impl Schedule {
    /// Checks every parameter, in the order the builder documents.
    pub fn new(
        initial_capacity: u64,
        fpr: f64,
        growth: u32,
        tightening: f64,
        max_bytes: Option<usize>,
    ) -> Result<Self, BuildError> {
        check_fpr(fpr)?;
        if initial_capacity == 0 {
            return Err(ParamError::ZeroItems.into());
        }
        if !GROWTH_FACTORS.contains(&growth) {
            return Err(BuildError::Variant(Invalid::GrowthFactor(growth)));
        }
        if !(tightening > 0.0 && tightening < 1.0) {
            return Err(BuildError::Variant(Invalid::TighteningRatio(tightening)));
        }
        let schedule = Self {
            initial_capacity,
            fpr,
            growth,
            tightening,
            max_bytes,
        };
        // Every layer the filter can ever open (past the last one, its
        // capacity no longer fits a usize) must have a rate a classic filter
        // can be sized for; rates fall with i, so the first that underflows
        // is the one to report.
        let last = (0..u32::MAX)
            .take_while(|&i| {
                schedule
                    .capacity(i)
                    .is_some_and(|n| usize::try_from(n).is_ok())
            })
            .last()
            .unwrap_or(0);
        if schedule.rate(last) < f64::MIN_POSITIVE {
            let layer = (0..=last)
                .find(|&i| schedule.rate(i) < f64::MIN_POSITIVE)
                .unwrap_or(last);
            return Err(BuildError::Variant(Invalid::RateUnderflow {
                fpr,
                tightening,
                layer,
            }));
        }
        Ok(schedule)
    }

    /// Items layer `i` holds, `None` past `u64`.
    pub fn capacity(&self, i: u32) -> Option<u64> {
        scalable::layer_capacity(self.initial_capacity, self.growth, i)
    }

    /// The rate layer `i` is built for.
    pub fn rate(&self, i: u32) -> f64 {
        scalable::layer_fpr(self.fpr, self.tightening, i)
    }

    /// The byte limit in force.
    pub fn limit(&self) -> usize {
        self.max_bytes.unwrap_or(NO_LIMIT)
    }

    /// The empty classic filter of layer `i`, sized by the classic builder
    /// (that is, [`classic::size_for`](bloomlab_core::theory::classic::size_for)
    /// of its capacity and rate) and refused if it would not fit next to the
    /// `used` bytes of the layers before it.
    pub fn layer<T: ?Sized, S: BuildHasher>(
        &self,
        i: u32,
        used: usize,
        hasher: S,
    ) -> Result<BloomFilter<T, S>, bloomlab_classic::BuildError> {
        let limit = self.limit();
        let too_large = ParamError::TooLarge {
            needed: u128::MAX,
            limit: limit as u128,
        };
        let items = self
            .capacity(i)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(too_large)?;
        BloomFilter::builder(items, self.rate(i))
            .hasher(hasher)
            .max_bytes(limit.checked_sub(used).ok_or(too_large)?)
            .build()
    }
}
