//! The bit table of the classic filter, whichever way its words are written.
//!
//! [`BloomFilter`](crate::BloomFilter) keeps plain words and
//! [`AtomicBloomFilter`](crate::AtomicBloomFilter) atomic ones that threads
//! set through `&self`; both place, read, count and store the bits alike, so
//! everything but setting a bit is here, once, for any [`Word`].

use std::fmt;

use bloomlab_core::alloc::{self, Buffer, OutOfMemory, Zeroable};
use bloomlab_core::batch;
use bloomlab_core::codec::WordTable;
use bloomlab_core::hash::Scheme;
use bloomlab_core::theory::classic;
use bloomlab_core::{DecodeError, DefaultHasher, ParamError, Tag, check_hashes};

use crate::error::{BuildError, Invalid, MergeError};

/// The word holding bit `bit`, and the bit's mask in it: bit i lives in
/// `words[i / 64]` at `1 << (i % 64)`.
#[inline]
pub(crate) fn locate(bit: u64) -> (usize, u64) {
    ((bit >> 6) as usize, 1 << (bit & 63))
}

/// Maps a constructor's complaint about decoded parts to a decode error.
pub(crate) fn invalid(e: BuildError) -> DecodeError {
    if let BuildError::OutOfMemory { bytes } = e {
        return DecodeError::OutOfMemory { bytes };
    }
    DecodeError::InvalidParameters {
        what: match e {
            BuildError::Param(ParamError::ZeroBits) => "zero bits",
            BuildError::Param(ParamError::ZeroHashes) => "zero hashes",
            BuildError::Param(ParamError::TooManyHashes(_)) => "too many hashes",
            BuildError::Variant(Invalid::BitsBeyondEnd) => "bits set beyond the table",
            _ => "parameters do not fit the payload",
        },
    }
}

/// A word of a table, as it reads now.
pub(crate) trait Word: Sized + Zeroable {
    /// The word's bits.
    fn bits(&self) -> u64;
}

impl Word for u64 {
    #[inline]
    fn bits(&self) -> u64 {
        *self
    }
}

/// A filter whose items live in one [`Table`]: the classic and the atomic
/// filter read it alike, so their lookups' cost and prefetch (what their
/// `HashMembership` asks beside the inherent methods) are here, once.
pub(crate) trait OnTable {
    /// How the table's words are written.
    type Word: Word;

    /// The filter's table.
    fn bit_table(&self) -> &Table<Self::Word>;

    /// `k` words, one a position (`HashMembership::lookup_lines`).
    fn lookup_cache_lines(&self) -> usize {
        self.bit_table().num_hashes as usize
    }

    /// Starts loading the `k` words of the item.
    #[inline]
    fn prefetch_hash(&self, hash: u64) {
        self.bit_table().prefetch(hash);
    }
}

/// `m` bits in words, bit i in `words[i / 64]` at `1 << (i % 64)`, and the
/// `k` positions an item sets, from its [`Scheme`].
#[derive(Debug)]
pub(crate) struct Table<W> {
    pub(crate) words: Buffer<W>,
    pub(crate) num_bits: u64,
    pub(crate) num_hashes: u32,
    /// [`Scheme::CURRENT`], or the scheme of the file the table was read
    /// from.
    pub(crate) scheme: Scheme,
}

impl Clone for Table<u64> {
    fn clone(&self) -> Self {
        Self {
            words: self.words.clone(),
            num_bits: self.num_bits,
            num_hashes: self.num_hashes,
            scheme: self.scheme,
        }
    }
}

impl Table<u64> {
    /// The table of raw parts, checked the way
    /// [`BloomFilter::from_words`](crate::BloomFilter::from_words) documents.
    pub(crate) fn new(
        words: Buffer<u64>,
        num_bits: u64,
        num_hashes: u32,
    ) -> Result<Self, BuildError> {
        if num_bits == 0 {
            return Err(ParamError::ZeroBits.into());
        }
        check_hashes(num_hashes)?;
        let expected = num_bits.div_ceil(64);
        if words.len() as u64 != expected {
            return Err(BuildError::Variant(Invalid::WordCount {
                expected,
                found: words.len() as u64,
            }));
        }
        let tail = num_bits % 64;
        if tail != 0 && words.last().is_some_and(|&w| w >> tail != 0) {
            return Err(BuildError::Variant(Invalid::BitsBeyondEnd));
        }
        Ok(Self {
            words,
            num_bits,
            num_hashes,
            scheme: Scheme::CURRENT,
        })
    }

    /// Reads the table stored under `tag` ([`crate::codec`]): the table,
    /// with the scheme of the file's format version, the count of inserts
    /// and the hasher.
    pub(crate) fn decode(
        bytes: &[u8],
        tag: Tag,
    ) -> Result<(Self, usize, DefaultHasher), DecodeError> {
        let s = WordTable::decode(bytes, tag, |bits| Some(bits.div_ceil(64)))?;
        let mut table = Self::new(s.words, s.size, s.num_hashes).map_err(invalid)?;
        table.scheme = Scheme::of_version(s.version);
        Ok((table, s.len, s.hasher))
    }

    /// Sets the bits of the item whose hash is `hash`; `true` if one of
    /// them was unset.
    #[inline]
    pub(crate) fn insert_hash(&mut self, hash: u64) -> bool {
        let mut new = false;
        let words = &mut self.words;
        self.scheme
            .for_each(hash, self.num_bits, self.num_hashes, |bit| {
                let (i, mask) = locate(bit);
                let word = &mut words[i];
                new |= *word & mask == 0;
                *word |= mask;
            });
        new
    }

    /// Combines `other`'s words into these with `op`, if the two tables
    /// and hashers agree: the body of [`union`](crate::BloomFilter::union)
    /// and [`intersect`](crate::BloomFilter::intersect).
    pub(crate) fn merge(
        &mut self,
        other: &Self,
        same_hasher: bool,
        op: impl Fn(&mut u64, u64),
    ) -> Result<(), MergeError> {
        let shape = |t: &Self| (t.num_bits, t.num_hashes);
        MergeError::check(shape(self), shape(other), same_hasher)?;
        if self.scheme != other.scheme {
            return Err(MergeError::Scheme {
                ours: self.scheme,
                theirs: other.scheme,
            });
        }
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            op(a, b);
        }
        Ok(())
    }
}

impl<W: Word> Table<W> {
    /// An empty table of `words` words (those `num_bits` needs, checked by
    /// the caller).
    pub(crate) fn zeroed(
        num_bits: u64,
        num_hashes: u32,
        words: usize,
    ) -> Result<Self, OutOfMemory> {
        Ok(Self {
            words: alloc::buffer(words)?,
            num_bits,
            num_hashes,
            scheme: Scheme::CURRENT,
        })
    }

    /// An empty table of this one's size and hash count.
    pub(crate) fn zeroed_like(&self) -> Result<Self, OutOfMemory> {
        let mut table = Self::zeroed(self.num_bits, self.num_hashes, self.words.len())?;
        table.scheme = self.scheme;
        Ok(table)
    }

    /// The table with its words turned into another kind by `f`, in place.
    pub(crate) fn map<V>(self, f: impl FnOnce(Buffer<W>) -> Buffer<V>) -> Table<V> {
        Table {
            words: f(self.words),
            num_bits: self.num_bits,
            num_hashes: self.num_hashes,
            scheme: self.scheme,
        }
    }

    /// A plain copy of the table as it reads now; like `Vec::clone`, it
    /// aborts if the allocator refuses the copy.
    pub(crate) fn snapshot(&self) -> Table<u64> {
        let n = self.words.len();
        let mut words = alloc::buffer(n).unwrap_or_else(|_| {
            std::alloc::handle_alloc_error(
                std::alloc::Layout::array::<u64>(n).unwrap_or(std::alloc::Layout::new::<u64>()),
            )
        });
        for (copy, word) in words.iter_mut().zip(self.words.iter()) {
            *copy = word.bits();
        }
        Table {
            words,
            num_bits: self.num_bits,
            num_hashes: self.num_hashes,
            scheme: self.scheme,
        }
    }

    /// The table stored under `tag`, with the hasher's function and key and
    /// the count of inserts ([`crate::codec`]), in its scheme's format
    /// version.
    pub(crate) fn encode(&self, tag: Tag, hasher: &DefaultHasher, len: usize) -> Vec<u8> {
        let words = self.words.iter().map(Word::bits);
        let version = self.scheme.version();
        WordTable::encode(
            tag,
            version,
            hasher,
            self.num_bits,
            self.num_hashes,
            len,
            words,
        )
    }

    /// Calls `f` with each bit position of the item whose hash is `hash`.
    #[inline(always)]
    pub(crate) fn for_each_position(&self, hash: u64, f: impl FnMut(u64)) {
        self.scheme
            .for_each(hash, self.num_bits, self.num_hashes, f);
    }

    /// Whether every bit of the item whose hash is `hash` is set.
    ///
    /// The words are taken as a slice once, before the positions: an atomic
    /// word's load may not be moved across another memory access, so read
    /// through `self` at each position the compiler fetched the table's
    /// address and length again after every load of a word.
    #[inline(always)]
    pub(crate) fn contains_hash(&self, hash: u64) -> bool {
        let (m, k, words) = (self.num_bits, self.num_hashes, &self.words[..]);
        self.scheme.all(hash, m, k, |bit| {
            let (i, mask) = locate(bit);
            words[i].bits() & mask != 0
        })
    }

    /// Starts loading the `k` words of the item whose hash is `hash`.
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        self.for_each_position(hash, |bit| batch::prefetch(&self.words[locate(bit).0]));
    }

    /// A filter of this table as `Debug` shows it: `name { num_bits, num_hashes, len, .. }`.
    pub(crate) fn debug(&self, f: &mut fmt::Formatter<'_>, name: &str, len: usize) -> fmt::Result {
        f.debug_struct(name)
            .field("num_bits", &self.num_bits)
            .field("num_hashes", &self.num_hashes)
            .field("len", &len)
            .finish_non_exhaustive()
    }

    /// Bits set.
    pub(crate) fn count_ones(&self) -> u64 {
        self.words
            .iter()
            .map(|w| u64::from(w.bits().count_ones()))
            .sum()
    }

    /// The fraction of bits set.
    pub(crate) fn fill_ratio(&self) -> f64 {
        self.count_ones() as f64 / self.num_bits as f64
    }

    /// [`classic::estimate_count`] of the bits set.
    pub(crate) fn estimate_count(&self) -> f64 {
        classic::estimate_count(
            self.num_bits as f64,
            f64::from(self.num_hashes),
            self.count_ones() as f64,
        )
    }

    /// [`classic::fpr`]`(m, len, k)`.
    pub(crate) fn expected_fpr(&self, len: usize) -> f64 {
        classic::fpr(self.num_bits as f64, len as f64, f64::from(self.num_hashes))
    }

    /// [`classic::fpr_from_fill`]`(fill, k)`.
    pub(crate) fn estimated_fpr(&self) -> f64 {
        classic::fpr_from_fill(self.fill_ratio(), f64::from(self.num_hashes))
    }

    /// Bytes of the words.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }
}

/// Equal when the sizes and every word's bits are; each word is read once.
impl<W: Word, V: Word> PartialEq<Table<V>> for Table<W> {
    fn eq(&self, other: &Table<V>) -> bool {
        self.num_bits == other.num_bits
            && self.num_hashes == other.num_hashes
            && self.scheme == other.scheme
            && self.words.len() == other.words.len()
            && self
                .words
                .iter()
                .zip(&other.words)
                .all(|(a, b)| a.bits() == b.bits())
    }
}
