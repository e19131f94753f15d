//! The filters compared: bloomlab's scalable filter, its preset, and growable-bloom-filter.

use super::*;
use bloomlab_lab::peers::Growable;
use bloomlab_lab::peers::growable::Params;

/// How the peer is built: its first layer holds `n0` items at the target
/// P, with the crate's default growth factor and tightening ratio.
pub(super) fn peer_sizing(n0: u64) -> Params {
    Params::defaults(n0, TARGET)
}

/// A filter of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Which {
    /// `ScalableBloomFilter`, s = 2, r = 0.85.
    Ours,
    /// `ScalableBloomFilter::builder(..).redisbloom()`: s = 2, r = 0.5.
    Redis,
    /// `growable_bloom_filter::GrowableBloom`, s = 2, r = 0.8515625, built with P.
    Peer,
}

impl Which {
    pub(super) const ALL: [Which; 3] = [Which::Ours, Which::Redis, Which::Peer];

    pub(super) fn name(self) -> &'static str {
        match self {
            Which::Ours => "bloomlab r=0.85",
            Which::Redis => "bloomlab redisbloom preset",
            Which::Peer => "growable-bloom-filter",
        }
    }

    pub(super) fn ratio(self) -> f64 {
        match self {
            Which::Ours => bloomlab::scalable::DEFAULT_TIGHTENING_RATIO,
            Which::Redis => 0.5,
            Which::Peer => PEER_RATIO,
        }
    }

    /// The rate the filter's construction bounds the compound rate by: P for
    /// ours (layer 0 at P(1 − r)), P/(1 − r) for the peer (layer 0 at P).
    pub(super) fn bound(self) -> f64 {
        match self {
            Which::Ours | Which::Redis => TARGET,
            Which::Peer => theory::scalable::compound_bound(TARGET, PEER_RATIO),
        }
    }
}

/// The filter under test.
pub(super) enum Grower {
    Ours(ScalableBloomFilter<u64>),
    Peer(Growable),
}

impl Grower {
    pub(super) fn build(which: Which, n0: u64, seed: u64) -> Result<Self, Error> {
        let n0_items = usize::try_from(n0).map_err(Error::size("growth: initial capacity"))?;
        Ok(match which {
            Which::Ours | Which::Redis => {
                let mut b = ScalableBloomFilter::builder(n0_items, TARGET).seed(seed);
                if which == Which::Redis {
                    b = b.redisbloom();
                }
                Grower::Ours(b.build().map_err(Error::filter(which.name()))?)
            }
            // The peer hashes with its own xxh3 and takes no hasher or key;
            // it keeps its default growth factor and tightening ratio.
            Which::Peer => Grower::Peer(Growable::new(peer_sizing(n0))),
        })
    }

    pub(super) fn insert(&mut self, key: u64) -> Result<(), Error> {
        match self {
            Grower::Ours(f) => f.insert(&key),
            Grower::Peer(f) => f.insert(&key),
        }
        .map(drop)
        .map_err(Error::filter("growth: insert"))
    }

    pub(super) fn contains(&self, key: u64) -> bool {
        match self {
            Grower::Ours(f) => f.contains(&key),
            Grower::Peer(f) => f.contains(&key),
        }
    }
}

/// What theory predicts for one filter at one checkpoint, and its memory.
pub(super) struct State {
    pub(super) layers: usize,
    /// Compound theory from the filter's present layers and their fill.
    pub(super) theory: f64,
    /// Standard deviation of the filter's rate from one filter to the next
    /// (the hash key): [`instance_sd`].
    pub(super) spread: f64,
    /// Bits of all layers' tables.
    pub(super) bits: u64,
    /// Bits per item theory gives after this many items, from the
    /// parameters alone (ours and the preset: ideally sized layers,
    /// `theory::scalable::ideal_bits_per_item`; the peer: its own rule).
    pub(super) theory_bits_per_item: f64,
}

pub(super) fn state(which: Which, filter: &Grower, n0: u64, n: u64) -> Result<State, Error> {
    Ok(match filter {
        Grower::Ours(f) => State {
            layers: f.layers().len(),
            theory: theory::scalable::compound_fpr(f.layers().iter().map(|l| {
                theory::classic::fpr(
                    l.num_bits() as f64,
                    l.len() as f64,
                    f64::from(l.num_hashes()),
                )
            })),
            spread: instance_sd(f.layers().iter().map(|l| {
                let k = f64::from(l.num_hashes());
                LayerTable::Classic {
                    bits: l.num_bits() as f64,
                    draws: k * l.len() as f64,
                    k,
                }
            })),
            bits: f.memory_bytes() as u64 * 8,
            theory_bits_per_item: theory::scalable::ideal_bits_per_item(
                n0,
                GROWTH,
                TARGET,
                which.ratio(),
                n,
            )
            .map_err(Error::filter("growth: layer sizing"))?,
        },
        Grower::Peer(f) => {
            let plan = f.layers();
            State {
                layers: plan.len(),
                theory: f.expected_fpr(),
                spread: instance_sd(plan.iter().map(|l| LayerTable::Partitioned {
                    bits: l.slice_bits as f64,
                    draws: l.items as f64,
                    k: l.slices as f64,
                })),
                bits: plan.iter().map(|l| l.bytes * 8).sum(),
                theory_bits_per_item: peer_sizing(n0)
                    .layers(n)
                    .iter()
                    .map(|l| l.bytes as f64 * 8.0)
                    .sum::<f64>()
                    / n as f64,
            }
        }
    })
}
