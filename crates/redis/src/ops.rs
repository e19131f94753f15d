//! The operations, as [`Op`]s: which commands each round trip sends and what
//! the replies mean. No I/O here.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use bloomlab_core::DefaultHasher;

use redis::{Cmd, Value, cmd};

use crate::conn::{Op, Replies};
use crate::error::{BatchError, Error};
use crate::layout::{self, Cell, GUARD, Keys, Located, Shards, Table};
use crate::meta::{Meta, State};
use crate::scripts;

/// An operation of one round trip, its replies read by a closure.
pub struct OneRound<F> {
    cmds: Option<Vec<Cmd>>,
    read: F,
    replies: Option<Replies>,
}

impl<R, E, F: FnOnce(Replies) -> Result<R, E>> OneRound<F> {
    /// Sends `cmds`, then hands their replies to `read`.
    pub fn new(cmds: Vec<Cmd>, read: F) -> Self {
        Self {
            cmds: Some(cmds),
            read,
            replies: None,
        }
    }
}

impl<R, E, F: FnOnce(Replies) -> Result<R, E>> Op for OneRound<F> {
    type Output = R;
    type Error = E;

    fn commands(&mut self) -> Vec<Cmd> {
        self.cmds.take().unwrap_or_default()
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), E> {
        self.replies = Some(replies);
        Ok(())
    }

    fn finish(self) -> Result<R, E> {
        (self.read)(self.replies.unwrap_or_else(|| Ok(Vec::new())))
    }
}

/// An op of no round trip that ends with `value`.
pub fn done<R, E>(value: R) -> impl Op<Output = R, Error = E> {
    OneRound::new(Vec::new(), move |_: Replies| Ok(value))
}

/// `op`, its output handed to `then` when it finishes.
pub struct Then<O, F> {
    op: O,
    then: F,
}

/// [`Then`]: `op`, then `then` on its output.
pub fn then<O: Op, R, F: FnOnce(O::Output) -> Result<R, O::Error>>(op: O, then: F) -> Then<O, F> {
    Then { op, then }
}

impl<O: Op, R, F: FnOnce(O::Output) -> Result<R, O::Error>> Op for Then<O, F> {
    type Output = R;
    type Error = O::Error;

    fn commands(&mut self) -> Vec<Cmd> {
        self.op.commands()
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), O::Error> {
        self.op.absorb(replies)
    }

    fn finish(self) -> Result<R, O::Error> {
        self.op.finish().and_then(self.then)
    }
}

/// `op`, its errors turned into `E` by `map`: [`map_err`].
pub struct MapErr<O, G> {
    op: O,
    map: G,
}

/// [`MapErr`]: `op`, its errors (from reading replies or finishing) passed
/// through `map`.
pub fn map_err<O: Op, E, G: Fn(O::Error) -> E>(op: O, map: G) -> MapErr<O, G> {
    MapErr { op, map }
}

impl<O: Op, E, G: Fn(O::Error) -> E> Op for MapErr<O, G> {
    type Output = O::Output;
    type Error = E;

    fn commands(&mut self) -> Vec<Cmd> {
        self.op.commands()
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), E> {
        self.op.absorb(replies).map_err(&self.map)
    }

    fn finish(self) -> Result<O::Output, E> {
        self.op.finish().map_err(self.map)
    }
}

/// What every filter type does with items, through one code path: hash them
/// under the filter's key and insert or look them up as a batch, a single
/// item being a batch of one. The blocking and async types run these ops.
pub trait Batches {
    /// The hasher items go through: the filter's function and key.
    fn hasher(&self) -> &DefaultHasher;

    /// The 64-bit hash of `item` under the filter's key.
    fn hash<Q: Hash + ?Sized>(&self, item: &Q) -> u64 {
        self.hasher().hash_one(item)
    }

    /// Inserts the items of `hashes`; the answers say which were new.
    fn insert(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = BatchError>;

    /// Looks the items of `hashes` up.
    fn lookup(&mut self, hashes: Vec<u64>) -> impl Op<Output = Vec<bool>, Error = Error>;

    /// The hashes of `items`, in order.
    fn hashes<Q: Hash>(&self, items: &[Q]) -> Vec<u64> {
        items.iter().map(|i| self.hash(i)).collect()
    }

    /// Inserts `item`: whether it was new.
    fn insert_one<Q: Hash + ?Sized>(&mut self, item: &Q) -> impl Op<Output = bool, Error = Error> {
        one(self.insert(vec![self.hash(item)]))
    }

    /// Looks `item` up.
    fn contains_one<Q: Hash + ?Sized>(
        &mut self,
        item: &Q,
    ) -> impl Op<Output = bool, Error = Error> {
        then(self.lookup(vec![self.hash(item)]), |v| Ok(first(&v)))
    }

    /// Inserts `items`: how many were new.
    fn insert_all<Q: Hash>(&mut self, items: &[Q]) -> impl Op<Output = usize, Error = BatchError> {
        then(self.insert(self.hashes(items)), new_count)
    }

    /// Looks `items` up, in order.
    fn contains_all<Q: Hash>(&mut self, items: &[Q]) -> impl Op<Output = Vec<bool>, Error = Error> {
        self.lookup(self.hashes(items))
    }
}

/// How many of a batch's insert answers say the item was new.
pub fn new_count<E>(answers: Vec<bool>) -> Result<usize, E> {
    Ok(answers.iter().filter(|&&new| new).count())
}

/// The single answer of a one-item batch.
fn first(answers: &[bool]) -> bool {
    answers.first().copied().unwrap_or(false)
}

/// The insert of a batch of one item, as the insert of that item: its
/// answer, and the cause of its failure as the error.
pub fn one<O: Op<Output = Vec<bool>, Error = BatchError>>(
    batch: O,
) -> impl Op<Output = bool, Error = Error> {
    then(map_err(batch, |e| *e.source), |v| Ok(first(&v)))
}

/// `first`, then the op `next` makes of its output: [`and_then`].
pub struct AndThen<A, F, B, E> {
    stage: Option<Chained<A, F, B, E>>,
}

/// Where an [`AndThen`] is: running `first`, or past it with the second
/// op or the error that stopped it.
enum Chained<A, F, B, E> {
    First(A, F),
    Second(Result<B, E>),
}

/// [`AndThen`]: `first`, then the op `next` makes of its output.
pub fn and_then<A: Op, B, F: FnOnce(A::Output) -> Result<B, A::Error>>(
    first: A,
    next: F,
) -> AndThen<A, F, B, A::Error> {
    AndThen {
        stage: Some(Chained::First(first, next)),
    }
}

impl<A, B, F> Op for AndThen<A, F, B, A::Error>
where
    A: Op,
    B: Op<Error = A::Error>,
    F: FnOnce(A::Output) -> Result<B, A::Error>,
{
    type Output = B::Output;
    type Error = A::Error;

    fn commands(&mut self) -> Vec<Cmd> {
        if let Some(Chained::First(first, _)) = &mut self.stage {
            let cmds = first.commands();
            if !cmds.is_empty() {
                return cmds;
            }
            if let Some(Chained::First(first, next)) = self.stage.take() {
                self.stage = Some(Chained::Second(first.finish().and_then(next)));
            }
        }
        match &mut self.stage {
            Some(Chained::Second(Ok(second))) => second.commands(),
            _ => Vec::new(),
        }
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), A::Error> {
        match &mut self.stage {
            Some(Chained::First(first, _)) => first.absorb(replies),
            Some(Chained::Second(Ok(second))) => second.absorb(replies),
            _ => Ok(()),
        }
    }

    fn finish(self) -> Result<B::Output, A::Error> {
        match self.stage {
            // A driver finishes an op only once it has no more commands,
            // so `first` has run; were it not, it runs no further.
            Some(Chained::First(first, next)) => first.finish().and_then(next)?.finish(),
            Some(Chained::Second(second)) => second?.finish(),
            None => unreachable!("`commands` puts the stage back"),
        }
    }
}

/// The shards the items at `at` fall in, in order.
fn touched(at: &[layout::Location]) -> Vec<usize> {
    let mut shards: Vec<usize> = at.iter().map(|a| a.shard as usize).collect();
    shards.sort_unstable();
    shards.dedup();
    shards
}

/// Looks the located items up: one `GETRANGE` of each item's block, then
/// one read of the guard of every shard the batch touched.
pub fn lookup(batch: Located) -> impl Op<Output = Vec<bool>, Error = Error> + use<> {
    let Located { table, at, .. } = &batch;
    let guarded = touched(at);
    let mut cmds: Vec<Cmd> = at
        .iter()
        .map(|a| table.lookup_cmd(&batch.key(a.shard), a))
        .collect();
    cmds.extend(
        guarded
            .iter()
            .map(|&s| table.guard_read_cmd(&batch.key(s as u64), s as u64)),
    );
    OneRound::new(cmds, move |replies: Replies| {
        let Located { table, at, .. } = &batch;
        let values = replies.map_err(|f| Error::from_redis(f.error))?;
        if values.len() != at.len() + guarded.len() {
            return Err(layout::unexpected("", &Value::Array(values)));
        }
        for (&s, v) in guarded.iter().zip(&values[at.len()..]) {
            table.guard_intact(&batch.key(s as u64), v)?;
        }
        at.iter()
            .zip(&values)
            .map(|(a, v)| table.present(&batch.key(a.shard), a, v))
            .collect()
    })
}

/// A metadata hash from an `HGETALL` reply, or `None` if it is empty.
pub fn read_hash(key: &str, reply: &Value) -> Result<Option<HashMap<String, String>>, Error> {
    layout::check(key, reply)?;
    let pairs: Vec<(Value, Value)> = match reply {
        Value::Map(m) => m.clone(),
        Value::Array(a) => a
            .chunks_exact(2)
            .map(|p| (p[0].clone(), p[1].clone()))
            .collect(),
        _ => return Err(layout::unexpected(key, reply)),
    };
    let text = |v: &Value| -> Result<String, Error> {
        redis::from_redis_value_ref::<String>(v).map_err(|_| layout::unexpected(key, reply))
    };
    let hash: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| Ok((text(k)?, text(v)?)))
        .collect::<Result<_, Error>>()?;
    Ok((!hash.is_empty()).then_some(hash))
}

/// The one reply of a single-command round trip.
pub fn single(replies: Replies) -> Result<Value, Error> {
    match replies {
        Ok(mut v) if v.len() == 1 => Ok(v.remove(0)),
        Ok(v) => Err(layout::unexpected("", &Value::Array(v))),
        Err(f) => Err(Error::from_redis(f.error)),
    }
}

/// How [`Setup`] starts, for a filter whose metadata is `M`.
#[derive(Debug, Clone)]
pub enum Start<M> {
    /// Read an existing filter.
    Open,
    /// Create `wanted` unless it exists; the bool says whether its hash key
    /// was chosen by the caller (then it must match too).
    Create(M, bool),
    /// Create `wanted`, holding this many items (for the kinds that count
    /// them), and fill its shards with these bytes (the body, then the
    /// guard); refuse if the name exists.
    Import(M, Vec<Vec<u8>>, u64),
}

/// Stages of [`Setup`]: the metadata, then the shards, then the `ready`
/// flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Create or read the metadata.
    Meta,
    /// Write the shards.
    Shards,
    /// Mark the filter complete.
    Ready,
    /// Nothing left to send.
    Done,
}

/// What a kind of filter keeps in its metadata hash, as [`Setup`] writes,
/// reads and compares it: [`Meta`] for the blocked and scalable filters,
/// the cuckoo filter's own.
pub trait Stored: Sized {
    /// What the hash holds besides the parameters.
    type State;

    /// The fields a new filter holding `count` items is written with
    /// (`ready` 0), checksums included.
    fn written(&self, count: u64) -> Vec<(&'static str, String)>;

    /// Reads and checks the metadata hash of the filter `keys`.
    fn read(keys: &Keys, hash: &HashMap<String, String>) -> Result<(Self, Self::State), Error>;

    /// Whether every shard was written.
    fn ready(state: &Self::State) -> bool;

    /// The first parameter in which `self` (in Redis) differs from
    /// `wanted`, as (field, existing, requested); the hash function and key
    /// only when `key_given`.
    fn differs(&self, wanted: &Self, key_given: bool) -> Option<(&'static str, String, String)>;
}

impl Stored for Meta {
    type State = State;

    fn written(&self, _count: u64) -> Vec<(&'static str, String)> {
        self.fields()
    }

    fn read(keys: &Keys, hash: &HashMap<String, String>) -> Result<(Self, State), Error> {
        Meta::parse(&keys.meta(), hash)
    }

    fn ready(state: &State) -> bool {
        state.ready
    }

    fn differs(&self, wanted: &Self, key_given: bool) -> Option<(&'static str, String, String)> {
        Meta::differs(self, wanted, key_given)
    }
}

/// A filter's shards as its setup writes them, each at its full length
/// with its guard, before the filter is marked ready.
pub trait Guarded {
    /// How many shards.
    fn num_shards(&self) -> u64;
    /// The key of shard `s`.
    fn shard_key(&self, s: u64) -> String;
    /// Bytes of shard `s` before its guard.
    fn body_bytes(&self, s: u64) -> u64;

    /// The command that writes shard `s`'s guard, creating the shard
    /// (zeroed) at its full length.
    fn guard_cmd(&self, s: u64) -> Cmd {
        cmd("SETRANGE")
            .arg(self.shard_key(s))
            .arg(self.body_bytes(s))
            .arg(&[GUARD][..])
            .take()
    }

    /// Reads every shard back, each checked for its length and guard: the
    /// bodies, in order, as the in-memory table's words, little-endian.
    fn read_words(&self) -> impl Op<Output = Vec<u64>, Error = Error> {
        let names = (0..self.num_shards()).map(|s| self.shard_key(s)).collect();
        let bodies = (0..self.num_shards()).map(|s| self.body_bytes(s)).collect();
        then(read_shards(names, bodies), |bytes| Ok(words_of(bytes)))
    }
}

/// Creates or opens a filter: the metadata (atomically, by script), then,
/// while it is not yet marked ready, every shard, then the mark. `check`
/// makes the filter `X` of the metadata found, or refuses it (another kind,
/// item type or size), before any shard is written.
pub struct Setup<M: Stored, X, F> {
    keys: Keys,
    start: Start<M>,
    check: Option<F>,
    stage: Stage,
    found: Option<(X, M::State)>,
}

impl<M: Stored, X: Guarded, F: FnOnce(M) -> Result<X, Error>> Setup<M, X, F> {
    /// A setup of `keys`' filter.
    pub fn new(keys: &Keys, start: Start<M>, check: F) -> Self {
        Self {
            keys: keys.clone(),
            start,
            check: Some(check),
            stage: Stage::Meta,
            found: None,
        }
    }

    /// Reads the reply to the metadata's round trip: the filter found, or
    /// why it cannot be used.
    fn absorb_meta(&mut self, replies: Replies) -> Result<(), Error> {
        let meta_key = self.keys.meta();
        let reply = single(replies)?;
        let (created, hash) = match &self.start {
            Start::Open => (false, read_hash(&meta_key, &reply)?),
            _ => {
                layout::check(&meta_key, &reply)?;
                match &reply {
                    Value::Array(v) if v.len() == 2 => {
                        (v[0] == Value::Int(1), read_hash(&meta_key, &v[1])?)
                    }
                    _ => return Err(layout::unexpected(&meta_key, &reply)),
                }
            }
        };
        let name = self.keys.name().to_owned();
        let hash = hash.ok_or(Error::NotFound { name: name.clone() })?;
        let (found, state) = M::read(&self.keys, &hash)?;
        let ready = M::ready(&state);
        match &self.start {
            Start::Create(wanted, key_given) => {
                if let Some((field, existing, requested)) = found.differs(wanted, *key_given) {
                    return Err(Error::Mismatch {
                        name,
                        field,
                        existing,
                        requested,
                    });
                }
            }
            Start::Import(..) if !created => return Err(Error::Exists { name }),
            Start::Open if !ready => return Err(Error::Incomplete { name }),
            _ => {}
        }
        let check = self.check.take().ok_or(Error::NotFound { name })?;
        self.found = Some((check(found)?, state));
        self.stage = if ready { Stage::Done } else { Stage::Shards };
        Ok(())
    }
}

impl<M: Stored, X: Guarded, F: FnOnce(M) -> Result<X, Error>> Op for Setup<M, X, F> {
    type Output = (X, M::State);
    type Error = Error;

    fn commands(&mut self) -> Vec<Cmd> {
        match self.stage {
            Stage::Meta => match &self.start {
                Start::Open => vec![cmd("HGETALL").arg(self.keys.meta()).take()],
                Start::Create(wanted, _) => vec![create_cmd(&self.keys, wanted, 0)],
                Start::Import(wanted, _, count) => vec![create_cmd(&self.keys, wanted, *count)],
            },
            Stage::Shards => {
                let Some((filter, _)) = &self.found else {
                    return Vec::new();
                };
                (0..filter.num_shards())
                    .map(|s| match &self.start {
                        Start::Import(_, bytes, _) => cmd("SET")
                            .arg(filter.shard_key(s))
                            .arg(bytes.get(s as usize).map_or(&[][..], Vec::as_slice))
                            .take(),
                        _ => filter.guard_cmd(s),
                    })
                    .collect()
            }
            Stage::Ready => vec![cmd("HSET").arg(self.keys.meta()).arg("ready").arg(1).take()],
            Stage::Done => Vec::new(),
        }
    }

    fn absorb(&mut self, replies: Replies) -> Result<(), Error> {
        match self.stage {
            Stage::Meta => self.absorb_meta(replies)?,
            Stage::Shards => {
                let values = replies.map_err(|f| Error::from_redis(f.error))?;
                for (s, v) in values.iter().enumerate() {
                    let key = self
                        .found
                        .as_ref()
                        .map_or_else(String::new, |(f, _)| f.shard_key(s as u64));
                    layout::check(&key, v)?;
                }
                self.stage = Stage::Ready;
            }
            Stage::Ready => {
                layout::check(&self.keys.meta(), &single(replies)?)?;
                self.stage = Stage::Done;
            }
            Stage::Done => {}
        }
        Ok(())
    }

    fn finish(self) -> Result<(X, M::State), Error> {
        self.found.ok_or(Error::NotFound {
            name: self.keys.name().to_owned(),
        })
    }
}

/// The `CREATE` script's call that writes `wanted`'s metadata, holding
/// `count` items, unless the filter exists.
fn create_cmd<M: Stored>(keys: &Keys, wanted: &M, count: u64) -> Cmd {
    let fields: Vec<String> = wanted
        .written(count)
        .into_iter()
        .flat_map(|(k, v)| [k.to_owned(), v])
        .collect();
    evalsha(&scripts::CREATE, &[keys.meta()], fields)
}

/// The `EVALSHA` command that runs `script` on `keys` with `args`.
pub fn evalsha<A: redis::ToRedisArgs>(script: &redis::Script, keys: &[String], args: A) -> Cmd {
    let mut c = cmd("EVALSHA");
    c.arg(script.get_hash()).arg(keys.len()).arg(keys).arg(args);
    c
}

/// Reads the shards `names` whose bodies are `bodies` bytes long, each
/// followed by its guard: one range read and the length of each, checked,
/// and their bodies, in order, in one buffer reserved fallibly. A shard of
/// another length or without its guard is [`Error::ShardMissing`]; one
/// replaced by a larger string is neither read whole nor taken.
pub fn read_shards(
    names: Vec<String>,
    bodies: Vec<u64>,
) -> impl Op<Output = Vec<u8>, Error = Error> + use<> {
    let cmds = names
        .iter()
        .zip(&bodies)
        .flat_map(|(k, &body)| {
            [
                cmd("GETRANGE").arg(k).arg(0).arg(body).take(),
                cmd("STRLEN").arg(k).take(),
            ]
        })
        .collect();
    OneRound::new(cmds, move |replies: Replies| {
        let replies = replies.map_err(|f| Error::from_redis(f.error))?;
        if replies.len() != 2 * names.len() {
            return Err(layout::unexpected("", &Value::Array(replies)));
        }
        let total: u64 = bodies.iter().sum();
        let mut out = Vec::new();
        out.try_reserve_exact(total as usize)
            .map_err(|_| Error::OutOfMemory { bytes: total })?;
        for ((key, &body), pair) in names.iter().zip(&bodies).zip(replies.chunks(2)) {
            let (v, length) = (&pair[0], &pair[1]);
            layout::check(key, v)?;
            layout::check(key, length)?;
            let bytes = match v {
                Value::BulkString(b) => b.as_slice(),
                Value::Nil => &[],
                _ => return Err(layout::unexpected(key, v)),
            };
            let body = body as usize;
            let whole = *length == Value::Int(body as i64 + 1);
            if !whole || bytes.len() != body + 1 || bytes[body] != GUARD {
                return Err(Error::ShardMissing { key: key.clone() });
            }
            out.extend_from_slice(&bytes[..body]);
        }
        Ok(out)
    })
}

/// `bytes` as little-endian words, the last one padded with zeros.
pub fn words_of(mut bytes: Vec<u8>) -> Vec<u64> {
    bytes.resize(bytes.len().div_ceil(8) * 8, 0);
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect()
}

/// The shards that hold `words`, a table's words in little-endian order,
/// cut into bodies of `bodies` bytes, each followed by its guard (each
/// reserved fallibly: the sizes come from a caller's filter).
pub fn shard_images(
    words: &[u64],
    bodies: impl IntoIterator<Item = u64>,
) -> Result<Vec<Vec<u8>>, Error> {
    let mut start = 0;
    bodies
        .into_iter()
        .map(|body| {
            let mut bytes = Vec::new();
            bytes
                .try_reserve_exact(body as usize + 1)
                .map_err(|_| Error::OutOfMemory { bytes: body + 1 })?;
            bytes.extend((start..start + body).map(|k| {
                let w = words.get((k / 8) as usize).copied().unwrap_or(0);
                (w >> (8 * (k % 8))) as u8
            }));
            bytes.push(GUARD);
            start += body;
            Ok(bytes)
        })
        .collect()
}

/// The items `tables` hold, estimated from their non-zero cells
/// ([`estimate_items`] of each table): one round trip that counts the cells
/// set in every shard (`BITCOUNT` for bits, the counters read back for
/// counters) and checks its guard.
pub fn estimate_count(
    tables: Vec<(Table, Shards)>,
) -> impl Op<Output = f64, Error = Error> + use<> {
    let mut cmds = Vec::new();
    for (table, shards) in &tables {
        for s in 0..table.shards() {
            let key = shards.key(s);
            let end = table.body_bytes(s) as i64 - 1;
            cmds.push(match table.cell {
                Cell::Bit => cmd("BITCOUNT").arg(&key).arg(0).arg(end).take(),
                Cell::Counter => cmd("GETRANGE").arg(&key).arg(0).arg(end).take(),
            });
            cmds.push(table.guard_read_cmd(&key, s));
        }
    }
    OneRound::new(cmds, move |replies: Replies| {
        let values = replies.map_err(|f| Error::from_redis(f.error))?;
        let mut pairs = values.chunks(2);
        let mut total = 0.0;
        for (table, shards) in &tables {
            let mut nonzero = 0;
            for s in 0..table.shards() {
                let key = shards.key(s);
                let Some([cells, guard]) = pairs.next() else {
                    return Err(layout::unexpected(&key, &Value::Nil));
                };
                layout::check(&key, cells)?;
                table.guard_intact(&key, guard)?;
                nonzero += match cells {
                    Value::Int(n) => *n as u64,
                    Value::BulkString(b) => b
                        .iter()
                        .map(|&x| u64::from(x & 0x0f != 0) + u64::from(x >> 4 != 0))
                        .sum(),
                    _ => return Err(layout::unexpected(&key, cells)),
                };
            }
            total += estimate_items(table, nonzero);
        }
        Ok(total)
    })
}

/// The items a blocked table of `nonzero` set cells holds, in expectation:
/// with Poisson block loads of mean λ and `q = (1 − 1/512)^k`, a cell is set
/// with probability `1 − exp(−λ(1 − q))`, so `n = blocks · λ` with
/// `λ = −ln(1 − fill) / (1 − q)`. A full table gives infinity.
pub fn estimate_items(table: &Table, nonzero: u64) -> f64 {
    let cells = table.blocks as f64 * f64::from(layout::BLOCK_CELLS);
    let fill = nonzero as f64 / cells;
    let q = (1.0 - 1.0 / f64::from(layout::BLOCK_CELLS)).powf(f64::from(table.hashes));
    table.blocks as f64 * -(1.0 - fill).ln() / (1.0 - q)
}

/// Deletes the keys named.
pub fn delete(keys: Vec<String>) -> impl Op<Output = (), Error = Error> {
    let cmds = keys.iter().map(|k| cmd("DEL").arg(k).take()).collect();
    OneRound::new(cmds, move |replies: Replies| {
        let values = replies.map_err(|f| Error::from_redis(f.error))?;
        for (k, v) in keys.iter().zip(&values) {
            layout::check(k, v)?;
        }
        Ok(())
    })
}

/// Removes one occurrence of the item of hash `hash` from a counting table,
/// by script on its shard.
pub fn remove(table: Table, keys: &Keys, hash: u64) -> impl Op<Output = (), Error = Error> + use<> {
    let at = table.locate(hash);
    let key = keys.shard(at.shard);
    let mut args = vec![table.guard_offset(at.shard)];
    args.extend(at.cells(table.cell));
    let cmds = vec![evalsha(&scripts::REMOVE, std::slice::from_ref(&key), args)];
    OneRound::new(cmds, move |replies: Replies| {
        let reply = single(replies)?;
        layout::check(&key, &reply)?;
        match reply {
            Value::Int(1) => Ok(()),
            Value::Int(0) => Err(Error::NotPresent),
            other => Err(layout::unexpected(&key, &other)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One round trip of `PING` whose reply count is its output.
    fn ping() -> impl Op<Output = usize, Error = Error> {
        OneRound::new(vec![cmd("PING")], |r: Replies| {
            r.map(|v| v.len()).map_err(|f| Error::from_redis(f.error))
        })
    }

    #[test]
    fn and_then_runs_both_rounds_in_turn() {
        let mut op = and_then(ping(), |n| {
            let cmds = vec![cmd("PING"); n + 1];
            Ok(OneRound::new(cmds, move |r: Replies| {
                Ok::<_, Error>((n, r.map_or(0, |v| v.len())))
            }))
        });
        assert_eq!(op.commands().len(), 1);
        op.absorb(Ok(vec![Value::Okay])).unwrap();
        assert_eq!(op.commands().len(), 2);
        op.absorb(Ok(vec![Value::Okay; 2])).unwrap();
        assert!(op.commands().is_empty());
        assert_eq!(op.finish().unwrap(), (1, 2));
    }

    #[test]
    fn and_then_stops_at_the_first_error_and_done_sends_nothing() {
        let mut op = and_then(ping(), |n| match n {
            0 => Ok(done(n)),
            _ => Err(Error::Full),
        });
        op.commands();
        op.absorb(Ok(vec![Value::Okay])).unwrap();
        assert!(op.commands().is_empty());
        assert!(matches!(op.finish(), Err(Error::Full)));
        let mut op = done::<u32, Error>(7);
        assert!(op.commands().is_empty());
        assert_eq!(op.finish().unwrap(), 7);
    }
}
