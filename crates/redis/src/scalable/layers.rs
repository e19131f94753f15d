//! [`Layers`]: what a handle knows of a scalable filter's layers, and the
//! operations that read its metadata.

use std::collections::HashMap;
use std::fmt;

use bloomlab_core::DefaultHasher;
use bloomlab_core::theory::{blocked, scalable};
use redis::{Value, cmd};

use super::ScalableOptions;
use crate::admin::Info;
use crate::conn::{Op, Replies};
use crate::error::Error;
use crate::layout::{self, BLOCK_CELLS, Cell, Keys, Shards, Table};
use crate::meta::{Kind, MAX_COUNT, MAX_LAYERS, Meta, Reader, SCALABLE_STATE, State, check_state};
use crate::ops::{self, Guarded, OneRound, single};
use crate::table::{Options, check_design};
use crate::variant::{Counted, Inner, Scalable, Variant};

/// The parameters and the layers a handle knows of.
#[derive(Debug, Clone)]
pub struct Layers {
    pub(super) keys: Keys,
    meta: Meta,
    pub(super) hasher: DefaultHasher,
    /// `n0` and `P`.
    initial: u64,
    fpr: f64,
    growth: u32,
    tightening: f64,
    /// Geometry of every layer computed so far.
    tables: Vec<Table>,
    /// Layers open in Redis, as last seen.
    pub(super) known: u32,
    /// The most bytes the layers may take together.
    max_bytes: u64,
    /// The fixed fields' checksum, which the counts' checksum covers.
    meta_checksum: Option<String>,
}

/// The counts a scalable filter's metadata holds, as read: the numbers, and
/// their text, which a write compares before it changes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Counts {
    pub(super) layers: u32,
    pub(super) count: u64,
    pub(super) inserts: u64,
    pub(super) text: [String; 3],
}

/// The metadata fields a read round takes: the counts, their checksum,
/// and the fixed fields' checksum that goes into it.
pub(super) const COUNTS: [&str; 5] = ["layers", "count", "inserts", "state", "checksum"];

/// How many times a batch re-reads the layers when other writers changed
/// them between its read and its write, before it adds its items one
/// script each (which no writer can hold back).
pub(super) const WRITE_ATTEMPTS: u32 = 4;

impl Layers {
    pub(super) fn capacity(&self, i: u32) -> Result<u64, Error> {
        scalable::layer_capacity(self.initial, self.growth, i).ok_or(Error::Full)
    }

    /// Layer `i`'s table: blocked sizing of its capacity at its rate.
    /// [`Error::Full`] past the layers `u64` capacities and `f64` rates
    /// can describe, [`Error::OverLimit`] when the layers through `i` take
    /// more than the limit.
    pub(super) fn table(&mut self, i: u32) -> Result<Table, Error> {
        if i >= MAX_LAYERS {
            return Err(Error::Full);
        }
        while self.tables.len() <= i as usize {
            let j = self.tables.len() as u32;
            let rate = scalable::layer_fpr(self.fpr, self.tightening, j);
            let (blocks, hashes) =
                blocked::size_for(BLOCK_CELLS, self.capacity(j)?, rate).map_err(|_| Error::Full)?;
            let shard = usize::try_from(self.meta.max_shard_bytes).unwrap_or(usize::MAX);
            let table = Table::new(blocks, hashes, Cell::Bit, shard).map_err(|_| Error::Full)?;
            let bytes: u64 = self.tables.iter().map(Table::bytes).sum::<u64>() + table.bytes();
            crate::meta::fits(self.keys.name(), bytes, self.max_bytes)?;
            self.tables.push(table);
        }
        Ok(self.tables[i as usize])
    }

    /// The shard keys of layer `i`.
    pub(super) fn shards(&self, i: u32) -> Shards {
        Shards::of_layer(&self.keys, i)
    }

    /// The error for a metadata field of this filter.
    pub(super) fn corrupt(&self, field: &'static str, value: impl ToString, reason: &str) -> Error {
        Error::CorruptMetadata {
            key: self.keys.meta(),
            field,
            value: Some(value.to_string()),
            reason: reason.to_owned(),
        }
    }

    /// Checks counts read from Redis against the layers: every layer
    /// counted has a table within the limit, the active layer holds at most
    /// its capacity, and the inserts are at least the items added.
    fn check_counts(&mut self, layers: u32, count: u64, inserts: u64) -> Result<(), Error> {
        for i in 0..layers {
            match self.table(i) {
                Ok(_) => {}
                Err(Error::Full) => {
                    return Err(self.corrupt("layers", layers, "more than the filter can have"));
                }
                Err(e) => return Err(e),
            }
        }
        let active = self.capacity(layers - 1)?;
        if count > active {
            let why = format!("more than the active layer's capacity, {active}");
            return Err(self.corrupt("count", count, &why));
        }
        let closed =
            (0..layers - 1).try_fold(0u64, |sum, i| sum.checked_add(self.capacity(i).ok()?));
        match closed.and_then(|c| c.checked_add(count)) {
            Some(added) if inserts >= added => Ok(()),
            _ => Err(self.corrupt("inserts", inserts, "fewer than the items the layers hold")),
        }
    }

    /// Takes in a layer count a script read: layers are never closed, so
    /// fewer than this handle saw before is a count lowered by hand, which
    /// no retry would mend.
    pub(super) fn saw(&mut self, layers: i64) -> Result<(), Error> {
        if layers < i64::from(self.known) || layers > i64::from(MAX_LAYERS) {
            let why = format!("not a count of layers from {} on", self.known);
            return Err(self.corrupt("layers", layers, &why));
        }
        self.known = layers as u32;
        Ok(())
    }

    /// Reads the reply to `HMGET meta layers count inserts`.
    pub(super) fn read_counts(&mut self, reply: &Value) -> Result<Counts, Error> {
        let meta = self.keys.meta();
        layout::check(&meta, reply)?;
        let Value::Array(values) = reply else {
            return Err(layout::unexpected(&meta, reply));
        };
        if values.iter().all(|v| *v == Value::Nil) {
            return Err(Error::NotFound {
                name: self.keys.name().to_owned(),
            });
        }
        let mut hash = HashMap::new();
        for (field, v) in COUNTS.iter().zip(values) {
            if let Ok(text) = redis::from_redis_value_ref::<String>(v) {
                hash.insert((*field).to_owned(), text);
            }
        }
        let r = Reader::new(&meta, &hash);
        let layers = r.int("layers", 1..=u64::from(MAX_LAYERS))? as u32;
        let count = r.int("count", 0..=MAX_COUNT)?;
        let inserts = r.int("inserts", 0..=MAX_COUNT)?;
        check_state(&meta, &hash, &SCALABLE_STATE)?;
        if hash.get("checksum") != self.meta_checksum.as_ref() {
            let stored = hash.get("checksum").map(String::as_str);
            return Err(r.corrupt(
                "checksum",
                stored,
                "not the one of the filter this handle opened",
            ));
        }
        self.check_counts(layers, count, inserts)?;
        let text = ["layers", "count", "inserts"].map(|f| hash.remove(f).unwrap_or_default());
        Ok(Counts {
            layers,
            count,
            inserts,
            text,
        })
    }
}

impl Layers {
    /// Reads the metadata's counts, takes in the layer count, then runs
    /// the op `next` makes of the state.
    fn after_state<B: Op<Error = Error>>(
        &mut self,
        next: impl FnOnce(&mut Self, State) -> Result<B, Error>,
    ) -> impl Op<Output = B::Output, Error = Error> {
        ops::and_then(self.state(), move |state| {
            self.check_counts(state.layers, state.count, state.inserts)?;
            self.known = self.known.max(state.layers);
            next(self, state)
        })
    }

    /// Items added to the layers, as the scripts counted them.
    pub(crate) fn count(&mut self) -> impl Op<Output = u64, Error = Error> {
        self.after_state(|layers, state| Ok(ops::done(layers.loads(&state)?.iter().sum())))
    }

    /// Layers open now.
    pub(crate) fn num_layers(&mut self) -> impl Op<Output = u32, Error = Error> {
        self.after_state(|_, state| Ok(ops::done(state.layers)))
    }

    /// The items the layers open now hold, estimated from `BITCOUNT`.
    pub(crate) fn estimate_count(&mut self) -> impl Op<Output = f64, Error = Error> {
        self.after_state(|layers, state| layers.estimate(state.layers))
    }

    /// Reads the metadata, checksum included.
    fn state(&self) -> impl Op<Output = State, Error = Error> + use<> {
        let meta = self.keys.meta();
        let name = self.keys.name().to_owned();
        OneRound::new(vec![cmd("HGETALL").arg(&meta).take()], move |r: Replies| {
            let hash = ops::read_hash(&meta, &single(r)?)?.ok_or(Error::NotFound { name })?;
            Meta::parse(&meta, &hash).map(|(_, s)| s)
        })
    }

    /// Items in each open layer, exactly as the scripts counted them.
    fn loads(&self, state: &State) -> Result<Vec<u64>, Error> {
        (0..state.layers)
            .map(|i| {
                if i + 1 == state.layers {
                    Ok(state.count)
                } else {
                    self.capacity(i)
                }
            })
            .collect()
    }

    /// `1 − Π (1 − ε_i)` over the layers at their counts in `state`.
    fn fpr_of(&mut self, state: &State) -> Result<f64, Error> {
        let loads = self.loads(state)?;
        let mut rates = Vec::with_capacity(loads.len());
        for (i, n) in loads.into_iter().enumerate() {
            let t = self.table(i as u32)?;
            rates.push(blocked::fpr_exact(BLOCK_CELLS, t.blocks, n, t.hashes));
        }
        Ok(scalable::compound_fpr(rates))
    }

    /// `BITCOUNT` of the blocks of every shard of the first `layers` layers,
    /// each shard's guard checked, read as an estimate of the items they
    /// hold.
    fn estimate(
        &mut self,
        layers: u32,
    ) -> Result<impl Op<Output = f64, Error = Error> + use<>, Error> {
        let tables = (0..layers)
            .map(|i| Ok((self.table(i)?, self.shards(i))))
            .collect::<Result<_, Error>>()?;
        Ok(ops::estimate_count(tables))
    }

    /// Every key of the first `layers` layers, metadata first.
    fn keys_of(&mut self, layers: u32) -> Result<Vec<String>, Error> {
        let mut keys = vec![self.keys.meta()];
        for i in 0..layers {
            let t = self.table(i)?;
            let shards = self.shards(i);
            keys.extend((0..t.shards()).map(|s| shards.key(s)));
        }
        Ok(keys)
    }

    pub(crate) fn target_fpr(&self) -> f64 {
        self.fpr
    }

    pub(crate) fn initial_capacity(&self) -> u64 {
        self.initial
    }
}

/// The scalable filter: its keys under the hash tag `{name}`, its counts
/// checked against its layers when it opens.
impl Variant for Scalable {
    type Inner = Layers;
    type Meta = Meta;
    type Options = ScalableOptions;
    const NAME: &'static str = "RedisScalableBloomFilter";

    /// `items` is the first layer's capacity; the layers together keep
    /// `fpr`.
    fn plan(
        item: String,
        items: usize,
        fpr: f64,
        options: &ScalableOptions,
    ) -> Result<(Meta, u64), Error> {
        check_design(items, fpr)?;
        if !bloomlab_scalable::GROWTH_FACTORS.contains(&options.growth) {
            return Err(Error::GrowthFactor(options.growth));
        }
        if !(options.tightening > 0.0 && options.tightening < 1.0) {
            return Err(Error::TighteningRatio(options.tightening));
        }
        let rate = scalable::layer_fpr(fpr, options.tightening, 0);
        let growth = Some((options.growth, options.tightening));
        let wanted = options
            .table
            .meta(Kind::Scalable, item, (items, fpr), rate, growth)?;
        let max_shard_bytes = options.table.get_max_shard_bytes();
        let first = Table::new(wanted.blocks, wanted.hashes, Cell::Bit, max_shard_bytes)?;
        Ok((wanted, first.bytes()))
    }

    fn table_options(options: &ScalableOptions) -> &Options {
        &options.table
    }

    fn keys(name: &str) -> Result<Keys, Error> {
        Keys::tagged(name)
    }

    /// Its first layer must fit `max_bytes`.
    fn from_meta(keys: Keys, meta: Meta, item: &str, max_bytes: u64) -> Result<Layers, Error> {
        meta.expect(keys.name(), Kind::Scalable, item)?;
        // `Meta::parse` checked that a scalable filter has both.
        let ((initial, fpr), (growth, tightening)) =
            meta.design
                .zip(meta.growth)
                .ok_or_else(|| Error::CorruptMetadata {
                    key: keys.meta(),
                    field: "items",
                    value: None,
                    reason: "missing".to_owned(),
                })?;
        let mut layers = Layers {
            hasher: DefaultHasher::with_function(meta.hash, meta.key),
            keys,
            meta,
            initial,
            fpr,
            growth,
            tightening,
            tables: Vec::new(),
            known: 1,
            max_bytes,
            meta_checksum: None,
        };
        layers.meta_checksum = Some(layers.meta.checksum());
        let first = match layers.table(0) {
            Err(Error::Full) => None,
            Err(e) => return Err(e),
            Ok(t) => Some(t),
        };
        if first.map(|t| (t.blocks, t.hashes)) != Some((layers.meta.blocks, layers.meta.hashes)) {
            let blocks = layers.meta.blocks;
            return Err(layers.corrupt("blocks", blocks, "not the first layer's size"));
        }
        Ok(layers)
    }

    /// Its counts checked against the layers.
    fn ready(mut layers: Layers, state: State) -> Result<Layers, Error> {
        layers.check_counts(state.layers, state.count, state.inserts)?;
        layers.known = state.layers;
        Ok(layers)
    }
}

/// Every insert, duplicates included, as the in-memory filter's `len`.
impl Counted for Scalable {
    fn len(layers: &mut Layers) -> impl Op<Output = u64, Error = Error> {
        layers.after_state(|_, state| Ok(ops::done(state.inserts)))
    }
}

impl Inner for Layers {
    fn keys(&self) -> &Keys {
        &self.keys
    }

    fn parameters(&self, d: &mut fmt::DebugStruct<'_, '_>) {
        d.field("initial_capacity", &self.initial)
            .field("fpr", &self.fpr)
            .field("layers", &self.known);
    }

    /// Every key of the layers open now, metadata first; a layer opened
    /// later takes the metadata's time to live.
    fn all_keys(&mut self) -> impl Op<Output = Vec<String>, Error = Error> {
        self.after_state(|layers, state| Ok(ops::done(layers.keys_of(state.layers)?)))
    }

    /// `1 − Π (1 − ε_i)` over the layers open now at their counts.
    fn expected_fpr(&mut self) -> impl Op<Output = f64, Error = Error> {
        self.after_state(|layers, state| Ok(ops::done(layers.fpr_of(&state)?)))
    }

    /// What the filter is and holds: its counts and layers, and the items
    /// the layers' cells say they hold.
    fn info(&mut self) -> impl Op<Output = Info, Error = Error> {
        self.after_state(|layers, state| {
            let estimate = layers.estimate(state.layers)?;
            let mut bytes = 0;
            let mut shards = 0;
            let mut capacity = 0u64;
            for i in 0..state.layers {
                let t = layers.table(i)?;
                bytes += t.bytes();
                shards += t.shards();
                capacity = capacity.saturating_add(layers.capacity(i)?);
            }
            let expected_fpr = layers.fpr_of(&state)?;
            let (name, meta) = (layers.name().to_owned(), layers.meta.clone());
            Ok(ops::then(estimate, move |items| {
                Ok(Info {
                    name,
                    kind: meta.kind,
                    item: meta.item,
                    design: meta.design,
                    capacity: Some(capacity),
                    bytes,
                    shards,
                    layers: state.layers,
                    growth_factor: meta.growth.map(|(g, _)| g),
                    len: Some(state.inserts),
                    estimate_count: items,
                    expected_fpr,
                })
            }))
        })
    }
}

/// The shards a setup writes: the first layer's.
impl Guarded for Layers {
    fn num_shards(&self) -> u64 {
        self.tables.first().map_or(0, Table::shards)
    }

    fn shard_key(&self, s: u64) -> String {
        self.shards(0).key(s)
    }

    fn body_bytes(&self, s: u64) -> u64 {
        self.tables.first().map_or(0, |t| t.body_bytes(s))
    }
}
