//! The builder, and how a filter is sized: fingerprint width from the rate,
//! arity and array from the number of keys.

use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use bloomlab_core::builder::Settings;
use bloomlab_core::theory::fuse as theory;
use bloomlab_core::{DefaultHasher, OutOfMemory, ParamError, check_fpr};

use crate::build::{Scratch, build};
use crate::error::{BuildError, Invalid};
use crate::filter::BinaryFuseFilter;
use crate::layout::{ARITIES, Layout, MAX_KEYS};
use crate::table::FINGERPRINT_BITS;

/// Construction attempts [`Builder::max_attempts`] allows unless changed.
/// An array sized by the paper's formulas peels at the first attempt most
/// of the time, so 64 failures in a row mean an array too small for its keys.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 64;

/// The most construction attempts a builder may allow.
pub const MAX_ATTEMPTS: u32 = 1 << 10;

/// How a [`BinaryFuseFilter`] of `n` keys is laid out: what
/// [`plan`] computes without allocating, and what a built filter reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Bits per fingerprint: 8, 16 or 32.
    pub fingerprint_bits: u32,
    /// Slots per key: 3 or 4.
    pub arity: u32,
    /// Slots per segment, a power of two.
    pub segment_length: u32,
    /// Segments a key's first slot may fall in (the array has `arity − 1`
    /// more).
    pub segment_count: u32,
}

impl Plan {
    /// Fingerprints in the array.
    pub fn slots(&self) -> u64 {
        (u64::from(self.segment_count) + u64::from(self.arity) - 1) * u64::from(self.segment_length)
    }

    /// Bytes of the array: what the filter's `memory_bytes()` will be.
    pub fn memory_bytes(&self) -> u64 {
        self.slots() * u64::from(self.fingerprint_bits / 8)
    }

    /// Bytes construction from `keys` keys allocates besides the array, at
    /// its peak: the keys' 64-bit hashes and the working arrays of the
    /// peeling (about 30 bytes a key), all freed when the filter is built.
    ///
    /// ```
    /// let plan = bloomlab_fuse::plan(1_000_000, 0.01)?;
    /// // 17 bytes a key (its hash, its place in the peeling order, the slot
    /// // it was peeled from), 13 a slot, 4 a segment boundary.
    /// let (slots, segments) = (1_077_248, 260);
    /// assert_eq!(plan.slots(), slots);
    /// assert_eq!(plan.segment_count, segments);
    /// assert_eq!(
    ///     plan.build_scratch_bytes(1_000_000),
    ///     17 * 1_000_000 + 13 * slots + 4 * (u64::from(segments) + 1)
    /// );
    /// # Ok::<(), bloomlab_fuse::BuildError>(())
    /// ```
    pub fn build_scratch_bytes(&self, keys: u64) -> u64 {
        keys * 8 + Scratch::bytes(keys, self.slots(), self.segment_count.into())
    }

    /// The rate of an absent item, `2^−f`.
    pub fn fpr(&self) -> f64 {
        theory::fpr(self.fingerprint_bits)
    }

    fn layout(&self) -> Layout {
        Layout::new(
            self.arity,
            self.segment_length.trailing_zeros(),
            self.segment_count,
        )
    }
}

/// How [`BinaryFuseFilter::builder`] lays out a filter of `n` keys at rate
/// `fpr`: the narrowest fingerprint whose rate `2^−f` is at most `fpr`
/// ([`fingerprint_bits_for`]), and of 3-wise and 4-wise construction with
/// the paper's segment length and size factor
/// ([`theory::fuse`](bloomlab_core::theory::fuse)), the one of fewer slots
/// (3-wise on a tie: it reads one slot less a lookup).
///
/// ```
/// let plan = bloomlab_fuse::plan(1_000_000, 0.01)?;
/// assert_eq!((plan.fingerprint_bits, plan.arity), (8, 4));
/// // 4-wise: 1.075 slots a key, rounded up to whole segments.
/// assert_eq!(plan.memory_bytes(), 1_077_248);
/// # Ok::<(), bloomlab_fuse::BuildError>(())
/// ```
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for a rate outside (0, 1);
/// [`Invalid::FprUnreachable`] below `2^−32`; [`Invalid::EmptySet`] for no
/// keys; [`Invalid::TooManyKeys`] above [`MAX_KEYS`](crate::MAX_KEYS).
pub fn plan(n: u64, fpr: f64) -> Result<Plan, BuildError> {
    Options::new(Width::Fpr(fpr)).plan(n)
}

/// The narrowest of the [`FINGERPRINT_BITS`] whose rate `2^−f` is at most
/// `fpr`.
///
/// ```
/// use bloomlab_fuse::fingerprint_bits_for;
///
/// assert_eq!(fingerprint_bits_for(0.01)?, 8);
/// assert_eq!(fingerprint_bits_for(1.0 / 256.0)?, 8);
/// assert_eq!(fingerprint_bits_for(1e-4)?, 16);
/// # Ok::<(), bloomlab_fuse::BuildError>(())
/// ```
///
/// # Errors
///
/// As [`plan`], for the rate alone.
pub fn fingerprint_bits_for(fpr: f64) -> Result<u32, BuildError> {
    let fpr = check_fpr(fpr)?;
    FINGERPRINT_BITS
        .into_iter()
        .find(|&f| theory::fpr(f) <= fpr)
        .ok_or(Invalid::FprUnreachable(fpr).into())
}

/// The fingerprint: from a rate, or given.
#[derive(Debug, Clone, Copy)]
enum Width {
    Fpr(f64),
    Bits(u32),
}

/// What a [`Builder`] sets beside the hasher.
#[derive(Debug, Clone, Copy)]
struct Options {
    width: Width,
    arity: Option<u32>,
    size_factor: Option<f64>,
    segment_length_log2: Option<u32>,
    max_attempts: u32,
    max_bytes: usize,
}

impl Options {
    fn new(width: Width) -> Self {
        Options {
            width,
            arity: None,
            size_factor: None,
            segment_length_log2: None,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            max_bytes: usize::MAX,
        }
    }

    fn fingerprint_bits(&self) -> Result<u32, BuildError> {
        match self.width {
            Width::Fpr(fpr) => fingerprint_bits_for(fpr),
            Width::Bits(bits) if FINGERPRINT_BITS.contains(&bits) => Ok(bits),
            Width::Bits(bits) => Err(Invalid::FingerprintBits(bits).into()),
        }
    }

    /// Checks what does not depend on the keys.
    fn check(&self) -> Result<(), BuildError> {
        self.fingerprint_bits()?;
        if let Some(arity) = self.arity.filter(|a| !ARITIES.contains(a)) {
            return Err(Invalid::Arity(arity).into());
        }
        if !(1..=MAX_ATTEMPTS).contains(&self.max_attempts) {
            return Err(Invalid::MaxAttempts(self.max_attempts).into());
        }
        Ok(())
    }

    fn plan(&self, n: u64) -> Result<Plan, BuildError> {
        self.check()?;
        let fingerprint_bits = self.fingerprint_bits()?;
        let layout = |arity| Layout::for_keys(arity, n, self.size_factor, self.segment_length_log2);
        let layout = match self.arity {
            Some(arity) => layout(arity)?,
            None => {
                let (three, four) = (layout(3)?, layout(4)?);
                if four.slots() < three.slots() {
                    four
                } else {
                    three
                }
            }
        };
        let plan = Plan {
            fingerprint_bits,
            arity: layout.arity,
            segment_length: 1 << layout.segment_length_log2,
            segment_count: layout.segment_count,
        };
        let bytes = u128::from(plan.memory_bytes());
        if bytes > self.max_bytes as u128 {
            return Err(ParamError::TooLarge {
                needed: bytes,
                limit: self.max_bytes as u128,
            }
            .into());
        }
        Ok(plan)
    }
}

/// Configures a [`BinaryFuseFilter`]: made by [`BinaryFuseFilter::builder`]
/// (for a rate) or [`BinaryFuseFilter::builder_with_bits`] (for a
/// fingerprint width), finished by [`build`](Self::build) with the keys.
///
/// ```
/// use bloomlab_fuse::BinaryFuseFilter;
///
/// let keys: Vec<u64> = (0..10_000).collect();
/// let filter = BinaryFuseFilter::<u64>::builder_with_bits(16)
///     .arity(3)
///     .seed(7)
///     .build(&keys)?;
/// assert_eq!((filter.fingerprint_bits(), filter.arity()), (16, 3));
/// assert!(keys.iter().all(|k| filter.contains(k)));
/// # Ok::<(), bloomlab_fuse::BuildError>(())
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder<T: ?Sized, S = DefaultHasher>(Settings<T, Options, S>);

bloomlab_core::impl_builder!(Builder);

impl<T: ?Sized> BinaryFuseFilter<T, DefaultHasher> {
    /// A builder of a filter at rate `fpr`: the narrowest fingerprint that
    /// reaches it ([`plan`]), with a random hash key unless
    /// [`seed`](Builder::seed) is given. Its other options
    /// ([`Builder`]): [`hasher`](Builder::hasher),
    /// [`arity`](Builder::arity), [`size_factor`](Builder::size_factor),
    /// [`segment_length_log2`](Builder::segment_length_log2),
    /// [`max_attempts`](Builder::max_attempts) and
    /// [`max_bytes`](Builder::max_bytes); then [`build`](Builder::build)
    /// from the keys.
    pub fn builder(fpr: f64) -> Builder<T> {
        Builder(Settings::new(Options::new(Width::Fpr(fpr))))
    }

    /// A builder of a filter of `fingerprint_bits`-bit fingerprints (8, 16
    /// or 32), whose rate is `2^−f`.
    pub fn builder_with_bits(fingerprint_bits: u32) -> Builder<T> {
        Builder(Settings::new(Options::new(Width::Bits(fingerprint_bits))))
    }

    /// The filter of `keys` at rate `fpr`, with a random hash key:
    /// `builder(fpr).build(keys)`.
    ///
    /// # Errors
    ///
    /// As [`Builder::build`].
    pub fn from_keys(keys: &[T], fpr: f64) -> Result<Self, BuildError>
    where
        T: Hash + Sized,
    {
        Self::builder(fpr).build(keys)
    }
}

impl<T: ?Sized> Builder<T, DefaultHasher> {
    /// The hash key derived from `seed`: the same keys then build the same
    /// filter, byte for byte.
    pub fn seed(self, seed: u64) -> Self {
        Builder(self.0.seed(seed))
    }
}

impl<T: ?Sized, S> Builder<T, S> {
    /// Items are hashed by `hasher` instead of the default keyed hash.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> Builder<T, S2> {
        Builder(self.0.hasher(hasher))
    }

    /// 3-wise or 4-wise construction, instead of the one of fewer slots.
    pub fn arity(mut self, arity: u32) -> Self {
        self.0.arity = Some(arity);
        self
    }

    /// Slots per key before rounding to whole segments, instead of the
    /// paper's size factor for the number of keys (in (0, 16]; below about
    /// 1.1 an array rarely peels, and below 1 never).
    pub fn size_factor(mut self, factor: f64) -> Self {
        self.0.size_factor = Some(factor);
        self
    }

    /// Segments of `2^log2` slots (at most
    /// [`MAX_SEGMENT_LENGTH_LOG2`](crate::MAX_SEGMENT_LENGTH_LOG2)),
    /// instead of the paper's length for the number of keys.
    pub fn segment_length_log2(mut self, log2: u32) -> Self {
        self.0.segment_length_log2 = Some(log2);
        self
    }

    /// At most `attempts` constructions, each with new slots for every key
    /// (default [`DEFAULT_MAX_ATTEMPTS`], at most [`MAX_ATTEMPTS`]).
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.0.max_attempts = attempts;
        self
    }

    /// Refuses an array of more than `bytes` bytes
    /// ([`ParamError::TooLarge`]).
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.0.max_bytes = bytes;
        self
    }

    /// The filter of `keys`: items, or references to items, of the set
    /// (duplicates allowed, stored once). The array is sized for every key
    /// given, duplicates included.
    ///
    /// # Errors
    ///
    /// The options' [`BuildError`]s, checked before any key is read;
    /// [`Invalid::EmptySet`] for no keys; [`Invalid::TooManyKeys`] past
    /// [`MAX_KEYS`](crate::MAX_KEYS); [`ParamError::TooLarge`] past
    /// [`max_bytes`](Self::max_bytes); [`BuildError::OutOfMemory`] when the
    /// allocator refuses the hashes, the array or the scratch space of
    /// construction (about 30 bytes a key); [`Invalid::NotConverged`] when
    /// no attempt succeeded.
    pub fn build<I>(self, keys: I) -> Result<BinaryFuseFilter<T, S>, BuildError>
    where
        I: IntoIterator,
        I::Item: Borrow<T>,
        T: Hash,
        S: BuildHasher,
    {
        let (options, hasher) = self.0.into_parts();
        options.check()?;
        let mut hashes = hash_keys(&hasher, keys)?;
        let plan = options.plan(hashes.len() as u64)?;
        let build = match plan.fingerprint_bits {
            8 => build::<u8>,
            16 => build::<u16>,
            _ => build::<u32>,
        };
        let (table, seed, len) = build(&mut hashes, plan.layout(), options.max_attempts)?;
        Ok(BinaryFuseFilter {
            table,
            layout: plan.layout(),
            seed,
            len,
            hasher,
            item: PhantomData,
        })
    }
}

/// The hash of every key, in order, in memory the allocator may refuse.
fn hash_keys<T, S, I>(hasher: &S, keys: I) -> Result<Vec<u64>, BuildError>
where
    T: Hash + ?Sized,
    S: BuildHasher,
    I: IntoIterator,
    I::Item: Borrow<T>,
{
    let refused = |words: usize| OutOfMemory {
        bytes: words as u128 * 8,
    };
    let keys = keys.into_iter();
    let mut hashes = Vec::new();
    let hint = keys.size_hint().0.min(MAX_KEYS as usize);
    hashes.try_reserve_exact(hint).map_err(|_| refused(hint))?;
    for key in keys {
        if hashes.len() as u64 == MAX_KEYS {
            return Err(Invalid::TooManyKeys { keys: MAX_KEYS + 1 }.into());
        }
        if hashes.len() == hashes.capacity() {
            let more = hashes.len().max(1 << 10);
            hashes
                .try_reserve(more)
                .map_err(|_| refused(hashes.len() + more))?;
        }
        hashes.push(hasher.hash_one(key.borrow()));
    }
    Ok(hashes)
}
