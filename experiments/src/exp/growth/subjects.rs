//! The filters compared: every catalog variant that grows (built by its
//! descriptor and judged by its own theory), the scalable filter's
//! RedisBloom preset, and `growable-bloom-filter`.

use std::sync::Arc;

use bloomlab::core::descriptor::{AnyFilter, Descriptor, Table, Value};
use bloomlab::scalable::descriptor::Layers;
use bloomlab_lab::peers::Growable;
use bloomlab_lab::peers::growable::Params;

use super::*;

/// How the peer is built: its first layer holds `n0` items at the target
/// P, with the crate's default growth factor and tightening ratio.
pub(super) fn peer_sizing(n0: u64) -> Params {
    Params::defaults(n0, TARGET)
}

/// How a subject's filters are made.
enum Kind {
    /// A catalog variant that grows, built by its descriptor.
    Variant(Descriptor<u64>),
    /// `ScalableBloomFilter::builder(..).redisbloom()`: s = 2, r = 0.5.
    Preset,
    /// `growable_bloom_filter::GrowableBloom`, s = 2, r = 0.8515625, built with P.
    Peer,
}

/// A filter of the comparison.
pub(super) struct Subject {
    pub(super) name: String,
    kind: Kind,
    /// Its theory from the parameters alone (the peer's is its sizing rule).
    table: Option<Arc<dyn Table>>,
}

/// The subjects: the catalog's growing variants, then the preset and the peer.
pub(super) fn subjects(ctx: &Ctx, n0: u64) -> Result<Vec<Subject>, Error> {
    let mut out = Vec::new();
    for v in ctx
        .catalog
        .iter()
        .filter(|v| v.can.grow && v.empty().is_some())
    {
        let plan = (v.plan)(n0, TARGET).map_err(Error::filter(v.id))?;
        out.push(Subject {
            name: v.label(),
            kind: Kind::Variant(v.clone()),
            table: Some(plan.table),
        });
    }
    out.push(Subject {
        name: "ScalableBloomFilter (RedisBloom preset)".into(),
        kind: Kind::Preset,
        table: Some(Arc::new(Layers {
            initial_capacity: n0,
            growth: GROWTH,
            tightening: 0.5,
            fpr: TARGET,
        })),
    });
    out.push(Subject {
        name: "growable-bloom-filter".into(),
        kind: Kind::Peer,
        table: None,
    });
    Ok(out)
}

impl Subject {
    /// Whether this is the peer, whose construction bounds the total only
    /// by P/(1 − r).
    pub(super) fn is_peer(&self) -> bool {
        matches!(self.kind, Kind::Peer)
    }

    /// The rate the filter's construction bounds the compound rate by: P
    /// for bloomlab's filters, P/(1 − r) for the peer (layer 0 at P).
    pub(super) fn bound(&self) -> f64 {
        if self.is_peer() { peer_bound() } else { TARGET }
    }

    /// The tightening ratio of its layers, where it has layers: a
    /// parameter of its theory's table, or the peer's default.
    pub(super) fn ratio(&self) -> Option<f64> {
        match &self.table {
            Some(table) => table
                .parameters()
                .into_iter()
                .find_map(|(name, v)| match v {
                    Value::Real(r) if name == "tightening_ratio" => Some(r),
                    _ => None,
                }),
            None => Some(PEER_RATIO),
        }
    }

    /// Theory's rate once `n` distinct items are in, from the parameters.
    pub(super) fn fpr_after(&self, n0: u64, n: u64) -> f64 {
        match &self.table {
            Some(table) => table.fpr(n),
            None => peer_sizing(n0).fpr_after(n),
        }
    }

    /// Bits of the tables theory allocates once `n` distinct items are in.
    pub(super) fn bits_after(&self, n0: u64, n: u64) -> Result<u64, Error> {
        match &self.table {
            Some(table) => {
                let bytes = table
                    .grown_bytes(n)
                    .map_err(Error::filter("growth: memory theory"))?
                    .ok_or_else(|| Error::Invariant(format!("{} does not grow", self.name)))?;
                u64::try_from(bytes * 8).map_err(Error::size("growth: bits"))
            }
            None => Ok(peer_sizing(n0).layers(n).iter().map(|l| l.bytes * 8).sum()),
        }
    }

    /// A new filter for `n0` items at the target, keyed by `seed` (the peer
    /// takes no key: its instances differ by their items alone).
    pub(super) fn build(&self, n0: u64, seed: u64) -> Result<Grower, Error> {
        let n0_items = usize::try_from(n0).map_err(Error::size("growth: initial capacity"))?;
        Ok(match &self.kind {
            Kind::Variant(v) => {
                let build = v
                    .empty()
                    .ok_or_else(|| Error::Invariant(format!("{} is not built empty", v.id)))?;
                Grower::Any(build(n0_items, TARGET, seed).map_err(Error::filter(v.id))?)
            }
            Kind::Preset => Grower::Any(Box::new(
                ScalableBloomFilter::<u64>::builder(n0_items, TARGET)
                    .seed(seed)
                    .redisbloom()
                    .build()
                    .map_err(Error::filter("growth: preset"))?,
            )),
            Kind::Peer => Grower::Peer(Growable::new(peer_sizing(n0))),
        })
    }
}

/// A filter under test.
pub(super) enum Grower {
    Any(Box<dyn AnyFilter<u64>>),
    Peer(Growable),
}

impl Grower {
    pub(super) fn insert(&mut self, key: u64) -> Result<(), Error> {
        match self {
            Grower::Any(f) => f
                .as_membership()
                .ok_or_else(|| Error::Invariant("growth: a filter that takes no inserts".into()))?
                .insert(&key),
            Grower::Peer(f) => f.insert(&key),
        }
        .map(drop)
        .map_err(Error::filter("growth: insert"))
    }

    pub(super) fn contains(&self, key: u64) -> bool {
        match self {
            Grower::Any(f) => f.contains(&key),
            Grower::Peer(f) => f.contains(&key),
        }
    }

    /// Theory's rate for the filter as it is: its own parameters' theory at
    /// the items it recorded (the items it added: an insert reported
    /// present adds none); the peer's compound rate of its layers.
    pub(super) fn theory(&self) -> f64 {
        match self {
            Grower::Any(f) => f.table().fpr(f.len() as u64),
            Grower::Peer(f) => f.expected_fpr(),
        }
    }

    /// Bits of its tables.
    pub(super) fn bits(&self) -> u64 {
        match self {
            Grower::Any(f) => f.memory_bytes() as u64 * 8,
            Grower::Peer(f) => f.layers().iter().map(|l| l.bytes * 8).sum(),
        }
    }

    /// Cache lines a miss reads at most: every layer's (a slice of the
    /// peer's layer is a line).
    pub(super) fn lines(&self) -> u64 {
        match self {
            Grower::Any(f) => f.lookup_lines() as u64,
            Grower::Peer(f) => f.layers().iter().map(|l| l.slices).sum(),
        }
    }
}
