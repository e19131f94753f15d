//! The crate's errors: one enum per fallible operation.

use std::{fmt, io};

use crate::Strategy;

/// Why [`create`](crate::GuavaBloomFilter::create) refused: each is a case
/// where Guava's `create` throws `IllegalArgumentException`, or a size this
/// machine cannot allocate.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum CreateError {
    /// More expected insertions than a Java `long` holds.
    TooManyInsertions(u64),
    /// The false-positive probability is not in the open interval (0, 1), or NaN.
    InvalidFpp(f64),
    /// The sizing gives no bits at all (a rate near 1 for a few items);
    /// Guava: "data length is zero!".
    NoBits,
    /// The sizing gives more 64-bit words than a Java `int` counts.
    TooManyBits(u64),
    /// The sizing gives more than 255 hash functions (a rate below about
    /// 2^-255), which the `writeTo` format cannot store.
    TooManyHashFunctions(u32),
    /// The allocator refused this many bytes.
    OutOfMemory {
        /// Bytes asked for.
        bytes: u128,
    },
}

impl fmt::Display for CreateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CreateError::TooManyInsertions(n) => {
                write!(f, "{n} expected insertions is more than a Java long holds")
            }
            CreateError::InvalidFpp(p) => {
                write!(f, "false positive probability {p} is not in (0, 1)")
            }
            CreateError::NoBits => f.write_str("the sizing gives a filter of zero bits"),
            CreateError::TooManyBits(bits) => {
                write!(f, "{bits} bits is more than 2^31 - 1 words of 64 bits")
            }
            CreateError::TooManyHashFunctions(k) => {
                write!(f, "{k} hash functions is more than the 255 Guava stores")
            }
            CreateError::OutOfMemory { bytes } => {
                write!(f, "could not allocate {bytes} bytes for the bit array")
            }
        }
    }
}

impl std::error::Error for CreateError {}

/// Why bytes could not be read as a filter in Guava's `writeTo` format.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReadError {
    /// The reader failed (other than by ending early: that is [`Truncated`](Self::Truncated)).
    Io(io::Error),
    /// The input ended before the bytes its header declares.
    Truncated {
        /// Bytes the header (or the header itself) needs.
        expected: u64,
        /// Bytes there were.
        found: u64,
    },
    /// The first byte is not the ordinal of a Guava strategy (0 or 1).
    UnknownStrategy(u8),
    /// The second byte, the number of hash functions, is 0.
    NoHashFunctions,
    /// The word count (a big-endian `int`) is zero or negative.
    InvalidWordCount(i32),
    /// [`from_bytes`](crate::GuavaBloomFilter::from_bytes): bytes follow the
    /// filter.
    TrailingBytes(usize),
    /// The allocator refused this many bytes.
    OutOfMemory {
        /// Bytes asked for.
        bytes: usize,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "reading a Guava filter: {e}"),
            ReadError::Truncated { expected, found } => write!(
                f,
                "truncated Guava filter: {found} bytes where {expected} are needed"
            ),
            ReadError::UnknownStrategy(b) => {
                write!(f, "unknown Guava strategy ordinal {}", *b as i8)
            }
            ReadError::NoHashFunctions => f.write_str("a Guava filter of zero hash functions"),
            ReadError::InvalidWordCount(n) => write!(f, "invalid Guava word count {n}"),
            ReadError::TrailingBytes(n) => write!(f, "{n} bytes after the Guava filter"),
            ReadError::OutOfMemory { bytes } => {
                write!(f, "could not allocate {bytes} bytes for the bit array")
            }
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// Why [`put_all`](crate::GuavaBloomFilter::put_all) refused: Guava merges
/// only filters with the same hash functions, bit size, strategy and funnel.
/// Nothing was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IncompatibleError {
    /// The numbers of hash functions differ (ours, theirs).
    NumHashFunctions(u32, u32),
    /// The bit sizes differ (ours, theirs).
    BitSize(u64, u64),
    /// The strategies differ (ours, theirs).
    Strategy(Strategy, Strategy),
    /// The funnels are not equal.
    Funnel,
}

impl fmt::Display for IncompatibleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IncompatibleError::NumHashFunctions(a, b) => write!(
                f,
                "BloomFilters must have the same number of hash functions ({a} != {b})"
            ),
            IncompatibleError::BitSize(a, b) => write!(
                f,
                "BloomFilters must have the same size underlying bit arrays ({a} != {b})"
            ),
            IncompatibleError::Strategy(a, b) => {
                write!(f, "BloomFilters must have equal strategies ({a} != {b})")
            }
            IncompatibleError::Funnel => f.write_str("BloomFilters must have equal funnels"),
        }
    }
}

impl std::error::Error for IncompatibleError {}
