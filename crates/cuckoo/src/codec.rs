//! Persistence through the core envelope ([`Variant::Cuckoo`]).
//!
//! Parameters, little-endian: bucket size (u8), fingerprint bits (u8), log2
//! of the bucket count (u8), relocation bound (u32), stored fingerprints
//! (u64). Payload: the packed table, `⌈buckets · b · f / 64⌉` words.

use bloomlab_core::codec::{Envelope, Reader, Variant, Writer};
use bloomlab_core::{DecodeError, DefaultHasher, Persist};

use crate::builder::{MAX_BUCKETS, MAX_RELOCATIONS};
use crate::filter::CuckooFilter;
use crate::table::{BUCKET_SIZES, FINGERPRINT_BITS, Table};

impl<T: ?Sized> CuckooFilter<T, DefaultHasher> {
    /// The filter as bytes: parameters, hash key and table, checksummed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let table = self.table();
        let params = Writer::new()
            .u8(table.bucket_size() as u8)
            .u8(table.fingerprint_bits() as u8)
            .u8(table.log2_buckets() as u8)
            .u32(self.max_relocations())
            .u64(self.len() as u64)
            .finish();
        let payload = Writer::new().words(table.words()).finish();
        Envelope {
            variant: Variant::Cuckoo,
            key: self.hasher().key(),
            params,
            payload,
        }
        .encode()
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// Every envelope fault as its [`DecodeError`];
    /// [`DecodeError::InvalidParameters`] for an unsupported shape, a table
    /// whose size does not match it, bits set past the last bucket, or an
    /// item count that differs from the fingerprints in the table.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let env = Envelope::decode(bytes, Variant::Cuckoo)?;
        let invalid = |what| DecodeError::InvalidParameters { what };
        let mut r = Reader::new(&env.params);
        let b = u32::from(r.u8()?);
        let f = u32::from(r.u8()?);
        let log2 = u32::from(r.u8()?);
        let max_relocations = r.u32()?;
        let len = r.u64()?;
        r.finish("cuckoo parameters are longer than expected")?;
        if !BUCKET_SIZES.contains(&b) {
            return Err(invalid("unsupported bucket size"));
        }
        if !FINGERPRINT_BITS.contains(&f) {
            return Err(invalid("unsupported fingerprint width"));
        }
        if 1u64.checked_shl(log2).is_none_or(|n| n > MAX_BUCKETS) {
            return Err(invalid("too many buckets"));
        }
        if max_relocations > MAX_RELOCATIONS {
            return Err(invalid("relocation bound above the maximum"));
        }
        let words = Table::words_for(log2, b, f).ok_or(invalid("table too large"))?;
        if words.checked_mul(8) != Some(env.payload.len()) {
            return Err(invalid("table size does not match the parameters"));
        }
        let mut p = Reader::new(&env.payload);
        let table = Table::from_words(p.words(words)?, log2, b, f);
        if !table.tail_is_clear() {
            return Err(invalid("bits set past the last bucket"));
        }
        let stored: u64 = (0..table.num_buckets() as usize)
            .map(|i| u64::from(table.occupied(table.bucket(i))))
            .sum();
        if stored != len {
            return Err(invalid("item count does not match the table"));
        }
        Ok(CuckooFilter::from_parts(
            table,
            usize::try_from(len).map_err(|_| invalid("item count too large"))?,
            max_relocations,
            DefaultHasher::from_key(env.key),
        ))
    }
}

impl<T: ?Sized> Persist for CuckooFilter<T, DefaultHasher> {
    fn to_bytes(&self) -> Vec<u8> {
        CuckooFilter::to_bytes(self)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        CuckooFilter::from_bytes(bytes)
    }
}
