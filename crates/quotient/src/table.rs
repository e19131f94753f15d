//! The rank-and-select table (Pandey et al. 2017, §3): `2^q` canonical
//! slots of `w`-bit values, in blocks of 64 slots, each block with its
//! `occupieds` and `runends` words and a one-byte offset.
//!
//! An entry of quotient `x` lives in the *run* of `x`: a maximal stretch of
//! slots, at or after slot `x`, holding the values of quotient `x` in
//! ascending order and ending at a set `runends` bit. Runs are stored in
//! the order of their quotients, each as far left as the runs before it
//! allow; bit `x` of `occupieds` says that quotient `x` has a run. Slots
//! past the `2^q` canonical ones absorb the runs that spill over the end.
//!
//! Block `b` (slots `64b ..`) stores in its offset how many slots at or
//! after `64b` hold runs of quotients below `64b`, capped at 255: a capped
//! offset is recomputed from the nearest block before it whose offset is
//! exact (block 0's always is), so a long cluster costs time, never a
//! wrong answer. With the offset, the end of the run of quotient `x` is one
//! rank (of `occupieds`, within the block) and one select (of `runends`,
//! from the block's first slot of its own runs).
//!
//! Layout, per block, in 64-bit words: `occupieds`, `runends`, then the 64
//! values packed little-end first (`w` words); the offsets in an array of
//! their own, one byte a block (small enough to stay in cache).

use bloomlab_core::OutOfMemory;
use bloomlab_core::alloc::{self, Buffer};

use bloomlab_core::bits::BitOps;

use crate::bits::low_mask;

/// Slots per block.
pub(crate) const BLOCK: usize = 64;

/// An offset of this value means "at least this": recompute it.
const SATURATED: u8 = u8::MAX;

/// An insert or remove that moves at most this many slots moves them one
/// at a time, the rest a block at a time ([`Table::shift_up`],
/// [`Table::shift_down`]): below half load most move a slot or two, where
/// the block-wise move costs more. Under callgrind, filling 1M items: 455M
/// instructions one slot at a time, 532M block-wise, 454M with this
/// threshold (1, 4, 8 and 16 did no better); filling a table to its
/// maximum load, 1,431M one at a time and 725M with it.
const SHORT_SHIFT: usize = 2;

/// No free slot was left past the entry's run: nothing was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Overflow;

/// Blocks past the canonical ones, for `2^q` canonical slots: about
/// `10·√(2^q)` slots (as the paper's reference code), at least one block.
pub(crate) fn extra_blocks(q: u32) -> usize {
    let slots = 10.0 * (2f64).powf(f64::from(q) / 2.0);
    ((slots / BLOCK as f64).ceil() as usize).max(1)
}

/// Blocks of a table of `2^q` canonical slots, and `None` if they overflow.
pub(crate) fn blocks_for(q: u32) -> Option<usize> {
    let canonical = 1usize.checked_shl(q)?;
    canonical.div_ceil(BLOCK).checked_add(extra_blocks(q))
}

/// Cache lines of a block of 64 slots of `width` bits: its two metadata
/// words and its slots, more than one line once `width` passes 6.
pub(crate) fn block_lines(width: u32) -> usize {
    if 8 * (2 + width) > 64 { 2 } else { 1 }
}

/// Bytes of a table of `2^q` canonical slots of `width` bits: the blocks'
/// words and their offsets, computed in `u128`.
pub(crate) fn table_bytes(q: u32, width: u32) -> u128 {
    let canonical = 1u128 << q;
    let blocks = canonical.div_ceil(BLOCK as u128) + extra_blocks(q) as u128;
    blocks * (8 * (2 + u128::from(width)) + 1)
}

/// Gives the bits `from .. to` of the little-endian bit array `words` the
/// values of the bits `k` below them; the other bits keep theirs
/// (`k <= from`). Moves a word's worth at a time, from the top, so that
/// every source is read before it is overwritten.
fn move_bits_up(words: &mut [u64], from: usize, to: usize, k: usize) {
    let mut end = to;
    while end > from {
        let start = from.max((end - 1) / 64 * 64);
        copy_bits(words, start, end, start - k);
        end = start;
    }
}

/// Gives the bits `from .. to` of `words` the values of the bits `k` above
/// them (`to + k` at most the array's bits); the other bits keep theirs. A
/// word's worth at a time, from the bottom.
fn move_bits_down(words: &mut [u64], from: usize, to: usize, k: usize) {
    let mut start = from;
    while start < to {
        let end = to.min(start / 64 * 64 + 64);
        copy_bits(words, start, end, start + k);
        start = end;
    }
}

/// Copies the bits `src ..` to the bits `start .. end`, which lie in one
/// word.
#[inline(always)]
fn copy_bits(words: &mut [u64], start: usize, end: usize, src: usize) {
    let n = (end - start) as u32;
    let (i, shift) = (src / 64, (src % 64) as u32);
    let mut v = words[i] >> shift;
    if shift + n > 64 {
        v |= words[i + 1] << (64 - shift);
    }
    let (j, at) = (start / 64, (start % 64) as u32);
    let mask = low_mask(n) << at;
    words[j] = words[j] & !mask | v << at & mask;
}

/// The table.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Table {
    /// How rank and select run on this processor (not stored).
    ops: BitOps,
    q: u32,
    width: u32,
    blocks: usize,
    words: Buffer<u64>,
    offsets: Buffer<u8>,
    used: u64,
}

impl Table {
    /// An empty table of `2^q` canonical slots of `width` bits (1 to 64).
    pub(crate) fn new(q: u32, width: u32) -> Result<Self, OutOfMemory> {
        debug_assert!((1..=64).contains(&width));
        let refused = OutOfMemory {
            bytes: table_bytes(q, width),
        };
        let blocks = blocks_for(q).ok_or(refused)?;
        let words = blocks
            .checked_mul(2 + width as usize)
            .ok_or(refused)
            .and_then(|n| alloc::buffer::<u64>(n).map_err(|_| refused))?;
        let offsets = alloc::buffer::<u8>(blocks).map_err(|_| refused)?;
        // The buffers have the sizes `from_parts` checks.
        Self::from_parts(q, width, words, offsets).ok_or(refused)
    }

    /// A table of `2^q` slots of `width` bits from its stored words and
    /// offsets, if they have the sizes it needs (the caller validates the
    /// rest with [`check`](Self::check)).
    pub(crate) fn from_parts(
        q: u32,
        width: u32,
        words: Buffer<u64>,
        offsets: Buffer<u8>,
    ) -> Option<Self> {
        let blocks = blocks_for(q)?;
        let sizes_fit = words.len() == blocks.checked_mul(2 + width as usize)?
            && offsets.len() == blocks
            && (1..=64).contains(&width);
        sizes_fit.then_some(Self {
            ops: BitOps::detect(),
            q,
            width,
            blocks,
            words,
            offsets,
            used: 0,
        })
    }

    pub(crate) fn q(&self) -> u32 {
        self.q
    }

    pub(crate) fn width(&self) -> u32 {
        self.width
    }

    /// Canonical slots, `2^q`.
    pub(crate) fn canonical(&self) -> u64 {
        1 << self.q
    }

    /// Slots in use.
    pub(crate) fn used(&self) -> u64 {
        self.used
    }

    /// Every slot, the canonical ones and those past them.
    pub(crate) fn physical(&self) -> usize {
        self.blocks * BLOCK
    }

    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    pub(crate) fn offset_bytes(&self) -> &[u8] {
        &self.offsets
    }

    /// Bytes of the words and the offsets.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.len() * 8 + self.offsets.len()
    }

    /// Forgets every entry.
    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
        self.offsets.fill(0);
        self.used = 0;
    }

    #[inline(always)]
    fn block_base(&self, b: usize) -> usize {
        b * (2 + self.width as usize)
    }

    #[inline(always)]
    fn occupieds(&self, b: usize) -> u64 {
        self.words[self.block_base(b)]
    }

    #[inline(always)]
    fn runends(&self, b: usize) -> u64 {
        self.words[self.block_base(b) + 1]
    }

    /// Whether quotient `x` has a run.
    #[inline(always)]
    pub(crate) fn is_occupied(&self, x: usize) -> bool {
        self.occupieds(x / BLOCK) >> (x % BLOCK) & 1 == 1
    }

    fn set_occupied(&mut self, x: usize, on: bool) {
        self.set_meta(0, x, on);
    }

    /// Sets or clears the bit of slot `i` in metadata word `word` of its
    /// block (0 `occupieds`, 1 `runends`).
    fn set_meta(&mut self, word: usize, i: usize, on: bool) {
        let w = self.block_base(i / BLOCK) + word;
        let bit = 1 << (i % BLOCK);
        if on {
            self.words[w] |= bit;
        } else {
            self.words[w] &= !bit;
        }
    }

    #[inline(always)]
    pub(crate) fn is_runend(&self, i: usize) -> bool {
        self.runends(i / BLOCK) >> (i % BLOCK) & 1 == 1
    }

    fn set_runend(&mut self, i: usize, on: bool) {
        self.set_meta(1, i, on);
    }

    /// The value in slot `i`.
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> u64 {
        let w = self.width;
        let bit = (i % BLOCK) as u32 * w;
        let word = self.block_base(i / BLOCK) + 2 + (bit / 64) as usize;
        let shift = bit % 64;
        let mut v = self.words[word] >> shift;
        if shift + w > 64 {
            v |= self.words[word + 1] << (64 - shift);
        }
        v & low_mask(w)
    }

    fn set(&mut self, i: usize, v: u64) {
        let w = self.width;
        let bit = (i % BLOCK) as u32 * w;
        let word = self.block_base(i / BLOCK) + 2 + (bit / 64) as usize;
        let shift = bit % 64;
        let mask = low_mask(w);
        self.words[word] = self.words[word] & !(mask << shift) | (v & mask) << shift;
        if shift + w > 64 {
            let spill = 64 - shift;
            let high = mask >> spill;
            self.words[word + 1] = self.words[word + 1] & !high | (v & mask) >> spill;
        }
    }

    /// How rank and select run on this processor.
    #[inline(always)]
    pub(crate) fn ops(&self) -> BitOps {
        self.ops
    }

    /// The exact offset of block `b` (see the module's docs).
    #[inline(always)]
    fn offset(&self, b: usize) -> usize {
        let stored = self.offsets[b];
        if stored != SATURATED {
            return stored.into();
        }
        self.saturated_offset(b)
    }

    #[cold]
    fn saturated_offset(&self, b: usize) -> usize {
        let mut a = b;
        while a > 0 && self.offsets[a] == SATURATED {
            a -= 1;
        }
        let mut off = usize::from(self.offsets[a]);
        for c in a..b {
            off = self.spill_after(c, off);
        }
        off
    }

    /// The offset of block `c + 1`, given the exact offset `off` of block
    /// `c`: how far the runs of quotients up to `64c + 63` reach past it.
    #[inline(always)]
    fn spill_after(&self, c: usize, off: usize) -> usize {
        let start = c * BLOCK;
        let runs = self.occupieds(c).count_ones();
        let end = if runs == 0 {
            start + off
        } else {
            self.select_runend_from(start + off, runs - 1)
                .map_or(self.physical(), |p| p + 1)
        };
        end.saturating_sub(start + BLOCK)
    }

    /// The position of the `k`-th (from 0) set `runends` bit at or after
    /// slot `from`.
    #[inline(always)]
    fn select_runend_from(&self, from: usize, k: u32) -> Option<usize> {
        let b = from / BLOCK;
        let word = self.runends(b) & !low_mask((from % BLOCK) as u32);
        match self.ops.select(word, k) {
            Some(bit) => Some(b * BLOCK + bit as usize),
            None => self.select_runend_after(b, k - word.count_ones()),
        }
    }

    /// The position of the `k`-th (from 0) set `runends` bit in the blocks
    /// after block `b`: a run that reaches past its block (rare below the
    /// maximum load).
    #[inline(never)]
    fn select_runend_after(&self, mut b: usize, mut k: u32) -> Option<usize> {
        loop {
            b += 1;
            if b >= self.blocks {
                return None;
            }
            let word = self.runends(b);
            let ones = word.count_ones();
            if k < ones {
                return self.ops.select(word, k).map(|bit| b * BLOCK + bit as usize);
            }
            k -= ones;
        }
    }

    /// One past the end of the run of the last occupied quotient at or
    /// before `y` that reaches into `y`'s block or past it; the first slot
    /// of `y`'s block past the runs of earlier blocks when no quotient of
    /// `y`'s block up to `y` is occupied (the paper's `rank_select`, one past).
    #[inline(always)]
    fn runs_end_upto(&self, y: usize) -> usize {
        let b = y / BLOCK;
        let start = b * BLOCK;
        let off = self.offset(b);
        let runs = (self.occupieds(b) & low_mask((y % BLOCK) as u32 + 1)).count_ones();
        if runs == 0 {
            return start + off;
        }
        self.select_runend_from(start + off, runs - 1)
            .map_or(self.physical(), |p| p + 1)
    }

    /// The highest set `runends` bit in `lo .. hi`.
    #[inline(always)]
    fn last_runend_in(&self, lo: usize, hi: usize) -> Option<usize> {
        if lo >= hi {
            return None;
        }
        let mut b = (hi - 1) / BLOCK;
        let mut word = self.runends(b) & low_mask(((hi - 1) % BLOCK) as u32 + 1);
        loop {
            if b == lo / BLOCK {
                word &= !low_mask((lo % BLOCK) as u32);
            }
            if word != 0 {
                return Some(b * BLOCK + 63 - word.leading_zeros() as usize);
            }
            if b == lo / BLOCK {
                return None;
            }
            b -= 1;
            word = self.runends(b);
        }
    }

    /// One past the last slot of quotient `x`'s run, if it has one: its
    /// slots are those before it back to slot `x` or to the slot after the
    /// previous run's end, whichever comes later.
    #[inline(always)]
    pub(crate) fn run_end(&self, x: usize) -> Option<usize> {
        self.is_occupied(x).then(|| self.runs_end_upto(x))
    }

    /// The slots `start .. end` of quotient `x`'s run, if it has one.
    #[inline(always)]
    pub(crate) fn run(&self, x: usize) -> Option<(usize, usize)> {
        if !self.is_occupied(x) {
            return None;
        }
        let end = self.runs_end_upto(x);
        let start = self.last_runend_in(x, end - 1).map_or(x, |p| p + 1);
        Some((start, end))
    }

    /// The first slot quotient `x`'s run starts at, or would.
    #[inline(always)]
    fn run_start(&self, x: usize) -> usize {
        if x == 0 {
            0
        } else {
            self.runs_end_upto(x - 1).max(x)
        }
    }

    /// The first slot at or after `i` that no run holds; `physical()` if none.
    #[inline(always)]
    fn first_unused(&self, mut i: usize) -> usize {
        while i < self.physical() {
            let end = self.runs_end_upto(i);
            if end <= i {
                return i;
            }
            i = end;
        }
        self.physical()
    }

    /// The first occupied quotient in `from ..= to`.
    fn next_occupied(&self, from: usize, to: usize) -> Option<usize> {
        let to = to.min(self.canonical() as usize - 1);
        if from > to {
            return None;
        }
        let mut b = from / BLOCK;
        let mut word = self.occupieds(b) & !low_mask((from % BLOCK) as u32);
        loop {
            if word != 0 {
                let x = b * BLOCK + word.trailing_zeros() as usize;
                return (x <= to).then_some(x);
            }
            b += 1;
            if b * BLOCK > to {
                return None;
            }
            word = self.occupieds(b);
        }
    }

    /// Prefetches the block of quotient `x`.
    #[inline]
    pub(crate) fn prefetch(&self, x: usize) {
        bloomlab_core::batch::prefetch(&self.words[self.block_base(x / BLOCK)]);
    }

    /// Adds `value` to the run of quotient `x`, after the values up to it.
    #[inline(always)]
    pub(crate) fn insert(&mut self, x: usize, value: u64) -> Result<(), Overflow> {
        let occupied = self.is_occupied(x);
        let (pos, end) = match self.run(x) {
            Some((start, end)) => {
                let mut pos = start;
                while pos < end && self.get(pos) <= value {
                    pos += 1;
                }
                (pos, end)
            }
            None => {
                let start = self.run_start(x);
                (start, start)
            }
        };
        let free = self.first_unused(pos);
        if free >= self.physical() {
            return Err(Overflow);
        }
        self.shift_up(pos, free);
        self.set(pos, value);
        if !occupied {
            self.set_occupied(x, true);
            self.set_runend(pos, true);
        } else if pos == end {
            self.set_runend(pos - 1, false);
            self.set_runend(pos, true);
        } else {
            self.set_runend(pos, false);
        }
        self.used += 1;
        self.fix_offsets(x, free);
        Ok(())
    }

    /// Moves the values and `runends` bits of slots `pos .. free` one slot
    /// up, to `pos + 1 ..= free` (slot `free` is unused): one slot at a
    /// time for a move of at most [`SHORT_SHIFT`] slots, else a block at a
    /// time.
    fn shift_up(&mut self, pos: usize, free: usize) {
        if free - pos <= SHORT_SHIFT {
            self.shift_up_slots(pos, free);
        } else {
            self.shift_up_blocks(pos, free);
        }
    }

    /// [`shift_up`](Self::shift_up) one slot at a time, from the highest.
    fn shift_up_slots(&mut self, pos: usize, free: usize) {
        for i in (pos + 1..=free).rev() {
            let (v, end_bit) = (self.get(i - 1), self.is_runend(i - 1));
            self.set(i, v);
            self.set_runend(i, end_bit);
        }
    }

    /// [`shift_up`](Self::shift_up) a block at a time from the highest, up
    /// to 64 bits a step: at a high load an insert shifts a long cluster,
    /// which one slot at a time cost tens of instructions a slot.
    fn shift_up_blocks(&mut self, pos: usize, free: usize) {
        let w = self.width as usize;
        for b in ((pos + 1) / BLOCK..=free / BLOCK).rev() {
            let first = b * BLOCK;
            // The slots of this block that receive a value, block-local.
            let lo = (pos + 1).max(first) - first;
            let hi = (free - first).min(BLOCK - 1);
            let base = self.block_base(b);
            // Slot 0 takes the previous block's last slot, not yet moved.
            let carried = (lo == 0).then(|| (self.get(first - 1), self.is_runend(first - 1)));
            let from = lo.max(1);
            if from <= hi {
                let slots = &mut self.words[base + 2..base + 2 + w];
                move_bits_up(slots, from * w, (hi + 1) * w, w);
                let ends = &mut self.words[base + 1..base + 2];
                move_bits_up(ends, from, hi + 1, 1);
            }
            if let Some((v, end_bit)) = carried {
                self.set(first, v);
                self.set_runend(first, end_bit);
            }
        }
    }

    /// Moves the values and `runends` bits of slots `pos + 1 ..= last` one
    /// slot down, to `pos .. last`: one slot at a time for a move of at
    /// most [`SHORT_SHIFT`] slots, else a block at a time.
    fn shift_down(&mut self, pos: usize, last: usize) {
        if last - pos <= SHORT_SHIFT {
            self.shift_down_slots(pos, last);
        } else {
            self.shift_down_blocks(pos, last);
        }
    }

    /// [`shift_down`](Self::shift_down) one slot at a time, from the lowest.
    fn shift_down_slots(&mut self, pos: usize, last: usize) {
        for i in pos..last {
            let (v, end_bit) = (self.get(i + 1), self.is_runend(i + 1));
            self.set(i, v);
            self.set_runend(i, end_bit);
        }
    }

    /// [`shift_down`](Self::shift_down) a block at a time from the lowest,
    /// as [`shift_up_blocks`](Self::shift_up_blocks) moves them up.
    fn shift_down_blocks(&mut self, pos: usize, last: usize) {
        let w = self.width as usize;
        for b in pos / BLOCK..=(last - 1) / BLOCK {
            let first = b * BLOCK;
            // The slots of this block that receive a value, block-local.
            let lo = pos.max(first) - first;
            let hi = (last - 1 - first).min(BLOCK - 1);
            let base = self.block_base(b);
            // Slot 63 takes the next block's first slot, not yet moved.
            let carried =
                (hi == BLOCK - 1).then(|| (self.get(first + BLOCK), self.is_runend(first + BLOCK)));
            let to = if hi == BLOCK - 1 { hi } else { hi + 1 };
            if lo < to {
                let slots = &mut self.words[base + 2..base + 2 + w];
                move_bits_down(slots, lo * w, to * w, w);
                let ends = &mut self.words[base + 1..base + 2];
                move_bits_down(ends, lo, to, 1);
            }
            if let Some((v, end_bit)) = carried {
                self.set(first + BLOCK - 1, v);
                self.set_runend(first + BLOCK - 1, end_bit);
            }
        }
    }

    /// Removes the value in slot `pos` of quotient `x`'s run `start .. end`.
    pub(crate) fn remove(&mut self, x: usize, (start, end): (usize, usize), pos: usize) {
        // The runs after `x`'s move back one slot, up to the first that
        // starts at its own quotient or a free slot.
        let mut cur = end;
        let mut last = x;
        let stop = loop {
            if cur >= self.physical() {
                break self.physical();
            }
            match self.next_occupied(last + 1, cur) {
                Some(y) if y < cur => {
                    cur = self
                        .select_runend_from(cur, 0)
                        .map_or(self.physical(), |p| p + 1);
                    last = y;
                }
                _ => break cur,
            }
        };
        self.shift_down(pos, stop - 1);
        self.set(stop - 1, 0);
        self.set_runend(stop - 1, false);
        if end - start == 1 {
            self.set_occupied(x, false);
        } else if pos == end - 1 {
            self.set_runend(pos - 1, true);
        }
        self.used -= 1;
        self.fix_offsets(x, stop);
    }

    /// Recomputes the offsets of the blocks that start in `x + 1 ..= last`:
    /// those a change of the runs from quotient `x` to slot `last` moves.
    #[inline(always)]
    fn fix_offsets(&mut self, x: usize, last: usize) {
        let first = x / BLOCK + 1;
        let last = (last / BLOCK).min(self.blocks - 1);
        if first > last {
            return;
        }
        let mut off = self.offset(first - 1);
        for b in first..=last {
            off = self.spill_after(b - 1, off);
            self.offsets[b] = off.min(usize::from(SATURATED)) as u8;
        }
    }

    /// Every entry, as (quotient, value), in the order of the table.
    pub(crate) fn entries(&self) -> Entries<'_> {
        Entries {
            table: self,
            next_quotient: 0,
            slot: 0,
            end: 0,
            quotient: 0,
        }
    }

    /// Checks what the lookups rely on, for a table read from bytes: the
    /// runs are where their quotients and `runends` say, no `runends` bit
    /// lies outside a run, no quotient past the canonical ones is
    /// occupied, each run is in ascending order, unused slots are zero,
    /// and every offset is exact (or saturated where the exact one is 255
    /// or more). Sets the count of used slots.
    pub(crate) fn check(&mut self, valid: impl Fn(u64) -> bool) -> Result<(), &'static str> {
        let canonical = self.canonical() as usize;
        for b in 0..self.blocks {
            let first = b * BLOCK;
            if first + BLOCK > canonical {
                let past = if first >= canonical {
                    u64::MAX
                } else {
                    !low_mask((canonical - first) as u32)
                };
                if self.occupieds(b) & past != 0 {
                    return Err("a quotient past the canonical slots is occupied");
                }
            }
        }
        let mut cursor = 0usize;
        let mut used = 0u64;
        let mut x = 0;
        while let Some(q) = self.next_occupied(x, canonical - 1) {
            let start = q.max(cursor);
            if start >= self.physical() {
                return Err("a run starts past the table");
            }
            for i in cursor..start {
                if self.get(i) != 0 || self.is_runend(i) {
                    return Err("a free slot holds a value or a run end");
                }
            }
            let end = self
                .select_runend_from(start, 0)
                .ok_or("a run has no end")?;
            let mut previous = 0;
            for i in start..=end {
                let v = self.get(i);
                if !valid(v) {
                    return Err("a slot holds no valid entry");
                }
                if i > start && v < previous {
                    return Err("a run is not in ascending order");
                }
                previous = v;
            }
            used += (end + 1 - start) as u64;
            cursor = end + 1;
            x = q + 1;
            if x >= canonical {
                break;
            }
        }
        for i in cursor..self.physical() {
            if self.get(i) != 0 || self.is_runend(i) {
                return Err("a free slot holds a value or a run end");
            }
        }
        if self.offsets[0] != 0 {
            return Err("the first block has an offset");
        }
        let mut off = 0;
        for b in 1..self.blocks {
            off = self.spill_after(b - 1, off);
            if self.offsets[b] != off.min(usize::from(SATURATED)) as u8 {
                return Err("a block's offset does not match its runs");
            }
        }
        self.used = used;
        Ok(())
    }

    /// Prefetches nothing; for symmetry with the writer: a table filled by
    /// [`Writer`] in the order of its entries.
    pub(crate) fn writer(self) -> Writer {
        Writer {
            table: self,
            cursor: 0,
            quotient: None,
        }
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("q", &self.q)
            .field("width", &self.width)
            .field("used", &self.used)
            .finish_non_exhaustive()
    }
}

/// The entries of a table in order: [`Table::entries`].
pub(crate) struct Entries<'a> {
    table: &'a Table,
    /// The first quotient not yet visited.
    next_quotient: usize,
    /// The next slot of the current run, and one past its end.
    slot: usize,
    end: usize,
    quotient: usize,
}

impl Iterator for Entries<'_> {
    type Item = (u64, u64);

    fn next(&mut self) -> Option<(u64, u64)> {
        let t = self.table;
        if self.slot == self.end {
            let canonical = t.canonical() as usize;
            let x = t.next_occupied(self.next_quotient, canonical - 1)?;
            let start = x.max(self.end);
            self.end = t.select_runend_from(start, 0)? + 1;
            self.slot = start;
            self.quotient = x;
            self.next_quotient = x + 1;
        }
        let v = t.get(self.slot);
        self.slot += 1;
        Some((self.quotient as u64, v))
    }
}

/// Fills an empty table from entries given in the order of the table
/// (quotients ascending, values ascending within one), in one pass.
pub(crate) struct Writer {
    table: Table,
    cursor: usize,
    quotient: Option<usize>,
}

impl Writer {
    /// Appends `value` to quotient `x`'s run.
    pub(crate) fn push(&mut self, x: usize, value: u64) -> Result<(), Overflow> {
        let t = &mut self.table;
        debug_assert!(x < t.canonical() as usize);
        debug_assert!(self.quotient.is_none_or(|q| q <= x));
        if self.quotient != Some(x) {
            self.cursor = self.cursor.max(x);
            self.quotient = Some(x);
            t.set_occupied(x, true);
        } else {
            t.set_runend(self.cursor - 1, false);
        }
        if self.cursor >= t.physical() {
            return Err(Overflow);
        }
        t.set(self.cursor, value);
        t.set_runend(self.cursor, true);
        self.cursor += 1;
        t.used += 1;
        Ok(())
    }

    /// The table, with its offsets.
    pub(crate) fn finish(mut self) -> Table {
        let t = &mut self.table;
        let mut off = 0;
        for b in 1..t.blocks {
            off = t.spill_after(b - 1, off);
            t.offsets[b] = off.min(usize::from(SATURATED)) as u8;
        }
        self.table
    }
}

#[cfg(test)]
mod tests;
