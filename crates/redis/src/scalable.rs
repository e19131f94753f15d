//! [`RedisScalableBloomFilter`]: layers that open as the filter fills.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::DefaultHasher;
use bloomlab_core::theory::{blocked, scalable};
use redis::{Cmd, Value, cmd};

use crate::conn::{Connection, Failed, Op, Replies, drive};
use crate::error::{BatchError, Error};
use crate::layout::{self, BLOCK_CELLS, Cell, Keys, Table};
use crate::meta::{Kind, Meta, State};
use crate::ops::{self, Batches, OneRound, Setup, Start, evalsha, single};
use crate::scripts;
use crate::table::{Options, check_design};

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
    /// Their shard keys.
    names: Vec<Vec<String>>,
    /// Layers open in Redis, as last seen.
    known: u32,
}

impl Layers {
    fn capacity(&self, i: u32) -> Result<u64, Error> {
        scalable::layer_capacity(self.initial, self.growth, i).ok_or(Error::Full)
    }

    /// Layer `i`'s table: blocked sizing of its capacity at its rate.
    fn table(&mut self, i: u32) -> Result<Table, Error> {
        while self.tables.len() <= i as usize {
            let j = self.tables.len() as u32;
            let rate = scalable::layer_fpr(self.fpr, self.tightening, j);
            let (blocks, hashes) =
                blocked::size_for(BLOCK_CELLS, self.capacity(j)?, rate).map_err(|_| Error::Full)?;
            let shard = usize::try_from(self.meta.max_shard_bytes).unwrap_or(usize::MAX);
            let table = Table::new(blocks, hashes, Cell::Bit, shard)?;
            self.names.push(
                (0..table.shards())
                    .map(|s| self.keys.layer_shard(j, s))
                    .collect(),
            );
            self.tables.push(table);
        }
        Ok(self.tables[i as usize])
    }

    /// The insert script's call for one item, against the layers known and
    /// the next one.
    fn call(&mut self, hash: u64) -> Result<Cmd, Error> {
        let layers = self.known + 1;
        let mut keys = vec![self.keys.meta()];
        let mut args: Vec<u64> = Vec::new();
        for i in 0..layers {
            let at = self.table(i)?.locate(hash);
            keys.push(self.names[i as usize][at.shard as usize].clone());
            args.push(at.positions.len() as u64);
            args.extend(at.cells(Cell::Bit));
        }
        let head = (u64::from(self.known), self.capacity(self.known - 1)?);
        Ok(evalsha(&scripts::SCALABLE_INSERT, &keys, (head, args)))
    }
}

impl Layers {
    /// The op that creates filter `name` (or opens it if it exists with the
    /// same parameters) and ends with its layers; its parameters are checked
    /// before any command is sent.
    pub(crate) fn create(
        name: &str,
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
        let wanted = options
            .table
            .meta(Kind::Scalable, (initial_capacity, fpr), rate, growth)?;
        let max_shard_bytes = options.table.get_max_shard_bytes();
        Table::new(wanted.blocks, wanted.hashes, Cell::Bit, max_shard_bytes)?;
        let start = Start::Create(wanted, options.table.get_seed().is_some());
        Ok(Self::start(keys, start))
    }

    /// The op that opens the existing filter `name`.
    pub(crate) fn open(name: &str) -> Result<impl Op<Output = Self, Error = Error> + use<>, Error> {
        Ok(Self::start(Keys::tagged(name)?, Start::Open))
    }

    /// The setup of `keys` from `start`, ending with the layers. It
    /// writes the metadata only: layer shards are written by the insert
    /// script as items arrive.
    fn start(keys: Keys, start: Start) -> impl Op<Output = Self, Error = Error> + use<> {
        let setup = Setup::new(&keys, start, |_: &Meta| Ok(None));
        ops::then(setup, move |(meta, state)| {
            Self::from_setup(keys, meta, state)
        })
    }

    /// The layers a finished setup describes.
    pub(crate) fn from_setup(keys: Keys, meta: Meta, state: State) -> Result<Self, Error> {
        let meta_key = keys.meta();
        let corrupt = |reason: &str| Error::CorruptMetadata {
            key: meta_key.clone(),
            reason: reason.to_owned(),
        };
        if meta.kind != Kind::Scalable {
            return Err(Error::Mismatch {
                name: keys.name().to_owned(),
                field: "kind",
                existing: format!("{:?}", meta.kind),
                requested: "Scalable".to_owned(),
            });
        }
        let ((initial, fpr), (growth, tightening)) = meta
            .design
            .zip(meta.growth)
            .ok_or_else(|| corrupt("no design or growth"))?;
        if initial == 0 || !(fpr > 0.0 && fpr < 1.0) || state.layers == 0 {
            return Err(corrupt("zero items, a rate outside (0, 1) or no layer"));
        }
        let mut layers = Layers {
            hasher: DefaultHasher::with_function(meta.hash, meta.key),
            keys,
            meta,
            initial,
            fpr,
            growth,
            tightening,
            tables: Vec::new(),
            names: Vec::new(),
            known: state.layers,
        };
        let first = layers.table(0)?;
        if (first.blocks, first.hashes) != (layers.meta.blocks, layers.meta.hashes) {
            return Err(corrupt(
                "the first layer's size does not follow from its design",
            ));
        }
        Ok(layers)
    }

    /// Inserts or looks up the items of `hashes`.
    pub(crate) fn batch(&mut self, hashes: Vec<u64>, insert: bool) -> Batch<'_> {
        let n = hashes.len();
        Batch {
            layers: self,
            hashes,
            insert,
            pending: (0..n).collect(),
            sent: Vec::new(),
            located: Vec::new(),
            answers: vec![None; n],
            error: None,
        }
    }

    /// Reads the metadata's counts, takes in the layer count, then runs
    /// the op `next` makes of the state.
    fn after_state<B: Op<Error = Error>>(
        &mut self,
        next: impl FnOnce(&mut Self, State) -> Result<B, Error>,
    ) -> impl Op<Output = B::Output, Error = Error> {
        ops::and_then(self.state(), move |state| {
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
    pub(crate) fn estimated_count(&mut self) -> impl Op<Output = f64, Error = Error> {
        self.after_state(|layers, state| layers.estimate(state.layers))
    }

    /// Deletes the metadata, then every shard of the layers open now.
    pub(crate) fn delete(&mut self) -> impl Op<Output = (), Error = Error> {
        self.after_state(|layers, state| layers.delete_layers(state.layers))
    }

    /// Reads the metadata's counts.
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

    /// `BITCOUNT` of every shard of the first `layers` layers, read as an
    /// estimate of the items they hold.
    fn estimate(
        &mut self,
        layers: u32,
    ) -> Result<impl Op<Output = f64, Error = Error> + use<>, Error> {
        let mut cmds = Vec::new();
        let mut tables = Vec::new();
        for i in 0..layers {
            let t = self.table(i)?;
            for s in 0..t.shards() {
                cmds.push(cmd("BITCOUNT").arg(self.keys.layer_shard(i, s)).take());
            }
            tables.push(t);
        }
        let meta = self.keys.meta();
        Ok(OneRound::new(cmds, move |r: Replies| {
            let values = r.map_err(|f| Error::from_redis(f.error))?;
            let mut counts = values.iter();
            let mut total = 0.0;
            for t in &tables {
                let mut set = 0;
                for _ in 0..t.shards() {
                    match counts.next() {
                        Some(Value::Int(n)) => set += *n as u64,
                        Some(v) => return Err(layout::unexpected(&meta, v)),
                        None => return Err(layout::unexpected(&meta, &Value::Nil)),
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
            keys.extend((0..t.shards()).map(|s| self.keys.layer_shard(i, s)));
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

impl Batches for Layers {
    fn hash<Q: Hash + ?Sized>(&self, item: &Q) -> u64 {
        self.hasher.hash_one(item)
    }

    fn insert(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = BatchError> {
        self.batch(hashes, true)
    }

    fn lookup(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = Error> {
        ops::map_err(self.batch(hashes, false), |e| *e.source)
    }
}

/// Inserts or looks up a batch, each item by script, again for the items a
/// stale layer count sent back.
pub(crate) struct Batch<'a> {
    layers: &'a mut Layers,
    hashes: Vec<u64>,
    insert: bool,
    pending: Vec<usize>,
    sent: Vec<usize>,
    /// Each lookup command's table and item location, in order.
    located: Vec<(Table, layout::Location)>,
    answers: Vec<Option<bool>>,
    error: Option<Error>,
}

impl Batch<'_> {
    /// Plain reads, with no script: every known layer's `BITFIELD_RO` for
    /// each item, then the layer count. A count that grew during the
    /// pipeline sends the items not found again, against the new layers.
    fn lookups(&mut self) -> Result<Vec<Cmd>, Error> {
        let mut cmds = Vec::new();
        self.located.clear();
        for &i in &self.sent {
            for j in 0..self.layers.known {
                let table = self.layers.table(j)?;
                let at = table.locate(self.hashes[i]);
                cmds.push(table.lookup_cmd(&self.layers.names[j as usize][at.shard as usize], &at));
                self.located.push((table, at));
            }
        }
        cmds.push(
            cmd("HGET")
                .arg(self.layers.keys.meta())
                .arg("layers")
                .take(),
        );
        Ok(cmds)
    }

    fn read_lookups(&mut self, replies: Replies) {
        let meta = self.layers.keys.meta();
        let values = match replies {
            Ok(v) => v,
            Err(f) => {
                self.error.get_or_insert(Error::from_redis(f.error));
                return;
            }
        };
        let layers = match values.last() {
            Some(Value::Nil) => Err(Error::NotFound {
                name: self.layers.keys.name().to_owned(),
            }),
            Some(v) => {
                redis::from_redis_value_ref::<u32>(v).map_err(|_| layout::unexpected(&meta, v))
            }
            None => Err(layout::unexpected(&meta, &Value::Nil)),
        };
        let layers = match layers {
            Ok(l) if values.len() == self.located.len() + 1 => l,
            Ok(_) => {
                self.error
                    .get_or_insert(layout::unexpected(&meta, &Value::Nil));
                return;
            }
            Err(e) => {
                self.error.get_or_insert(e);
                return;
            }
        };
        let grew = layers > self.layers.known;
        let per = self.layers.known as usize;
        for (n, &i) in self.sent.iter().enumerate() {
            let mut found = false;
            for (v, (table, at)) in values[n * per..(n + 1) * per]
                .iter()
                .zip(&self.located[n * per..(n + 1) * per])
            {
                match v {
                    // A shard not written yet reads as an empty string.
                    Value::BulkString(block) => found |= table.all_set(at, block),
                    Value::Nil => {}
                    other => {
                        let e = match layout::check(&meta, other) {
                            Err(e) => e,
                            Ok(()) => layout::unexpected(&meta, other),
                        };
                        self.error.get_or_insert(e);
                        return;
                    }
                }
            }
            if found || !grew {
                self.answers[i] = Some(found);
            } else {
                self.pending.push(i);
            }
        }
        self.layers.known = self.layers.known.max(layers);
    }
}

impl Op for Batch<'_> {
    type Output = Vec<bool>;
    type Error = BatchError;

    fn commands(&mut self) -> Vec<Cmd> {
        if self.error.is_some() {
            return Vec::new();
        }
        self.sent = std::mem::take(&mut self.pending);
        if self.sent.is_empty() {
            return Vec::new();
        }
        let cmds: Result<Vec<Cmd>, Error> = if self.insert {
            self.sent
                .iter()
                .map(|&i| self.layers.call(self.hashes[i]))
                .collect()
        } else {
            self.lookups()
        };
        cmds.unwrap_or_else(|e| {
            self.error = Some(e);
            self.pending = std::mem::take(&mut self.sent);
            Vec::new()
        })
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), BatchError> {
        if !self.insert {
            self.read_lookups(replies);
            return Ok(());
        }
        let meta = self.layers.keys.meta();
        let (values, lost) = match replies {
            Ok(v) => (v, None),
            Err(Failed { replies, error }) => (replies, Some(Error::from_redis(error))),
        };
        for (&i, v) in self.sent.iter().zip(&values) {
            let reply = layout::int_array(&meta, v);
            match reply.as_deref() {
                Ok(&[-1, layers]) => {
                    self.layers.known = self.layers.known.max(layers as u32);
                    self.pending.push(i);
                }
                Ok(&[status @ (0 | 1), layers]) => {
                    self.layers.known = self.layers.known.max(layers as u32);
                    self.answers[i] = Some(if self.insert {
                        status == 1
                    } else {
                        status == 0
                    });
                }
                Ok(_) => {
                    self.error.get_or_insert(layout::unexpected(&meta, v));
                }
                Err(_) => {
                    let e = match reply {
                        Err(Error::NotFound { .. }) => Error::NotFound {
                            name: self.layers.keys.name().to_owned(),
                        },
                        Err(e) => e,
                        Ok(_) => layout::unexpected(&meta, v),
                    };
                    self.error.get_or_insert(e);
                }
            }
        }
        if let Some(e) = lost {
            self.error.get_or_insert(e);
            self.pending.extend(&self.sent[values.len()..]);
        }
        Ok(())
    }

    fn finish(self) -> Result<Vec<bool>, BatchError> {
        match self.error {
            None => Ok(self
                .answers
                .into_iter()
                .map(Option::unwrap_or_default)
                .collect()),
            Some(source) => Err(BatchError {
                stored: (0..self.answers.len())
                    .filter(|&i| self.answers[i].is_some())
                    .collect(),
                unknown: self.pending,
                source: Box::new(source),
            }),
        }
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
        Self::start(conn, Layers::create(name, initial_capacity, fpr, &options)?)
    }

    /// Opens the existing filter `name`.
    ///
    /// # Errors
    ///
    /// As [`RedisBloomFilter::open`](crate::RedisBloomFilter::open).
    pub fn open(conn: C, name: &str) -> Result<Self, Error> {
        Self::start(conn, Layers::open(name)?)
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

    /// Looks up every item in one pipeline of plain `BITFIELD_RO` reads
    /// (and one more round trip if a layer opened meanwhile).
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

    /// Items added to the layers (duplicates of items already present are
    /// not added), counted exactly by the scripts.
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`].
    pub fn count(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.layers.count())
    }

    /// Every insert so far, duplicates included (the in-memory filter's
    /// `len`).
    ///
    /// # Errors
    ///
    /// As [`count`](Self::count).
    pub fn inserts(&mut self) -> Result<u64, Error> {
        drive(&mut self.conn, self.layers.inserts())
    }

    /// Layers open now.
    ///
    /// # Errors
    ///
    /// As [`count`](Self::count).
    pub fn num_layers(&mut self) -> Result<u32, Error> {
        drive(&mut self.conn, self.layers.num_layers())
    }

    /// The items the layers hold, estimated from `BITCOUNT` of every shard
    /// (as [`RedisBloomFilter::estimated_count`](crate::RedisBloomFilter::estimated_count)).
    ///
    /// # Errors
    ///
    /// As [`count`](Self::count).
    pub fn estimated_count(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.layers.estimated_count())
    }

    /// The rate the filter has now: `1 − Π (1 − ε_i)` over the layers, each
    /// layer's rate from
    /// [`blocked::fpr_exact`](bloomlab_core::theory::blocked::fpr_exact) at
    /// its exact count. Below the promised total while the layers are
    /// sized as designed.
    ///
    /// # Errors
    ///
    /// As [`count`](Self::count).
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        drive(&mut self.conn, self.layers.expected_fpr())
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
