//! [`ScalableOptions`]: how a scalable filter is created.

use crate::table::Options;

/// How a scalable filter is created, besides its first layer's items and
/// its total rate.
///
/// ```
/// use bloomlab_redis::ScalableOptions;
///
/// let o = ScalableOptions::new().growth_factor(4).tightening_ratio(0.9).seed(3);
/// assert_eq!((o.get_growth_factor(), o.get_tightening_ratio()), (4, 0.9));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalableOptions {
    /// The seed and the shard size, as a Bloom filter's.
    pub(super) table: Options,
    pub(super) growth: u32,
    pub(super) tightening: f64,
}

impl Default for ScalableOptions {
    fn default() -> Self {
        Self::new()
    }
}

impl ScalableOptions {
    /// A random key, 1 MiB shards, growth factor 2 and tightening ratio 0.85
    /// (the in-memory filter's defaults).
    pub fn new() -> Self {
        Self {
            table: Options::new(),
            growth: bloomlab_scalable::DEFAULT_GROWTH_FACTOR,
            tightening: bloomlab_scalable::DEFAULT_TIGHTENING_RATIO,
        }
    }

    /// Derives the hash key from `seed` ([`Options::seed`]).
    pub fn seed(self, seed: u64) -> Self {
        Self {
            table: self.table.seed(seed),
            ..self
        }
    }

    /// Caps each shard key at `bytes` ([`Options::max_shard_bytes`]).
    pub fn max_shard_bytes(self, bytes: usize) -> Self {
        Self {
            table: self.table.max_shard_bytes(bytes),
            ..self
        }
    }

    /// Caps the bytes all layers may take together
    /// ([`Options::max_bytes`]): an insert that would open a layer past it
    /// is refused with [`Error::OverLimit`](crate::Error::OverLimit).
    pub fn max_bytes(self, bytes: u64) -> Self {
        Self {
            table: self.table.max_bytes(bytes),
            ..self
        }
    }

    /// `s`: layer `i` holds `n0 · s^i` items; one of
    /// [`GROWTH_FACTORS`](bloomlab_scalable::GROWTH_FACTORS).
    pub fn growth_factor(mut self, s: u32) -> Self {
        self.growth = s;
        self
    }

    /// `r`: layer `i` is built for rate `P (1 − r) r^i`; in (0, 1).
    pub fn tightening_ratio(mut self, r: f64) -> Self {
        self.tightening = r;
        self
    }

    /// The growth factor.
    pub fn get_growth_factor(&self) -> u32 {
        self.growth
    }

    /// The tightening ratio.
    pub fn get_tightening_ratio(&self) -> f64 {
        self.tightening
    }
}
