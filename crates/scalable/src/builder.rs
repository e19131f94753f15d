//! The builder: initial capacity and total rate, then growth, tightening,
//! hasher and memory cap.

use std::hash::BuildHasher;

use bloomlab_core::DefaultHasher;
use bloomlab_core::builder::Settings;

use crate::error::BuildError;
use crate::filter::ScalableBloomFilter;
use crate::schedule::{DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, Schedule};

/// Builds a [`ScalableBloomFilter`], from [`ScalableBloomFilter::builder`].
///
/// ```
/// use bloomlab_scalable::ScalableBloomFilter;
///
/// // RedisBloom's `BF.RESERVE key 0.01 1000 EXPANSION 2`, side by side with
/// // the default schedule: both keep 1% in total.
/// let redis = ScalableBloomFilter::<str>::builder(1_000, 0.01).redisbloom().seed(1).build().unwrap();
/// let ours = ScalableBloomFilter::<str>::builder(1_000, 0.01).seed(1).build().unwrap();
/// assert_eq!(redis.layer_fpr(0), 0.005);
/// assert!((ours.layer_fpr(0) - 0.0015).abs() < 1e-15);
///
/// assert!(ScalableBloomFilter::<str>::builder(1_000, 0.01).growth_factor(5).build().is_err());
/// assert!(ScalableBloomFilter::<str>::builder(1_000, 0.01).tightening_ratio(1.0).build().is_err());
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder<T: ?Sized, S = DefaultHasher>(Settings<T, Options, S>);

/// What a [`Builder`] sets beside the hasher.
#[derive(Debug, Clone, Copy)]
struct Options {
    initial_capacity: usize,
    fpr: f64,
    growth: u32,
    tightening: f64,
    max_bytes: Option<usize>,
}

bloomlab_core::impl_builder!(Builder);

impl<T: ?Sized> Builder<T, DefaultHasher> {
    pub(crate) fn new(initial_capacity: usize, fpr: f64) -> Self {
        Self(Settings::new(Options {
            initial_capacity,
            fpr,
            growth: DEFAULT_GROWTH_FACTOR,
            tightening: DEFAULT_TIGHTENING_RATIO,
            max_bytes: None,
        }))
    }

    /// Uses [`DefaultHasher::from_seed`]`(seed)`: reproducible, but never for
    /// a filter that guards a service against crafted input.
    pub fn seed(self, seed: u64) -> Self {
        Self(self.0.seed(seed))
    }
}

impl<T: ?Sized, S> Builder<T, S> {
    /// Uses `hasher` instead of the keyed default; every layer gets a clone.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> Builder<T, S2> {
        Builder(self.0.hasher(hasher))
    }

    /// `s`: each layer holds `s` times the items of the one before; one of
    /// [`GROWTH_FACTORS`](crate::GROWTH_FACTORS) (default 2).
    pub fn growth_factor(mut self, s: u32) -> Self {
        self.0.growth = s;
        self
    }

    /// `r`: each layer's rate is `r` times the one before, and the first is
    /// built for `P·(1 − r)`; strictly between 0 and 1 (default 0.85).
    ///
    /// A larger `r` spends fewer bits on the first layers and more on late
    /// ones; Almeida et al. find 0.8–0.9 best for `s` = 2 to 4.
    pub fn tightening_ratio(mut self, r: f64) -> Self {
        self.0.tightening = r;
        self
    }

    /// RedisBloom's schedule: `s = 2` and layer `i` at `P·0.5^(i+1)`, that is
    /// a tightening ratio of 0.5. For side-by-side comparisons; it keeps the
    /// same total rate with more memory than the default 0.85.
    pub fn redisbloom(self) -> Self {
        self.growth_factor(2).tightening_ratio(0.5)
    }

    /// Caps the memory of all layers together at `max_bytes`: once the next
    /// layer would take the filter past it, `insert` of an item no layer
    /// reports returns [`InsertError::Full`](bloomlab_core::InsertError::Full)
    /// and changes nothing. (RedisBloom's `NONSCALING` is the cap that
    /// admits exactly one layer.)
    pub fn max_bytes(mut self, max_bytes: usize) -> Self {
        self.0.max_bytes = Some(max_bytes);
        self
    }
}

impl<T: ?Sized, S: BuildHasher + Clone> Builder<T, S> {
    /// The empty filter, with its first layer.
    ///
    /// # Errors
    ///
    /// Checked in this order: [`BuildError::Param`] for a total rate outside
    /// (0, 1) or NaN, or an initial capacity of zero;
    /// [`Invalid::GrowthFactor`](crate::Invalid::GrowthFactor) for a growth factor not in
    /// [`GROWTH_FACTORS`](crate::GROWTH_FACTORS);
    /// [`Invalid::TighteningRatio`](crate::Invalid::TighteningRatio) for `r` outside (0, 1) or NaN;
    /// [`Invalid::RateUnderflow`](crate::Invalid::RateUnderflow) if the rate of a layer the filter can
    /// reach (before its capacity overflows a `usize`) underflows `f64`: a
    /// total rate near 5e-324, or a tightening ratio such as 1e-300;
    /// [`BuildError::Param`] with [`ParamError::TooLarge`](bloomlab_core::ParamError::TooLarge)
    /// if the first layer alone exceeds the memory cap;
    /// [`Invalid::Layer`](crate::Invalid::Layer) if its table cannot be allocated.
    pub fn build(self) -> Result<ScalableBloomFilter<T, S>, BuildError> {
        let (options, hasher) = self.0.into_parts();
        let schedule = Schedule::new(
            options.initial_capacity as u64,
            options.fpr,
            options.growth,
            options.tightening,
            options.max_bytes,
        )?;
        ScalableBloomFilter::with_schedule(schedule, hasher)
    }
}
