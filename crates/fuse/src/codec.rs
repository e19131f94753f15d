//! Persistence through the core envelope, under [`TAG`].
//!
//! Parameters, little-endian: fingerprint bits (u8: 8, 16 or 32), arity
//! (u8: 3 or 4), log2 of the segment length (u8, at most 18), segment count
//! (u32), the seed of the attempt that built the array (u64), distinct keys
//! (u64): 23 bytes.
//!
//! Payload: the fingerprints, each little-endian in its width,
//! `(segment count + arity − 1) · segment length` of them.

use std::marker::PhantomData;

use bloomlab_core::codec::{Envelope, Reader, Writer, invalid};
use bloomlab_core::{DecodeError, DefaultHasher, Tag};

use crate::Width;
use crate::filter::BinaryFuseFilter;
use crate::layout::{Layout, MAX_KEYS};
use crate::table::{Fingerprint, Table, Visit};

/// The envelope tag of a [`BinaryFuseFilter`].
pub const TAG: Tag = Tag::new(8, "BinaryFuseFilter");

/// Writes the fingerprints little-endian.
struct Encode;

impl Visit for Encode {
    type Out = Vec<u8>;

    fn visit<F: Width, const A: usize>(self, _: &Layout, slots: &[F]) -> Vec<u8> {
        let mut out = Vec::with_capacity(slots.len() * (F::BITS / 8) as usize);
        for &fingerprint in slots {
            fingerprint.write_le(&mut out);
        }
        out
    }
}

impl<T: ?Sized> BinaryFuseFilter<T, DefaultHasher> {
    /// The filter as bytes: parameters, hash key and array, checksummed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let params = Writer::new()
            .u8(self.fingerprint_bits() as u8)
            .u8(self.layout.arity as u8)
            .u8(self.layout.segment_length_log2 as u8)
            .u32(self.layout.segment_count)
            .u64(self.seed)
            .u64(self.len as u64)
            .finish();
        let payload = self.table.visit(&self.layout, Encode);
        Envelope::new(TAG, &self.hasher, params, payload).encode()
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// # Errors
    ///
    /// Every envelope fault as its [`DecodeError`];
    /// [`DecodeError::InvalidParameters`] for an unsupported width, arity
    /// or segment length, an array of more than 2^32 slots, more keys than
    /// slots, or a payload whose length does not match the parameters;
    /// [`DecodeError::OutOfMemory`] if the allocator refuses the array.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let env = Envelope::decode(bytes, TAG)?;
        let mut r = Reader::new(&env.params);
        let bits = u32::from(r.u8()?);
        let arity = u32::from(r.u8()?);
        let log2 = u32::from(r.u8()?);
        let segment_count = r.u32()?;
        let seed = r.u64()?;
        let len = r.u64()?;
        r.finish("binary fuse parameters are longer than expected")?;
        let layout = Layout::checked(arity, log2, segment_count).ok_or(invalid(
            "unsupported arity, segment length or segment count",
        ))?;
        if len > layout.slots().min(MAX_KEYS) {
            return Err(invalid("more keys than the array holds"));
        }
        let slots = layout.slots() as usize;
        if !matches!(bits, 8 | 16 | 32) {
            return Err(invalid("unsupported fingerprint width"));
        }
        let width = bits as usize / 8;
        // Checked before anything is allocated: the array is no larger
        // than the input.
        if slots.checked_mul(width) != Some(env.payload.len()) {
            return Err(invalid("array size does not match the parameters"));
        }
        let table = Table::zeroed(bits, slots)?.ok_or(invalid("unsupported fingerprint width"))?;
        Ok(BinaryFuseFilter {
            table: fill(table, &env.payload),
            layout,
            seed,
            len: len as usize,
            hasher: env.hasher(),
            item: PhantomData,
        })
    }
}

/// `table` with its fingerprints read from `payload`, little-endian, of
/// exactly its size.
fn fill(mut table: Table, payload: &[u8]) -> Table {
    fn read<F: Fingerprint>(slots: &mut [F], payload: &[u8]) {
        let width = (F::BITS / 8) as usize;
        for (slot, raw) in slots.iter_mut().zip(payload.chunks_exact(width)) {
            let value = raw
                .iter()
                .rev()
                .fold(0u64, |acc, &b| acc << 8 | u64::from(b));
            *slot = F::truncate(value);
        }
    }
    match &mut table {
        Table::W8(t) => read(t, payload),
        Table::W16(t) => read(t, payload),
        Table::W32(t) => read(t, payload),
    }
    table
}
