//! The builder, and how a filter is sized from items and a rate.

use std::hash::BuildHasher;

use bloomlab_core::builder::Settings;
use bloomlab_core::theory::quotient as theory;
use bloomlab_core::{DefaultHasher, ParamError, check_fpr};

use crate::error::{BuildError, Invalid};
use crate::filter::{Growth, QuotientFilter};
use crate::table::{Table, table_bytes};
use crate::{MAX_LOAD, MAX_QUOTIENT_BITS};

/// How [`QuotientFilter::builder`] lays out a filter: what [`plan`]
/// computes without allocating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// `q`: the table has `2^q` canonical slots.
    pub quotient_bits: u32,
    /// `r`: bits of each remainder, and of each slot.
    pub remainder_bits: u32,
    /// The rate promised at every size, for a filter that grows.
    pub growth_fpr: Option<f64>,
}

impl Plan {
    /// Items the table takes before it is full (or grows):
    /// `⌊0.95 · 2^q⌋`.
    pub fn capacity(&self) -> u64 {
        crate::filter::max_used(self.quotient_bits)
    }

    /// Bytes of the table: `2^q` slots and about `10·√(2^q)` more for the
    /// runs that spill past the last, in blocks of 64 slots of `r + 2`
    /// bits plus a byte: what `memory_bytes()` will be.
    pub fn memory_bytes(&self) -> u128 {
        table_bytes(self.quotient_bits, self.remainder_bits)
    }

    /// The rate theory gives for `items` items: `1 − e^{−α·2^−r}`.
    pub fn fpr(&self, items: u64) -> f64 {
        theory::fpr(
            (items as f64 / (1u64 << self.quotient_bits) as f64).min(1.0),
            self.remainder_bits,
        )
    }
}

/// How [`QuotientFilter::builder`]`(items, fpr)` lays out a filter: the
/// fewest canonical slots `2^q` that hold `items` at the maximum load
/// ([`MAX_LOAD`](crate::MAX_LOAD), 95%), and the fewest remainder bits
/// whose rate at the load `items / 2^q` is at most `fpr`
/// ([`theory::remainder_bits`]); for a filter that grows, the remainder of
/// generation 0 of the growth schedule
/// ([`theory::growth_fingerprint_bits`]), which leaves half the rate to
/// the entries of later sizes.
///
/// ```
/// let plan = bloomlab_quotient::plan(1_000_000, 0.01, false)?;
/// // 2^21 slots (2^20 · 0.95 < 10^6): load 0.477, 6 bits.
/// assert_eq!((plan.quotient_bits, plan.remainder_bits), (21, 6));
/// let growing = bloomlab_quotient::plan(1_000_000, 0.01, true)?;
/// assert_eq!((growing.remainder_bits, growing.growth_fpr), (8, Some(0.01)));
/// # Ok::<(), bloomlab_quotient::BuildError>(())
/// ```
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for a rate outside (0, 1);
/// [`ParamError::ZeroItems`]; [`Invalid::TooManyItems`] past 95% of
/// `2^`[`MAX_QUOTIENT_BITS`](crate::MAX_QUOTIENT_BITS);
/// [`Invalid::FprUnreachable`] when quotient and remainder need more than
/// 64 bits.
pub fn plan(items: u64, fpr: f64, grows: bool) -> Result<Plan, BuildError> {
    let fpr = check_fpr(fpr)?;
    if items == 0 {
        return Err(ParamError::ZeroItems.into());
    }
    let q = (1..=MAX_QUOTIENT_BITS)
        .find(|&q| crate::filter::max_used(q) >= items)
        .ok_or(Invalid::TooManyItems(items))?;
    let r = if grows {
        theory::growth_fingerprint_bits(fpr, MAX_LOAD, 0)?
    } else {
        theory::remainder_bits(items as f64 / (1u64 << q) as f64, fpr)?
    };
    if q + r > 64 {
        return Err(Invalid::FprUnreachable(fpr).into());
    }
    Ok(Plan {
        quotient_bits: q,
        remainder_bits: r,
        growth_fpr: grows.then_some(fpr),
    })
}

/// How the table is sized.
#[derive(Debug, Clone, Copy)]
enum Sizing {
    Items { items: u64, fpr: f64 },
    Bits { quotient: u32, remainder: u32 },
}

/// What a [`Builder`] sets beside the hasher.
#[derive(Debug, Clone, Copy)]
struct Options {
    sizing: Sizing,
    grows: bool,
    max_bytes: usize,
}

/// Configures a [`QuotientFilter`]: made by [`QuotientFilter::builder`]
/// (for items and a rate) or [`QuotientFilter::builder_with_bits`] (for a
/// table shape), finished by [`build`](Self::build).
///
/// ```
/// use bloomlab_quotient::QuotientFilter;
///
/// let filter = QuotientFilter::<u64>::builder(10_000, 0.001)
///     .growth(true)
///     .max_bytes(1 << 20)
///     .seed(3)
///     .build()?;
/// assert!(filter.grows());
/// assert_eq!(filter.quotient_bits(), 14);
/// # Ok::<(), bloomlab_quotient::BuildError>(())
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct Builder<T: ?Sized, S = DefaultHasher>(Settings<T, Options, S>);

bloomlab_core::impl_builder!(Builder);

impl<T: ?Sized> QuotientFilter<T, DefaultHasher> {
    /// A filter for `expected_items` items at false-positive rate `fpr`,
    /// with a random hash key, that does not grow; see [`plan`].
    ///
    /// # Errors
    ///
    /// As [`Builder::build`].
    pub fn new(expected_items: usize, fpr: f64) -> Result<Self, BuildError> {
        Self::builder(expected_items, fpr).build()
    }

    /// A builder for `expected_items` items at false-positive rate `fpr`.
    /// Its options ([`Builder`]): [`seed`](Builder::seed),
    /// [`hasher`](Builder::hasher), [`growth`](Builder::growth) (double
    /// when full, at the same total rate) and
    /// [`max_bytes`](Builder::max_bytes); then [`build`](Builder::build).
    pub fn builder(expected_items: usize, fpr: f64) -> Builder<T> {
        Builder::with_sizing(Sizing::Items {
            items: expected_items as u64,
            fpr,
        })
    }

    /// A builder of a table of `2^quotient_bits` canonical slots with
    /// `remainder_bits`-bit remainders: rate `1 − e^{−α·2^−r}` at load α.
    pub fn builder_with_bits(quotient_bits: u32, remainder_bits: u32) -> Builder<T> {
        Builder::with_sizing(Sizing::Bits {
            quotient: quotient_bits,
            remainder: remainder_bits,
        })
    }
}

impl<T: ?Sized> Builder<T, DefaultHasher> {
    fn with_sizing(sizing: Sizing) -> Self {
        Self(Settings::new(Options {
            sizing,
            grows: false,
            max_bytes: usize::MAX,
        }))
    }

    /// Derives the hash key from `seed` ([`DefaultHasher::from_seed`]):
    /// reproducible, and therefore never for a filter facing crafted input.
    pub fn seed(self, seed: u64) -> Self {
        Self(self.0.seed(seed))
    }
}

impl<T: ?Sized, S> Builder<T, S> {
    /// Hashes items with `hasher` instead of the keyed default.
    pub fn hasher<S2: BuildHasher>(self, hasher: S2) -> Builder<T, S2> {
        Builder(self.0.hasher(hasher))
    }

    /// Whether the filter doubles its table when full instead of refusing
    /// inserts (default: it does not), keeping the rate asked for at every
    /// size (see the crate's docs). Sized for items and a rate, a growing
    /// filter's first remainders are a bit or two wider, since half the
    /// rate is left to the entries of later sizes; sized by bits, it
    /// promises the rate `1 − e^{−2·0.95·2^−r}` (twice what its first
    /// table spends at full load).
    pub fn growth(mut self, grows: bool) -> Self {
        self.0.grows = grows;
        self
    }

    /// Refuses a table of more than `bytes` bytes
    /// ([`ParamError::TooLarge`]); a growing filter stops growing (its
    /// inserts are refused, [`InsertError::Full`](bloomlab_core::InsertError::Full))
    /// rather than pass it.
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.0.max_bytes = bytes;
        self
    }

    /// The filter.
    ///
    /// # Errors
    ///
    /// As [`plan`] for items and a rate; [`Invalid::QuotientBits`] and
    /// [`Invalid::RemainderBits`] for a shape that does not fit; then
    /// [`ParamError::TooLarge`] past [`max_bytes`](Self::max_bytes), and
    /// [`BuildError::OutOfMemory`] when the allocator refuses the table.
    pub fn build(self) -> Result<QuotientFilter<T, S>, BuildError> {
        let (options, hasher) = self.0.into_parts();
        let (q, r, promise) = match options.sizing {
            Sizing::Items { items, fpr } => {
                let plan = plan(items, fpr, options.grows)?;
                (plan.quotient_bits, plan.remainder_bits, plan.growth_fpr)
            }
            Sizing::Bits {
                quotient,
                remainder,
            } => {
                if !(1..=MAX_QUOTIENT_BITS).contains(&quotient) {
                    return Err(Invalid::QuotientBits(quotient).into());
                }
                if remainder == 0 || quotient + remainder > 64 {
                    return Err(Invalid::RemainderBits {
                        quotient_bits: quotient,
                        remainder_bits: remainder,
                    }
                    .into());
                }
                let promise = -(-2.0 * MAX_LOAD * (-f64::from(remainder)).exp2()).exp_m1();
                (quotient, remainder, options.grows.then_some(promise))
            }
        };
        let bytes = table_bytes(q, r);
        if bytes > options.max_bytes as u128 {
            return Err(ParamError::TooLarge {
                needed: bytes,
                limit: options.max_bytes as u128,
            }
            .into());
        }
        let table = Table::new(q, r)?;
        let growth = promise.map(|promise| Growth {
            promise,
            generation: 0,
            max_bytes: options.max_bytes as u64,
        });
        Ok(QuotientFilter::from_parts(
            table, false, r, 0, growth, hasher,
        ))
    }
}
