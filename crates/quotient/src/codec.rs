//! Persistence through the core envelope, under [`TAG`].
//!
//! Parameters, little-endian: quotient bits `q` (u8, 1 to 40), slot bits
//! `w` (u8, 1 to 64), remainder encoding (u8: 0 fixed, each remainder
//! fills its slot; 1 variable, each remainder followed by a set bit and
//! zeros), remainder bits of a new entry (u8), grows (u8: 0 or 1),
//! expansions made (u8), the rate promised at every size (f64; 0 for a
//! filter that does not grow), the largest table it may grow to in bytes
//! (u64; 0 for one that does not grow), items (u64): 30 bytes.
//!
//! Payload: the blocks of the table, `2 + w` little-endian words each
//! (`occupieds`, `runends`, the 64 slots packed), then one offset byte per
//! block. A table of `2^q` canonical slots has `⌈2^q/64⌉ +
//! ⌈10·√(2^q)/64⌉` blocks.

use bloomlab_core::alloc;
use bloomlab_core::codec::{Envelope, Reader, Writer, invalid, le_words};
use bloomlab_core::theory::quotient as theory;
use bloomlab_core::{DecodeError, DefaultHasher, Tag};

use crate::filter::{Growth, QuotientFilter, max_used};
use crate::table::{Table, blocks_for};
use crate::{MAX_LOAD, MAX_QUOTIENT_BITS};

/// The envelope tag of a [`QuotientFilter`].
pub const TAG: Tag = Tag::new(9, "QuotientFilter");

impl<T: ?Sized> QuotientFilter<T, DefaultHasher> {
    /// The filter as bytes: parameters, hash key and table, checksummed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let growth = self.growth.unwrap_or(Growth {
            promise: 0.0,
            generation: 0,
            max_bytes: 0,
        });
        let params = Writer::new()
            .u8(self.table.q() as u8)
            .u8(self.table.width() as u8)
            .u8(u8::from(self.variable))
            .u8(self.insert_bits as u8)
            .u8(u8::from(self.growth.is_some()))
            .u8(growth.generation as u8)
            .f64(growth.promise)
            .u64(growth.max_bytes)
            .u64(self.len as u64)
            .finish();
        let mut payload = Writer::new();
        payload.words(self.table.words());
        payload.bytes(self.table.offset_bytes());
        Envelope::new(TAG, &self.hasher, params, payload.finish()).encode()
    }

    /// Reads a filter written by [`to_bytes`](Self::to_bytes).
    ///
    /// Besides the envelope's checksum, everything a lookup relies on is
    /// checked: the table's size, its runs against `occupieds` and
    /// `runends`, every offset, the order of each run, free slots left
    /// zero, and the items against the entries. A file that passes answers
    /// as the filter that wrote it; one that does not is an error, never a
    /// panic or a hang.
    ///
    /// # Errors
    ///
    /// Every envelope fault as its [`DecodeError`];
    /// [`DecodeError::InvalidParameters`] for an unsupported shape or
    /// growth schedule, a payload whose size does not match it, or a table
    /// whose metadata does not match its slots;
    /// [`DecodeError::OutOfMemory`] if the allocator refuses the table.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DecodeError> {
        let env = Envelope::decode(bytes, TAG)?;
        let mut r = Reader::new(&env.params);
        let q = u32::from(r.u8()?);
        let width = u32::from(r.u8()?);
        let variable = r.u8()?;
        let insert_bits = u32::from(r.u8()?);
        let grows = r.u8()?;
        let generation = u32::from(r.u8()?);
        let promise = r.f64()?;
        let max_bytes = r.u64()?;
        let len = r.u64()?;
        r.finish("quotient filter parameters are longer than expected")?;
        if !(1..=MAX_QUOTIENT_BITS).contains(&q) || !(1..=64).contains(&width) {
            return Err(invalid("unsupported quotient or slot bits"));
        }
        let variable = match variable {
            0 => false,
            1 => true,
            _ => return Err(invalid("unknown remainder encoding")),
        };
        let fits = if variable {
            width >= 2 && (1..width).contains(&insert_bits) && q + width - 1 <= 64
        } else {
            insert_bits == width && q + width <= 64
        };
        if !fits {
            return Err(invalid("remainder bits do not fit the slots"));
        }
        let growth = match grows {
            0 if generation == 0 && promise.to_bits() == 0 && max_bytes == 0 && !variable => None,
            1 if promise > 0.0 && promise < 1.0 && variable == (generation > 0) => {
                let bits = theory::growth_fingerprint_bits(promise, MAX_LOAD, generation)
                    .map_err(|_| invalid("unsupported growth schedule"))?;
                if generation > 0 && bits != insert_bits {
                    return Err(invalid("remainder bits do not match the growth schedule"));
                }
                Some(Growth {
                    promise,
                    generation,
                    max_bytes,
                })
            }
            _ => return Err(invalid("unsupported growth schedule")),
        };
        let blocks = blocks_for(q).ok_or(invalid("table too large"))?;
        let words = blocks
            .checked_mul(2 + width as usize)
            .ok_or(invalid("table too large"))?;
        // Checked before anything is allocated: the table is no larger
        // than the input.
        let word_bytes = words.checked_mul(8).ok_or(invalid("table too large"))?;
        if word_bytes.checked_add(blocks) != Some(env.payload.len()) {
            return Err(invalid("table size does not match the parameters"));
        }
        let (word_part, offset_part) = env.payload.split_at(word_bytes);
        let table_words = le_words(word_part)?;
        let offsets = alloc::buffer_from::<u8>(offset_part)?;
        let mut table = Table::from_parts(q, width, table_words, offsets)
            .ok_or(invalid("table size does not match the parameters"))?;
        table.check(|v| !variable || v != 0).map_err(invalid)?;
        let used = table.used();
        if used > max_used(q) {
            return Err(invalid("more entries than the table's maximum load"));
        }
        if len > used || (!variable && len != used) {
            return Err(invalid("the items do not match the entries"));
        }
        Ok(QuotientFilter::from_parts(
            table,
            variable,
            insert_bits,
            len as usize,
            growth,
            env.hasher(),
        ))
    }
}
