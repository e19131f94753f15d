//! Hashing: the keyed default hasher, and one 64-bit hash turned into probe positions.
//!
//! Every filter hashes an item once, to 64 bits, with its [`BuildHasher`]. The
//! k probe positions come from that one value by enhanced double hashing
//! (Kirsch and Mitzenmacher, "Less hashing, same performance", 2006;
//! Dillinger and Manolios, "Bloom filters in probabilistic verification",
//! 2004), and each is reduced to `[0, m)` by a 128-bit multiply-shift
//! (Lemire, "Fast random integer generation in an interval", 2019) rather
//! than `%`, which is both faster and correct for tables beyond 2^32 bits.
//!
//! Two [`Scheme`]s do this. Filters built now use [`Scheme::FixedPoint`]
//! ([`FixedPositions`]); [`Scheme::Modular`] ([`Positions`]) is how filters
//! stored in format version 1 placed their bits, and is kept so those files
//! keep reading.

use std::hash::BuildHasher;

use siphasher::sip::SipHasher13;
use siphasher::sip128::Hasher128;

#[doc(hidden)]
pub use crate::raw::SectorTest;

/// Which keyed function a [`DefaultHasher`] computes, as a stored filter
/// records it.
///
/// ```
/// use bloomlab_core::hash::HashFunction;
///
/// assert_eq!(HashFunction::CURRENT, HashFunction::AesCmac);
/// for f in [HashFunction::SipHash13, HashFunction::AesCmac] {
///     assert_eq!(HashFunction::from_id(f.id()), Some(f));
/// }
/// assert_eq!(HashFunction::from_id(9), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashFunction {
    /// SipHash-1-3: the function of every filter stored before AES-CMAC,
    /// kept so that those files and Redis filters keep their answers.
    SipHash13,
    /// AES-128-CMAC ([`AesCmac`](crate::AesCmac)): the function of every
    /// filter made now.
    AesCmac,
}

impl HashFunction {
    /// The function of a new [`DefaultHasher`].
    pub const CURRENT: Self = Self::AesCmac;

    /// The number a stored filter records the function by.
    pub const fn id(self) -> u8 {
        match self {
            Self::SipHash13 => 0,
            Self::AesCmac => 1,
        }
    }

    /// The function recorded as `id`, if there is one.
    pub const fn from_id(id: u8) -> Option<Self> {
        match id {
            0 => Some(Self::SipHash13),
            1 => Some(Self::AesCmac),
            _ => None,
        }
    }

    /// Its usual name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::SipHash13 => "SipHash-1-3",
            Self::AesCmac => "AES-128-CMAC",
        }
    }
}

/// The keyed hasher every filter uses unless given another: AES-128-CMAC
/// ([`AesCmac`](crate::AesCmac)) for a filter made now, SipHash-1-3 for one
/// read from a file (or Redis) that says so ([`HashFunction`]).
///
/// The key is what stops an attacker who knows this code from computing items
/// that pass a filter: [`DefaultHasher::random`] (also [`Default`]) draws it
/// from the operating system's generator. [`DefaultHasher::from_seed`] derives
/// it from a `u64` instead, for reproducible experiments and tests; never use
/// a fixed seed for a filter that guards a service against crafted input.
/// Both functions are pseudorandom functions of the key; AES-CMAC costs
/// about half as much where the processor has AES instructions.
///
/// ```
/// use std::hash::BuildHasher;
/// use bloomlab_core::DefaultHasher;
/// use bloomlab_core::hash::HashFunction;
///
/// let a = DefaultHasher::from_seed(7);
/// let b = DefaultHasher::from_key(a.key());
/// assert_eq!(a.hash_one("item"), b.hash_one("item"));
/// assert_ne!(a.key(), DefaultHasher::from_seed(8).key());
/// assert_eq!(a.function(), HashFunction::AesCmac);
///
/// // The same key under the function of an older file.
/// let old = DefaultHasher::with_function(HashFunction::SipHash13, a.key());
/// assert_ne!(old.hash_one("item"), a.hash_one("item"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct DefaultHasher {
    keyed: Keyed,
}

/// The function and its key.
#[derive(Clone, PartialEq, Eq)]
enum Keyed {
    Sip { k0: u64, k1: u64 },
    Aes(crate::AesCmac),
}

impl DefaultHasher {
    /// A hasher of the current function with a fresh random key.
    pub fn random() -> Self {
        Self::random_with(HashFunction::CURRENT)
    }

    /// A hasher of `function` with a fresh random key.
    pub fn random_with(function: HashFunction) -> Self {
        Self::with_function(function, rand::random())
    }

    /// A hasher of the current function whose key is derived from `seed`:
    /// the same seed gives the same key on every platform and in every
    /// version of this crate.
    pub fn from_seed(seed: u64) -> Self {
        Self::from_seed_with(HashFunction::CURRENT, seed)
    }

    /// A hasher of `function` whose key is derived from `seed` as
    /// [`from_seed`](Self::from_seed) derives it.
    pub fn from_seed_with(function: HashFunction, seed: u64) -> Self {
        Self::with_function(function, seed_key(seed))
    }

    /// A hasher of the current function ([`HashFunction::CURRENT`]) with
    /// exactly this key (as returned by [`key`](Self::key)).
    pub fn from_key(key: [u64; 2]) -> Self {
        Self::with_function(HashFunction::CURRENT, key)
    }

    /// A hasher of `function` with exactly this key: what a stored filter
    /// is read back with.
    pub fn with_function(function: HashFunction, key: [u64; 2]) -> Self {
        let keyed = match function {
            HashFunction::SipHash13 => Keyed::Sip {
                k0: key[0],
                k1: key[1],
            },
            HashFunction::AesCmac => Keyed::Aes(crate::AesCmac::from_key(key)),
        };
        Self { keyed }
    }

    /// The 128-bit key, as two words.
    pub fn key(&self) -> [u64; 2] {
        match &self.keyed {
            Keyed::Sip { k0, k1 } => [*k0, *k1],
            Keyed::Aes(aes) => aes.key(),
        }
    }

    /// The function the key is for.
    pub fn function(&self) -> HashFunction {
        match self.keyed {
            Keyed::Sip { .. } => HashFunction::SipHash13,
            Keyed::Aes(_) => HashFunction::AesCmac,
        }
    }
}

impl Default for DefaultHasher {
    fn default() -> Self {
        Self::random()
    }
}

impl std::hash::Hash for DefaultHasher {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.function().hash(state);
        self.key().hash(state);
    }
}

impl std::fmt::Debug for DefaultHasher {
    // The key is a secret: keep it out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefaultHasher")
            .field("function", &self.function())
            .finish_non_exhaustive()
    }
}

impl BuildHasher for DefaultHasher {
    type Hasher = DefaultHasherState;

    #[inline]
    fn build_hasher(&self) -> DefaultHasherState {
        let state = match &self.keyed {
            Keyed::Sip { k0, k1 } => State::Sip(SipHasher13::new_with_keys(*k0, *k1)),
            Keyed::Aes(aes) => State::Aes(aes.build_hasher()),
        };
        DefaultHasherState { state }
    }

    // Inlined, as `AesCmac::hash_one` is, with SipHash-1-3 out of line:
    // inlined too, it took the AES-CMAC lookups of a 1M-item blocked filter
    // from 18.4 to 20.3 ns and more (`benches/FINDINGS.md`).
    #[inline(always)]
    fn hash_one<T: std::hash::Hash>(&self, item: T) -> u64 {
        match &self.keyed {
            Keyed::Aes(aes) => aes.hash_one(item),
            Keyed::Sip { k0, k1 } => sip_hash_one(*k0, *k1, item),
        }
    }
}

/// [`DefaultHasher::hash_one`] by SipHash-1-3.
#[inline(never)]
fn sip_hash_one<T: std::hash::Hash>(k0: u64, k1: u64, item: T) -> u64 {
    let mut h = SipHasher13::new_with_keys(k0, k1);
    item.hash(&mut h);
    std::hash::Hasher::finish(&h)
}

/// The key [`DefaultHasher::from_seed`] derives from `seed`: a fixed,
/// published derivation, so that persisted seeded filters stay valid (the
/// 128-bit SipHash-1-3 of the seed under a constant domain key).
pub(crate) fn seed_key(seed: u64) -> [u64; 2] {
    let mut h =
        siphasher::sip128::SipHasher13::new_with_keys(0x626c_6f6f_6d6c_6162, 0x7365_6564_2d6b_6579);
    std::hash::Hasher::write(&mut h, &seed.to_le_bytes());
    let out = h.finish128();
    [out.h1, out.h2]
}

/// The [`Hasher`](std::hash::Hasher) of [`DefaultHasher`]: the same values
/// as [`DefaultHasher::hash_one`], which filters use and which is faster.
#[derive(Debug, Clone)]
pub struct DefaultHasherState {
    state: State,
}

#[derive(Debug, Clone)]
enum State {
    Sip(SipHasher13),
    Aes(crate::AesCmacHasher),
}

impl std::hash::Hasher for DefaultHasherState {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        match &mut self.state {
            State::Sip(h) => h.write(bytes),
            State::Aes(h) => h.write(bytes),
        }
    }

    #[inline]
    fn finish(&self) -> u64 {
        match &self.state {
            State::Sip(h) => h.finish(),
            State::Aes(h) => h.finish(),
        }
    }
}

/// Reduces a uniform 64-bit value to `[0, n)` by multiply-shift: `⌊x·n / 2^64⌋`.
///
/// Uniform to within `n / 2^64`, and exact for every `n` up to `u64::MAX`.
#[inline]
pub fn reduce(x: u64, n: u64) -> u64 {
    ((u128::from(x) * u128::from(n)) >> 64) as u64
}

/// MurmurHash3's 64-bit finalizer: a bijection that spreads every input bit
/// over every output bit. Used to derive further independent-looking words
/// from one hash.
#[inline]
pub const fn mix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The k probe positions in `[0, m)` of one item, by enhanced double hashing
/// modulo m: the positions of [`Scheme::Modular`], which filters stored in
/// format version 1 use. New filters use [`FixedPositions`].
///
/// Two values in `[0, m)` come from the one hash by multiply-shift:
/// `a = reduce(hash, m)` and `b = reduce(mix, m)` for a mixed copy of it.
/// Position i is `a + i·b + (i³ − i)/6 (mod m)`, computed incrementally with
/// additions modulo m (Dillinger and Manolios's enhanced double hashing).
///
/// The small cubic term must be added modulo m, in slot units: added to a
/// 64-bit fixed-point value and reduced afterwards, it would fall into bits
/// the reduction drops, leaving plain double hashing `a + i·b`, whose
/// positions collapse onto a few slots whenever `b/m` is close to a fraction
/// with a small denominator. In a 1,408-bit table with k = 10 that raised the
/// rate by a fifth over theory. ([`FixedPositions`] scales its own
/// higher-order term to the full 64 bits instead.)
///
/// ```
/// use bloomlab_core::hash::Positions;
///
/// let m = 1 << 40; // far beyond 2^32 bits
/// let positions: Vec<u64> = Positions::new(0xdead_beef_cafe_f00d, m).take(7).collect();
/// assert_eq!(positions.len(), 7);
/// assert!(positions.iter().all(|&p| p < m));
/// ```
#[derive(Debug, Clone)]
pub struct Positions {
    x: u64,
    y: u64,
    /// i mod m, kept without a division.
    i: u64,
    m: u64,
}

impl Positions {
    /// The positions of `hash` in a table of `m` slots.
    ///
    /// # Panics
    ///
    /// If `m` is 0: every filter has at least one slot.
    #[inline]
    pub fn new(hash: u64, m: u64) -> Self {
        assert!(m > 0, "a table of zero slots");
        let x = reduce(hash, m);
        let y = reduce(hash.rotate_left(32).wrapping_mul(GOLDEN), m);
        Self { x, y, i: 0, m }
    }
}

/// `(a + b) mod m` for `a, b < m`, without overflow for any `m`.
#[inline]
fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    let (sum, overflow) = a.overflowing_add(b);
    if overflow || sum >= m {
        sum.wrapping_sub(m)
    } else {
        sum
    }
}

impl Iterator for Positions {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let out = self.x;
        self.i += 1;
        if self.i == self.m {
            self.i = 0;
        }
        self.x = add_mod(self.x, self.y, self.m);
        self.y = add_mod(self.y, self.i, self.m);
        Some(out)
    }
}

/// The k probe positions of one item in `[0, m)`, from the hash alone, in
/// the fixed-point form every new filter uses ([`Scheme::FixedPoint`]).
///
/// A 64-bit fixed-point fraction of the table walks a quadratic sequence:
/// `g₀` is the hash, the step `d₀` a second word mixed from it, and
/// `g_{i+1} = g_i + d_i`, `d_{i+1} = d_i + C` (mod 2^64), so that
/// `g_i = hash + i·d₀ + C·i(i−1)/2`. Position i is [`reduce`]`(g_i, m)`, the
/// high bits of `g_i` scaled to m.
///
/// Without the `C` term this is plain double hashing, whose positions
/// collapse onto a few slots whenever `d₀/2^64` is near a fraction with a
/// small denominator. The quadratic term, with `C/2^64` the golden ratio's
/// fraction, makes the gap between positions i and i + q depend on i, so no
/// step collapses them all. (Measured over 2,000,000 lookups in tables of
/// 1,408 bits with k = 10 at the optimal load: plain double hashing 24.5%
/// over the classic formula, this sequence 4.9%, the modular one of
/// [`Positions`] 7.6%; in tables of 4,096 bits and more all three are within
/// 1.2%.)
///
/// It costs two additions and one multiplication per position, none waiting
/// on a comparison, where [`Positions`] needs two additions modulo m chained
/// through comparisons: lookups that read every position (hits) ran in about
/// 60% of the time.
///
/// ```
/// use bloomlab_core::hash::FixedPositions;
///
/// let m = 1 << 40; // far beyond 2^32 bits
/// let positions: Vec<u64> = FixedPositions::new(0xdead_beef_cafe_f00d, m).take(7).collect();
/// assert_eq!(positions.len(), 7);
/// assert!(positions.iter().all(|&p| p < m));
/// ```
#[derive(Debug, Clone)]
pub struct FixedPositions {
    g: u64,
    d: u64,
    m: u64,
}

/// `2^64/φ`, rounded to odd: the quadratic step of [`FixedPositions`], and
/// the multiplier of [`Positions`]' second hash.
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;

/// The multiplier that makes [`FixedPositions`]' first step `d` from the
/// hash's rotated halves (odd, so every hash gets its own `d`).
const STEP: u64 = 0xd6e8_feb8_6659_fd93;

impl FixedPositions {
    /// The positions of `hash` in a table of `m` slots.
    ///
    /// # Panics
    ///
    /// If `m` is 0: every filter has at least one slot.
    #[inline]
    pub fn new(hash: u64, m: u64) -> Self {
        assert!(m > 0, "a table of zero slots");
        let d = hash.rotate_left(32).wrapping_mul(STEP);
        Self { g: hash, d, m }
    }
}

impl Iterator for FixedPositions {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        let out = reduce(self.g, self.m);
        self.g = self.g.wrapping_add(self.d);
        self.d = self.d.wrapping_add(GOLDEN);
        Some(out)
    }
}

/// How a filter turns one hash into its k positions. It decides which bits
/// (or counters) an item sets, so it is stored with the filter, as the
/// envelope's format version ([`Scheme::of_version`]).
///
/// ```
/// use bloomlab_core::hash::Scheme;
///
/// let (hash, m) = (0x0123_4567_89ab_cdef, 1_000);
/// let set: Vec<u64> = Scheme::CURRENT.positions(hash, m).take(7).collect();
/// assert!(Scheme::CURRENT.all(hash, m, 7, |p| set.contains(&p)));
/// assert!(!Scheme::CURRENT.all(hash, m, 7, |p| p != set[5]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// [`Positions`]: additions modulo m, as filters stored in format
    /// version 1 placed their bits.
    Modular,
    /// [`FixedPositions`]: a quadratic sequence in 64-bit fixed point, every
    /// position reduced on its own; format version 2 on.
    FixedPoint,
}

impl Scheme {
    /// The scheme of every filter built by this version of the crates.
    pub const CURRENT: Scheme = Scheme::FixedPoint;

    /// The scheme of a filter stored in format `version`: [`Modular`](Self::Modular)
    /// in version 1, [`FixedPoint`](Self::FixedPoint) from version 2 on.
    pub const fn of_version(version: u16) -> Self {
        if version <= 1 {
            Scheme::Modular
        } else {
            Scheme::FixedPoint
        }
    }

    /// The format version a filter with this scheme is stored in: 1 for
    /// [`Modular`](Self::Modular), so that a filter read from a version-1
    /// file is written back as one, and
    /// [`FORMAT_VERSION`](crate::codec::FORMAT_VERSION) otherwise.
    pub const fn version(self) -> u16 {
        match self {
            Scheme::Modular => 1,
            Scheme::FixedPoint => crate::codec::FORMAT_VERSION,
        }
    }

    /// The positions of `hash` in a table of `m` slots, without end (take
    /// the first k).
    ///
    /// # Panics
    ///
    /// If `m` is 0.
    #[inline]
    pub fn positions(self, hash: u64, m: u64) -> SchemePositions {
        match self {
            Scheme::Modular => SchemePositions::Modular(Positions::new(hash, m)),
            Scheme::FixedPoint => SchemePositions::FixedPoint(FixedPositions::new(hash, m)),
        }
    }

    /// Whether `test` holds at every one of the first `k` positions of
    /// `hash` in a table of `m` slots: the lookup of every classic and
    /// counting filter.
    ///
    /// The test runs in two rounds. The first [`FIRST_ROUND`] positions are
    /// all tested, without a branch between them, so their loads overlap.
    /// Only if all hold are the other positions tested, each behind a
    /// branch of its own that ends the lookup at the first that fails. In a
    /// table at its design load about half the bits are set or fewer, so a
    /// miss ends after the first round seven times in eight or more: a
    /// branch the processor predicts well, where stopping at the first
    /// unset bit would mispredict about every other time. (Measured on the
    /// `classic` bench: misses 1.5 times faster than testing all k
    /// positions.)
    ///
    /// Hits always go on, as predicted, and the second round's branches
    /// keep them fast. A loop of lookups past the L2 overlaps more of them
    /// when fewer instructions wait on each load; a position whose answer
    /// only decides a predicted branch leaves nothing else waiting, where
    /// folding it into the answer keeps the shift, the test and the AND
    /// waiting with it (the likeliest reading of the probes, which time the
    /// two forms and do not see inside the processor). With the second round
    /// folded in as the first is, a probe of 1M-item filters (2M member
    /// keys, nine alternating passes) took 24.9 ns a hit of
    /// `CountingBloomFilter` and 15.3 of `BloomFilter`; with these branches
    /// 19.3 and 13.2, misses unchanged (`benches/FINDINGS.md`).
    ///
    /// # Panics
    ///
    /// If `m` is 0.
    #[inline(always)]
    pub fn all(self, hash: u64, m: u64, k: u32, test: impl Fn(u64) -> bool) -> bool {
        match self {
            Scheme::Modular => two_rounds(Positions::new(hash, m), k, test),
            Scheme::FixedPoint => two_rounds(FixedPositions::new(hash, m), k, test),
        }
    }

    /// Calls `f` with each of the first `k` positions of `hash` in a table of
    /// `m` slots, in order: the insert of every classic and counting filter.
    /// It picks the scheme once, where [`positions`](Self::positions) matches
    /// on it at every position.
    ///
    /// ```
    /// use bloomlab_core::hash::Scheme;
    ///
    /// let mut seen = Vec::new();
    /// Scheme::CURRENT.for_each(0x0123_4567_89ab_cdef, 1_000, 7, |p| seen.push(p));
    /// let expected: Vec<u64> = Scheme::CURRENT.positions(0x0123_4567_89ab_cdef, 1_000).take(7).collect();
    /// assert_eq!(seen, expected);
    /// ```
    ///
    /// # Panics
    ///
    /// If `m` is 0.
    #[inline(always)]
    pub fn for_each(self, hash: u64, m: u64, k: u32, f: impl FnMut(u64)) {
        match self {
            Scheme::Modular => first_k(Positions::new(hash, m), k, f),
            Scheme::FixedPoint => first_k(FixedPositions::new(hash, m), k, f),
        }
    }
}

/// Calls `f` with each of the first `k` of `positions`.
#[inline(always)]
fn first_k(mut positions: impl Iterator<Item = u64>, k: u32, mut f: impl FnMut(u64)) {
    for _ in 0..k {
        f(positions.next().unwrap_or_default());
    }
}

/// The positions of one [`Scheme`]: an iterator without end.
#[derive(Debug, Clone)]
pub enum SchemePositions {
    /// [`Scheme::Modular`].
    Modular(Positions),
    /// [`Scheme::FixedPoint`].
    FixedPoint(FixedPositions),
}

impl Iterator for SchemePositions {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self {
            SchemePositions::Modular(p) => p.next(),
            SchemePositions::FixedPoint(p) => p.next(),
        }
    }
}

/// Positions a lookup tests before it decides whether to test the rest.
pub const FIRST_ROUND: usize = 3;

/// [`Scheme::all`] over one scheme's positions.
#[inline(always)]
fn two_rounds(
    mut positions: impl Iterator<Item = u64>,
    k: u32,
    test: impl Fn(u64) -> bool,
) -> bool {
    let k = k as usize;
    let first = FIRST_ROUND.min(k);
    let mut all = true;
    for _ in 0..first {
        all &= test(positions.next().unwrap_or_default());
    }
    if !all {
        return false;
    }
    for _ in first..k {
        if !test(positions.next().unwrap_or_default()) {
            return false;
        }
    }
    true
}

/// The bit positions of one item inside a block of `2^log2_bits` bits.
///
/// Each position is an independent-looking slice of `log2_bits` bits taken
/// from a stream of mixed words derived from `hash`, so that the positions
/// behave as independent uniform draws, which is what the blocked filter's
/// exact false-positive formula ([`theory::blocked`](crate::theory::blocked))
/// assumes. The block itself should be chosen from `hash` with [`reduce`],
/// which uses its high bits; the stream here starts from a mixed copy.
#[derive(Debug, Clone)]
pub struct BlockPositions {
    word: u64,
    left: u32,
    counter: u64,
    seed: u64,
    log2_bits: u32,
}

impl BlockPositions {
    /// Positions in a block of `2^log2_bits` bits (`1 ≤ log2_bits ≤ 16`).
    ///
    /// # Panics
    ///
    /// If `log2_bits` is 0 or above 16: block sizes are fixed by the filter
    /// types, never by their callers.
    #[inline]
    pub fn new(hash: u64, log2_bits: u32) -> Self {
        assert!((1..=16).contains(&log2_bits), "block of 2^{log2_bits} bits");
        Self {
            word: 0,
            left: 0,
            counter: 0,
            seed: hash,
            log2_bits,
        }
    }
}

impl Iterator for BlockPositions {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.left < self.log2_bits {
            self.counter += 1;
            self.word = mix64(self.seed ^ self.counter.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            self.left = 64;
        }
        let out = (self.word & ((1 << self.log2_bits) - 1)) as u32;
        self.word >>= self.log2_bits;
        self.left -= self.log2_bits;
        Some(out)
    }
}

#[doc(hidden)]
/// Calls `f` with each of the first `k` positions of
/// [`BlockPositions`]`::new(hash, LOG2_BITS)`, in order, word by word in a
/// loop the compiler unrolls for a block size fixed at compile time: the
/// blocked filters' lookups call it, and a unit test checks that the two give
/// the same positions.
#[inline(always)]
pub fn for_each_block_position<const LOG2_BITS: u32>(hash: u64, k: u32, mut f: impl FnMut(u32)) {
    const { assert!(matches!(LOG2_BITS, 1..=16), "a block of 2 to 2^16 bits") };
    let per_word = 64 / LOG2_BITS;
    let mut left = k;
    let mut counter = 0u64;
    while left > 0 {
        counter += 1;
        let mut word = mix64(hash ^ counter.wrapping_mul(GOLDEN));
        for _ in 0..left.min(per_word) {
            f((word & ((1 << LOG2_BITS) - 1)) as u32);
            word >>= LOG2_BITS;
        }
        left = left.saturating_sub(per_word);
    }
}

#[doc(hidden)]
/// 64-bit words in one sectored block of 512 bits: an item sets the same
/// number of bits in each (see [`sector_masks`]).
pub const SECTORS: usize = 8;

#[doc(hidden)]
/// The multiplier of each word of a sectored block: the high half of
/// `mix64(w + 1)`, made odd; eight fixed 32-bit constants.
pub const SECTOR_SALTS: [u32; SECTORS] = {
    let mut salts = [0; SECTORS];
    let mut w = 0;
    while w < SECTORS {
        salts[w] = (mix64(w as u64 + 1) >> 32) as u32 | 1;
        w += 1;
    }
    salts
};

#[doc(hidden)]
/// The bit round 0 of [`sector_masks`] sets in word `w` (`w < SECTORS`): the
/// whole mask of word `w` when an item sets one bit per word.
///
/// A filter that sets a block word by word with it, `block[w] |=
/// sector_mask(hash, w)` for each `w`, lets the compiler compute the eight
/// masks with vector instructions; [`sector_cells_set`] is the lookup.
#[inline(always)]
pub fn sector_mask(hash: u64, w: usize) -> u64 {
    1 << sector_slot(hash as u32, w, 6)
}

#[doc(hidden)]
/// The 32 bits round `round` of a sectored layout draws from: the low half
/// of `hash` itself for round 0 (no mixing), then of
/// `mix64(hash ^ round·GOLDEN)`.
#[inline(always)]
pub fn sector_round(hash: u64, round: u32) -> u32 {
    if round == 0 {
        hash as u32
    } else {
        mix64(hash ^ u64::from(round).wrapping_mul(GOLDEN)) as u32
    }
}

#[doc(hidden)]
/// The slot of word `w` (`w < SECTORS`) that the round drawing `x` picks
/// among `2^bits` (`1..=32`): the top `bits` bits of
/// `x · SECTOR_SALTS[w] mod 2^32`. A bit of 64 for a Bloom filter
/// (`bits` = 6), a 4-bit counter of 16 for a counting one (`bits` = 4).
///
/// ```
/// use bloomlab_core::hash::{sector_mask, sector_slot};
///
/// let hash = 0x1234_5678_9abc_def1u64;
/// assert_eq!(sector_mask(hash, 3), 1 << sector_slot(hash as u32, 3, 6));
/// // Fewer slots are the top bits of the same product.
/// assert_eq!(sector_slot(hash as u32, 3, 4), sector_slot(hash as u32, 3, 6) >> 2);
/// ```
#[inline(always)]
pub fn sector_slot(x: u32, w: usize, bits: u32) -> u32 {
    x.wrapping_mul(SECTOR_SALTS[w]) >> (32 - bits)
}

/// The bits of a slot in a word of `cell_bits`-bit cells: log2 of the cells
/// a word holds (6 for bits, 4 for 4-bit counters), as
/// [`sector_cell_masks`] and every form of [`sector_cells_set`] pass to
/// [`sector_slot`].
pub(crate) const fn sector_slot_bits(cell_bits: u32) -> u32 {
    (u64::BITS / cell_bits).trailing_zeros()
}

/// One cell of `cell_bits` bits at the bottom of a word, all ones.
pub(crate) const fn cell_ones(cell_bits: u32) -> u64 {
    u64::MAX >> (u64::BITS - cell_bits)
}

#[doc(hidden)]
/// The bits one item sets in a sectored block: `per_sector` bits in each of
/// its [`SECTORS`] 64-bit words, as one mask per word.
///
/// Round `j` of `per_sector` takes the low 32 bits `x` of a word `h_j`
/// (`hash` itself for round 0, then `mix64(hash ^ j·GOLDEN)`) and sets bit
/// `(x · SECTOR_SALTS[w] mod 2^32) >> 26` of word `w`: the top six bits of
/// eight 32-bit multiplications, as the split block Bloom filters of Impala
/// and Parquet place theirs. The block should be chosen with
/// [`reduce`]`(hash, blocks)`, which reads the high bits of `hash`, so that
/// the block and the bits inside it come from different halves of the hash.
/// Round 0 costs eight 32-bit multiplies and shifts and no mixing, which
/// the compiler turns into a few vector instructions: what makes a lookup
/// of the usual one bit per word cheap (see [`sector_mask`]).
/// [`theory::sectored`](crate::theory::sectored) gives the rate, treating
/// the positions as independent uniform draws.
///
/// ```
/// use bloomlab_core::hash::sector_masks;
///
/// let one = sector_masks(0x1234_5678_9abc_def1, 1);
/// assert!(one.iter().all(|m| m.count_ones() == 1));
/// let two = sector_masks(0x1234_5678_9abc_def1, 2);
/// // Round 0 is shared: more bits per word keep the first one.
/// assert!(one.iter().zip(&two).all(|(a, b)| a & b == *a));
/// ```
#[inline(always)]
pub fn sector_masks(hash: u64, per_sector: u32) -> [u64; SECTORS] {
    sector_cell_masks(hash, per_sector, 1)
}

#[doc(hidden)]
/// [`sector_masks`] for cells of `cell_bits` bits (1, 2, 4, … 32) in place
/// of single bits: `per_sector` rounds each pick one of the
/// `64 / cell_bits` cells of every word (the top `log2(64 / cell_bits)`
/// bits of the same products), and the mask of a word has the lowest bit
/// of each picked cell set. With `cell_bits` = 4 these are the 4-bit
/// counters of a sectored counting block.
///
/// ```
/// use bloomlab_core::hash::{sector_cell_masks, sector_masks, sector_slot};
///
/// let hash = 0x1234_5678_9abc_def1u64;
/// assert_eq!(sector_cell_masks(hash, 2, 1), sector_masks(hash, 2));
/// let counters = sector_cell_masks(hash, 1, 4);
/// assert_eq!(counters[5], 1 << (4 * sector_slot(hash as u32, 5, 4)));
/// ```
#[inline(always)]
pub fn sector_cell_masks(hash: u64, per_sector: u32, cell_bits: u32) -> [u64; SECTORS] {
    let slot_bits = sector_slot_bits(cell_bits);
    let mut masks = [0u64; SECTORS];
    for round in 0..per_sector {
        let x = sector_round(hash, round);
        for (w, mask) in masks.iter_mut().enumerate() {
            *mask |= 1 << (sector_slot(x, w, slot_bits) * cell_bits);
        }
    }
    masks
}

#[doc(hidden)]
/// Whether every word `w` of `block` has, non-zero, the cell of
/// `CELL_BITS` bits (1, 2, 4, … 32) that round 0 picks in it: bit
/// `sector_slot(hash as u32, w, 6)` for a sectored Bloom block
/// (`CELL_BITS` = 1), the 4-bit counter `sector_slot(hash as u32, w, 4)`
/// for a sectored counting block (`CELL_BITS` = 4). The lookup of a filter
/// whose items set one cell per word, which is what every rate from about
/// 0.1% up sizes.
///
/// On x86-64 processors with AVX-512 (its `F` and `VL` parts) or AVX2
/// (detected at run time, on every call: a filter keeps a [`SectorTest`]
/// instead) the eight words are tested with vector instructions on 256-bit
/// registers, seventeen instructions where SSE2 needs about sixty (see
/// `benches/FINDINGS.md`); everywhere else by the portable code, which the
/// compiler vectorizes with SSE2. Every copy gives the same answers (a test
/// compares them).
///
/// ```
/// use bloomlab_core::hash::{sector_cell_masks, sector_cells_set};
///
/// let hash = 0x1234_5678_9abc_def1u64;
/// let block = sector_cell_masks(hash, 1, 1);
/// assert!(sector_cells_set::<1>(&block, hash));
/// let mut short = block;
/// short[3] = 0;
/// assert!(!sector_cells_set::<1>(&short, hash));
/// // Counters: any non-zero value of the picked nibble counts.
/// let counters = sector_cell_masks(hash, 1, 4).map(|m| m * 9);
/// assert!(sector_cells_set::<4>(&counters, hash));
/// ```
#[inline(always)]
pub fn sector_cells_set<const CELL_BITS: u32>(block: &[u64; SECTORS], hash: u64) -> bool {
    SectorTest::detect().cells_set::<CELL_BITS>(block, hash)
}

/// [`sector_cells_set`] for any processor: written word by word, so that
/// the compiler computes the eight products and masks with vector
/// instructions (SSE2 on the x86-64 baseline). Measured in one process over
/// a 20M-item blocked Bloom filter (25 MB), 2M absent keys, medians of nine
/// alternating passes: 57.5 ns a lookup against 53.6 for hashing the key
/// and reading one line, where building the eight masks first and testing
/// them after took 1.4 times that floor. For cells wider than a bit, taking
/// the one cell out of each word (against folding each word's cells onto
/// their lowest bits, then masking) took the AVX2 copy from 27 instructions
/// to 22, and the one-line counting filter's lookups (hash, line and test,
/// timed in turns with criterion, 2M keys) to 0.91 times the fold's time at
/// 1M and at 20M items for misses, 0.91 and 0.95 for hits; for one-bit cells
/// the mask against the word stays (the other form took 1.02 times its
/// time at 1M items).
#[inline(always)]
pub(crate) fn sector_cells_set_portable<const CELL_BITS: u32>(
    block: &[u64; SECTORS],
    hash: u64,
) -> bool {
    let slot_bits = sector_slot_bits(CELL_BITS);
    let cell = cell_ones(CELL_BITS);
    let mut missing = 0;
    for (w, &word) in block.iter().enumerate() {
        let at = sector_slot(hash as u32, w, slot_bits) * CELL_BITS;
        missing |= if CELL_BITS == 1 {
            // The bit itself, as a mask against the word.
            (1 << at) & !word
        } else {
            // The one cell the slot picks, shifted down and tested for
            // zero. (Folding every cell of the word onto its lowest bit
            // first, then masking, costs three shifts and three ORs more.)
            u64::from((word >> at) & cell == 0)
        };
    }
    missing == 0
}

#[cfg(test)]
mod tests;
