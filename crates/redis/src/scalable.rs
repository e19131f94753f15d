//! [`RedisScalableBloomFilter`]: layers that open as the filter fills.

use std::borrow::Borrow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::DefaultHasher;
use bloomlab_core::theory::{blocked, scalable};
use redis::{Cmd, Value, cmd};

use crate::admin::{self, Info};
use crate::conn::{Connection, Failed, Op, Replies, drive};
use crate::error::{BatchError, Error};
use crate::insert::MASK_BLOCKS_PER_ITEM;
use crate::layout::{self, BLOCK_CELLS, Cell, Keys, Location, Shards, Table};
use crate::meta::{Kind, MAX_COUNT, MAX_LAYERS, Meta, Reader, SCALABLE_STATE, State, check_state};
use crate::ops::{self, Batches, OneRound, Setup, Start, evalsha, single};
use crate::scripts;
use crate::shared::{Shared, Source};
use crate::table::{Options, check_design, within};

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
    table: Options,
    growth: u32,
    tightening: f64,
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
    /// is refused with [`Error::OverLimit`].
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

/// The parameters and the layers a handle knows of.
#[derive(Debug, Clone)]
pub(crate) struct Layers {
    keys: Keys,
    meta: Meta,
    hasher: DefaultHasher,
    /// `n0` and `P`.
    initial: u64,
    fpr: f64,
    growth: u32,
    tightening: f64,
    /// Geometry of every layer computed so far.
    tables: Vec<Table>,
    /// Layers open in Redis, as last seen.
    known: u32,
    /// The most bytes the layers may take together.
    max_bytes: u64,
    /// The fixed fields' checksum, which the counts' checksum covers.
    meta_checksum: Option<String>,
}

/// The counts a scalable filter's metadata holds, as read: the numbers, and
/// their text, which a write compares before it changes them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Counts {
    layers: u32,
    count: u64,
    inserts: u64,
    text: [String; 3],
}

/// The metadata fields a read round takes: the counts, their checksum,
/// and the fixed fields' checksum that goes into it.
const COUNTS: [&str; 5] = ["layers", "count", "inserts", "state", "checksum"];

/// How many times a batch re-reads the layers when other writers changed
/// them between its read and its write, before it adds its items one
/// script each (which no writer can hold back).
const WRITE_ATTEMPTS: u32 = 4;

impl Layers {
    fn capacity(&self, i: u32) -> Result<u64, Error> {
        scalable::layer_capacity(self.initial, self.growth, i).ok_or(Error::Full)
    }

    /// Layer `i`'s table: blocked sizing of its capacity at its rate.
    /// [`Error::Full`] past the layers `u64` capacities and `f64` rates
    /// can describe, [`Error::OverLimit`] when the layers through `i` take
    /// more than the limit.
    fn table(&mut self, i: u32) -> Result<Table, Error> {
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
            if bytes > self.max_bytes {
                return Err(Error::OverLimit {
                    name: self.keys.name().to_owned(),
                    bytes,
                    limit: self.max_bytes,
                });
            }
            self.tables.push(table);
        }
        Ok(self.tables[i as usize])
    }

    /// The shard keys of layer `i`.
    fn shards(&self, i: u32) -> Shards {
        Shards::of_layer(&self.keys, i)
    }

    /// The error for a metadata field of this filter.
    fn corrupt(&self, field: &'static str, value: impl ToString, reason: &str) -> Error {
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
    fn saw(&mut self, layers: i64) -> Result<(), Error> {
        if layers < i64::from(self.known) || layers > i64::from(MAX_LAYERS) {
            let why = format!("not a count of layers from {} on", self.known);
            return Err(self.corrupt("layers", layers, &why));
        }
        self.known = layers as u32;
        Ok(())
    }

    /// Reads the reply to `HMGET meta layers count inserts`.
    fn read_counts(&mut self, reply: &Value) -> Result<Counts, Error> {
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
    /// The op that creates filter `name` (or opens it if it exists with the
    /// same parameters) and ends with its layers; its parameters are checked
    /// before any command is sent.
    pub(crate) fn create(
        name: &str,
        item: String,
        initial_capacity: usize,
        fpr: f64,
        options: &ScalableOptions,
    ) -> Result<impl Op<Output = Self, Error = Error> + use<>, Error> {
        let keys = Keys::tagged(name)?;
        check_design(initial_capacity, fpr)?;
        if !bloomlab_scalable::GROWTH_FACTORS.contains(&options.growth) {
            return Err(Error::GrowthFactor(options.growth));
        }
        if !(options.tightening > 0.0 && options.tightening < 1.0) {
            return Err(Error::TighteningRatio(options.tightening));
        }
        let rate = scalable::layer_fpr(fpr, options.tightening, 0);
        let growth = Some((options.growth, options.tightening));
        let wanted = options.table.meta(
            Kind::Scalable,
            item.clone(),
            (initial_capacity, fpr),
            rate,
            growth,
        )?;
        let max_shard_bytes = options.table.get_max_shard_bytes();
        let first = Table::new(wanted.blocks, wanted.hashes, Cell::Bit, max_shard_bytes)?;
        within(first.bytes(), options.table.get_max_bytes())?;
        let start = Start::Create(wanted, options.table.get_seed().is_some());
        Ok(Self::start(
            keys,
            start,
            item,
            options.table.get_max_bytes(),
        ))
    }

    /// The op that opens the existing filter `name` of items `item`, whose
    /// layers may take up to `max_bytes`.
    pub(crate) fn open(
        name: &str,
        item: String,
        max_bytes: u64,
    ) -> Result<impl Op<Output = Self, Error = Error> + use<>, Error> {
        Ok(Self::start(
            Keys::tagged(name)?,
            Start::Open,
            item,
            max_bytes,
        ))
    }

    /// The setup of `keys` from `start`, ending with the layers. It writes
    /// the metadata and the first layer's shards; later layers' shards are
    /// written when they open.
    fn start(
        keys: Keys,
        start: Start,
        item: String,
        max_bytes: u64,
    ) -> impl Op<Output = Self, Error = Error> + use<> {
        let check = {
            let keys = keys.clone();
            move |m: &Meta| {
                let mut layers = Self::from_meta(keys.clone(), m.clone(), &item, max_bytes)?;
                Ok(Some((layers.table(0)?, layers.shards(0))))
            }
        };
        let setup = Setup::new(&keys, start, check);
        ops::then(setup, move |(meta, state)| {
            let item = meta.item.clone();
            let mut layers = Self::from_meta(keys, meta, &item, max_bytes)?;
            layers.check_counts(state.layers, state.count, state.inserts)?;
            layers.known = state.layers;
            Ok(layers)
        })
    }

    /// The layers `meta` describes, if it is a scalable filter of items
    /// `item` whose first layer fits `max_bytes`.
    fn from_meta(keys: Keys, meta: Meta, item: &str, max_bytes: u64) -> Result<Self, Error> {
        let mismatch = |field, existing: String, requested: String| Error::Mismatch {
            name: keys.name().to_owned(),
            field,
            existing,
            requested,
        };
        if meta.kind != Kind::Scalable {
            let existing = format!("{:?}", meta.kind);
            return Err(mismatch("kind", existing, "Scalable".to_owned()));
        }
        if meta.item != item {
            return Err(mismatch("item", meta.item.clone(), item.to_owned()));
        }
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

    /// Every insert, duplicates included.
    pub(crate) fn inserts(&mut self) -> impl Op<Output = u64, Error = Error> {
        self.after_state(|_, state| Ok(ops::done(state.inserts)))
    }

    /// Layers open now.
    pub(crate) fn num_layers(&mut self) -> impl Op<Output = u32, Error = Error> {
        self.after_state(|_, state| Ok(ops::done(state.layers)))
    }

    /// `1 − Π (1 − ε_i)` over the layers open now at their counts.
    pub(crate) fn expected_fpr(&mut self) -> impl Op<Output = f64, Error = Error> {
        self.after_state(|layers, state| Ok(ops::done(layers.fpr_of(&state)?)))
    }

    /// The items the layers open now hold, estimated from `BITCOUNT`.
    pub(crate) fn estimate_count(&mut self) -> impl Op<Output = f64, Error = Error> {
        self.after_state(|layers, state| layers.estimate(state.layers))
    }

    /// Deletes the metadata, then every shard of the layers open now.
    pub(crate) fn delete(&mut self) -> impl Op<Output = (), Error = Error> {
        self.after_state(|layers, state| layers.delete_layers(state.layers))
    }

    /// Every key of the layers open now, metadata first.
    fn all_keys(&mut self, layers: u32) -> Result<Vec<String>, Error> {
        let mut keys = vec![self.keys.meta()];
        for i in 0..layers {
            let t = self.table(i)?;
            let shards = self.shards(i);
            keys.extend((0..t.shards()).map(|s| shards.key(s)));
        }
        Ok(keys)
    }

    /// Sets (or, for `None`, removes) the time to live of every key of the
    /// layers open now; a layer opened later takes the metadata's.
    pub(crate) fn expire(
        &mut self,
        ttl: Option<std::time::Duration>,
    ) -> impl Op<Output = (), Error = Error> {
        self.after_state(move |layers, state| {
            let keys = layers.all_keys(state.layers)?;
            Ok(admin::expire(layers.name().to_owned(), keys, ttl))
        })
    }

    /// The least time to live of the keys of the layers open now.
    pub(crate) fn ttl(&mut self) -> impl Op<Output = Option<std::time::Duration>, Error = Error> {
        self.after_state(|layers, state| {
            let keys = layers.all_keys(state.layers)?;
            Ok(admin::ttl(layers.name().to_owned(), keys))
        })
    }

    /// What the filter is and holds: its counts and layers, and the items
    /// the layers' cells say they hold.
    pub(crate) fn info(&mut self) -> impl Op<Output = Info, Error = Error> {
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
        let mut cmds = Vec::new();
        let mut tables = Vec::new();
        for i in 0..layers {
            let t = self.table(i)?;
            let shards = self.shards(i);
            for s in 0..t.shards() {
                let key = shards.key(s);
                let body = (t.blocks_in(s) * t.block_bytes()) as i64;
                cmds.push(cmd("BITCOUNT").arg(&key).arg(0).arg(body - 1).take());
                cmds.push(t.guard_read_cmd(&key, s));
            }
            tables.push((t, shards));
        }
        Ok(OneRound::new(cmds, move |r: Replies| {
            let values = r.map_err(|f| Error::from_redis(f.error))?;
            let mut replies = values.chunks(2);
            let mut total = 0.0;
            for (t, shards) in &tables {
                let mut set = 0;
                for s in 0..t.shards() {
                    let key = shards.key(s);
                    let Some([bits, guard]) = replies.next() else {
                        return Err(layout::unexpected(&key, &Value::Nil));
                    };
                    layout::check(&key, bits)?;
                    t.guard_intact(&key, guard)?;
                    match bits {
                        Value::Int(n) => set += *n as u64,
                        v => return Err(layout::unexpected(&key, v)),
                    }
                }
                total += ops::estimate_items(t, set);
            }
            Ok(total)
        }))
    }

    /// Deletes the metadata, then every shard of the first `layers` layers.
    fn delete_layers(
        &mut self,
        layers: u32,
    ) -> Result<impl Op<Output = (), Error = Error> + use<>, Error> {
        let mut keys = vec![self.keys.meta()];
        for i in 0..layers {
            let t = self.table(i)?;
            let shards = self.shards(i);
            keys.extend((0..t.shards()).map(|s| shards.key(s)));
        }
        Ok(ops::delete(keys))
    }

    /// Writes the filter's `Debug` form as `name`.
    pub(crate) fn describe(&self, f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
        f.debug_struct(name)
            .field("name", &self.keys.name())
            .field("initial_capacity", &self.initial)
            .field("fpr", &self.fpr)
            .field("layers", &self.known)
            .finish()
    }

    pub(crate) fn name(&self) -> &str {
        self.keys.name()
    }

    pub(crate) fn target_fpr(&self) -> f64 {
        self.fpr
    }

    pub(crate) fn initial_capacity(&self) -> u64 {
        self.initial
    }

    pub(crate) fn hasher(&self) -> &DefaultHasher {
        &self.hasher
    }
}

/// One read round of a batch: the counts, the blocks of some of its items
/// in every layer known, the guards of the shards they lie in, whether a
/// layer past those exists, and the counts again.
struct Read {
    /// The batch indexes of the items read, in order.
    items: Vec<usize>,
    /// The layers read.
    layers: u32,
    /// Each item's location in each layer, `items.len() × layers`.
    at: Vec<Location>,
    /// The data reads, in the order sent.
    reads: Vec<Range>,
    /// Where each item's block in each layer is: (read, byte offset),
    /// `items.len() × layers`.
    cells: Vec<(usize, usize)>,
    /// The (layer, shard) pairs whose guards were read.
    guards: Vec<(u32, u64)>,
}

/// One `GETRANGE` of blocks `first..=last` of a shard of a layer: a span
/// (`dense`) or one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    layer: u32,
    shard: u64,
    first: u64,
    last: u64,
    dense: bool,
}

/// What a read round found: the blocks read, and the counts before and
/// after they were read.
struct Found {
    /// The bytes of each of [`Read::reads`], checked for length.
    bytes: Vec<Vec<u8>>,
    /// The counts read first: every write after them changes them, so a
    /// write planned on these blocks is sound while they stand.
    before: Counts,
    /// The counts read last: a layer opened since the read shows here.
    after: Counts,
}

impl Found {
    /// The block of cell `cell` (an item in a layer) of `read`.
    fn block<'a>(&'a self, read: &Read, cell: usize, block_bytes: u64) -> &'a [u8] {
        let (r, at) = read.cells[cell];
        &self.bytes[r][at..at + block_bytes as usize]
    }
}

impl Layers {
    /// The commands that read `items` (batch indexes into `hashes`) in the
    /// layers known. A shard whose part of the batch is dense (at most
    /// [`MASK_BLOCKS_PER_ITEM`] blocks of shard per item) is read as one
    /// span, and written as one mask; the others block by block.
    fn read(&mut self, hashes: &[u64], items: Vec<usize>) -> Result<(Vec<Cmd>, Read), Error> {
        let layers = self.known;
        let counts = cmd("HMGET").arg(self.keys.meta()).arg(&COUNTS).take();
        let cells = items.len() * layers as usize;
        let mut at = Vec::with_capacity(cells);
        // The cells of each (layer, shard), in order.
        let mut by_shard: BTreeMap<(u32, u64), Vec<usize>> = BTreeMap::new();
        for &i in &items {
            for j in 0..layers {
                let a = self.table(j)?.locate(hashes[i]);
                by_shard.entry((j, a.shard)).or_default().push(at.len());
                at.push(a);
            }
        }
        let mut reads = Vec::with_capacity(cells);
        let mut where_ = vec![(0, 0); cells];
        for (&(layer, shard), part) in &by_shard {
            let bb = self.table(layer)?.block_bytes();
            let first = part.iter().map(|&c| at[c].block).min().unwrap_or(0);
            let last = part.iter().map(|&c| at[c].block).max().unwrap_or(0);
            let shard_blocks = self.table(layer)?.blocks_in(shard);
            if shard_blocks <= MASK_BLOCKS_PER_ITEM * part.len() as u64 {
                for &c in part {
                    where_[c] = (reads.len(), ((at[c].block - first) * bb) as usize);
                }
                reads.push(Range {
                    layer,
                    shard,
                    first,
                    last,
                    dense: true,
                });
            } else {
                // One read per block, in block order: items sharing a block
                // share its read, so that a batch sees its own earlier
                // items and writes the block once.
                let mut blocks: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
                for &c in part {
                    blocks.entry(at[c].block).or_default().push(c);
                }
                for (block, cells) in blocks {
                    for c in cells {
                        where_[c] = (reads.len(), 0);
                    }
                    reads.push(Range {
                        layer,
                        shard,
                        first: block,
                        last: block,
                        dense: false,
                    });
                }
            }
        }
        let mut cmds = Vec::with_capacity(reads.len() + by_shard.len() + 3);
        cmds.push(counts.clone());
        for r in &reads {
            let bb = self.table(r.layer)?.block_bytes();
            let key = self.shards(r.layer).key(r.shard);
            let c = cmd("GETRANGE")
                .arg(key)
                .arg(r.first * bb)
                .arg((r.last + 1) * bb - 1)
                .take();
            cmds.push(c);
        }
        for &(j, s) in by_shard.keys() {
            let key = self.shards(j).key(s);
            cmds.push(self.table(j)?.guard_read_cmd(&key, s));
        }
        // The layer past the known ones must not exist unless the count
        // read after it says so: read first, counted second.
        cmds.push(cmd("EXISTS").arg(self.shards(layers).key(0)).take());
        cmds.push(counts);
        let read = Read {
            items,
            layers,
            at,
            reads,
            cells: where_,
            guards: by_shard.into_keys().collect(),
        };
        Ok((cmds, read))
    }

    /// Reads the replies to [`read`](Self::read)'s commands.
    fn found(&mut self, read: &Read, replies: Replies) -> Result<Found, Error> {
        let meta = self.keys.meta();
        let values = replies.map_err(|f| Error::from_redis(f.error))?;
        let data = read.reads.len();
        if values.len() != data + read.guards.len() + 3 {
            return Err(layout::unexpected(&meta, &Value::Array(values)));
        }
        let before = self.read_counts(&values[0])?;
        let (ranges, rest) = values[1..].split_at(data);
        let (guards, rest) = rest.split_at(read.guards.len());
        for (&(j, s), reply) in read.guards.iter().zip(guards) {
            let key = self.shards(j).key(s);
            self.table(j)?.guard_intact(&key, reply)?;
        }
        let mut bytes = Vec::with_capacity(data);
        for (r, reply) in read.reads.iter().zip(ranges) {
            let key = self.shards(r.layer).key(r.shard);
            let want = (r.last - r.first + 1) * self.table(r.layer)?.block_bytes();
            layout::check(&key, reply)?;
            match reply {
                Value::BulkString(b) if b.len() as u64 == want => bytes.push(b.clone()),
                Value::BulkString(_) | Value::Nil => return Err(Error::ShardMissing { key }),
                other => return Err(layout::unexpected(&key, other)),
            }
        }
        let next = self.shards(read.layers).key(0);
        layout::check(&next, &rest[0])?;
        let after = self.read_counts(&rest[1])?;
        let fewest = before.layers.min(after.layers);
        if fewest < read.layers || after.layers < before.layers {
            let why = format!("fewer than the {} layers seen before", read.layers);
            return Err(self.corrupt("layers", fewest, &why));
        }
        if after.layers == read.layers && rest[0] == Value::Int(1) {
            let why = format!("lower than the layers in Redis: {next:?} exists");
            return Err(self.corrupt("layers", after.layers, &why));
        }
        self.known = self.known.max(after.layers);
        Ok(Found {
            bytes,
            before,
            after,
        })
    }
}

impl Batches for Layers {
    fn hash<Q: Hash + ?Sized>(&self, item: &Q) -> u64 {
        self.hasher.hash_one(item)
    }

    fn insert(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = BatchError> {
        Insert::new(self, hashes, false)
    }

    fn lookup(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = Error> {
        Lookup {
            pending: (0..hashes.len()).collect(),
            answers: vec![None; hashes.len()],
            layers: self,
            hashes,
            read: None,
            error: None,
        }
    }
}

/// Looks up a batch: every layer's block of each item, read plainly; again
/// for the items not found when a layer opened meanwhile.
struct Lookup<'a> {
    layers: &'a mut Layers,
    hashes: Vec<u64>,
    pending: Vec<usize>,
    read: Option<Read>,
    answers: Vec<Option<bool>>,
    error: Option<Error>,
}

impl Op for Lookup<'_> {
    type Output = Vec<bool>;
    type Error = Error;

    fn commands(&mut self) -> Vec<Cmd> {
        if self.error.is_some() || self.pending.is_empty() {
            return Vec::new();
        }
        let items = std::mem::take(&mut self.pending);
        match self.layers.read(&self.hashes, items) {
            Ok((cmds, read)) => {
                self.read = Some(read);
                cmds
            }
            Err(e) => {
                self.error = Some(e);
                Vec::new()
            }
        }
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), Error> {
        let Some(read) = self.read.take() else {
            return Ok(());
        };
        let found = self.layers.found(&read, replies)?;
        let grew = found.after.layers > read.layers;
        let per = read.layers as usize;
        for (n, &i) in read.items.iter().enumerate() {
            let mut present = false;
            for j in 0..per {
                let table = self.layers.table(j as u32)?;
                let cell = n * per + j;
                let block = found.block(&read, cell, table.block_bytes());
                present |= table.all_set(&read.at[cell], block);
            }
            if present || !grew {
                self.answers[i] = Some(present);
            } else {
                self.pending.push(i);
            }
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<bool>, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        Ok(self.answers.into_iter().map(|a| a == Some(true)).collect())
    }
}

/// Where an [`Insert`] is.
enum Stage {
    /// Reading the pending items' blocks and the counts.
    Read(Option<Read>),
    /// Writing a plan made on what was read.
    Write(Option<Plan>),
    /// Opening layer `known` (the active one is full).
    Open,
    /// Adding the pending items one script each: the items sent, and each
    /// one's keys.
    EachItem(Vec<(usize, Vec<String>)>),
    /// Finished, or stopped by an error.
    Done,
}

/// A batch's items placed in the layers as read: the blocks they change,
/// and the answers, kept only once the write lands.
struct Plan {
    /// The items placed, in batch order, with their answers.
    placed: Vec<(usize, bool)>,
    /// The write's keys.
    keys: Vec<String>,
    /// The write, until sent.
    cmd: Option<Cmd>,
}

/// Inserts a batch, the way a batch of in-memory inserts would go: each
/// item added to the active layer unless a layer (or an earlier item of
/// the batch) already holds it, the next layer opened when the active one
/// is full. One round trip reads every item's block in every layer and the
/// counts; the client places the items; one script writes the changed
/// blocks if the counts have not moved meanwhile (another writer's insert
/// moves them), so that concurrent writers never overfill a layer. Moved:
/// read and place again; after [`WRITE_ATTEMPTS`] such rounds, the rest go
/// one script each.
pub(crate) struct Insert<'a> {
    layers: &'a mut Layers,
    hashes: Vec<u64>,
    pending: Vec<usize>,
    stage: Stage,
    attempts: u32,
    answers: Vec<Option<bool>>,
    /// Items whose write was sent but not answered.
    unknown: Vec<usize>,
    error: Option<Error>,
}

impl<'a> Insert<'a> {
    /// The insert of the items of `hashes`; `each`: one script per item
    /// from the start, as after [`WRITE_ATTEMPTS`] moved states.
    pub(crate) fn new(layers: &'a mut Layers, hashes: Vec<u64>, each: bool) -> Self {
        let n = hashes.len();
        Self {
            layers,
            hashes,
            pending: (0..n).collect(),
            stage: if each {
                Stage::EachItem(Vec::new())
            } else {
                Stage::Read(None)
            },
            attempts: if each { WRITE_ATTEMPTS } else { 0 },
            answers: vec![None; n],
            unknown: Vec::new(),
            error: None,
        }
    }

    /// Places the pending items on what `read` found, in batch order, until
    /// the active layer is full; the plan's write, or `None` when the first
    /// pending item needs a new layer.
    fn place(&mut self, read: &Read, found: &Found) -> Result<Option<Plan>, Error> {
        let per = read.layers as usize;
        let active = read.layers - 1;
        let table = self.layers.table(active)?;
        let bb = table.block_bytes();
        let capacity = self.layers.capacity(active)?;
        let count = found.before.count;
        // The active layer's reads the batch changes: their bytes with the
        // batch's bits, and the batch's bits alone.
        let mut changed: BTreeMap<usize, (Vec<u8>, Vec<u8>)> = BTreeMap::new();
        let mut placed = Vec::new();
        let mut added = 0;
        for (n, &i) in read.items.iter().enumerate() {
            let mut present = false;
            for j in 0..per {
                let cell = n * per + j;
                let t = self.layers.table(j as u32)?;
                let (r, off) = read.cells[cell];
                let block = match changed.get(&r) {
                    Some((bytes, _)) => &bytes[off..off + bb as usize],
                    None => found.block(read, cell, t.block_bytes()),
                };
                present |= t.all_set(&read.at[cell], block);
            }
            if !present {
                if count + added >= capacity {
                    break;
                }
                let cell = n * per + per - 1;
                let (r, off) = read.cells[cell];
                let (bytes, mask) = changed
                    .entry(r)
                    .or_insert_with(|| (found.bytes[r].clone(), vec![0; found.bytes[r].len()]));
                for &p in &read.at[cell].positions {
                    bytes[off + (p / 8) as usize] |= 1 << (p % 8);
                    mask[off + (p / 8) as usize] |= 1 << (p % 8);
                }
                added += 1;
            }
            placed.push((i, !present));
        }
        if placed.is_empty() {
            return Ok(None);
        }
        if found.before.inserts > MAX_COUNT - placed.len() as u64 {
            let why = "at the largest count Redis increments";
            return Err(self.layers.corrupt("inserts", found.before.inserts, why));
        }
        let shards = self.layers.shards(active);
        let mut keys = vec![self.layers.keys.meta(), self.layers.keys.scratch()];
        let mut args: Vec<Vec<u8>> = vec![
            found.before.text[0].clone().into(),
            added.to_string().into(),
            placed.len().to_string().into(),
            capacity.to_string().into(),
        ];
        // Per shard: its guard, then its changed reads: a span as a mask to
        // OR in, a block as its bytes before and after.
        let mut by_shard: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
        for &r in changed.keys() {
            by_shard.entry(read.reads[r].shard).or_default().push(r);
        }
        for (s, writes) in by_shard {
            keys.push(shards.key(s));
            args.push(keys.len().to_string().into());
            args.push((table.guard_offset(s) / 8).to_string().into());
            args.push(writes.len().to_string().into());
            for r in writes {
                let (bytes, mask) = changed.remove(&r).unwrap_or_default();
                let range = read.reads[r];
                let offset = (range.first * bb).to_string().into();
                if range.dense {
                    args.extend([b"O".to_vec(), offset, mask]);
                } else {
                    args.extend([b"C".to_vec(), offset, found.bytes[r].clone(), bytes]);
                }
            }
        }
        let cmd = evalsha(&scripts::SCALABLE_WRITE, &keys, args);
        Ok(Some(Plan {
            placed,
            keys,
            cmd: Some(cmd),
        }))
    }

    /// The script that opens layer `known`, with every shard's guard.
    fn open_cmd(&mut self) -> Result<(Vec<String>, Cmd), Error> {
        let layer = self.layers.known;
        let table = self.layers.table(layer)?;
        let capacity = self.layers.capacity(layer - 1)?;
        let shards = self.layers.shards(layer);
        let mut keys = vec![self.layers.keys.meta()];
        keys.extend((0..table.shards()).map(|s| shards.key(s)));
        let mut args = vec![u64::from(layer), capacity];
        args.extend((0..table.shards()).map(|s| table.guard_offset(s)));
        let cmd = evalsha(&scripts::SCALABLE_OPEN, &keys, args);
        Ok((keys, cmd))
    }

    /// The one-item script's keys and call for the item of hash `hash`.
    fn each_cmd(&mut self, hash: u64) -> Result<(Vec<String>, Cmd), Error> {
        let layers = self.layers.known;
        let mut keys = vec![self.layers.keys.meta()];
        let mut args: Vec<u64> = vec![u64::from(layers), self.layers.capacity(layers - 1)?];
        for j in 0..layers {
            let table = self.layers.table(j)?;
            let at = table.locate(hash);
            keys.push(self.layers.shards(j).key(at.shard));
            args.push(table.guard_offset(at.shard) / 8);
            args.push(at.positions.len() as u64);
            args.extend(at.cells(Cell::Bit));
        }
        let cmd = evalsha(&scripts::SCALABLE_INSERT, &keys, args);
        Ok((keys, cmd))
    }

    fn stop(&mut self, e: Error) {
        self.error.get_or_insert(e);
        self.stage = Stage::Done;
    }
}

impl Op for Insert<'_> {
    type Output = Vec<bool>;
    type Error = BatchError;

    fn commands(&mut self) -> Vec<Cmd> {
        let made = match &mut self.stage {
            Stage::Done => return Vec::new(),
            _ if self.pending.is_empty() => {
                self.stage = Stage::Done;
                return Vec::new();
            }
            Stage::Read(_) => {
                let items = self.pending.clone();
                self.layers.read(&self.hashes, items).map(|(cmds, read)| {
                    self.stage = Stage::Read(Some(read));
                    cmds
                })
            }
            Stage::Write(plan) => Ok(plan
                .as_mut()
                .and_then(|p| p.cmd.take())
                .into_iter()
                .collect()),
            Stage::Open => self.open_cmd().map(|(_, c)| vec![c]),
            Stage::EachItem(_) => {
                let mut sent = Vec::with_capacity(self.pending.len());
                let mut cmds = Vec::with_capacity(self.pending.len());
                let mut made = Ok(());
                for i in self.pending.clone() {
                    match self.each_cmd(self.hashes[i]) {
                        Ok((keys, c)) => {
                            sent.push((i, keys));
                            cmds.push(c);
                        }
                        Err(e) => {
                            made = Err(e);
                            break;
                        }
                    }
                }
                self.stage = Stage::EachItem(sent);
                made.map(|()| cmds)
            }
        };
        made.unwrap_or_else(|e| {
            self.stop(e);
            Vec::new()
        })
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), BatchError> {
        let stage = std::mem::replace(&mut self.stage, Stage::Done);
        let outcome = match stage {
            Stage::Read(Some(read)) => self.absorb_read(&read, replies),
            Stage::Write(Some(plan)) => self.absorb_write(plan, replies),
            Stage::Open => self.absorb_open(replies),
            Stage::EachItem(sent) => self.absorb_each(&sent, replies),
            Stage::Read(None) | Stage::Write(None) | Stage::Done => Ok(()),
        };
        if let Err(e) = outcome {
            self.stop(e);
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<bool>, BatchError> {
        match self.error {
            None if self.answers.iter().all(Option::is_some) => {
                Ok(self.answers.into_iter().map(|a| a == Some(true)).collect())
            }
            error => Err(BatchError {
                stored: (0..self.answers.len())
                    .filter(|&i| self.answers[i].is_some())
                    .collect(),
                unknown: self.unknown,
                source: Box::new(error.unwrap_or_else(|| {
                    layout::unexpected(self.layers.keys.meta().as_str(), &Value::Nil)
                })),
            }),
        }
    }
}

impl Insert<'_> {
    fn absorb_read(&mut self, read: &Read, replies: Replies) -> Result<(), Error> {
        let found = self.layers.found(read, replies)?;
        if found.before.layers > read.layers {
            // Another writer opened a layer: read the new one too.
            self.stage = Stage::Read(None);
            return Ok(());
        }
        self.stage = match self.place(read, &found)? {
            Some(plan) => Stage::Write(Some(plan)),
            None => Stage::Open,
        };
        Ok(())
    }

    fn absorb_write(&mut self, plan: Plan, replies: Replies) -> Result<(), Error> {
        let reply = match replies {
            Ok(mut v) if v.len() == 1 => v.remove(0),
            Ok(v) => return Err(layout::unexpected(&plan.keys[0], &Value::Array(v))),
            Err(f) => {
                // The write may or may not have landed.
                self.unknown.extend(plan.placed.iter().map(|&(i, _)| i));
                return Err(Error::from_redis(f.error));
            }
        };
        layout::script_error(&plan.keys, &reply)?;
        match reply {
            Value::Int(1) => {
                for &(i, new) in &plan.placed {
                    self.answers[i] = Some(new);
                }
                let done = plan.placed.len();
                self.pending.drain(..done);
                self.stage = Stage::Read(None);
            }
            Value::Int(0) => {
                self.attempts += 1;
                self.stage = if self.attempts >= WRITE_ATTEMPTS {
                    Stage::EachItem(Vec::new())
                } else {
                    Stage::Read(None)
                };
            }
            other => return Err(layout::unexpected(&plan.keys[0], &other)),
        }
        Ok(())
    }

    fn absorb_open(&mut self, replies: Replies) -> Result<(), Error> {
        let (keys, _) = self.open_cmd()?;
        let reply = single(replies)?;
        layout::script_error(&keys, &reply)?;
        match reply {
            Value::Int(n) => self.layers.saw(n)?,
            other => return Err(layout::unexpected(&keys[0], &other)),
        }
        self.stage = if self.attempts >= WRITE_ATTEMPTS {
            Stage::EachItem(Vec::new())
        } else {
            Stage::Read(None)
        };
        Ok(())
    }

    fn absorb_each(
        &mut self,
        sent: &[(usize, Vec<String>)],
        replies: Replies,
    ) -> Result<(), Error> {
        let meta = self.layers.keys.meta();
        let (values, lost) = match replies {
            Ok(v) => (v, None),
            Err(Failed { replies, error }) => (replies, Some(Error::from_redis(error))),
        };
        let mut again = Vec::new();
        let mut open = false;
        for ((i, keys), v) in sent.iter().zip(&values) {
            let i = *i;
            layout::script_error(keys, v)?;
            match *layout::int_array(&meta, v)?.as_slice() {
                [status @ (0 | 1), layers] => {
                    self.layers.saw(layers)?;
                    self.answers[i] = Some(status == 1);
                }
                [code @ (-1 | -2), layers] => {
                    self.layers.saw(layers)?;
                    open |= code == -2;
                    again.push(i);
                }
                _ => return Err(layout::unexpected(&meta, v)),
            }
        }
        if let Some(e) = lost {
            self.unknown
                .extend(sent[values.len()..].iter().map(|(i, _)| *i));
            return Err(e);
        }
        self.pending = again;
        self.stage = if open {
            Stage::Open
        } else {
            Stage::EachItem(Vec::new())
        };
        Ok(())
    }
}

/// A scalable Bloom filter kept in Redis: RedisBloom's `BF.RESERVE …
/// EXPANSION` on stock Redis. Layer `i` is a blocked Bloom filter for
/// `n0 · s^i` items at rate `P (1 − r) r^i`, so the layers together keep
/// rate `P` however many items arrive; each layer's capacity is counted
/// exactly (one script per insert checks every layer, adds the item to the
/// active one and opens the next when it is full), so concurrent writers
/// never overfill a layer. All keys share the hash tag `{name}`.
pub struct RedisScalableBloomFilter<T: ?Sized, C> {
    conn: C,
    layers: Layers,
    item: PhantomData<fn(&T)>,
}

/// A handle on the same filter over a clone of the connection.
impl<T: ?Sized, C: Clone> Clone for RedisScalableBloomFilter<T, C> {
    fn clone(&self) -> Self {
        self.on(self.conn.clone())
    }
}

impl<T: ?Sized, C> RedisScalableBloomFilter<T, C> {
    /// The same filter over `conn`, with no round trip (as
    /// [`RedisBloomFilter::on`](crate::RedisBlockedFilter::on)).
    pub fn on<C2>(&self, conn: C2) -> RedisScalableBloomFilter<T, C2> {
        RedisScalableBloomFilter {
            conn,
            layers: self.layers.clone(),
            item: PhantomData,
        }
    }
}

/// Lookups and inserts of a filter shared among threads: each takes a
/// connection from the source (and starts from the layers this handle
/// last saw: one more round trip when others opened layers since).
impl<T: ?Sized, S: Source> RedisScalableBloomFilter<T, Shared<S>> {
    /// [`insert`](RedisScalableBloomFilter::insert) on a connection of the
    /// source.
    ///
    /// # Errors
    ///
    /// As `insert`, and [`Error::Connection`] when the source has no
    /// connection to give.
    pub fn insert(&self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        let mut layers = self.layers.clone();
        drive(&mut self.conn.connection()?, layers.insert_one(item))
    }

    /// [`contains`](RedisScalableBloomFilter::contains) on a connection of
    /// the source.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        let mut layers = self.layers.clone();
        drive(&mut self.conn.connection()?, layers.contains_one(item))
    }

    /// [`insert_batch`](RedisScalableBloomFilter::insert_batch) on a
    /// connection of the source.
    ///
    /// # Errors
    ///
    /// As `insert_batch`; nothing is stored when the source has no
    /// connection to give.
    pub fn insert_batch(&self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        let mut layers = self.layers.clone();
        drive(&mut self.conn.batch_connection()?, layers.insert_all(items))
    }

    /// [`contains_batch`](RedisScalableBloomFilter::contains_batch) on a
    /// connection of the source.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        let mut layers = self.layers.clone();
        drive(&mut self.conn.connection()?, layers.contains_all(items))
    }
}

impl<T: ?Sized, C> fmt::Debug for RedisScalableBloomFilter<T, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.layers.describe(f, "RedisScalableBloomFilter")
    }
}

impl<T: ?Sized, C: Connection> RedisScalableBloomFilter<T, C> {
    /// Creates the filter `name` whose first layer holds
    /// `initial_capacity` items and whose layers together keep rate `fpr`,
    /// or opens it if it exists with the same parameters.
    ///
    /// # Errors
    ///
    /// As [`RedisBloomFilter::create`](crate::RedisBloomFilter::create).
    pub fn create(conn: C, name: &str, initial_capacity: usize, fpr: f64) -> Result<Self, Error> {
        Self::create_with(conn, name, initial_capacity, fpr, ScalableOptions::new())
    }

    /// [`create`](Self::create) with a seed, shard size, growth factor or
    /// tightening ratio.
    ///
    /// # Errors
    ///
    /// As [`create`](Self::create), and [`Error::GrowthFactor`] or
    /// [`Error::TighteningRatio`].
    pub fn create_with(
        conn: C,
        name: &str,
        initial_capacity: usize,
        fpr: f64,
        options: ScalableOptions,
    ) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        Self::start(
            conn,
            Layers::create(name, item, initial_capacity, fpr, &options)?,
        )
    }

    /// Opens the existing filter `name`, if its layers take at most
    /// [`DEFAULT_MAX_BYTES`](crate::DEFAULT_MAX_BYTES) in Redis.
    ///
    /// # Errors
    ///
    /// As [`RedisBloomFilter::open`](crate::RedisBloomFilter::open).
    pub fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::open_with(conn, name, Options::new())
    }

    /// [`open`](Self::open), accepting layers of up to
    /// [`options.get_max_bytes()`](Options::max_bytes) bytes in all (the
    /// other options are the stored filter's). An insert that would open a
    /// layer past it is refused with [`Error::OverLimit`].
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open).
    pub fn open_with(conn: C, name: &str, options: Options) -> Result<Self, Error> {
        let item = crate::meta::item_name::<T>();
        Self::start(conn, Layers::open(name, item, options.get_max_bytes())?)
    }

    /// Runs the setup `op` on `conn` and keeps the filter it ends with.
    fn start(mut conn: C, op: impl Op<Output = Layers, Error = Error>) -> Result<Self, Error> {
        let layers = drive(&mut conn, op)?;
        Ok(Self {
            conn,
            layers,
            item: PhantomData,
        })
    }

    /// Adds `item` unless a layer holds it; `true` if it was added.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`] if the filter was deleted,
    /// [`Error::Full`] past the last layer `u64` can count.
    pub fn insert(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        drive(&mut self.conn, self.layers.insert_one(item))
    }

    /// `false`: `item` was never inserted; `true`: it probably was. Sees the
    /// layers other processes opened.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn contains<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<bool, Error>
    where
        T: Borrow<Q>,
    {
        drive(&mut self.conn, self.layers.contains_one(item))
    }

    /// Inserts every item in one pipeline of scripts (and one more round
    /// trip for the items sent after another process opened a layer);
    /// returns how many were added.
    ///
    /// # Errors
    ///
    /// A [`BatchError`] naming the items stored and those whose fate is
    /// unknown.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        drive(&mut self.conn, self.layers.insert_all(items))
    }

    /// The path [`insert_batch`](Self::insert_batch) falls back to when
    /// other writers keep changing the blocks it writes: one script per
    /// item, which checks every layer and adds the item in the server.
    /// The same answers, about 10 µs of server time per item. Public for
    /// the tests that compare both paths.
    ///
    /// # Errors
    ///
    /// As [`insert_batch`](Self::insert_batch).
    #[doc(hidden)]
    pub fn insert_batch_one_by_one(&mut self, items: &[T]) -> Result<usize, BatchError>
    where
        T: Hash + Sized,
    {
        let hashes = self.layers.hashes(items);
        let op = Insert::new(&mut self.layers, hashes, true);
        let op = ops::then(op, |v: Vec<bool>| Ok(v.iter().filter(|&&new| new).count()));
        drive(&mut self.conn, op)
    }

    /// Looks up every item in one pipeline of plain `GETRANGE` reads of
    /// their blocks (a shard where the batch is dense as one span), with
    /// each shard's guard (and one more round trip if a layer opened
    /// meanwhile).
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn contains_batch<Q: Hash>(&mut self, items: &[Q]) -> Result<Vec<bool>, Error>
    where
        T: Borrow<Q>,
    {
        drive(&mut self.conn, self.layers.contains_all(items))
    }

    /// Items added to the layers (an insert of an item already reported
    /// present adds nothing), counted exactly by the scripts, as the
    /// in-memory filter's `added`.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`], [`Error::CorruptMetadata`].
    pub fn added(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.layers.count())
    }

    /// Every insert so far, duplicates included, as the in-memory filter's
    /// `len`.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn len(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.layers.inserts())
    }

    /// Whether [`len`](Self::len) is zero.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn is_empty(&mut self) -> Result<bool, Error> {
        self.len().map(|n| n == 0)
    }

    /// Layers open now.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn num_layers(&mut self) -> Result<u32, Error> {
        drive(&mut self.conn, self.layers.num_layers())
    }

    /// The items the layers hold, estimated from `BITCOUNT` of every shard
    /// (as [`RedisBloomFilter::estimate_count`](crate::RedisBloomFilter::estimate_count)).
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn estimate_count(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.layers.estimate_count())
    }

    /// The rate the filter has now: `1 − Π (1 − ε_i)` over the layers, each
    /// layer's rate from
    /// [`blocked::fpr_exact`](bloomlab_core::theory::blocked::fpr_exact) at
    /// its exact count. Below the promised total while the layers are
    /// sized as designed.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added).
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.layers.expected_fpr())
    }

    /// What the filter is and holds (RedisBloom's `BF.INFO`): capacity of
    /// the open layers, bytes, layers, growth factor, inserts, and the items
    /// the layers' cells say they hold. Two round trips.
    ///
    /// # Errors
    ///
    /// As [`added`](Self::added), and [`Error::ShardMissing`].
    pub fn info(&mut self) -> Result<Info, Error> {
        drive(&mut self.conn, self.layers.info())
    }

    /// Gives every key of the filter `ttl` to live (Redisson's `expire`);
    /// a layer opened later takes the metadata's time to live. Rounded up
    /// to a millisecond.
    ///
    /// # Errors
    ///
    /// Connection errors; [`Error::NotFound`] or [`Error::ShardMissing`] if
    /// a key is gone.
    pub fn expire(&mut self, ttl: std::time::Duration) -> Result<(), Error> {
        drive(&mut self.conn, self.layers.expire(Some(ttl)))
    }

    /// The least time to live of the filter's keys, `None` when they have
    /// none.
    ///
    /// # Errors
    ///
    /// As [`expire`](Self::expire).
    pub fn ttl(&mut self) -> Result<Option<std::time::Duration>, Error> {
        drive(&mut self.conn, self.layers.ttl())
    }

    /// Removes every key's time to live.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`].
    pub fn persist(&mut self) -> Result<(), Error> {
        drive(&mut self.conn, self.layers.expire(None))
    }

    /// Deletes every key of the filter, metadata first.
    ///
    /// # Errors
    ///
    /// Connection errors.
    pub fn delete(&mut self) -> Result<(), Error> {
        drive(&mut self.conn, self.layers.delete())
    }

    /// The filter's name.
    pub fn name(&self) -> &str {
        self.layers.name()
    }

    /// The total rate the filter keeps.
    pub fn target_fpr(&self) -> f64 {
        self.layers.target_fpr()
    }

    /// Items the first layer holds.
    pub fn initial_capacity(&self) -> u64 {
        self.layers.initial_capacity()
    }

    /// The hasher items go through.
    pub fn hasher(&self) -> &DefaultHasher {
        self.layers.hasher()
    }

    /// The connection, to run other commands on it.
    pub fn connection_mut(&mut self) -> &mut C {
        &mut self.conn
    }

    /// Gives the connection back.
    pub fn into_connection(self) -> C {
        self.conn
    }
}
