//! The constructor's and the merge's error types.

use std::fmt;

use bloomlab_core::ShortFloat;

use crate::MAX_QUOTIENT_BITS;

/// Why a [`QuotientFilter`](crate::QuotientFilter) could not be built: a
/// sizing parameter ([`Param`](bloomlab_core::BuildError::Param): a rate
/// outside (0, 1), zero items, a table larger than allowed), a table the
/// allocator refused, or one of this crate's [`Invalid`] reasons.
pub type BuildError = bloomlab_core::BuildError<Invalid>;

/// What only this crate's builder refuses: the
/// [`Variant`](bloomlab_core::BuildError::Variant) of its [`BuildError`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Invalid {
    /// `2^q` canonical slots for a `q` outside `1 ..=`
    /// [`MAX_QUOTIENT_BITS`](crate::MAX_QUOTIENT_BITS).
    QuotientBits(u32),
    /// Remainders of this many bits do not fit: at least 1, and quotient
    /// and remainder together at most the hash's 64 bits.
    RemainderBits {
        /// The quotient's bits.
        quotient_bits: u32,
        /// The remainder's bits asked for.
        remainder_bits: u32,
    },
    /// More items than a table of `2^`[`MAX_QUOTIENT_BITS`](crate::MAX_QUOTIENT_BITS)
    /// slots holds at its maximum load.
    TooManyItems(u64),
    /// The rate needs a quotient and a remainder of more than the hash's
    /// 64 bits.
    FprUnreachable(f64),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::QuotientBits(q) => write!(
                f,
                "2^{q} slots are not supported (the quotient takes 1 to {MAX_QUOTIENT_BITS} bits)"
            ),
            Invalid::RemainderBits {
                quotient_bits,
                remainder_bits,
            } => write!(
                f,
                "{remainder_bits}-bit remainders do not fit beside a {quotient_bits}-bit \
                 quotient (at least 1 bit, at most 64 together)"
            ),
            Invalid::TooManyItems(n) => write!(
                f,
                "{n} items: a quotient filter holds at most 95% of 2^{MAX_QUOTIENT_BITS} slots"
            ),
            Invalid::FprUnreachable(p) => write!(
                f,
                "a false-positive rate of {} needs more than the hash's 64 bits",
                ShortFloat(*p)
            ),
        }
    }
}

impl std::error::Error for Invalid {}

impl From<Invalid> for BuildError {
    fn from(e: Invalid) -> Self {
        BuildError::Variant(e)
    }
}

/// Why [`QuotientFilter::merge`](crate::QuotientFilter::merge) refused: the
/// filters differ in a way that makes the same item a different entry, or
/// the merged entries do not fit. A refused merge changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MergeError {
    /// The hashers differ (for the default hasher, the keys).
    Hasher,
    /// The tables differ in shape: canonical slots, slot width, remainder
    /// encoding, or the growth schedule and the expansions made.
    Shape {
        /// Which part of the shape differs.
        what: &'static str,
    },
    /// The entries of both do not fit in one table at its maximum load.
    Full {
        /// Slots both use together.
        needed: u64,
        /// Slots the table may use.
        capacity: u64,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::Hasher => {
                f.write_str("the filters hash items differently (different keys); nothing merged")
            }
            MergeError::Shape { what } => {
                write!(f, "the filters differ in {what}; nothing merged")
            }
            MergeError::Full { needed, capacity } => write!(
                f,
                "the merged filter would use {needed} slots, more than its {capacity}; \
                 nothing merged"
            ),
        }
    }
}

impl std::error::Error for MergeError {}
