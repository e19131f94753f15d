//! The counting filter in the bloomlab envelope, under [`TAG`].
//!
//! Parameters, little-endian: counter width in bits (`u8`), number of counters
//! (`u64`), number of hashes (`u32`), `len` (`u64`). Payload: the packed
//! counter words, each a little-endian `u64`.
//!
//! The envelope's format version is the filter's position
//! [`Scheme`]: 1 for [`Scheme::Modular`], 2 for [`Scheme::FixedPoint`]
//! ([`Scheme::of_version`], [`Scheme::version`]). The layout is the same in
//! both.

use bloomlab_core::codec::{Envelope, Reader, Writer, invalid};
use bloomlab_core::hash::Scheme;
use bloomlab_core::{DecodeError, Tag, check_hashes};

use crate::counters::{Counters, WIDTHS, words_for};
use crate::filter::CountingBloomFilter;

/// The envelope tag of a [`CountingBloomFilter`].
pub const TAG: Tag = Tag::new(4, "CountingBloomFilter");

impl<T: ?Sized> CountingBloomFilter<T> {
    /// The filter as bytes: parameters, hash key and counters, checksummed,
    /// in the format version of its [`scheme`](Self::scheme) (a filter read
    /// from a version-1 file is written back byte for byte).
    ///
    /// The hash key is written in the clear: whoever reads the bytes can
    /// compute items that pass the filter.
    pub fn to_bytes(&self) -> Vec<u8> {
        let counters = self.counters();
        let params = Writer::new()
            .u8(counters.width() as u8)
            .u64(counters.len())
            .u32(self.num_hashes())
            .u64(self.len() as u64)
            .finish();
        let words = counters.words().iter().copied();
        let mut env = Envelope::of_words(TAG, self.hasher(), params, words);
        env.version = self.scheme().version();
        env.encode()
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes), in format
    /// version 1 or 2; its [`scheme`](Self::scheme) is the version's
    /// ([`Scheme::of_version`]).
    ///
    /// # Errors
    ///
    /// Every fault of the envelope as its [`DecodeError`];
    /// [`DecodeError::InvalidParameters`] for an unsupported counter width,
    /// zero counters, zero or too many hashes, a `len` this platform cannot
    /// hold, a payload of the wrong size, or bits set past the last counter.
    /// Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let env = Envelope::decode(bytes, TAG)?;
        let mut params = Reader::new(&env.params);
        let width = u32::from(params.u8()?);
        let num_counters = params.u64()?;
        let num_hashes = params.u32()?;
        let len = params.u64()?;
        params.finish("trailing bytes after the parameters")?;

        if !WIDTHS.contains(&width) {
            return Err(invalid("counter width is not 4, 8 or 16"));
        }
        if num_counters == 0 {
            return Err(invalid("zero counters"));
        }
        check_hashes(num_hashes).map_err(|_| invalid("number of hashes outside 1..=64"))?;
        let len = usize::try_from(len).map_err(|_| invalid("len exceeds this platform"))?;
        let words = env.payload_words(
            words_for(num_counters, width),
            "payload size does not match the counters",
        )?;
        let used = (u128::from(num_counters) * u128::from(width) % 64) as u32;
        if used != 0 && words.last().is_some_and(|&w| w >> used != 0) {
            return Err(invalid("bits set past the last counter"));
        }
        Ok(CountingBloomFilter::from_parts(
            Counters::from_words(words, num_counters, width),
            num_hashes,
            len,
            env.hasher(),
            Scheme::of_version(env.version),
        ))
    }
}
