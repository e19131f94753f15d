//! Persistence through the core envelope, under [`TAG`].
//!
//! Parameters, little-endian, in one of two forms told apart by their third
//! byte:
//!
//! - **Any bucket count** (written since fingerprints reach 32 bits): bucket
//!   size (u8), fingerprint bits (u8), the marker [`ANY_COUNT`] (u8), layout
//!   (u8: 0 plain, 1 semi-sorted), alternate-bucket map (u8: 0 XOR, 1
//!   subtraction), bucket count (u64), relocation bound (u32), stored
//!   fingerprints (u64): 25 bytes.
//! - **Power of two** (the first form, read but no longer written): bucket
//!   size (u8), fingerprint bits (u8, 4 to 16), log2 of the bucket count (u8,
//!   at most 32), relocation bound (u32), stored fingerprints (u64): 15
//!   bytes. Such a table is plain, with the XOR alternate-bucket map.
//!
//! Payload: the packed table, `⌈buckets · bits per bucket / 64⌉` words.

use bloomlab_core::codec::{Envelope, Reader, Writer, invalid};
use bloomlab_core::{DecodeError, DefaultHasher, Tag};

use crate::builder::{MAX_BUCKETS, MAX_RELOCATIONS};
use crate::filter::CuckooFilter;
use crate::table::{AltMap, BUCKET_SIZES, FINGERPRINT_BITS, Layout, Table};

/// The envelope tag of a [`CuckooFilter`], in both forms.
pub const TAG: Tag = Tag::new(6, "CuckooFilter");

/// The third parameter byte of the any-count form; the power-of-two form
/// has a log2 of at most 32 there.
pub(crate) const ANY_COUNT: u8 = 0x80;

/// The widest fingerprint of the power-of-two form.
const POWER_OF_TWO_FINGERPRINT_BITS: u32 = 16;

impl<T: ?Sized> CuckooFilter<T, DefaultHasher> {
    /// The filter as bytes: parameters, hash key and table, checksummed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let table = self.table();
        let params = Writer::new()
            .u8(table.bucket_size() as u8)
            .u8(table.fingerprint_bits() as u8)
            .u8(ANY_COUNT)
            .u8(match table.layout() {
                Layout::Plain => 0,
                Layout::SemiSorted => 1,
            })
            .u8(match table.alt_map() {
                AltMap::Xor => 0,
                AltMap::Sub => 1,
            })
            .u64(table.num_buckets())
            .u32(self.max_relocations())
            .u64(self.len() as u64)
            .finish();
        let words = table.words().iter().copied();
        Envelope::of_words(TAG, self.hasher(), params, words).encode()
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes), in either
    /// form of the parameters (see the module docs): files written before
    /// bucket counts other than powers of two read as they were.
    ///
    /// # Errors
    ///
    /// Every envelope fault as its [`DecodeError`];
    /// [`DecodeError::InvalidParameters`] for an unsupported shape, a table
    /// whose size does not match it, bits set past the last bucket, a
    /// semi-sorted bucket not in its one sorted encoding, or an item count
    /// that differs from the fingerprints in the table.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let env = Envelope::decode(bytes, TAG)?;
        let mut r = Reader::new(&env.params);
        let b = u32::from(r.u8()?);
        let f = u32::from(r.u8()?);
        let form = r.u8()?;
        let (buckets, layout, alt) = if form == ANY_COUNT {
            let layout = match r.u8()? {
                0 => Layout::Plain,
                1 => Layout::SemiSorted,
                _ => return Err(invalid("unknown bucket layout")),
            };
            let alt = match r.u8()? {
                0 => AltMap::Xor,
                1 => AltMap::Sub,
                _ => return Err(invalid("unknown alternate-bucket map")),
            };
            (r.u64()?, layout, alt)
        } else {
            let buckets = 1u64
                .checked_shl(u32::from(form))
                .filter(|&n| n <= MAX_BUCKETS)
                .ok_or(invalid("too many buckets"))?;
            if f > POWER_OF_TWO_FINGERPRINT_BITS {
                return Err(invalid("unsupported fingerprint width"));
            }
            (buckets, Layout::Plain, AltMap::Xor)
        };
        let max_relocations = r.u32()?;
        let len = r.u64()?;
        r.finish("cuckoo parameters are longer than expected")?;
        if !BUCKET_SIZES.contains(&b) {
            return Err(invalid("unsupported bucket size"));
        }
        if !FINGERPRINT_BITS.contains(&f) {
            return Err(invalid("unsupported fingerprint width"));
        }
        if layout == Layout::SemiSorted && b != 4 {
            return Err(invalid("semi-sorted buckets of other than 4 slots"));
        }
        if buckets == 0 || buckets > MAX_BUCKETS {
            return Err(invalid("bucket count outside 1 to 2^32"));
        }
        if alt == AltMap::Xor && !buckets.is_power_of_two() {
            return Err(invalid("XOR alternate buckets need a power-of-two count"));
        }
        if max_relocations > MAX_RELOCATIONS {
            return Err(invalid("relocation bound above the maximum"));
        }
        let words = Table::words_for(buckets, Table::bucket_bits(b, f, layout))
            .ok_or(invalid("table too large"))?;
        // Checked before anything is allocated: the payload is as long as
        // the parameters say, so the table is no larger than the input.
        let words = env.payload_words(
            Some(words as u64),
            "table size does not match the parameters",
        )?;
        let table = Table::from_words(words, buckets, b, f, layout, alt);
        if !table.tail_is_clear() {
            return Err(invalid("bits set past the last bucket"));
        }
        let mut stored = 0u64;
        for i in 0..buckets as usize {
            if !table.is_canonical(i) {
                return Err(invalid("a semi-sorted bucket is not in sorted form"));
            }
            stored += u64::from(table.occupied(i));
        }
        if stored != len {
            return Err(invalid("item count does not match the table"));
        }
        Ok(CuckooFilter::from_parts(
            table,
            usize::try_from(len).map_err(|_| invalid("item count too large"))?,
            max_relocations,
            env.hasher(),
        ))
    }
}
