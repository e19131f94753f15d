//! [`Variant`]: what makes each filter kept in Redis the kind it is, so that
//! one [`RedisFilter`](crate::RedisFilter), blocking or async, carries,
//! written once, the methods every kind has: setup, lookups, inserts, time
//! to live, deletion.

use std::fmt;
use std::time::Duration;

use crate::admin::{self, Info};
use crate::conn::Op;
use crate::error::Error;
use crate::layout::{Cell, Keys};
use crate::meta::{Kind, item_name};
use crate::ops::{self, Batches, Guarded, Setup, Start, Stored};
use crate::table::{Options, within};

/// The kind of filter a [`RedisFilter`](crate::RedisFilter) is:
/// [`Bits`] (the Bloom filter), [`Counters`] (the counting Bloom filter),
/// [`Cuckoo`] or [`Scalable`]. Sealed: the crate's kinds are all there are.
pub trait Variant: private::Sealed + Sized {
    /// What a handle knows of the filter: its parameters, as read.
    #[doc(hidden)]
    type Inner: Inner;
    /// What the metadata hash holds.
    #[doc(hidden)]
    type Meta: Stored;
    /// What `create_with` takes besides the items and the rate:
    /// [`Options`], or
    /// [`ScalableOptions`](crate::ScalableOptions) for a scalable filter.
    type Options: Default;
    /// The type's name in `Debug` output.
    #[doc(hidden)]
    const NAME: &'static str;

    /// The metadata of a new filter for `items` items of type `item` at
    /// rate `fpr`, and the bytes its tables take in Redis (for a scalable
    /// filter, its first layer's): refused, before any command is sent,
    /// when no filter can have them.
    #[doc(hidden)]
    fn plan(
        item: String,
        items: usize,
        fpr: f64,
        options: &Self::Options,
    ) -> Result<(Self::Meta, u64), Error>;

    /// The seed, shard size and byte cap among `options`.
    #[doc(hidden)]
    fn table_options(options: &Self::Options) -> &Options;

    /// The op that creates the filter `name` of items `T` (or opens it if
    /// it exists with the same parameters): [`plan`](Self::plan)'s, if it
    /// fits the cap.
    #[doc(hidden)]
    fn create<T: ?Sized>(
        name: &str,
        items: usize,
        fpr: f64,
        options: &Self::Options,
    ) -> Result<impl Op<Output = Self::Inner, Error = Error>, Error> {
        let keys = Self::keys(name)?;
        let item = item_name::<T>();
        let (wanted, bytes) = Self::plan(item.clone(), items, fpr, options)?;
        let table = Self::table_options(options);
        within(bytes, table.get_max_bytes())?;
        let start = Start::Create(wanted, table.get_seed().is_some());
        Ok(Self::setup(keys, start, item, table.get_max_bytes()))
    }

    /// The keys of the filter `name`: spread over a Cluster's slots, or
    /// under one hash tag.
    #[doc(hidden)]
    fn keys(name: &str) -> Result<Keys, Error>;

    /// The filter `meta` describes, if it is of this kind, holds items of
    /// type `item` and takes at most `max_bytes`.
    #[doc(hidden)]
    fn from_meta(
        keys: Keys,
        meta: Self::Meta,
        item: &str,
        max_bytes: u64,
    ) -> Result<Self::Inner, Error>;

    /// The filter, once its setup found the metadata in `state`.
    #[doc(hidden)]
    fn ready(
        inner: Self::Inner,
        state: <Self::Meta as Stored>::State,
    ) -> Result<Self::Inner, Error> {
        let _ = state;
        Ok(inner)
    }

    /// The setup of `keys` from `start` (create, import or open), ending
    /// with the filter, which is checked before its shards are written, so
    /// that no stored size is acted on unchecked.
    #[doc(hidden)]
    fn setup(
        keys: Keys,
        start: Start<Self::Meta>,
        item: String,
        max_bytes: u64,
    ) -> impl Op<Output = Self::Inner, Error = Error> {
        let check = {
            let keys = keys.clone();
            move |m| Self::from_meta(keys, m, &item, max_bytes)
        };
        ops::then(Setup::new(&keys, start, check), |(inner, state)| {
            Self::ready(inner, state)
        })
    }

    /// The op that opens the existing filter `name` of items `T`, if it
    /// takes at most `max_bytes`.
    #[doc(hidden)]
    fn open<T: ?Sized>(
        name: &str,
        max_bytes: u64,
    ) -> Result<impl Op<Output = Self::Inner, Error = Error>, Error> {
        Ok(Self::setup(
            Self::keys(name)?,
            Start::Open,
            item_name::<T>(),
            max_bytes,
        ))
    }
}

/// What a handle knows of a filter of any kind, and the operations every
/// kind has beyond [`Batches`], as ops the blocking and async types run.
pub trait Inner: Batches + Guarded + Clone {
    /// The filter's keys.
    fn keys(&self) -> &Keys;

    /// The filter's name.
    fn name(&self) -> &str {
        self.keys().name()
    }

    /// Adds the parameters that tell the filter apart to its `Debug` form.
    fn parameters(&self, d: &mut fmt::DebugStruct<'_, '_>);

    /// Writes the filter's `Debug` form as `type_name`: its name, then its
    /// parameters.
    fn describe(&self, f: &mut fmt::Formatter<'_>, type_name: &str) -> fmt::Result {
        let mut d = f.debug_struct(type_name);
        d.field("name", &self.name());
        self.parameters(&mut d);
        d.finish()
    }

    /// Every key of the filter, metadata first: by default its metadata
    /// and the shards its setup writes (a scalable filter has the shards of
    /// the layers open now).
    fn all_keys(&mut self) -> impl Op<Output = Vec<String>, Error = Error> {
        let shards = (0..self.num_shards()).map(|s| self.shard_key(s));
        ops::done(std::iter::once(self.keys().meta()).chain(shards).collect())
    }

    /// The rate theory gives the filter at its present load.
    fn expected_fpr(&mut self) -> impl Op<Output = f64, Error = Error>;

    /// What the filter is and holds.
    fn info(&mut self) -> impl Op<Output = Info, Error = Error>;

    /// Sets (or, for `None`, removes) every key's time to live.
    fn expire(&mut self, ttl: Option<Duration>) -> impl Op<Output = (), Error = Error> {
        let name = self.name().to_owned();
        ops::and_then(self.all_keys(), move |keys| {
            Ok(admin::expire(name, keys, ttl))
        })
    }

    /// The least time to live of the filter's keys.
    fn ttl(&mut self) -> impl Op<Output = Option<Duration>, Error = Error> {
        let name = self.name().to_owned();
        ops::and_then(self.all_keys(), move |keys| Ok(admin::ttl(name, keys)))
    }

    /// Deletes every key of the filter, metadata first.
    fn delete(&mut self) -> impl Op<Output = (), Error = Error> {
        ops::and_then(self.all_keys(), |keys| Ok(ops::delete(keys)))
    }
}

/// A kind whose filters copy to and from memory: [`Bits`], as a
/// [`BlockedBloomFilter`](bloomlab_classic::BlockedBloomFilter), and
/// [`Cuckoo`], as a [`CuckooFilter`](bloomlab_cuckoo::CuckooFilter).
pub trait Portable: Variant {
    /// The in-memory filter of items `T`.
    type Memory<T: ?Sized>;

    /// What `filter` is kept as in Redis, as the setup that writes it
    /// ([`Start::Import`]): its metadata, its shards (each body, then its
    /// guard) of at most `max_shard_bytes`, and the items it holds; an
    /// error, before anything is sent, for a filter whose layout Redis
    /// filters do not keep.
    #[doc(hidden)]
    fn image<T: ?Sized>(
        filter: &Self::Memory<T>,
        max_shard_bytes: usize,
    ) -> Result<Start<Self::Meta>, Error>;

    /// The in-memory filter of the words read back from `inner`'s shards.
    #[doc(hidden)]
    fn to_memory<T: ?Sized>(inner: &Self::Inner, words: Vec<u64>)
    -> Result<Self::Memory<T>, Error>;

    /// The op that copies `filter` into Redis as the new filter `name`.
    #[doc(hidden)]
    fn import<T: ?Sized>(
        name: &str,
        filter: &Self::Memory<T>,
        max_shard_bytes: usize,
    ) -> Result<impl Op<Output = Self::Inner, Error = Error>, Error> {
        let keys = Self::keys(name)?;
        let start = Self::image(filter, max_shard_bytes)?;
        Ok(Self::setup(keys, start, item_name::<T>(), u64::MAX))
    }

    /// The op that copies the filter `inner` into memory.
    #[doc(hidden)]
    fn export<T: ?Sized>(
        inner: &mut Self::Inner,
    ) -> impl Op<Output = Self::Memory<T>, Error = Error> {
        let this = inner.clone();
        ops::then(inner.read_words(), move |words| {
            Self::to_memory(&this, words)
        })
    }
}

/// A kind whose filters remove items: [`Counters`] and [`Cuckoo`].
pub trait Removes: Variant {
    /// The op that removes one occurrence of the item of hash `hash`.
    #[doc(hidden)]
    fn remove(inner: &mut Self::Inner, hash: u64) -> impl Op<Output = (), Error = Error>;
}

/// A kind whose scripts count its items exactly, in its metadata:
/// [`Cuckoo`] and [`Scalable`].
pub trait Counted: Variant {
    /// The op that reads the count its in-memory twin calls `len`.
    #[doc(hidden)]
    fn len(inner: &mut Self::Inner) -> impl Op<Output = u64, Error = Error>;
}

/// What a blocked table's cells are: a bit ([`Bits`]) or a 4-bit counter
/// ([`Counters`]).
pub trait Cells: private::Sealed {
    /// The cell.
    #[doc(hidden)]
    const CELL: Cell;
    /// The filter kind recorded in the metadata.
    #[doc(hidden)]
    const KIND: Kind;
}

mod private {
    pub trait Sealed {}
}

/// How a [`RedisFilter`](crate::RedisFilter) talks to Redis: [`Blocking`],
/// or `aio::Async` (feature `tokio`), whose methods are futures. Sealed.
pub trait Mode: private::Sealed {
    /// What the type's name in `Debug` output starts with.
    #[doc(hidden)]
    const PREFIX: &'static str;
}

/// Blocking I/O: the methods of [`RedisFilter`](crate::RedisFilter) over a
/// [`Connection`](crate::Connection) (the default).
#[derive(Debug, Clone, Copy)]
pub enum Blocking {}

/// Async I/O: the methods of [`aio::RedisFilter`](crate::aio::RedisFilter)
/// over an [`AsyncConnection`](crate::aio::AsyncConnection), each a future.
#[cfg(feature = "tokio")]
#[derive(Debug, Clone, Copy)]
pub enum Async {}

impl private::Sealed for Blocking {}
#[cfg(feature = "tokio")]
impl private::Sealed for Async {}

impl Mode for Blocking {
    const PREFIX: &'static str = "";
}

#[cfg(feature = "tokio")]
impl Mode for Async {
    const PREFIX: &'static str = "aio::";
}

/// Cells of one bit: [`RedisBloomFilter`](crate::RedisBloomFilter).
#[derive(Debug, Clone, Copy)]
pub enum Bits {}

/// Cells of 4-bit saturating counters:
/// [`RedisCountingBloomFilter`](crate::RedisCountingBloomFilter).
#[derive(Debug, Clone, Copy)]
pub enum Counters {}

/// Buckets of fingerprints:
/// [`RedisCuckooFilter`](crate::RedisCuckooFilter).
#[derive(Debug, Clone, Copy)]
pub enum Cuckoo {}

/// Layers of blocked Bloom filters that open as it fills:
/// [`RedisScalableBloomFilter`](crate::RedisScalableBloomFilter).
#[derive(Debug, Clone, Copy)]
pub enum Scalable {}

impl private::Sealed for Bits {}
impl private::Sealed for Counters {}
impl private::Sealed for Cuckoo {}
impl private::Sealed for Scalable {}

impl Cells for Bits {
    const CELL: Cell = Cell::Bit;
    const KIND: Kind = Kind::Bloom;
}

impl Cells for Counters {
    const CELL: Cell = Cell::Counter;
    const KIND: Kind = Kind::Counting;
}
