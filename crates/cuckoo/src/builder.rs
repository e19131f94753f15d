//! The builder: table shape, hash key and relocation bound.

use std::fmt;
use std::hash::BuildHasher;
use std::marker::PhantomData;

use bloomlab_core::theory::cuckoo as theory;
use bloomlab_core::{DefaultHasher, ParamError, check_fpr};

use crate::error::BuildError;
use crate::filter::CuckooFilter;
use crate::table::{BUCKET_SIZES, FINGERPRINT_BITS, Table};

/// The relocation bound of the paper's reference implementation and of
/// [`Builder::max_relocations`] unless changed.
pub const DEFAULT_MAX_RELOCATIONS: u32 = 500;

/// The most relocations one insert may try. A failed insert keeps its path
/// to undo it, so the bound also bounds that memory (8 bytes a step).
pub const MAX_RELOCATIONS: u32 = 1 << 16;

/// The most buckets a table may have: the bucket index comes from the upper
/// 32 bits of the item's hash, the fingerprint from the lower 32.
pub const MAX_BUCKETS: u64 = 1 << 32;

/// How the table is sized.
#[derive(Debug, Clone, Copy)]
enum Sizing {
    /// For `items` items at rate `fpr`.
    Items { items: usize, fpr: f64 },
    /// Exactly this many buckets.
    Buckets { buckets: u64, fingerprint_bits: u32 },
}

/// Configures a [`CuckooFilter`]: made by [`CuckooFilter::builder`] or
/// [`CuckooFilter::builder_with_buckets`], finished by [`build`](Self::build).
///
/// ```
/// use bloomlab_cuckoo::CuckooFilter;
///
/// let filter = CuckooFilter::<u64>::builder(1_000, 0.01)
///     .bucket_size(8)
///     .max_relocations(1_000)
///     .seed(3)
///     .build()?;
/// assert_eq!(filter.bucket_size(), 8);
/// assert_eq!(filter.fingerprint_bits(), 11); // ⌈log2(2·8 / 0.01)⌉
/// # Ok::<(), bloomlab_cuckoo::BuildError>(())
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder<T: ?Sized, S = DefaultHasher> {
    sizing: Sizing,
    bucket_size: u32,
    fingerprint_bits: Option<u32>,
    max_relocations: u32,
    max_bytes: usize,
    hasher: S,
    item: PhantomData<fn(&T)>,
}

impl<T: ?Sized, S: Clone> Clone for Builder<T, S> {
    fn clone(&self) -> Self {
        Self {
            sizing: self.sizing,
            bucket_size: self.bucket_size,
            fingerprint_bits: self.fingerprint_bits,
            max_relocations: self.max_relocations,
            max_bytes: self.max_bytes,
            hasher: self.hasher.clone(),
            item: PhantomData,
        }
    }
}

impl<T: ?Sized, S: fmt::Debug> fmt::Debug for Builder<T, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("sizing", &self.sizing)
            .field("bucket_size", &self.bucket_size)
            .field("fingerprint_bits", &self.fingerprint_bits)
            .field("max_relocations", &self.max_relocations)
            .field("max_bytes", &self.max_bytes)
            .field("hasher", &self.hasher)
            .finish()
    }
}

impl<T: ?Sized> Builder<T, DefaultHasher> {
    pub(crate) fn for_items(items: usize, fpr: f64) -> Self {
        Self::with_sizing(Sizing::Items { items, fpr })
    }

    pub(crate) fn for_buckets(buckets: u64, fingerprint_bits: u32) -> Self {
        Self::with_sizing(Sizing::Buckets {
            buckets,
            fingerprint_bits,
        })
    }

    fn with_sizing(sizing: Sizing) -> Self {
        Self {
            sizing,
            bucket_size: 4,
            fingerprint_bits: None,
            max_relocations: DEFAULT_MAX_RELOCATIONS,
            max_bytes: usize::MAX,
            hasher: DefaultHasher::random(),
            item: PhantomData,
        }
    }

    /// Derives the hash key from `seed` ([`DefaultHasher::from_seed`]):
    /// reproducible, and therefore never for a filter facing crafted input.
    pub fn seed(mut self, seed: u64) -> Self {
        self.hasher = DefaultHasher::from_seed(seed);
        self
    }
}

impl<T: ?Sized, S: BuildHasher> Builder<T, S> {
    /// Hashes items with `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> Builder<T, S2> {
        Builder {
            sizing: self.sizing,
            bucket_size: self.bucket_size,
            fingerprint_bits: self.fingerprint_bits,
            max_relocations: self.max_relocations,
            max_bytes: self.max_bytes,
            hasher,
            item: PhantomData,
        }
    }

    /// Slots per bucket: 2, 4 (the default) or 8.
    ///
    /// With 2 slots the table fills to about 84% before an insert fails,
    /// with 4 to 95%, with 8 to 98% (Fan et al. 2014, §5.1); a lookup reads
    /// two buckets whatever their size, and wider buckets need one more
    /// fingerprint bit per doubling for the same rate.
    pub fn bucket_size(mut self, slots: u32) -> Self {
        self.bucket_size = slots;
        self
    }

    /// Fingerprint width in bits, 4 to 16, instead of the one the rate needs.
    pub fn fingerprint_bits(mut self, bits: u32) -> Self {
        self.fingerprint_bits = Some(bits);
        self
    }

    /// How many stored fingerprints one insert may move before it gives up
    /// with [`InsertError::Full`](bloomlab_core::InsertError::Full) and undoes
    /// the moves (default [`DEFAULT_MAX_RELOCATIONS`], at most
    /// [`MAX_RELOCATIONS`]; 0 means no cuckooing at all).
    pub fn max_relocations(mut self, relocations: u32) -> Self {
        self.max_relocations = relocations;
        self
    }

    /// Refuses to build a table of more than `bytes` bytes.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = bytes;
        self
    }

    /// The filter.
    ///
    /// Sized for items at a rate, it takes `f = ⌈log2(2b/ε)⌉` bits per
    /// fingerprint ([`theory::fingerprint_bits`]), but at least 6 (7 with
    /// 2-slot buckets) so that a large table can still fill, and the fewest
    /// buckets, a power of two, that hold the items at a load of at most
    /// 94% with 4-slot buckets (80% with 2, 97% with 8; half that below 256
    /// buckets), a margin under the 95% where the paper's tables, and this
    /// one's, first refuse an item.
    ///
    /// # Errors
    ///
    /// - [`BuildError::BucketSize`] for a bucket size other than 2, 4, 8;
    /// - [`BuildError::FingerprintBits`] for a width outside 4..=16;
    /// - [`BuildError::TooManyRelocations`] above [`MAX_RELOCATIONS`];
    /// - [`BuildError::Param`] for a rate outside (0, 1) (`InvalidFpr`), zero
    ///   items (`ZeroItems`), or a table above [`max_bytes`](Self::max_bytes)
    ///   or [`MAX_BUCKETS`] buckets (`TooLarge`);
    /// - [`BuildError::FprUnreachable`] when the rate needs more than 16 bits;
    /// - [`BuildError::NumBuckets`] for a bucket count that is zero, not a
    ///   power of two, or above [`MAX_BUCKETS`];
    /// - [`BuildError::OutOfMemory`] if the allocator refuses the table
    ///   (which is zeroed lazily: pages are committed only as slots fill).
    pub fn build(self) -> Result<CuckooFilter<T, S>, BuildError> {
        let b = self.bucket_size;
        if !BUCKET_SIZES.contains(&b) {
            return Err(BuildError::BucketSize(b));
        }
        if let Some(f) = self
            .fingerprint_bits
            .filter(|f| !FINGERPRINT_BITS.contains(f))
        {
            return Err(BuildError::FingerprintBits(f));
        }
        if self.max_relocations > MAX_RELOCATIONS {
            return Err(BuildError::TooManyRelocations(self.max_relocations));
        }
        let (buckets, f) = match self.sizing {
            Sizing::Items { items, fpr } => {
                check_fpr(fpr)?;
                if items == 0 {
                    return Err(ParamError::ZeroItems.into());
                }
                let plan = plan(items as u64, fpr, b)?;
                let f = match self.fingerprint_bits {
                    Some(f) => f,
                    None if plan.needed_bits > *FINGERPRINT_BITS.end() => {
                        return Err(BuildError::FprUnreachable {
                            fpr,
                            bucket_size: b,
                            needed_bits: plan.needed_bits,
                        });
                    }
                    None => plan.fingerprint_bits,
                };
                let buckets = plan.buckets;
                if buckets > MAX_BUCKETS {
                    let limit = table_bytes(MAX_BUCKETS, b, f);
                    return Err(too_large(buckets, b, f, limit).into());
                }
                (buckets, f)
            }
            Sizing::Buckets {
                buckets,
                fingerprint_bits,
            } => {
                if buckets == 0 || !buckets.is_power_of_two() || buckets > MAX_BUCKETS {
                    return Err(BuildError::NumBuckets(buckets));
                }
                let f = self.fingerprint_bits.unwrap_or(fingerprint_bits);
                if !FINGERPRINT_BITS.contains(&f) {
                    return Err(BuildError::FingerprintBits(f));
                }
                (buckets, f)
            }
        };
        let log2 = buckets.trailing_zeros();
        let words = Table::words_for(log2, b, f)
            .filter(|w| {
                w.checked_mul(8)
                    .is_some_and(|bytes| bytes <= self.max_bytes)
            })
            .ok_or_else(|| too_large(buckets, b, f, self.max_bytes as u128))?;
        Ok(CuckooFilter::from_parts(
            Table::new(log2, b, f, words)?,
            0,
            self.max_relocations,
            self.hasher,
        ))
    }
}

/// The table [`CuckooFilter::new`](crate::CuckooFilter::new)`(items, fpr)`
/// plans with `bucket_size`-slot buckets, before any limit is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Buckets: the fewest, a power of two, that hold `items` at the planned load.
    pub buckets: u64,
    /// The fingerprint the rate needs: `⌈log2(2b/ε)⌉`.
    pub needed_bits: u32,
    /// The fingerprint the table gets: `needed_bits`, but at least the floor
    /// that lets large tables fill (7 bits with 2 slots, 6 with 4 or 8).
    pub fingerprint_bits: u32,
}

/// How [`CuckooFilter::new`](crate::CuckooFilter::new) sizes a table for
/// `items` at rate `fpr` with `bucket_size` slots per bucket: the rate's
/// fingerprint width (at least the floor), and the fewest power-of-two
/// buckets at the load this implementation plans for (94% with 4 slots, 80%
/// with 2, 97% with 8; half that below 256 buckets). Planning tools (such as
/// `bloomlab choose`) call this rather than copying the constants.
///
/// The plan may exceed what the builder accepts: check `needed_bits`
/// against [`FINGERPRINT_BITS`] and `buckets` against [`MAX_BUCKETS`].
///
/// ```
/// // 1,000,000 / (4 · 0.94) = 265,958 buckets needed: the next power of two is 2^19.
/// let plan = bloomlab_cuckoo::plan(1_000_000, 0.001, 4).unwrap();
/// assert_eq!((plan.buckets, plan.needed_bits, plan.fingerprint_bits), (1 << 19, 13, 13));
/// ```
///
/// # Errors
///
/// [`ParamError`] for a rate outside (0, 1), zero items, a bucket size of
/// zero, or a count that overflows.
pub fn plan(items: u64, fpr: f64, bucket_size: u32) -> Result<Plan, ParamError> {
    check_fpr(fpr)?;
    if items == 0 {
        return Err(ParamError::ZeroItems);
    }
    let needed = theory::fingerprint_bits(fpr, bucket_size)?;
    let load = sizing_load(bucket_size);
    let mut buckets = theory::num_buckets(items, bucket_size, load)?;
    if buckets < SMALL_TABLE {
        buckets = theory::num_buckets(items, bucket_size, load / 2.0)?;
    }
    Ok(Plan {
        buckets,
        needed_bits: needed,
        fingerprint_bits: needed.max(min_fingerprint_bits(bucket_size)),
    })
}

/// Tables of fewer buckets are planned for half the load: their first
/// failed insert comes earlier, and varies more, than in large tables
/// (measured here down to 77% with 2 slots and 91% with 4 in 64 buckets).
const SMALL_TABLE: u64 = 256;

/// The load a table sized from an item count is planned for, a margin below
/// where this implementation's first insert fails.
///
/// Measured here (20 seeds at each of 2^8 to 2^16 buckets, 6 at 2^18 and
/// 2^20, fingerprints of 6 to 10 bits), the worst first failure of any size
/// came at 95.2% with 4 slots, 83.2% with 2 and 98.6% with 8 (means 95.6% to
/// 97.6%, 86.4% to 89.3%, 98.8% to 99.6%), against the paper's 95%, 84% and
/// 98%. The plan stays below each worst case: 94%, 80%, 97%.
fn sizing_load(b: u32) -> f64 {
    match b {
        2 => 0.80,
        8 => 0.97,
        _ => 0.94,
    }
}

/// The narrowest fingerprint a table sized from a rate gets: 7 bits with
/// 2-slot buckets, 6 with 4 or 8.
///
/// The alternate bucket depends on the fingerprint alone, so `f` bits give
/// only `2^f − 1` offsets, and with few of them items crowd into groups of
/// buckets that only reach each other (the paper's §4: the load needs
/// `f = Ω(log(n)/b)`). Measured here, 4-bit fingerprints stop near 94% in
/// 2^20 4-slot buckets and near 35% in 2^20 2-slot buckets; 5 bits reach
/// only 94.8% and 54% there at worst; with the floors above, the worst at
/// 2^20 buckets was 95.2% and 86.0%. A wider fingerprint only lowers the
/// rate, so the promise to the caller is kept.
fn min_fingerprint_bits(b: u32) -> u32 {
    if b == 2 { 7 } else { 6 }
}

/// Bytes of a table of `buckets` buckets of `b` slots of `f` bits, in whole words.
fn table_bytes(buckets: u64, b: u32, f: u32) -> u128 {
    (u128::from(buckets) * u128::from(b * f)).div_ceil(64) * 8
}

fn too_large(buckets: u64, b: u32, f: u32, limit: u128) -> ParamError {
    ParamError::TooLarge {
        needed: table_bytes(buckets, b, f),
        limit,
    }
}
