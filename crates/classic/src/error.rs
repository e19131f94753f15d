//! The errors of building and merging filters.

use std::fmt;

use bloomlab_core::hash::Scheme;

use crate::blocked::BlockLayout;

/// Why a filter could not be built: a sizing parameter
/// ([`Param`](bloomlab_core::BuildError::Param): a rate outside (0, 1),
/// zero items, bits or hashes, too many hashes, or a table larger than the
/// limit, see [`Builder::max_bytes`](crate::Builder::max_bytes)), a table
/// the allocator refused, or one of this crate's [`Invalid`] reasons.
pub type BuildError = bloomlab_core::BuildError<Invalid>;

/// What only this crate's constructors refuse: the
/// [`Variant`](bloomlab_core::BuildError::Variant) of its [`BuildError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Invalid {
    /// [`BloomFilter::from_words`](crate::BloomFilter::from_words) was given
    /// a different number of words than its bit count needs.
    WordCount {
        /// `ceil(num_bits / 64)`.
        expected: u64,
        /// The words given.
        found: u64,
    },
    /// A bit at or beyond `num_bits` is set in the words given to
    /// [`BloomFilter::from_words`](crate::BloomFilter::from_words).
    BitsBeyondEnd,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::WordCount { expected, found } => {
                write!(f, "{found} words given where {expected} hold the bits")
            }
            Invalid::BitsBeyondEnd => f.write_str("a bit beyond the table's length is set"),
        }
    }
}

impl std::error::Error for Invalid {}

/// Why two filters could not be merged by `union` or `intersect`: only filters
/// with the same table size, the same hash count, the same position
/// [`Scheme`] and the same hasher put an item's bits in the same places. A
/// failed merge changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MergeError {
    /// The tables have different numbers of bits.
    NumBits {
        /// Bits of the filter merged into.
        ours: u64,
        /// Bits of the other filter.
        theirs: u64,
    },
    /// The filters use different numbers of hash functions.
    NumHashes {
        /// Hashes of the filter merged into.
        ours: u32,
        /// Hashes of the other filter.
        theirs: u32,
    },
    /// The hashers differ (for [`DefaultHasher`](bloomlab_core::DefaultHasher),
    /// the keys differ), so the same item sets different bits in each.
    Hasher,
    /// One filter was read from a format-version-1 file and places its bits
    /// by [`Scheme::Modular`], the other by [`Scheme::FixedPoint`].
    Scheme {
        /// The scheme of the filter merged into.
        ours: Scheme,
        /// The scheme of the other filter.
        theirs: Scheme,
    },
    /// Two blocked filters lay out an item's bits differently in its block
    /// (one was read from a format-version-2 file, say).
    Layout {
        /// The layout of the filter merged into.
        ours: BlockLayout,
        /// The layout of the other filter.
        theirs: BlockLayout,
    },
}

impl fmt::Display for MergeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MergeError::NumBits { ours, theirs } => {
                write!(
                    f,
                    "cannot merge a filter of {theirs} bits into one of {ours}"
                )
            }
            MergeError::NumHashes { ours, theirs } => write!(
                f,
                "cannot merge a filter with {theirs} hashes into one with {ours}"
            ),
            MergeError::Hasher => f.write_str("cannot merge filters with different hash keys"),
            MergeError::Scheme { ours, theirs } => write!(
                f,
                "cannot merge a filter whose positions are {theirs:?} (format version {}) into \
                 one whose positions are {ours:?} (format version {})",
                theirs.version(),
                ours.version()
            ),
            MergeError::Layout { ours, theirs } => write!(
                f,
                "cannot merge a blocked filter in the {theirs:?} layout (format version {}) \
                 into one in the {ours:?} layout (format version {})",
                theirs.version(),
                ours.version()
            ),
        }
    }
}

impl std::error::Error for MergeError {}

impl MergeError {
    /// Why two filters of `(bits, k)` `ours` and `theirs`, whose hashers
    /// are `same_hasher`, cannot merge: the first of their sizes, their `k`
    /// and their hashers that differs.
    pub(crate) fn check(
        ours: (u64, u32),
        theirs: (u64, u32),
        same_hasher: bool,
    ) -> Result<(), MergeError> {
        if ours.0 != theirs.0 {
            return Err(MergeError::NumBits {
                ours: ours.0,
                theirs: theirs.0,
            });
        }
        if ours.1 != theirs.1 {
            return Err(MergeError::NumHashes {
                ours: ours.1,
                theirs: theirs.1,
            });
        }
        if !same_hasher {
            return Err(MergeError::Hasher);
        }
        Ok(())
    }
}
