//! The constructor's error type.

use std::fmt;

use bloomlab_core::alloc::OutOfMemory;
use bloomlab_core::{ParamError, ShortFloat};

use crate::table::{BUCKET_SIZES, FINGERPRINT_BITS};

/// Why a [`CuckooFilter`](crate::CuckooFilter) could not be built.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    /// A sizing parameter no filter can be built from: a rate outside (0, 1),
    /// zero items, or a table larger than allowed.
    Param(ParamError),
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
    /// The allocator refused the table, although it is within the limit.
    OutOfMemory {
        /// Bytes the table needs.
        bytes: u128,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Param(e) => e.fmt(f),
            BuildError::BucketSize(b) => write!(
                f,
                "buckets of {b} slots are not supported (use one of {BUCKET_SIZES:?})"
            ),
            BuildError::FingerprintBits(bits) => write!(
                f,
                "{bits}-bit fingerprints are not supported (use {} to {} bits)",
                FINGERPRINT_BITS.start(),
                FINGERPRINT_BITS.end()
            ),
            BuildError::SemiSortedBucketSize(b) => write!(
                f,
                "semi-sorted buckets of {b} slots are not supported (only of 4)"
            ),
            BuildError::NumBuckets(n) => write!(f, "{n} buckets: the count must be from 1 to 2^32"),
            BuildError::TooManyRelocations(n) => write!(
                f,
                "{n} relocations per insert requested; at most {} are supported",
                crate::MAX_RELOCATIONS
            ),
            BuildError::FprUnreachable {
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
            BuildError::OutOfMemory { bytes } => {
                fmt::Display::fmt(&OutOfMemory { bytes: *bytes }, f)
            }
        }
    }
}

bloomlab_core::impl_build_error!(BuildError);
