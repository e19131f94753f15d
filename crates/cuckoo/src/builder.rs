//! The builder: table shape, hash key and relocation bound.

use std::hash::BuildHasher;

use bloomlab_core::alloc::packed_words;
use bloomlab_core::builder::Settings;
use bloomlab_core::theory::cuckoo as theory;
use bloomlab_core::{DefaultHasher, ParamError, check_fpr};

use crate::error::{BuildError, Invalid};
use crate::filter::CuckooFilter;
use crate::table::{AltMap, BUCKET_SIZES, FINGERPRINT_BITS, Layout, MAX_TABLE_BYTES, Table};

/// The relocation bound of the paper's reference implementation and of
/// [`Builder::max_relocations`] unless changed.
pub const DEFAULT_MAX_RELOCATIONS: u32 = 500;

/// The most relocations one insert may try. A failed insert keeps its path
/// to undo it, so the bound also bounds that memory (8 bytes a step).
pub const MAX_RELOCATIONS: u32 = 1 << 16;

/// The most buckets a table may have (any count from 1 up to this one): the
/// bucket index comes from the upper 32 bits of the item's hash, the
/// fingerprint from the lower 32.
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
/// // A small table (129 buckets at 97%) is planned at half load, 48.5%,
/// // where 10 bits give 1 − (1 − 1/1023)^(16 · 0.485) = 0.76% ≤ 1%.
/// assert_eq!(filter.fingerprint_bits(), 10);
/// # Ok::<(), bloomlab_cuckoo::BuildError>(())
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder<T: ?Sized, S = DefaultHasher>(Settings<T, Options, S>);

/// What a [`Builder`] sets beside the hasher.
#[derive(Debug, Clone, Copy)]
struct Options {
    sizing: Sizing,
    bucket_size: u32,
    fingerprint_bits: Option<u32>,
    semi_sorted: Option<bool>,
    max_relocations: u32,
    max_bytes: usize,
}

bloomlab_core::impl_builder!(Builder);

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
        Self(Settings::new(Options {
            sizing,
            bucket_size: 4,
            fingerprint_bits: None,
            semi_sorted: None,
            max_relocations: DEFAULT_MAX_RELOCATIONS,
            max_bytes: usize::MAX,
        }))
    }

    /// Derives the hash key from `seed` ([`DefaultHasher::from_seed`]):
    /// reproducible, and therefore never for a filter facing crafted input.
    pub fn seed(self, seed: u64) -> Self {
        Self(self.0.seed(seed))
    }
}

impl<T: ?Sized, S: BuildHasher> Builder<T, S> {
    /// Hashes items with `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> Builder<T, S2> {
        Builder(self.0.hasher(hasher))
    }

    /// Slots per bucket: 2, 4 (the default) or 8.
    ///
    /// With 2 slots the table fills to about 84% before an insert fails,
    /// with 4 to 95%, with 8 to 98% (Fan et al. 2014, §5.1); a lookup reads
    /// two buckets whatever their size, and wider buckets need one more
    /// fingerprint bit per doubling for the same rate.
    pub fn bucket_size(mut self, slots: u32) -> Self {
        self.0.bucket_size = slots;
        self
    }

    /// Fingerprint width in bits, 4 to 32, instead of the one the rate needs.
    pub fn fingerprint_bits(mut self, bits: u32) -> Self {
        self.0.fingerprint_bits = Some(bits);
        self
    }

    /// Semi-sorted buckets (`true`; 4-slot buckets only) or plain ones
    /// (`false`), instead of the layout [`plan`] chooses (a table sized by
    /// bucket count is plain unless told).
    ///
    /// A semi-sorted bucket keeps its four fingerprints in order and stores
    /// their top 4 bits as one 12-bit index into the 3,876 sorted multisets
    /// of four 4-bit values (Fan et al. 2014, §5.2): `4f − 4` bits a bucket
    /// instead of `4f`, the same false-positive rate, and lookups that
    /// decode the index.
    pub fn semi_sorted(mut self, semi_sorted: bool) -> Self {
        self.0.semi_sorted = Some(semi_sorted);
        self
    }

    /// How many stored fingerprints one insert may move before it gives up
    /// with [`InsertError::Full`](bloomlab_core::InsertError::Full) and undoes
    /// the moves (default [`DEFAULT_MAX_RELOCATIONS`], at most
    /// [`MAX_RELOCATIONS`]; 0 means no cuckooing at all).
    pub fn max_relocations(mut self, relocations: u32) -> Self {
        self.0.max_relocations = relocations;
        self
    }

    /// Refuses to build a table of more than `bytes` bytes.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.0.max_bytes = bytes;
        self
    }

    /// The filter.
    ///
    /// Sized for items at a rate, it follows [`plan`]: the narrowest
    /// fingerprint whose rate at the design load is at most the one asked
    /// for, at least a floor that lets large tables fill, and
    /// `⌈items / (b · load)⌉` buckets, rounded up to an even count, at the
    /// load this implementation was measured to reach without a failed
    /// insert ([`theory::design_load`]).
    ///
    /// # Errors
    ///
    /// - [`Invalid::BucketSize`](crate::Invalid::BucketSize) for a bucket size other than 2, 4, 8;
    /// - [`Invalid::FingerprintBits`](crate::Invalid::FingerprintBits) for a width outside 4..=32;
    /// - [`Invalid::SemiSortedBucketSize`](crate::Invalid::SemiSortedBucketSize) for semi-sorted buckets of
    ///   other than 4 slots;
    /// - [`Invalid::TooManyRelocations`](crate::Invalid::TooManyRelocations) above [`MAX_RELOCATIONS`];
    /// - [`BuildError::Param`] for a rate outside (0, 1) (`InvalidFpr`), zero
    ///   items (`ZeroItems`), or a table above [`max_bytes`](Self::max_bytes),
    ///   above [`MAX_BUCKETS`] buckets, or too large for this target to
    ///   address its bits (over 512 MiB on a 32-bit target) (`TooLarge`);
    /// - [`Invalid::FprUnreachable`](crate::Invalid::FprUnreachable) when the rate needs more than 32 bits;
    /// - [`Invalid::NumBuckets`](crate::Invalid::NumBuckets) for a bucket count of zero or above
    ///   [`MAX_BUCKETS`];
    /// - [`BuildError::OutOfMemory`] if the allocator refuses the table
    ///   (which is zeroed lazily: pages are committed only as slots fill).
    pub fn build(self) -> Result<CuckooFilter<T, S>, BuildError> {
        let (options, hasher) = self.0.into_parts();
        let b = options.bucket_size;
        if !BUCKET_SIZES.contains(&b) {
            return Err(BuildError::Variant(Invalid::BucketSize(b)));
        }
        if let Some(f) = options
            .fingerprint_bits
            .filter(|f| !FINGERPRINT_BITS.contains(f))
        {
            return Err(BuildError::Variant(Invalid::FingerprintBits(f)));
        }
        if options.semi_sorted == Some(true) && b != 4 {
            return Err(BuildError::Variant(Invalid::SemiSortedBucketSize(b)));
        }
        if options.max_relocations > MAX_RELOCATIONS {
            return Err(BuildError::Variant(Invalid::TooManyRelocations(
                options.max_relocations,
            )));
        }
        let (buckets, f, semi) = match options.sizing {
            Sizing::Items { items, fpr } => {
                check_fpr(fpr)?;
                if items == 0 {
                    return Err(ParamError::ZeroItems.into());
                }
                let plan = plan(items as u64, fpr, b)?;
                let f = match options.fingerprint_bits {
                    Some(f) => f,
                    None if plan.needed_bits > *FINGERPRINT_BITS.end() => {
                        return Err(BuildError::Variant(Invalid::FprUnreachable {
                            fpr,
                            bucket_size: b,
                            needed_bits: plan.needed_bits,
                        }));
                    }
                    None => plan.fingerprint_bits,
                };
                let semi = options.semi_sorted.unwrap_or(plan.semi_sorted);
                let buckets = plan.buckets;
                if buckets > MAX_BUCKETS {
                    let limit = table_bytes(MAX_BUCKETS, u64::from(bucket_bits(b, f, semi)));
                    return Err(too_large(buckets, bucket_bits(b, f, semi), limit).into());
                }
                (buckets, f, semi)
            }
            Sizing::Buckets {
                buckets,
                fingerprint_bits,
            } => {
                if buckets == 0 || buckets > MAX_BUCKETS {
                    return Err(BuildError::Variant(Invalid::NumBuckets(buckets)));
                }
                let f = options.fingerprint_bits.unwrap_or(fingerprint_bits);
                if !FINGERPRINT_BITS.contains(&f) {
                    return Err(BuildError::Variant(Invalid::FingerprintBits(f)));
                }
                (buckets, f, options.semi_sorted.unwrap_or(false))
            }
        };
        let bits = bucket_bits(b, f, semi);
        let words = Table::words_for(buckets, bits)
            .filter(|w| {
                w.checked_mul(8)
                    .is_some_and(|bytes| bytes <= options.max_bytes)
            })
            .ok_or_else(|| {
                too_large(
                    buckets,
                    bits,
                    (options.max_bytes as u128).min(MAX_TABLE_BYTES),
                )
            })?;
        let layout = if semi {
            Layout::SemiSorted
        } else {
            Layout::Plain
        };
        let words = bloomlab_core::alloc::buffer(words)?;
        Ok(CuckooFilter::from_parts(
            Table::from_words(words, buckets, b, f, layout, NEW_TABLE_MAP),
            0,
            options.max_relocations,
            hasher,
        ))
    }
}

/// The table [`CuckooFilter::new`](crate::CuckooFilter::new)`(items, fpr)`
/// plans with `bucket_size`-slot buckets, before any limit is checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Buckets: `⌈items / (b · load)⌉`, rounded up to an even count (so that
    /// an item's two buckets always differ).
    pub buckets: u64,
    /// The load the table is sized for ([`theory::design_load`], or half
    /// of it for a small table): `items` fill at most this fraction of the
    /// slots.
    pub load: f64,
    /// The narrowest fingerprint whose rate at `load` is at most `fpr`:
    /// the least `f` with [`theory::fpr`]`(f, b, load) ≤ fpr`.
    pub needed_bits: u32,
    /// The fingerprint the table gets: `needed_bits`, but at least the floor
    /// that lets large tables fill (7 bits with 2 slots, 6 with 4 or 8).
    pub fingerprint_bits: u32,
    /// Whether the buckets are semi-sorted: never, for now, in a plan (see
    /// [`plan`]); [`Builder::semi_sorted`] asks for it.
    pub semi_sorted: bool,
    /// Bits per bucket: `b · f`, or `4f − 4` semi-sorted.
    pub bits_per_bucket: u64,
    /// Bytes of the table, in whole 64-bit words.
    pub table_bytes: u128,
    /// Bits of table per item once `items` are stored: `8 · table_bytes / items`.
    pub bits_per_item: f64,
}

/// How [`CuckooFilter::new`](crate::CuckooFilter::new) sizes a table for
/// `items` at rate `fpr` with `bucket_size` slots per bucket. Planning tools
/// (such as `bloomlab choose`) call this rather than copying the constants.
///
/// - The load: [`theory::design_load`] (94% of slots with 4-slot buckets,
///   80% with 2, 97% with 8), a margin below where this implementation's
///   first insert was measured to fail; half that for tables of fewer than
///   256 buckets, whose first failure comes earlier and varies more.
/// - The fingerprint: the least `f` whose exact rate at that load is at
///   most `fpr` ([`theory::fingerprint_bits_at_load`]), at least 6 bits (7
///   with 2-slot buckets) so that large tables still fill.
/// - The buckets: `⌈items / (b · load)⌉`, any count, rounded up to an even
///   one.
/// - The layout: plain. Semi-sorting would save one bit per item with 4-slot
///   buckets, but its lookups measured 1.3 to 1.9 times slower than plain
///   ones at a million items, outside the 1.3 times `new` allows; the crate
///   docs give the measurements, and [`Builder::semi_sorted`] chooses it.
///
/// The plan may exceed what the builder accepts: check `needed_bits`
/// against [`FINGERPRINT_BITS`] and `buckets` against [`MAX_BUCKETS`].
///
/// ```
/// // 1,000,000 / (4 · 0.94) = 265,957.4 buckets: 265,958; fpr(13, 4, 0.94) ≤ 0.001.
/// let plan = bloomlab_cuckoo::plan(1_000_000, 0.001, 4).unwrap();
/// assert_eq!((plan.buckets, plan.needed_bits, plan.fingerprint_bits), (265_958, 13, 13));
/// assert!(!plan.semi_sorted);
/// // 52 bits a bucket: 13.83 bits per item, against 27.26 for the 2^19
/// // buckets (48% full) the first version took.
/// assert!((plan.bits_per_item - 13.83).abs() < 0.005);
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
    if bucket_size == 0 {
        return Err(ParamError::ZeroBits);
    }
    let mut load = sizing_load(bucket_size);
    let mut buckets = theory::num_buckets(items, bucket_size, load)?;
    if buckets < SMALL_TABLE {
        load /= 2.0;
        buckets = theory::num_buckets(items, bucket_size, load)?;
    }
    // An even count, so that an item's two buckets always differ.
    buckets += buckets % 2;
    let needed = theory::fingerprint_bits_at_load(fpr, bucket_size, load)?;
    let f = needed.max(min_fingerprint_bits(bucket_size));
    let semi = SEMI_SORTED_BY_DEFAULT && bucket_size == 4;
    // In u64: a plan may be asked for any bucket size, and f past 32.
    let bits_per_bucket = if semi {
        4 * u64::from(f) - 4
    } else {
        u64::from(bucket_size) * u64::from(f)
    };
    let bytes = table_bytes(buckets, bits_per_bucket);
    Ok(Plan {
        buckets,
        load,
        needed_bits: needed,
        fingerprint_bits: f,
        semi_sorted: semi,
        bits_per_bucket,
        table_bytes: bytes,
        bits_per_item: bytes as f64 * 8.0 / items as f64,
    })
}

/// Whether [`plan`] semi-sorts 4-slot buckets: only if their lookups
/// stayed within 1.3 times the plain layout's, which they did not (the crate
/// docs, "Semi-sorted buckets").
const SEMI_SORTED_BY_DEFAULT: bool = false;

/// Tables of fewer buckets are planned for half the load: their first
/// failed insert comes earlier, and varies more, than in large tables
/// (measured down to 93.0% with 4 slots and 78.9% with 2 in 64 buckets).
const SMALL_TABLE: u64 = 256;

/// The load a table sized from an item count is planned for,
/// [`theory::design_load`] (0.80 for a bucket size theory does not know).
///
/// Measured with the alternate-bucket maps of this version (`cargo run
/// --release -p bloomlab-cuckoo --example first_failure -- B F SEEDS M...`,
/// 500 relocations): 200 seeds at each of 10 bucket counts from 64 to
/// 16,386, 20 (10 for 2 and 8 slots) at 65,536 and 262,146, 3 or 4 at 10^6
/// and at the count 10^7 items take (2,631,580 buckets of 4, 5,263,158 of
/// 2, 1,288,660 of 8), with 6-, 12- and 23-bit fingerprints (7 and 12 with 2
/// slots, 6 and 12 with 8). From 256 buckets up, the worst first failure
/// came at 94.70% with 4 slots, 81.2% with 2 and 98.1% with 8 (means from
/// 97.4% down to 95.4%, 89.2% to 86.2%, 99.5% to 98.6%, falling as tables
/// grow); the design loads, 94%, 80% and 97%, stay below each.
fn sizing_load(b: u32) -> f64 {
    theory::design_load(b).unwrap_or(0.80)
}

/// The narrowest fingerprint a table sized from a rate gets: 7 bits with
/// 2-slot buckets, 6 with 4 or 8.
///
/// The alternate bucket depends on the fingerprint alone, so `f` bits give
/// only `2^f − 1` offsets, and with few of them items crowd into groups of
/// buckets that only reach each other (the paper's §4: the load needs
/// `f = Ω(log(n)/b)`). A wider fingerprint only lowers the rate, so the
/// promise to the caller is kept.
///
/// Measured with this version's maps: with 4 slots, 5-bit fingerprints
/// still reached 95.0% at 2,631,580 buckets and 6-bit ones 94.8%; with 2
/// slots 6 bits reached 85.2% at 10^6 buckets, where the first format's
/// XOR map had stopped at 52%. The floors stay where they were, a bit
/// above what was measured, for tables larger than any measured.
fn min_fingerprint_bits(b: u32) -> u32 {
    if b == 2 { 7 } else { 6 }
}

/// The alternate-bucket map of every new table: `(h(fp) − i) mod m`,
/// whatever the count.
///
/// The first format's XOR map works only for powers of two. It was to be
/// kept for them if it measured faster, and it did not: lookups of 943,718
/// items, hits and misses mixed, in 2^18 buckets (XOR) and 2^18 + 2
/// (subtraction) of 4 slots of 8 bits took 176, 193 and 180 µs per 10,000
/// with XOR against 173, 191 and 187 µs, in three runs (`cargo bench -p
/// bloomlab-benches --bench cuckoo -- 'cuckoo/layout/plain, '`, built
/// with XOR for powers of two). XOR stays only for reading the first
/// format's files.
const NEW_TABLE_MAP: AltMap = AltMap::Sub;

/// Bits per bucket.
fn bucket_bits(b: u32, f: u32, semi: bool) -> u32 {
    let layout = if semi {
        Layout::SemiSorted
    } else {
        Layout::Plain
    };
    Table::bucket_bits(b, f, layout)
}

/// Bytes of a table of `buckets` buckets of `bits` bits, in whole words.
fn table_bytes(buckets: u64, bits: u64) -> u128 {
    packed_words(buckets, bits) * 8
}

fn too_large(buckets: u64, bits: u32, limit: u128) -> ParamError {
    ParamError::TooLarge {
        needed: table_bytes(buckets, u64::from(bits)),
        limit,
    }
}
