//! Why a counting filter could not be built or merged.

use std::fmt;

use bloomlab_core::hash::Scheme;

/// Why a [`CountingBloomFilter`](crate::CountingBloomFilter) could not be
/// built: a sizing parameter ([`Param`](bloomlab_core::BuildError::Param):
/// a rate outside (0, 1), zero items, zero counters or hashes, too many
/// hashes, a table larger than allowed), a table the allocator refused, or
/// one of this crate's [`Invalid`] reasons.
pub type BuildError = bloomlab_core::BuildError<Invalid>;

/// What only this crate's builder refuses: the
/// [`Variant`](bloomlab_core::BuildError::Variant) of its [`BuildError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Invalid {
    /// Counters of this many bits are not offered: the widths are 4, 8 and 16.
    UnsupportedWidth(u32),
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::UnsupportedWidth(w) => {
                write!(f, "counters of {w} bits are not supported (use 4, 8 or 16)")
            }
        }
    }
}

impl std::error::Error for Invalid {}

/// Why two counting filters could not be merged; the receiving filter is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MergeError {
    /// The filters have different numbers of counters.
    NumCounters {
        /// Counters of the receiving filter.
        ours: u64,
        /// Counters of the other filter.
        theirs: u64,
    },
    /// The filters use different numbers of hashes.
    NumHashes {
        /// Hashes of the receiving filter.
        ours: u32,
        /// Hashes of the other filter.
        theirs: u32,
    },
    /// The filters' counters have different widths.
    CounterWidth {
        /// Width of the receiving filter's counters, in bits.
        ours: u32,
        /// Width of the other filter's counters, in bits.
        theirs: u32,
    },
    /// The filters turn a hash into positions differently: one was read
    /// from a format-version-1 file ([`Scheme::Modular`]), the other built
    /// now ([`Scheme::CURRENT`]). See
    /// [`CountingBloomFilter::scheme`](crate::CountingBloomFilter::scheme).
    Scheme {
        /// Scheme of the receiving filter.
        ours: Scheme,
        /// Scheme of the other filter.
        theirs: Scheme,
    },
    /// The filters hash items differently (different keys or hashers).
    Hasher,
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::NumCounters { ours, theirs } => {
                write!(f, "cannot merge {theirs} counters into {ours}")
            }
            MergeError::NumHashes { ours, theirs } => {
                write!(
                    f,
                    "cannot merge a filter of {theirs} hashes into one of {ours}"
                )
            }
            MergeError::CounterWidth { ours, theirs } => write!(
                f,
                "cannot merge {theirs}-bit counters into {ours}-bit counters"
            ),
            MergeError::Scheme { ours, theirs } => write!(
                f,
                "cannot merge a filter of {theirs:?} positions into one of {ours:?} positions \
                 (a filter read from a format-version-1 file keeps its old positions)"
            ),
            MergeError::Hasher => f.write_str("cannot merge filters whose hash keys differ"),
        }
    }
}

impl std::error::Error for MergeError {}
