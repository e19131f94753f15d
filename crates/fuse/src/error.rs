//! The constructor's error type.

use std::fmt;

use bloomlab_core::ShortFloat;

use crate::layout::{ARITIES, MAX_KEYS, MAX_SEGMENT_LENGTH_LOG2};
use crate::{FINGERPRINT_BITS, MAX_ATTEMPTS};

/// Why a [`BinaryFuseFilter`](crate::BinaryFuseFilter) could not be built:
/// a sizing parameter ([`Param`](bloomlab_core::BuildError::Param): a rate
/// outside (0, 1), or an array larger than allowed), an array or scratch
/// space the allocator refused, or one of this crate's [`Invalid`] reasons.
pub type BuildError = bloomlab_core::BuildError<Invalid>;

/// What only this crate's builder refuses: the
/// [`Variant`](bloomlab_core::BuildError::Variant) of its [`BuildError`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Invalid {
    /// No keys were given: a binary fuse filter is built from a set of at
    /// least one key.
    EmptySet,
    /// More keys than one filter holds ([`MAX_KEYS`](crate::MAX_KEYS)), or
    /// an array of more than 2^32 slots.
    TooManyKeys {
        /// Keys given (counted up to the first one past the limit).
        keys: u64,
    },
    /// Fingerprints of this many bits are not supported (8, 16 and 32 are).
    FingerprintBits(u32),
    /// Keys of this many slots are not supported (3 and 4 are).
    Arity(u32),
    /// A size factor that is not a number in (0, 16].
    SizeFactor(f64),
    /// Segments of `2^n` slots for an `n` above
    /// [`MAX_SEGMENT_LENGTH_LOG2`](crate::MAX_SEGMENT_LENGTH_LOG2).
    SegmentLength(u32),
    /// An attempt bound of zero or above [`MAX_ATTEMPTS`](crate::MAX_ATTEMPTS).
    MaxAttempts(u32),
    /// The rate is below what the widest fingerprint gives (`2^−32`).
    FprUnreachable(f64),
    /// No attempt peeled the key set: the array is too small for it (a size
    /// factor below what the paper's formula gives). Every attempt drew new
    /// slots for every key, with a new seed.
    NotConverged {
        /// Attempts made.
        attempts: u32,
    },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::EmptySet => f.write_str("a binary fuse filter needs at least one key"),
            Invalid::TooManyKeys { keys } => write!(
                f,
                "{keys} keys or more: a binary fuse filter holds at most {MAX_KEYS}, in at most \
                 2^32 slots"
            ),
            Invalid::FingerprintBits(bits) => write!(
                f,
                "{bits}-bit fingerprints are not supported (use one of {FINGERPRINT_BITS:?})"
            ),
            Invalid::Arity(a) => write!(
                f,
                "{a} slots per key are not supported (use one of {ARITIES:?})"
            ),
            Invalid::SizeFactor(x) => write!(f, "size factor {} is not in (0, 16]", ShortFloat(*x)),
            Invalid::SegmentLength(log2) => write!(
                f,
                "segments of 2^{log2} slots are not supported (at most \
                 2^{MAX_SEGMENT_LENGTH_LOG2})"
            ),
            Invalid::MaxAttempts(n) => write!(
                f,
                "{n} construction attempts: allow from 1 to {MAX_ATTEMPTS}"
            ),
            Invalid::FprUnreachable(p) => write!(
                f,
                "a false-positive rate of {} needs fingerprints wider than 32 bits",
                ShortFloat(*p)
            ),
            Invalid::NotConverged { attempts } => write!(
                f,
                "no construction in {attempts} attempts: the array is too small for the keys"
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
