//! Error types shared by every variant.

use std::fmt;

use crate::alloc::OutOfMemory;

/// Why an insert failed. A failed insert changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InsertError {
    /// The filter has no room for the item; everything stored before is intact.
    Full,
}

impl fmt::Display for InsertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InsertError::Full => f.write_str("the filter is full; nothing was inserted or lost"),
        }
    }
}

impl std::error::Error for InsertError {}

/// Why a batch insert stopped: the item at index [`stored`](Self::stored)
/// could not be inserted.
///
/// The items before it are in the filter (of which [`new`](Self::new) were
/// not reported present before); that item and the ones after it were not
/// inserted, and nothing stored before the call was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct InsertBatchError {
    /// Items inserted before the failure: the failed item's index.
    pub stored: usize,
    /// How many of the stored items were new (inserts that returned `true`).
    pub new: usize,
    /// Why the item at index `stored` failed.
    pub error: InsertError,
}

impl InsertBatchError {
    /// The error for a batch that stopped at index `stored` after `new` new items.
    pub fn new(stored: usize, new: usize, error: InsertError) -> Self {
        Self { stored, new, error }
    }
}

impl fmt::Display for InsertBatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "item {} of the batch was not inserted ({}); the {} before it are stored",
            self.stored, self.error, self.stored
        )
    }
}

impl std::error::Error for InsertBatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Why a remove failed. A failed remove changed nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RemoveError {
    /// The filter proves the item absent.
    NotPresent,
}

impl fmt::Display for RemoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemoveError::NotPresent => {
                f.write_str("the item is not in the filter; nothing was removed")
            }
        }
    }
}

impl std::error::Error for RemoveError {}

/// A sizing parameter that no filter can be built from.
///
/// Returned by the sizing functions of [`theory`](crate::theory) and by every
/// variant's constructors (wrapped in the variant's own error where it has
/// more cases).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum ParamError {
    /// The false-positive rate is not a number strictly between 0 and 1.
    InvalidFpr(f64),
    /// The filter was asked to hold zero items.
    ZeroItems,
    /// The filter was given zero bits (or zero cells).
    ZeroBits,
    /// The filter was given zero hash functions.
    ZeroHashes,
    /// More hash functions than any filter can use (at most [`MAX_HASHES`](crate::theory::classic::MAX_HASHES)).
    TooManyHashes(u64),
    /// The table would need more bytes than the limit allows, or than the
    /// platform can address.
    TooLarge {
        /// Bytes the table would need; `u128::MAX` when the size itself
        /// overflows (and prints as such, not as a number).
        needed: u128,
        /// The limit it was checked against.
        limit: u128,
    },
    /// A scalable chain of more layers than its theory sums (see
    /// [`theory::scalable::MAX_LAYERS`](crate::theory::scalable::MAX_LAYERS)).
    TooManyLayers {
        /// Layers asked for.
        layers: u64,
        /// The most layers accepted.
        max: u64,
    },
    /// A block larger than the theory of blocked filters evaluates in
    /// bounded time (see [`theory::blocked`](crate::theory::blocked)).
    BlockTooLarge {
        /// Bits per block asked for.
        bits: u64,
        /// The most bits per block accepted.
        max: u64,
    },
    /// A hash count that does not split evenly over the words of a sectored
    /// block, which sets the same number of bits in each.
    HashesPerSector {
        /// Hashes asked for.
        hashes: u32,
        /// Words (sectors) per block: `hashes` must be a multiple of it.
        sectors: u32,
    },
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::InvalidFpr(p) => write!(
                f,
                "false-positive rate {} is not strictly between 0 and 1",
                ShortFloat(*p)
            ),
            ParamError::ZeroItems => f.write_str("expected number of items must be at least 1"),
            ParamError::ZeroBits => f.write_str("the table must have at least one bit"),
            ParamError::ZeroHashes => f.write_str("at least one hash function is needed"),
            ParamError::TooManyHashes(k) => write!(
                f,
                "{k} hash functions requested; at most {} are supported",
                crate::theory::classic::MAX_HASHES
            ),
            ParamError::TooLarge { needed, limit } if *needed == u128::MAX => write!(
                f,
                "the table's size overflows: it would need more than the limit of {limit} bytes"
            ),
            ParamError::TooLarge { needed, limit } => write!(
                f,
                "the table would need {needed} bytes, more than the limit of {limit} bytes"
            ),
            ParamError::TooManyLayers { layers, max } => {
                write!(f, "{layers} layers requested; at most {max} are supported")
            }
            ParamError::BlockTooLarge { bits, max } => write!(
                f,
                "blocks of {bits} bits are not supported; at most {max} bits per block"
            ),
            ParamError::HashesPerSector { hashes, sectors } => write!(
                f,
                "{hashes} hash functions do not split evenly over the {sectors} words of a \
                 sectored block; use a multiple of {sectors}"
            ),
        }
    }
}

impl std::error::Error for ParamError {}

/// Why a filter could not be built: what every variant's builder can
/// refuse ([`Param`](Self::Param), [`OutOfMemory`](Self::OutOfMemory)), and
/// the reasons `E` of one variant alone ([`Variant`](Self::Variant)).
///
/// Each variant crate names its own, `BuildError = BuildError<Invalid>`
/// with its `Invalid`; `?` turns a [`ParamError`] or an
/// [`OutOfMemory`](crate::OutOfMemory) into any of them.
///
/// ```
/// use bloomlab_core::{BuildError, ParamError};
///
/// let e: BuildError<std::convert::Infallible> = ParamError::ZeroItems.into();
/// assert_eq!(e.to_string(), "expected number of items must be at least 1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum BuildError<E> {
    /// A sizing parameter no filter can be built from: a rate outside
    /// (0, 1), zero items, bits or hashes, too many hashes, or a table
    /// larger than the builder's limit.
    Param(ParamError),
    /// The allocator refused the table, although it is within the limit.
    OutOfMemory {
        /// Bytes the table needs.
        bytes: u128,
    },
    /// A reason of the variant's own: a counter width, a bucket size, a
    /// growth factor … that it does not support.
    Variant(E),
}

impl<E: fmt::Display> fmt::Display for BuildError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Param(e) => e.fmt(f),
            BuildError::OutOfMemory { bytes } => OutOfMemory { bytes: *bytes }.fmt(f),
            BuildError::Variant(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for BuildError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Param(e) => Some(e),
            BuildError::OutOfMemory { .. } => None,
            // Displayed as the variant's own message: what it wraps is its source.
            BuildError::Variant(e) => e.source(),
        }
    }
}

impl<E> From<ParamError> for BuildError<E> {
    fn from(e: ParamError) -> Self {
        BuildError::Param(e)
    }
}

impl<E> From<OutOfMemory> for BuildError<E> {
    fn from(e: OutOfMemory) -> Self {
        BuildError::OutOfMemory { bytes: e.bytes }
    }
}

/// A float as a caller would write it in an error message: `0.01` as is,
/// but `1e-300` rather than Rust's three hundred zeros.
///
/// ```
/// use bloomlab_core::ShortFloat;
///
/// assert_eq!(ShortFloat(0.01).to_string(), "0.01");
/// assert_eq!(ShortFloat(1e-300).to_string(), "1e-300");
/// assert_eq!(ShortFloat(-5e-324).to_string(), "-5e-324");
/// ```
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShortFloat(pub f64);

impl fmt::Display for ShortFloat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x != 0.0 && x.is_finite() && !(1e-4..1e16).contains(&x.abs()) {
            write!(f, "{x:e}")
        } else {
            write!(f, "{x}")
        }
    }
}

/// Checks that `p` is a usable false-positive rate: finite and in (0, 1).
///
/// # Errors
///
/// [`ParamError::InvalidFpr`] for 0, 1, negative, NaN or infinite rates.
pub fn check_fpr(p: f64) -> Result<f64, ParamError> {
    if p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(ParamError::InvalidFpr(p))
    }
}

/// Checks that `k` is a usable number of hash functions: at least one, at
/// most [`MAX_HASHES`](crate::theory::classic::MAX_HASHES).
///
/// # Errors
///
/// [`ParamError::ZeroHashes`] for 0, [`ParamError::TooManyHashes`] above the
/// maximum.
pub fn check_hashes(k: u32) -> Result<(), ParamError> {
    match k {
        0 => Err(ParamError::ZeroHashes),
        k if k > crate::theory::classic::MAX_HASHES => Err(ParamError::TooManyHashes(u64::from(k))),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_counts_from_one_to_the_maximum() {
        let max = crate::theory::classic::MAX_HASHES;
        assert_eq!(check_hashes(0), Err(ParamError::ZeroHashes));
        assert_eq!(check_hashes(1), Ok(()));
        assert_eq!(check_hashes(max), Ok(()));
        assert_eq!(
            check_hashes(max + 1),
            Err(ParamError::TooManyHashes(u64::from(max) + 1))
        );
    }
}
