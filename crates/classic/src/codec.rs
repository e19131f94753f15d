//! The stored forms of the three filters, inside [`Envelope`].
//!
//! A classic or atomic filter is written in its [`Scheme`]'s format version:
//! 1 if it was read from a version-1 file (its bits sit where
//! [`Scheme::Modular`] put them), the current one otherwise. A blocked filter
//! is written in its [`BlockLayout`](crate::BlockLayout)'s: 2 for
//! [`Positions`](crate::BlockLayout::Positions) (whose bits versions 1 and 2
//! place alike), 3 for [`Sectors`](crate::BlockLayout::Sectors).
//!
//! | tag | parameters (little-endian) | payload |
//! |---|---|---|
//! | [`CLASSIC_TAG`], [`ATOMIC_TAG`] | `num_bits: u64`, `num_hashes: u32`, `len: u64` | `ceil(num_bits / 64)` words, little-endian |
//! | [`BLOCKED_TAG`] | `num_blocks: u64`, `num_hashes: u32`, `len: u64` | `8 · num_blocks` words, little-endian |

use bloomlab_core::codec::{Envelope, Reader, Writer};
#[cfg(doc)]
use bloomlab_core::hash::Scheme;
use bloomlab_core::{DecodeError, DefaultHasher, Tag};

/// The envelope tag of a [`BloomFilter`](crate::BloomFilter).
pub const CLASSIC_TAG: Tag = Tag::new(1, "BloomFilter");

/// The envelope tag of a [`BlockedBloomFilter`](crate::BlockedBloomFilter).
pub const BLOCKED_TAG: Tag = Tag::new(2, "BlockedBloomFilter");

/// The envelope tag of an [`AtomicBloomFilter`](crate::AtomicBloomFilter):
/// its fields are those of a [`BloomFilter`](crate::BloomFilter), and the
/// tag says which type wrote them.
pub const ATOMIC_TAG: Tag = Tag::new(3, "AtomicBloomFilter");

/// The fields every variant stores.
pub(crate) struct Stored {
    /// The file's format version: the positions of a classic or atomic
    /// filter are [`Scheme::of_version`] of it, a blocked filter's layout
    /// [`BlockLayout::of_version`](crate::BlockLayout::of_version).
    pub version: u16,
    /// The hasher: the stored function and key.
    pub hasher: DefaultHasher,
    /// Bits (classic, atomic) or blocks (blocked).
    pub size: u64,
    pub num_hashes: u32,
    pub len: usize,
    pub words: bloomlab_core::alloc::Buffer<u64>,
}

pub(crate) fn encode(
    tag: Tag,
    version: u16,
    hasher: &DefaultHasher,
    size: u64,
    num_hashes: u32,
    len: usize,
    words: impl Iterator<Item = u64>,
) -> Vec<u8> {
    let params = Writer::new()
        .u64(size)
        .u32(num_hashes)
        .u64(len as u64)
        .finish();
    Envelope {
        version,
        ..Envelope::of_words(tag, hasher, params, words)
    }
    .encode()
}

/// Reads the envelope and its fields; `words_for(size)` is how many words
/// the payload must hold (`None` if that overflows). The filter's own
/// constructor still checks the values.
pub(crate) fn decode(
    bytes: &[u8],
    tag: Tag,
    words_for: impl Fn(u64) -> Option<u64>,
) -> Result<Stored, DecodeError> {
    let env = Envelope::decode(bytes, tag)?;
    let mut params = Reader::new(&env.params);
    let size = params.u64()?;
    let num_hashes = params.u32()?;
    let len = params.u64()?;
    params.finish("parameters longer than expected")?;
    let len = usize::try_from(len).map_err(|_| DecodeError::InvalidParameters {
        what: "item count does not fit this platform",
    })?;
    let words = env.payload_words(
        words_for(size),
        "payload length does not match the table size",
    )?;
    Ok(Stored {
        version: env.version,
        hasher: env.hasher(),
        size,
        num_hashes,
        len,
        words,
    })
}
