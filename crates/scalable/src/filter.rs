//! [`ScalableBloomFilter`]: a chain of classic filters that grows with its items.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{BuildHasher, Hash};

use bloomlab_classic::BloomFilter;
use bloomlab_core::batch;
use bloomlab_core::by_hash;
use bloomlab_core::hash::Scheme;
use bloomlab_core::theory::{classic, scalable};
use bloomlab_core::{
    DecodeError, DefaultHasher, Filter, HashMembership, InsertBatchError, InsertError, ParamError,
};

use crate::builder::Builder;
use crate::codec;
use crate::error::BuildError;
use crate::schedule::Schedule;

/// A Bloom filter that grows past its initial capacity and keeps the total
/// false-positive rate it was built for at every size (Almeida, Baquero,
/// Preguiça and Hutchison, "Scalable Bloom Filters", 2007).
///
/// It is a chain of classic [`BloomFilter`] layers. Layer `i` holds
/// `n0·s^i` items at rate `P·(1 − r)·r^i`; new items go to the newest layer,
/// and when it is full a larger one is added. A probe is reported present if
/// any layer reports it, so the rate is the compound
/// `1 − Π(1 − p_i) < P·(1 − r)·Σ r^i = P`
/// ([`theory::scalable`](bloomlab_core::theory::scalable)).
///
/// An item is hashed once, by the filter's hasher, and every layer is probed
/// with that hash ([`BloomFilter::contains_hash`]). Each layer also keeps a
/// clone of the hasher, so each is a complete classic filter that answers
/// [`BloomFilter::contains`] by itself ([`layers`](Self::layers) lends them
/// out for inspection); the price is one key per layer.
///
/// ```
/// use bloomlab_scalable::ScalableBloomFilter;
///
/// let mut f = ScalableBloomFilter::builder(1_000, 0.01).seed(3).build().unwrap();
/// for i in 0..10_000u64 {
///     f.insert(&i).unwrap();
/// }
/// assert_eq!(f.layers().len(), 4); // 1k + 2k + 4k + 8k
/// assert_eq!(f.capacity(), 15_000);
/// assert!(f.expected_fpr() < 0.01);
/// assert!((0..10_000u64).all(|i| f.contains(&i)));
/// ```
pub struct ScalableBloomFilter<T: ?Sized, S = DefaultHasher> {
    /// The layers, oldest (smallest) first. Never empty.
    layers: Vec<BloomFilter<T, S>>,
    /// Items each layer holds when full.
    capacities: Vec<u64>,
    /// The layer new items go to. Every layer before it is full, every layer
    /// after it is empty (they exist only after [`clear`](Self::clear)).
    active: usize,
    /// Calls to `insert` that returned `Ok`, as [`Filter::len`] counts.
    len: usize,
    /// Set once the next layer was refused: layers never shrink, so it
    /// stays refused, and later inserts need not size it again.
    refused: bool,
    schedule: Schedule,
    hasher: S,
}

impl<T: ?Sized, S: Clone> Clone for ScalableBloomFilter<T, S> {
    fn clone(&self) -> Self {
        Self {
            layers: self.layers.clone(),
            capacities: self.capacities.clone(),
            active: self.active,
            len: self.len,
            refused: self.refused,
            schedule: self.schedule,
            hasher: self.hasher.clone(),
        }
    }
}

impl<T: ?Sized, S: PartialEq> PartialEq for ScalableBloomFilter<T, S> {
    fn eq(&self, other: &Self) -> bool {
        self.layers == other.layers
            && self.capacities == other.capacities
            && self.active == other.active
            && self.len == other.len
            && self.refused == other.refused
            && self.schedule == other.schedule
            && self.hasher == other.hasher
    }
}

impl<T: ?Sized> ScalableBloomFilter<T, DefaultHasher> {
    /// A filter that starts with room for `initial_capacity` items and keeps
    /// the total rate `fpr`, growing by 2 with tightening 0.85, with a random
    /// hash key.
    ///
    /// # Errors
    ///
    /// As [`Builder::build`].
    pub fn new(initial_capacity: usize, fpr: f64) -> Result<Self, BuildError> {
        Self::builder(initial_capacity, fpr).build()
    }

    /// A builder for a filter that starts with room for `initial_capacity`
    /// items and keeps the total rate `fpr`. Its options ([`Builder`]):
    /// [`seed`](Builder::seed), [`hasher`](Builder::hasher),
    /// [`growth_factor`](Builder::growth_factor),
    /// [`tightening_ratio`](Builder::tightening_ratio),
    /// [`redisbloom`](Builder::redisbloom) and
    /// [`max_bytes`](Builder::max_bytes); then [`build`](Builder::build).
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let f = ScalableBloomFilter::<u64>::builder(1_000, 0.01).seed(7).growth_factor(4).build()?;
    /// assert_eq!(f.growth_factor(), 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(initial_capacity: usize, fpr: f64) -> Builder<T, DefaultHasher> {
        Builder::new(initial_capacity, fpr)
    }

    /// The filter in the binary format of [`bloomlab_core::codec`]: the
    /// schedule, the hash key, and every layer (see [`crate::codec`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        codec::encode(self)
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] for any bad input; a schedule or a layer that does
    /// not fit the rest is [`DecodeError::InvalidParameters`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        codec::decode(bytes)
    }
}

/// Bits of every layer read in the first, branch-free round of
/// [`ScalableBloomFilter::contains_hash`].
const FIRST_ROUND: usize = 2;

/// The count of items added to a layer: the scalable filter inserts into a
/// layer only items no layer reported, so every insert the layer counted
/// added an item.
pub(crate) fn added<T: ?Sized, S: BuildHasher>(layer: &BloomFilter<T, S>) -> u64 {
    Filter::len(layer) as u64
}

impl<T: ?Sized, S: BuildHasher + Clone> ScalableBloomFilter<T, S> {
    /// Builds the first layer; the schedule is already checked.
    pub(crate) fn with_schedule(schedule: Schedule, hasher: S) -> Result<Self, BuildError> {
        let first = schedule
            .layer(0, 0, hasher.clone())
            .map_err(crate::error::from_layer)?;
        Ok(Self {
            layers: vec![first],
            capacities: vec![schedule.initial_capacity],
            active: 0,
            len: 0,
            refused: false,
            schedule,
            hasher,
        })
    }

    /// Reassembles a decoded filter; the codec checked every part.
    pub(crate) fn from_parts(
        schedule: Schedule,
        layers: Vec<BloomFilter<T, S>>,
        capacities: Vec<u64>,
        active: usize,
        len: usize,
        hasher: S,
    ) -> Self {
        Self {
            layers,
            capacities,
            active,
            len,
            refused: false,
            schedule,
            hasher,
        }
    }

    /// Adds `item` unless a layer already reports it.
    ///
    /// `Ok(true)`: no layer reported `item`, and it was added to the newest
    /// layer with room (a new layer is added first if every layer is full).
    /// `Ok(false)`: some layer already reports it (the item, or a false
    /// positive), and nothing changed but [`len`](Self::len). RedisBloom's
    /// `BF.ADD` does the same; it keeps layers from filling with repeats.
    ///
    /// # Errors
    ///
    /// [`InsertError::Full`] when every layer is full and the next one cannot
    /// be added: it would take the filter past its
    /// [`max_bytes`](Builder::max_bytes) cap (or the platform's address
    /// space), or the allocator refused it. Nothing was added, and nothing
    /// stored before is lost.
    pub fn insert(&mut self, item: &T) -> Result<bool, InsertError>
    where
        T: Hash,
    {
        by_hash::insert(self, item)
    }

    /// [`insert`](Self::insert) of the item whose hash by
    /// [`hasher`](Self::hasher) is `hash`.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn insert_hash(&mut self, hash: u64) -> Result<bool, InsertError> {
        if self.contains_hash(hash) {
            self.len = self.len.saturating_add(1);
            return Ok(false);
        }
        let layer = self.room()?;
        self.layers[layer].insert_hash(hash);
        self.len = self.len.saturating_add(1);
        Ok(true)
    }

    /// Adds every item of `items` in order, as [`insert`](Self::insert)
    /// would, and returns how many were new (added to a layer); pipelined
    /// like [`contains_batch`](Self::contains_batch).
    ///
    /// # Errors
    ///
    /// [`InsertBatchError`] at the first item that needs a layer the filter
    /// cannot add ([`InsertError::Full`]), with its index as
    /// [`stored`](InsertBatchError::stored): the items before it are in the
    /// filter, it and the ones after it are not, and nothing stored before
    /// is lost.
    pub fn insert_batch(&mut self, items: &[T]) -> Result<usize, InsertBatchError>
    where
        T: Hash + Sized,
    {
        by_hash::insert_batch(self, items)
    }

    /// `false`: `item` was never inserted. `true`: it probably was, or is a
    /// false positive of one of the layers.
    pub fn contains<Q: ?Sized + Hash>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        by_hash::contains(self, item)
    }

    /// Looks up every item of `items`; the answers, in order, are those of
    /// [`contains`](Self::contains).
    ///
    /// Pipelined for chains larger than the cache ([`batch`](bloomlab_core::batch)): a chunk of
    /// items is hashed first, then the words of each item's first-round bits
    /// in every layer (those [`contains_hash`](Self::contains_hash) reads
    /// before it branches) are prefetched a few items
    /// ([`ahead`](batch::ahead)) before it is probed, so that many memory
    /// loads are in flight at once. A chain of two layers or more that takes
    /// at most [`PREFETCH_MIN_BYTES`](batch::PREFETCH_MIN_BYTES) sits in
    /// cache, and is probed without prefetching.
    ///
    /// ```
    /// use bloomlab_scalable::ScalableBloomFilter;
    ///
    /// let mut f = ScalableBloomFilter::builder(100, 0.01).seed(1).build()?;
    /// let items: Vec<u64> = (0..1_000).collect();
    /// // Three of the 1,000 were false positives of the chain when they came:
    /// // reported present, and not added.
    /// assert_eq!(f.insert_batch(&items), Ok(997));
    /// assert_eq!(f.layers().len(), 4); // 100 + 200 + 400 + 297 of 800
    /// assert_eq!(f.contains_batch(&items[..3]), [true; 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn contains_batch<Q: Hash>(&self, items: &[Q]) -> Vec<bool>
    where
        T: Borrow<Q>,
    {
        by_hash::contains_batch(self, items)
    }

    /// The index of the first layer with room, adding a layer if needed.
    fn room(&mut self) -> Result<usize, InsertError> {
        while added(&self.layers[self.active]) >= self.capacities[self.active] {
            if self.active + 1 == self.layers.len() {
                self.grow()?;
            }
            self.active += 1;
        }
        Ok(self.active)
    }

    /// Adds the next layer, or changes nothing and reports the filter full.
    fn grow(&mut self) -> Result<(), InsertError> {
        if self.refused {
            return Err(InsertError::Full);
        }
        let i = u32::try_from(self.layers.len()).map_err(|_| InsertError::Full)?;
        let grown = self
            .schedule
            .capacity(i)
            .ok_or(bloomlab_classic::BuildError::Param(ParamError::ZeroItems))
            .and_then(|capacity| {
                let layer = self
                    .schedule
                    .layer(i, self.memory_bytes(), self.hasher.clone())?;
                Ok((capacity, layer))
            });
        match grown {
            Ok((capacity, layer)) => {
                // A filter read from a version-1 file grows in its own scheme.
                self.layers.push(layer.with_scheme(self.scheme()));
                self.capacities.push(capacity);
                Ok(())
            }
            // The allocator may have room later: try again next time.
            Err(bloomlab_classic::BuildError::OutOfMemory { .. }) => Err(InsertError::Full),
            // A layer past the cap or past u64 stays so: remember it.
            Err(_) => {
                self.refused = true;
                Err(InsertError::Full)
            }
        }
    }
}

impl<T: ?Sized, S: BuildHasher> ScalableBloomFilter<T, S> {
    /// [`contains`](Self::contains) of the item whose hash by
    /// [`hasher`](Self::hasher) is `hash`.
    ///
    /// Answers exactly as `layers().iter().any(|l| l.contains_hash(hash))`:
    /// with one layer, by that layer's own lookup; with more,
    /// in two rounds. First, the first two bits of the item in
    /// every layer are read without a branch between layers, so the reads,
    /// one per table and each likely a cache miss, overlap instead of
    /// waiting on each other; an absent item fails here in most layers (each
    /// bit is set with probability about ½). Then the layers still in the
    /// running are checked to the end, newest first: with `s = 2` the newest
    /// layer holds about half the items. The bits are those of the layers'
    /// own positions ([`BloomFilter::scheme`]) in their documented layout.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        match self.layers.as_slice() {
            // Until it grows, the filter is one Bloom filter, and its own
            // lookup reads every bit at addresses known from the hash alone.
            // The rounds below would read the bits past the first round at
            // an address chosen from the first round's bits, a second
            // memory latency on every hit.
            [layer] => return layer.contains_hash(hash),
            // No schedule reaches 64 layers (capacity n0·s^64 overflows).
            layers if layers.len() > 64 => {
                return layers.iter().rev().any(|l| l.contains_hash(hash));
            }
            _ => {}
        }
        let mut alive = 0u64;
        for (i, layer) in self.layers.iter().enumerate() {
            let words = layer.as_words();
            let mut pass = 1;
            let first = FIRST_ROUND.min(layer.num_hashes() as usize) as u32;
            layer
                .scheme()
                .for_each(hash, layer.num_bits(), first, |bit| {
                    pass &= words
                        .get((bit >> 6) as usize)
                        .map_or(0, |w| w >> (bit & 63));
                });
            alive |= (pass & 1) << i;
        }
        while alive != 0 {
            let i = 63 - alive.leading_zeros() as usize;
            alive &= !(1 << i);
            let layer = &self.layers[i];
            let words = layer.as_words();
            let rest = layer
                .scheme()
                .positions(hash, layer.num_bits())
                .take(layer.num_hashes() as usize)
                .skip(FIRST_ROUND)
                .all(|bit| {
                    words
                        .get((bit >> 6) as usize)
                        .is_some_and(|w| w >> (bit & 63) & 1 == 1)
                });
            if rest {
                return true;
            }
        }
        false
    }

    /// Calls to `insert` that returned `Ok` (whether or not they added the
    /// item), as [`Filter::len`] defines it.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether [`len`](Self::len) is zero.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Items added to the layers: [`len`](Self::len) less the inserts that
    /// found their item already reported present.
    pub fn added(&self) -> u64 {
        self.layers.iter().map(added).sum()
    }

    /// How every layer turns an item's hash into its bit positions:
    /// [`Scheme::CURRENT`], or [`Scheme::Modular`] for a filter read from a
    /// format-version-1 file, whose later layers keep that scheme too.
    pub fn scheme(&self) -> Scheme {
        self.layers
            .first()
            .map_or(Scheme::CURRENT, BloomFilter::scheme)
    }

    /// The classic filters of the chain, oldest (smallest) first.
    pub fn layers(&self) -> &[BloomFilter<T, S>] {
        &self.layers
    }

    /// Items the present layers hold together before another layer is
    /// needed: `Σ n0·s^i` over the layers.
    pub fn capacity(&self) -> u64 {
        self.capacities.iter().sum()
    }

    /// Items layer `i` holds when full, `n0·s^i`, or `None` past `u64`.
    pub fn layer_capacity(&self, i: u32) -> Option<u64> {
        self.schedule.capacity(i)
    }

    /// The rate layer `i` is built for, `P·(1 − r)·r^i`
    /// ([`scalable::layer_fpr`]).
    pub fn layer_fpr(&self, i: u32) -> f64 {
        self.schedule.rate(i)
    }

    /// `P`, the total false-positive rate the filter keeps at every size.
    pub fn target_fpr(&self) -> f64 {
        self.schedule.fpr
    }

    /// The old name of [`target_fpr`](Self::target_fpr).
    #[deprecated(
        since = "0.1.0",
        note = "use `target_fpr`, the name every bloomlab filter that grows gives it"
    )]
    pub fn fpr(&self) -> f64 {
        self.target_fpr()
    }

    /// `n0`, the capacity of the first layer.
    pub fn initial_capacity(&self) -> u64 {
        self.schedule.initial_capacity
    }

    /// `s`: each layer holds `s` times the items of the one before.
    pub fn growth_factor(&self) -> u32 {
        self.schedule.growth
    }

    /// `r`: each layer's rate is `r` times the one before.
    pub fn tightening_ratio(&self) -> f64 {
        self.schedule.tightening
    }

    /// The cap on [`memory_bytes`](Self::memory_bytes), if one was set.
    pub fn max_bytes(&self) -> Option<usize> {
        self.schedule.max_bytes
    }

    /// The hasher items go through (each layer holds a clone).
    pub fn hasher(&self) -> &S {
        &self.hasher
    }

    /// Bytes of all the layers' tables.
    pub fn memory_bytes(&self) -> usize {
        self.layers.iter().map(|l| l.as_words().len() * 8).sum()
    }

    /// The compound rate theory predicts at the present load:
    /// [`scalable::compound_fpr`] of each layer's
    /// [`classic::fpr`]`(m_i, n_i, k_i)`, with `n_i` the items added to it.
    /// Below [`target_fpr`](Self::target_fpr) at every size.
    pub fn expected_fpr(&self) -> f64 {
        scalable::compound_fpr(self.layers.iter().map(|l| {
            classic::fpr(
                l.num_bits() as f64,
                added(l) as f64,
                f64::from(l.num_hashes()),
            )
        }))
    }

    /// Empties every layer. The layers stay (so does
    /// [`memory_bytes`](Self::memory_bytes), as [`Filter::clear`] asks)
    /// and fill again from the first.
    pub fn clear(&mut self) {
        for layer in &mut self.layers {
            Filter::clear(layer);
        }
        self.active = 0;
        self.len = 0;
    }

    /// The layer new items go to.
    pub(crate) fn active(&self) -> usize {
        self.active
    }

    pub(crate) fn schedule(&self) -> &Schedule {
        &self.schedule
    }
}

impl<T: ?Sized, S> fmt::Debug for ScalableBloomFilter<T, S> {
    // The hasher may hold a secret key: it is left out.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScalableBloomFilter")
            .field("initial_capacity", &self.schedule.initial_capacity)
            .field("fpr", &self.schedule.fpr)
            .field("growth_factor", &self.schedule.growth)
            .field("tightening_ratio", &self.schedule.tightening)
            .field("max_bytes", &self.schedule.max_bytes)
            .field("layers", &self.layers.len())
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T: ?Sized, S: BuildHasher + Clone> HashMembership for ScalableBloomFilter<T, S> {
    type Item = T;
    type Hasher = S;

    fn hasher(&self) -> &S {
        &self.hasher
    }

    #[inline]
    fn insert_hash(&mut self, hash: u64) -> Result<bool, InsertError> {
        ScalableBloomFilter::insert_hash(self, hash)
    }

    #[inline]
    fn contains_hash(&self, hash: u64) -> bool {
        ScalableBloomFilter::contains_hash(self, hash)
    }

    /// The first-round bits of every layer.
    /// With one layer, that layer's.
    fn lookup_lines(&self) -> usize {
        match self.layers.as_slice() {
            [layer] => layer.lookup_lines(),
            layers => layers.len() * FIRST_ROUND,
        }
    }

    /// Starts loading, in every layer, the words of the item's first-round
    /// bits: the reads every lookup makes. The later bits are read only for
    /// the few layers that pass the first round, so they are left to demand.
    /// With one layer, the words that layer's own lookup reads.
    #[inline]
    fn prefetch_lookup(&self, hash: u64) {
        match self.layers.as_slice() {
            [layer] => layer.prefetch_lookup(hash),
            layers => {
                for layer in layers {
                    prefetch_bits(layer, hash, FIRST_ROUND);
                }
            }
        }
    }

    /// The first-round bits of every layer, and the `k` bits the item sets
    /// in the layer that takes new items; with one layer, its `k` bits.
    fn insert_lines(&self) -> usize {
        match self.layers.as_slice() {
            [layer] => layer.insert_lines(),
            _ => self.lookup_lines() + self.layers[self.active].num_hashes() as usize,
        }
    }

    /// [`prefetch_lookup`](Self::prefetch_lookup), and the words of every
    /// bit the item sets in the layer that takes new items (with one layer,
    /// the same words).
    #[inline]
    fn prefetch_insert(&self, hash: u64) {
        match self.layers.as_slice() {
            [layer] => layer.prefetch_insert(hash),
            _ => {
                self.prefetch_lookup(hash);
                let layer = &self.layers[self.active];
                prefetch_bits(layer, hash, layer.num_hashes() as usize);
            }
        }
    }
}

/// Starts loading the words of the first `bits` of the item's positions in
/// `layer` (at most its `k`).
#[inline]
fn prefetch_bits<T: ?Sized, S: BuildHasher>(layer: &BloomFilter<T, S>, hash: u64, bits: usize) {
    let words = layer.as_words();
    let bits = bits.min(layer.num_hashes() as usize) as u32;
    layer
        .scheme()
        .for_each(hash, layer.num_bits(), bits, |bit| {
            if let Some(word) = words.get((bit >> 6) as usize) {
                batch::prefetch(word);
            }
        });
}

bloomlab_core::impl_filter!(Filter, Persist
    for ScalableBloomFilter<T, S> where S: BuildHasher + Clone);

/// The rate a filter collected from an iterator keeps: 1%.
pub const COLLECT_FPR: f64 = 0.01;

/// The least initial capacity of a filter collected from an iterator.
pub const COLLECT_MIN_CAPACITY: usize = 1_024;

/// `items.collect::<ScalableBloomFilter>()`: a filter at [`COLLECT_FPR`]
/// (1%) that starts with room for the iterator's lower size hint (at least
/// [`COLLECT_MIN_CAPACITY`]) and grows for the rest, with a random key.
///
/// ```
/// use bloomlab_scalable::ScalableBloomFilter;
///
/// let f: ScalableBloomFilter<u64> = (0..50_000u64).collect();
/// assert_eq!(f.len(), 50_000);
/// assert!((0..50_000u64).all(|i| f.contains(&i)));
/// assert!(f.expected_fpr() <= 0.01);
/// ```
///
/// # Panics
///
/// If the allocator refuses a new layer (a filter without a memory cap
/// fails no other way), as collecting into a `Vec` would. Use
/// [`insert`](ScalableBloomFilter::insert) to handle that as an error.
impl<T: Hash> FromIterator<T> for ScalableBloomFilter<T, DefaultHasher> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let items = items.into_iter();
        let capacity = items.size_hint().0.max(COLLECT_MIN_CAPACITY);
        let mut filter = ScalableBloomFilter::new(capacity, COLLECT_FPR)
            .expect("a positive capacity at 1% is a valid schedule");
        for item in items {
            if let Err(e) = filter.insert(&item) {
                panic!("collecting into a ScalableBloomFilter: {e}");
            }
        }
        filter
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bloomlab_core::Membership;

    /// A seeded filter whose first layer holds 10 items.
    fn empty<T: ?Sized>() -> ScalableBloomFilter<T> {
        ScalableBloomFilter::builder(10, 0.01)
            .seed(9)
            .build()
            .unwrap()
    }

    /// [`empty`] after 100 inserts: four layers.
    fn grown() -> ScalableBloomFilter<u64> {
        let mut f = empty();
        for i in 0..100u64 {
            f.insert(&i).unwrap();
        }
        f
    }

    #[test]
    fn hashes_once_and_probes_every_layer_with_that_hash() {
        let f = grown();
        assert_eq!(f.layers().len(), 4); // 10 + 20 + 40 + 80
        for i in 0..100u64 {
            let hash = f.hasher().hash_one(i);
            assert!(f.contains_hash(hash));
            // Each layer holds a clone of the one hasher, so the layer that
            // took an item finds it by itself, through its own hasher.
            assert!(f.layers().iter().any(|l| l.contains(&i)));
            assert!(f.layers().iter().all(|l| l.hasher() == f.hasher()));
        }
    }

    #[test]
    fn two_round_probing_answers_as_every_layer_does() {
        // Schedules whose first layer has one or two hashes (P = 0.5,
        // r = 0.3), with few, and with many; members and non-members alike.
        for (n0, p, r) in [
            (500, 0.5, 0.3),
            (7, 0.3, 0.5),
            (10, 0.01, 0.85),
            (3, 1e-6, 0.9),
        ] {
            let mut f = ScalableBloomFilter::builder(n0, p)
                .tightening_ratio(r)
                .seed(4)
                .build()
                .unwrap();
            for i in 0..10_000u64 {
                f.insert(&i).unwrap();
            }
            assert!(f.layers().len() >= 4);
            assert!(
                f.layers().iter().any(|l| l.num_hashes() <= 2) || p < 0.5,
                "{p}"
            );
            let mut agree = 0;
            for i in 0..20_000u64 {
                let hash = bloomlab_core::hash::mix64(i);
                let naive = f.layers().iter().any(|l| l.contains_hash(hash));
                assert_eq!(f.contains_hash(hash), naive, "{n0} {p} {r} {i}");
                agree += usize::from(naive);
            }
            // Both answers occur, so the comparison was not one-sided.
            assert!(agree > 0 && agree < 20_000, "{agree}");
        }
    }

    #[test]
    fn insert_hash_is_insert() {
        let mut a = empty();
        let mut b = a.clone();
        for i in 0..100u64 {
            let via_hash = b.insert_hash(b.hasher().hash_one(i));
            assert_eq!(a.insert(&i), via_hash);
        }
        assert_eq!(a.to_bytes(), b.to_bytes());
        assert_eq!(a.to_bytes(), grown().to_bytes());
    }

    #[test]
    fn the_trait_and_the_inherent_methods_agree() {
        let mut a = empty();
        let mut b = a.clone();
        let dynamic: &mut dyn Membership<u64> = &mut b;
        for i in 0..100u64 {
            assert_eq!(a.insert(&i), dynamic.insert(&i));
        }
        assert_eq!(a.len(), dynamic.len());
        assert_eq!(a.memory_bytes(), dynamic.memory_bytes());
        assert_eq!(a.expected_fpr().to_bits(), dynamic.expected_fpr().to_bits());
        assert!((0..200u64).all(|i| a.contains(&i) == dynamic.contains(&i)));
        dynamic.clear();
        a.clear();
        assert_eq!(a.to_bytes(), b.to_bytes());
    }

    #[test]
    fn a_repeat_adds_nothing() {
        let mut f = empty();
        assert_eq!(f.insert("x"), Ok(true));
        for _ in 0..50 {
            assert_eq!(f.insert("x"), Ok(false));
        }
        // Fifty repeats neither fill the first layer nor add a second.
        assert_eq!((f.len(), f.added(), f.layers().len()), (51, 1, 1));
    }

    #[test]
    fn layers_follow_the_schedule() {
        let f = grown();
        for (i, layer) in f.layers().iter().enumerate() {
            let i = i as u32;
            let n = f.layer_capacity(i).unwrap();
            assert_eq!(n, 10 << i);
            let rate = 0.01 * 0.15 * 0.85f64.powi(i as i32);
            assert!((f.layer_fpr(i) - rate).abs() < 1e-15);
            assert_eq!(
                (layer.num_bits(), layer.num_hashes()),
                classic::size_for(n, f.layer_fpr(i)).unwrap()
            );
        }
        assert_eq!(f.capacity(), 150);
        assert_eq!(f.active(), 3);
    }

    #[test]
    fn debug_hides_the_key() {
        let f = grown();
        let shown = format!("{f:?}");
        let [k0, k1] = f.hasher().key();
        assert!(shown.contains("layers: 4"), "{shown}");
        assert!(!shown.contains(&k0.to_string()) && !shown.contains(&k1.to_string()));
    }
}
