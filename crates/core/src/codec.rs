//! The binary envelope every filter is stored in.
//!
//! One layout for every variant, little-endian throughout:
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `BLMF` |
//! | 2 | format version ([`FORMAT_VERSION`]) in the low byte, the hash function ([`HashFunction::id`]) in the high byte |
//! | 2 | variant tag ([`Tag`]) |
//! | 16 | hash key (two `u64`) |
//! | 4 | length P of the parameters |
//! | P | parameters (the variant's own fields) |
//! | 8 | length L of the payload |
//! | L | payload (the variant's tables) |
//! | 4 | CRC-32 (IEEE) of every byte before it |
//!
//! Decoding never panics and never allocates more than the input holds:
//! every fault gives a [`DecodeError`]. A variant checks that its parameters
//! fit its payload with a [`Reader`] and reports a mismatch as
//! [`DecodeError::InvalidParameters`].
//!
//! ```
//! use bloomlab_core::DefaultHasher;
//! use bloomlab_core::codec::{Envelope, Tag};
//!
//! const MINE: Tag = Tag::new(900, "MyFilter");
//! let hasher = DefaultHasher::from_key([1, 2]);
//! let env = Envelope::of_words(MINE, &hasher, vec![7], [u64::MAX]);
//! let bytes = env.encode();
//! assert_eq!(Envelope::decode(&bytes, MINE).unwrap(), env);
//! assert!(Envelope::decode(&bytes[..bytes.len() - 1], MINE).is_err());
//! ```

use std::fmt;

use crate::DefaultHasher;
use crate::hash::HashFunction;

/// The first four bytes of every encoded filter.
pub const MAGIC: [u8; 4] = *b"BLMF";

/// The format version this crate writes every filter in but the sectored
/// ones: a blocked Bloom filter whose bits are one mask per 64-bit word
/// (`hash::sector_masks`), and a one-line counting
/// filter whose counters are laid out the same way, are written in version
/// 3, [`NEWEST_VERSION`].
///
/// Version 2 changed where classic, counting and scalable filters put an
/// item's bits ([`Scheme`](crate::hash::Scheme)); version 3 added the
/// sectored layout of the two one-line filters; nothing else. The hash
/// function is recorded beside the version, in the high byte of the same
/// field ([`Envelope::hash`]): 0, SipHash-1-3, in every file written before
/// AES-CMAC became the default, which a build that knows only SipHash-1-3
/// reads; 1, AES-128-CMAC, which such a build refuses as a version it does
/// not know rather than hash items with the wrong function. A filter is written in the oldest
/// version that stores it exactly, so a build that reads version 2 reads
/// every file whose layout it knows. Every version from [`OLDEST_VERSION`] to
/// [`NEWEST_VERSION`] reads, and a filter read from an older file keeps its
/// positions and is written back as it was.
pub const FORMAT_VERSION: u16 = 2;

/// The newest format version this crate reads.
pub const NEWEST_VERSION: u16 = 3;

/// The oldest format version this crate reads.
pub const OLDEST_VERSION: u16 = 1;

/// The format version and the hash function of an envelope's version field
/// (its bytes 4 and 5, little-endian), if this build reads both.
///
/// ```
/// use bloomlab_core::codec::split_version;
/// use bloomlab_core::hash::HashFunction;
///
/// assert_eq!(split_version(0x0002), Some((2, HashFunction::SipHash13)));
/// assert_eq!(split_version(0x0103), Some((3, HashFunction::AesCmac)));
/// assert_eq!(split_version(0x0009), None);
/// assert_eq!(split_version(0x0902), None);
/// ```
pub fn split_version(field: u16) -> Option<(u16, HashFunction)> {
    let version = field & 0xff;
    let hash = HashFunction::from_id((field >> 8) as u8)?;
    (OLDEST_VERSION..=NEWEST_VERSION)
        .contains(&version)
        .then_some((version, hash))
}

/// Bytes before the parameters: magic, version, tag, key, parameter length.
const HEADER_LEN: usize = 4 + 2 + 2 + 16 + 4;

/// Which filter an envelope holds: the number stored in it, and the name of
/// the filter type that reads it.
///
/// This crate assigns no tags and names no filter: each variant crate
/// defines the tags of its types as public constants (for example
/// `bloomlab_counting::TAG`, `Tag::new(4, "CountingBloomFilter")`), and the
/// facade's catalog lists them all. A tag, once used, keeps meaning the same
/// filter, so that every file written keeps reading.
///
/// ```
/// use bloomlab_core::Tag;
///
/// const MINE: Tag = Tag::new(900, "MyFilter");
/// assert_eq!((MINE.id(), MINE.name()), (900, "MyFilter"));
/// assert_eq!(MINE.to_string(), "MyFilter (variant tag 900)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tag {
    id: u16,
    name: &'static str,
}

impl Tag {
    /// The tag `id`, stored in the envelope of a `name`: the filter type as
    /// a user names it.
    pub const fn new(id: u16, name: &'static str) -> Self {
        Self { id, name }
    }

    /// The number stored in the envelope.
    pub const fn id(self) -> u16 {
        self.id
    }

    /// The filter type this tag is stored from, as a user names it.
    pub const fn name(self) -> &'static str {
        self.name
    }
}

impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (variant tag {})", self.name, self.id)
    }
}

/// Why bytes could not be decoded into a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input does not start with [`MAGIC`].
    BadMagic,
    /// The version field (the format version, and the hash function in its
    /// high byte) names a version or a function this crate does not read.
    UnsupportedVersion(u16),
    /// The envelope holds another variant (or one this build does not know).
    WrongVariant {
        /// The variant the caller asked for.
        expected: Tag,
        /// The tag found in the input.
        found: u16,
    },
    /// The input ends before the lengths it declares.
    Truncated,
    /// Bytes follow the checksum.
    TrailingBytes,
    /// The checksum does not match: the bytes were corrupted.
    ChecksumMismatch {
        /// The checksum stored in the input.
        stored: u32,
        /// The checksum of the bytes as read.
        computed: u32,
    },
    /// The parameters are impossible, or do not fit the payload.
    InvalidParameters {
        /// Which parameter, or which relation between them, failed.
        what: &'static str,
    },
    /// The allocator refused the memory for the table the input holds.
    OutOfMemory {
        /// Bytes asked for.
        bytes: u128,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::BadMagic => f.write_str("not a bloomlab filter (bad magic bytes)"),
            DecodeError::UnsupportedVersion(field) => {
                let (version, hash) = (field & 0xff, field >> 8);
                let function = match HashFunction::from_id(hash as u8) {
                    Some(function) => function.name().to_owned(),
                    None => format!("hash function {hash}"),
                };
                write!(
                    f,
                    "format version {version} with {function} is not supported (this build \
                     reads versions {OLDEST_VERSION} to {NEWEST_VERSION}, hashed with \
                     SipHash-1-3 or AES-128-CMAC)"
                )
            }
            // Which type has tag `found` is the catalog's to say, not this
            // crate's: it names no filter but the one it was asked for.
            DecodeError::WrongVariant { expected, found } => write!(
                f,
                "this is not a {expected} but a filter of variant tag {found}: read it \
                 with the type whose variant tag that is (`bloomlab inspect` names it; \
                 `bloomlab::catalog::by_tag({found})` finds it)"
            ),
            DecodeError::Truncated => f.write_str("the input is truncated"),
            DecodeError::TrailingBytes => f.write_str("unexpected bytes after the checksum"),
            DecodeError::ChecksumMismatch { stored, computed } => write!(
                f,
                "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the data is corrupted"
            ),
            DecodeError::InvalidParameters { what } => write!(f, "invalid parameters: {what}"),
            DecodeError::OutOfMemory { bytes } => {
                fmt::Display::fmt(&crate::alloc::OutOfMemory { bytes: *bytes }, f)
            }
        }
    }
}

impl std::error::Error for DecodeError {}

impl From<crate::alloc::OutOfMemory> for DecodeError {
    fn from(e: crate::alloc::OutOfMemory) -> Self {
        DecodeError::OutOfMemory { bytes: e.bytes }
    }
}

/// The little-endian words of `bytes` (a trailing part of fewer than 8
/// bytes is left out), in a table's `Buffer`: a payload's table, once its
/// length was checked against the parameters.
///
/// # Errors
///
/// [`DecodeError::OutOfMemory`] if the allocator refuses them.
pub fn le_words(bytes: &[u8]) -> Result<crate::alloc::Buffer<u64>, DecodeError> {
    let mut words = crate::alloc::buffer::<u64>(bytes.len() / 8)?;
    for (word, raw) in words.iter_mut().zip(bytes.chunks_exact(8)) {
        *word = u64::from_le_bytes(raw.try_into().unwrap_or([0; 8]));
    }
    Ok(words)
}

/// [`DecodeError::InvalidParameters`] naming `what`: how a variant's decoder
/// refuses parameters that are impossible or do not fit the payload.
pub fn invalid(what: &'static str) -> DecodeError {
    DecodeError::InvalidParameters { what }
}

/// A filter that can be written to and read back from the binary envelope.
///
/// Implemented by every variant with its default hasher, whose key is stored.
pub trait Persist: Sized {
    /// The encoded filter: parameters, hash key and tables, checksummed.
    fn to_bytes(&self) -> Vec<u8>;

    /// Reads a filter written by [`to_bytes`](Persist::to_bytes).
    ///
    /// # Errors
    ///
    /// A [`DecodeError`] for every kind of bad input; never panics.
    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError>;
}

/// The decoded fields of an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    /// The format version: [`FORMAT_VERSION`] for a new filter, or the
    /// version a filter was read from.
    pub version: u16,
    /// Which filter this is.
    pub tag: Tag,
    /// The function the key is for.
    pub hash: HashFunction,
    /// The hash key (see [`DefaultHasher::key`](crate::DefaultHasher::key)).
    pub key: [u64; 2],
    /// The variant's parameters, written with a [`Writer`].
    pub params: Vec<u8>,
    /// The variant's tables.
    pub payload: Vec<u8>,
}

impl Envelope {
    /// An envelope whose payload is `words`, each little-endian: the table
    /// of a variant that stores one, hashed by `hasher`.
    pub fn of_words(
        tag: Tag,
        hasher: &DefaultHasher,
        params: Vec<u8>,
        words: impl IntoIterator<Item = u64>,
    ) -> Self {
        let words = words.into_iter();
        let mut payload = Vec::with_capacity(words.size_hint().0 * 8);
        for w in words {
            payload.extend_from_slice(&w.to_le_bytes());
        }
        Self::new(tag, hasher, params, payload)
    }

    /// An envelope of `tag` in [`FORMAT_VERSION`] holding `params` and
    /// `payload`, for a filter hashed by `hasher` (its function and key).
    pub fn new(tag: Tag, hasher: &DefaultHasher, params: Vec<u8>, payload: Vec<u8>) -> Self {
        Self {
            version: FORMAT_VERSION,
            tag,
            hash: hasher.function(),
            key: hasher.key(),
            params,
            payload,
        }
    }

    /// The hasher of the filter stored: its function and key.
    pub fn hasher(&self) -> DefaultHasher {
        DefaultHasher::with_function(self.hash, self.key)
    }

    /// The version field as stored: the version, and the hash function in
    /// the high byte.
    fn version_field(&self) -> u16 {
        u16::from(self.hash.id()) << 8 | self.version
    }

    /// The payload as `words` little-endian words (`None`: more than this
    /// platform can address), checked to be exactly that long before
    /// anything is allocated, in a table's `Buffer`.
    ///
    /// # Errors
    ///
    /// [`DecodeError::InvalidParameters`] naming `what` unless the payload
    /// holds exactly `words` words; [`DecodeError::OutOfMemory`] if the
    /// allocator refuses them.
    pub fn payload_words(
        &self,
        words: Option<u64>,
        what: &'static str,
    ) -> Result<crate::alloc::Buffer<u64>, DecodeError> {
        let fits = words
            .and_then(|w| usize::try_from(w).ok())
            .is_some_and(|w| w.checked_mul(8) == Some(self.payload.len()));
        if !fits {
            return Err(invalid(what));
        }
        le_words(&self.payload)
    }

    /// The envelope as bytes, checksum included.
    ///
    /// # Panics
    ///
    /// If the parameters exceed 4 GiB, which no variant writes.
    pub fn encode(&self) -> Vec<u8> {
        let params_len = u32::try_from(self.params.len()).expect("parameters fit in 4 GiB");
        let mut out =
            Vec::with_capacity(HEADER_LEN + self.params.len() + 8 + self.payload.len() + 4);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.version_field().to_le_bytes());
        out.extend_from_slice(&self.tag.id().to_le_bytes());
        out.extend_from_slice(&self.key[0].to_le_bytes());
        out.extend_from_slice(&self.key[1].to_le_bytes());
        out.extend_from_slice(&params_len.to_le_bytes());
        out.extend_from_slice(&self.params);
        out.extend_from_slice(&(self.payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&self.payload);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Reads an envelope and checks that it holds the variant of `expected`.
    ///
    /// # Errors
    ///
    /// Bad magic, an unknown version, another variant, truncation, trailing
    /// bytes or a checksum mismatch, each as its [`DecodeError`]. The checksum
    /// is verified before any field is trusted.
    pub fn decode(bytes: &[u8], expected: Tag) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        if r.take(4)? != MAGIC {
            return Err(DecodeError::BadMagic);
        }
        // Everything after the magic is covered by the checksum; check it first
        // so a corrupted length or tag reads as corruption, not as a wrong field.
        if bytes.len() < HEADER_LEN + 8 + 4 {
            return Err(DecodeError::Truncated);
        }
        let version = r.u16()?;
        let tag = r.u16()?;
        let key = [r.u64()?, r.u64()?];
        let params_len = r.u32()? as usize;
        let params = r.take(params_len)?.to_vec();
        let payload_len = usize::try_from(r.u64()?).map_err(|_| DecodeError::Truncated)?;
        let payload = r.take(payload_len)?.to_vec();
        let body_len = bytes.len() - r.remaining();
        let stored = r.u32()?;
        let computed = crc32fast::hash(&bytes[..body_len]);
        if stored != computed {
            return Err(DecodeError::ChecksumMismatch { stored, computed });
        }
        if r.remaining() != 0 {
            return Err(DecodeError::TrailingBytes);
        }
        let (version, hash) =
            split_version(version).ok_or(DecodeError::UnsupportedVersion(version))?;
        if tag != expected.id() {
            return Err(DecodeError::WrongVariant {
                expected,
                found: tag,
            });
        }
        Ok(Self {
            version,
            tag: expected,
            hash,
            key,
            params,
            payload,
        })
    }
}

/// The stored form of a table of words sized by one count: parameters
/// `size: u64`, `num_hashes: u32`, `len: u64` (little-endian), and the
/// words as the payload. The classic, blocked and atomic Bloom filters and
/// the one-line counting filter are stored so, each under its own tag.
#[derive(Debug)]
pub struct WordTable {
    /// The file's format version, from which a variant reads where its
    /// items' bits or counters sit.
    pub version: u16,
    /// The hasher: the stored function and key.
    pub hasher: DefaultHasher,
    /// Bits, or blocks: what sizes the table.
    pub size: u64,
    /// Hashes per item.
    pub num_hashes: u32,
    /// Items recorded.
    pub len: usize,
    /// The table.
    pub words: crate::alloc::Buffer<u64>,
}

impl WordTable {
    /// The envelope of `tag` in format `version` holding the fields and
    /// `words`.
    pub fn encode(
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

    /// Reads the envelope of `tag` and its fields; `words_for(size)` is how
    /// many words the payload must hold (`None` if that overflows). The
    /// variant's own constructor still checks the values.
    ///
    /// # Errors
    ///
    /// Every envelope fault as its [`DecodeError`];
    /// [`DecodeError::InvalidParameters`] for parameters of another length,
    /// a `len` this platform cannot hold, or a payload of other than
    /// `words_for(size)` words; [`DecodeError::OutOfMemory`] if the
    /// allocator refuses the table.
    pub fn decode(
        bytes: &[u8],
        tag: Tag,
        words_for: impl Fn(u64) -> Option<u64>,
    ) -> Result<Self, DecodeError> {
        let env = Envelope::decode(bytes, tag)?;
        let mut params = Reader::new(&env.params);
        let size = params.u64()?;
        let num_hashes = params.u32()?;
        let len = params.u64()?;
        params.finish("parameters longer than expected")?;
        let len =
            usize::try_from(len).map_err(|_| invalid("item count does not fit this platform"))?;
        let words = env.payload_words(
            words_for(size),
            "payload length does not match the table size",
        )?;
        Ok(Self {
            version: env.version,
            hasher: env.hasher(),
            size,
            num_hashes,
            len,
            words,
        })
    }
}

/// Writes parameters little-endian, for [`Envelope::params`] and payloads.
#[derive(Debug, Default, Clone)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// Appends a `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// Appends an `f64` as its IEEE-754 bits.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.u64(v.to_bits())
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(v);
        self
    }

    /// Appends words, each little-endian.
    pub fn words(&mut self, words: &[u64]) -> &mut Self {
        self.buf.reserve(words.len() * 8);
        for w in words {
            self.buf.extend_from_slice(&w.to_le_bytes());
        }
        self
    }

    /// The bytes written.
    pub fn finish(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }
}

/// Reads little-endian fields, with [`DecodeError::Truncated`] past the end.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// The next `n` bytes.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] if fewer remain.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.bytes.len() {
            return Err(DecodeError::Truncated);
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// The next byte.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] past the end.
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    /// The next `u16`.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] past the end.
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        self.array().map(u16::from_le_bytes)
    }

    /// The next `u32`.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] past the end.
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        self.array().map(u32::from_le_bytes)
    }

    /// The next `u64`.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] past the end.
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        self.array().map(u64::from_le_bytes)
    }

    /// The next `f64`.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] past the end.
    pub fn f64(&mut self) -> Result<f64, DecodeError> {
        self.u64().map(f64::from_bits)
    }

    /// Reads `count` little-endian words.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Truncated`] if fewer than `count · 8` bytes remain
    /// (checked before allocating).
    pub fn words(&mut self, count: usize) -> Result<Vec<u64>, DecodeError> {
        let len = count.checked_mul(8).ok_or(DecodeError::Truncated)?;
        let raw = self.take(len)?;
        Ok(raw
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect())
    }

    /// Fails unless every byte was read.
    ///
    /// # Errors
    ///
    /// [`DecodeError::InvalidParameters`] naming `what` if bytes are left.
    pub fn finish(&self, what: &'static str) -> Result<(), DecodeError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(invalid(what))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two tags as variant crates define theirs.
    const FOUR: Tag = Tag::new(4, "FourFilter");
    const SIX: Tag = Tag::new(6, "SixFilter");

    fn sample() -> Envelope {
        Envelope {
            version: FORMAT_VERSION,
            tag: FOUR,
            hash: HashFunction::AesCmac,
            key: [0x0102_0304_0506_0708, 0x1112_1314_1516_1718],
            params: vec![1, 2, 3],
            payload: vec![0xaa, 0xbb],
        }
    }

    #[test]
    fn payload_words_are_exactly_as_many_as_asked() {
        let env = Envelope::of_words(
            FOUR,
            &DefaultHasher::from_key([1, 2]),
            vec![],
            [1, u64::MAX],
        );
        assert_eq!((env.hash, env.key), (HashFunction::CURRENT, [1, 2]));
        assert_eq!(env.payload[..9], [1, 0, 0, 0, 0, 0, 0, 0, 0xff]);
        assert_eq!(
            env.payload_words(Some(2), "size").as_deref(),
            Ok(&[1, u64::MAX][..])
        );
        for words in [Some(1), Some(3), Some(u64::MAX), None] {
            assert_eq!(
                env.payload_words(words, "size").unwrap_err(),
                DecodeError::InvalidParameters { what: "size" }
            );
        }
    }

    #[test]
    fn layout_is_pinned() {
        let bytes = sample().encode();
        let mut expected = b"BLMF".to_vec();
        // Version 2, AES-128-CMAC (1 in the high byte), tag 4.
        expected.extend([2, 1, 4, 0]);
        expected.extend([
            8, 7, 6, 5, 4, 3, 2, 1, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11,
        ]);
        expected.extend([3, 0, 0, 0, 1, 2, 3]);
        expected.extend([2, 0, 0, 0, 0, 0, 0, 0, 0xaa, 0xbb]);
        let crc = crc32fast::hash(&expected);
        expected.extend(crc.to_le_bytes());
        assert_eq!(bytes, expected);
    }

    #[test]
    fn every_fault_is_typed() {
        let good = sample().encode();
        assert_eq!(Envelope::decode(&good, FOUR), Ok(sample()));
        assert_eq!(Envelope::decode(b"nope", FOUR), Err(DecodeError::BadMagic));
        assert_eq!(Envelope::decode(&[], FOUR), Err(DecodeError::Truncated));
        assert_eq!(
            Envelope::decode(&good, SIX),
            Err(DecodeError::WrongVariant {
                expected: SIX,
                found: 4
            })
        );
        // The message names the filter asked for, and both tags.
        let e = Envelope::decode(&good, SIX).unwrap_err();
        assert_eq!(
            e.to_string(),
            "this is not a SixFilter (variant tag 6) but a filter of variant tag 4: \
             read it with the type whose variant tag that is (`bloomlab inspect` names it; \
             `bloomlab::catalog::by_tag(4)` finds it)"
        );
        let mut longer = good.clone();
        longer.push(0);
        assert_eq!(
            Envelope::decode(&longer, FOUR),
            Err(DecodeError::TrailingBytes)
        );

        let with_version = |v: u16| {
            let mut bytes = sample().encode();
            bytes[4..6].copy_from_slice(&v.to_le_bytes());
            let n = bytes.len();
            let crc = crc32fast::hash(&bytes[..n - 4]);
            bytes[n - 4..].copy_from_slice(&crc.to_le_bytes());
            bytes
        };
        // An unknown version, or an unknown function beside a known one.
        for v in [
            0,
            NEWEST_VERSION + 1,
            u16::MAX,
            2 << 8 | FORMAT_VERSION,
            0x100,
        ] {
            assert_eq!(
                Envelope::decode(&with_version(v), FOUR),
                Err(DecodeError::UnsupportedVersion(v))
            );
        }
        for hash in [HashFunction::SipHash13, HashFunction::AesCmac] {
            for v in OLDEST_VERSION..=NEWEST_VERSION {
                let field = u16::from(hash.id()) << 8 | v;
                let env = Envelope::decode(&with_version(field), FOUR).unwrap();
                assert_eq!((env.version, env.hash), (v, hash));
                assert_eq!(env.hasher().function(), hash);
                assert_eq!(env.encode(), with_version(field), "written back as read");
            }
        }
    }

    #[test]
    fn every_single_byte_corruption_and_truncation_fails() {
        let good = sample().encode();
        for i in 0..good.len() {
            for flip in [0x01, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[i] ^= flip;
                assert!(
                    Envelope::decode(&bad, FOUR).is_err(),
                    "byte {i} ^ {flip:#x}"
                );
            }
        }
        for len in 0..good.len() {
            assert!(
                Envelope::decode(&good[..len], FOUR).is_err(),
                "length {len}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            let _ = Envelope::decode(&bytes, SIX);
        }

        #[test]
        fn round_trips(key in proptest::array::uniform2(proptest::num::u64::ANY),
                       params in proptest::collection::vec(proptest::num::u8::ANY, 0..64),
                       payload in proptest::collection::vec(proptest::num::u8::ANY, 0..256)) {
            for hash in [HashFunction::SipHash13, HashFunction::AesCmac] {
                let env = Envelope { version: FORMAT_VERSION, tag: SIX, hash, key, params: params.clone(), payload: payload.clone() };
                proptest::prop_assert_eq!(Envelope::decode(&env.encode(), SIX), Ok(env));
            }
        }
    }
}
