//! The constructor's error type.

use std::fmt;

use bloomlab_core::ShortFloat;

use crate::table::{BUCKET_SIZES, FINGERPRINT_BITS};

/// Why a [`CuckooFilter`](crate::CuckooFilter) could not be built: a sizing
/// parameter ([`Param`](bloomlab_core::BuildError::Param): a rate outside
/// (0, 1), zero items, or a table larger than allowed), a table the
/// allocator refused, or one of this crate's [`Invalid`] reasons.
pub type BuildError = bloomlab_core::BuildError<Invalid>;

/// What only this crate's builder refuses: the
/// [`Variant`](bloomlab_core::BuildError::Variant) of its [`BuildError`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Invalid {
    /// Buckets of this many slots are not supported (only 2, 4 and 8 are).
    BucketSize(u32),
    /// Fingerprints of this many bits are not supported (only 4 to 32 are).
    FingerprintBits(u32),
    /// Semi-sorted buckets of this many slots are not supported (only 4 are).
    SemiSortedBucketSize(u32),
    /// The number of buckets is zero or above 2^32.
    NumBuckets(u64),
    /// More relocations per insert than [`MAX_RELOCATIONS`](crate::MAX_RELOCATIONS).
    TooManyRelocations(u32),
    /// The rate would need fingerprints wider than 32 bits with buckets of
    /// this size.
    FprUnreachable {
        /// The rate asked for.
        fpr: f64,
        /// Slots per bucket.
        bucket_size: u32,
        /// The fingerprint width the rate needs.
        needed_bits: u32,
    },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::BucketSize(b) => write!(
                f,
                "buckets of {b} slots are not supported (use one of {BUCKET_SIZES:?})"
            ),
            Invalid::FingerprintBits(bits) => write!(
                f,
                "{bits}-bit fingerprints are not supported (use {} to {} bits)",
                FINGERPRINT_BITS.start(),
                FINGERPRINT_BITS.end()
            ),
            Invalid::SemiSortedBucketSize(b) => write!(
                f,
                "semi-sorted buckets of {b} slots are not supported (only of 4)"
            ),
            Invalid::NumBuckets(n) => write!(f, "{n} buckets: the count must be from 1 to 2^32"),
            Invalid::TooManyRelocations(n) => write!(
                f,
                "{n} relocations per insert requested; at most {} are supported",
                crate::MAX_RELOCATIONS
            ),
            Invalid::FprUnreachable {
                fpr,
                bucket_size,
                needed_bits,
            } => write!(
                f,
                "a false-positive rate of {} with {bucket_size}-slot buckets needs \
                 {needed_bits}-bit fingerprints; at most {} are supported",
                ShortFloat(*fpr),
                FINGERPRINT_BITS.end()
            ),
        }
    }
}

impl std::error::Error for Invalid {}
