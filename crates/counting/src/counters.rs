//! Small saturating counters packed into 64-bit words.

use bloomlab_core::alloc::{self, Buffer, packed_words};

/// `len` counters of 4, 8 or 16 bits, counter `i` in `words[i / per_word]` at
/// bit `(i % per_word) · width`.
///
/// A counter that reaches its maximum `2^width − 1` is *saturated*: its true
/// value is unknown from then on, so it is never incremented or decremented
/// again (only [`clear`](Counters::clear) resets it). Every other counter holds
/// exactly the increments minus the decrements it received.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Counters {
    words: Buffer<u64>,
    len: u64,
    /// log2 of the width: 2, 3 or 4.
    log2_width: u32,
    /// log2 of the counters per word: 6 − `log2_width`.
    log2_per_word: u32,
    /// `2^width − 1`: both the mask of one counter and its saturated value.
    max: u64,
    /// How many counters are saturated.
    saturated: u64,
}

/// The widths a counter may have, in bits.
pub(crate) const WIDTHS: [u32; 3] = [4, 8, 16];

/// Words needed for `len` counters of `width` bits, if it fits a `u64`.
pub(crate) fn words_for(len: u64, width: u32) -> Option<u64> {
    u64::try_from(packed_words(len, u64::from(width))).ok()
}

impl Counters {
    /// `len` zeroed counters of `width` bits, lazily paged; an error if the
    /// allocator refuses the words.
    ///
    /// The caller has checked that `width` is one of [`WIDTHS`], that `len > 0`
    /// and that `words` is the number of words they take.
    pub(crate) fn zeroed(
        len: u64,
        width: u32,
        words: usize,
    ) -> Result<Self, bloomlab_core::alloc::OutOfMemory> {
        Ok(Self::from_words(alloc::buffer(words)?, len, width))
    }

    /// Counters over existing words (checked by the caller: right count, no
    /// bits past the last counter, a supported width).
    pub(crate) fn from_words(words: Buffer<u64>, len: u64, width: u32) -> Self {
        let log2_width = width.trailing_zeros();
        let mut counters = Self {
            words,
            len,
            log2_width,
            log2_per_word: 6 - log2_width,
            max: (1u64 << width) - 1,
            saturated: 0,
        };
        counters.saturated = counters.count_saturated();
        counters
    }

    /// The number of counters.
    #[inline]
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Bits per counter.
    #[inline]
    pub(crate) fn width(&self) -> u32 {
        1 << self.log2_width
    }

    /// The saturated value, `2^width − 1`.
    #[inline]
    pub(crate) fn max(&self) -> u64 {
        self.max
    }

    /// How many counters are saturated.
    #[inline]
    pub(crate) fn saturated(&self) -> u64 {
        self.saturated
    }

    /// The packed words.
    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// log2 of the width (2, 3 or 4): the `L` of the hot-path methods below,
    /// which the filter dispatches on once per operation so that every shift
    /// and mask is a constant.
    #[inline]
    pub(crate) fn log2_width(&self) -> u32 {
        self.log2_width
    }

    /// The word index and bit shift of counter `i` for counters of `2^L` bits.
    #[inline(always)]
    fn locate<const L: u32>(i: u64) -> (usize, u32) {
        let word = (i >> (6 - L)) as usize;
        let slot = (i as u32) & ((1 << (6 - L)) - 1);
        (word, slot << L)
    }

    /// The saturated value of a counter of `2^L` bits.
    #[inline(always)]
    const fn max_of<const L: u32>() -> u64 {
        (1u64 << (1 << L)) - 1
    }

    /// The word of `words` that holds counter `i` of `2^L` bits, the
    /// counter's shift in it, and its value.
    #[inline(always)]
    fn slot<const L: u32>(words: &mut [u64], i: u64) -> (&mut u64, u32, u64) {
        let (word, shift) = Self::locate::<L>(i);
        let w = &mut words[word];
        let value = (*w >> shift) & Self::max_of::<L>();
        (w, shift, value)
    }

    /// The word that holds counter `i < len`, for a prefetch.
    #[inline(always)]
    pub(crate) fn word_of(&self, i: u64) -> &u64 {
        &self.words[(i >> self.log2_per_word) as usize]
    }

    /// The value of counter `i`, or `None` past the last: a filter's
    /// public `counter`.
    pub(crate) fn checked_get(&self, i: u64) -> Option<u32> {
        (i < self.len()).then(|| self.get(i) as u32)
    }

    /// Bytes of the packed words: a filter's `memory_bytes`.
    pub(crate) fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// The value of counter `i < len` (any width; for cold paths).
    #[inline]
    pub(crate) fn get(&self, i: u64) -> u64 {
        let word = (i >> self.log2_per_word) as usize;
        let shift = ((i as u32) & ((1 << self.log2_per_word) - 1)) << self.log2_width;
        (self.words[word] >> shift) & self.max
    }

    /// The value of counter `i < len`; `2^L` must be the width.
    #[inline(always)]
    pub(crate) fn get_at<const L: u32>(&self, i: u64) -> u64 {
        let (word, shift) = Self::locate::<L>(i);
        (self.words[word] >> shift) & Self::max_of::<L>()
    }

    /// Adds one to counter `i` unless it is saturated; returns its value
    /// before. `2^L` must be the width.
    #[inline(always)]
    pub(crate) fn increment<const L: u32>(&mut self, i: u64) -> u64 {
        let max = Self::max_of::<L>();
        let (w, shift, old) = Self::slot::<L>(&mut self.words, i);
        if old != max {
            *w += 1 << shift;
            self.saturated += u64::from(old + 1 == max);
        }
        old
    }

    /// Subtracts one from counter `i` unless it is zero or saturated; returns
    /// `false` (and changes nothing) if it is zero. `2^L` must be the width.
    #[inline(always)]
    pub(crate) fn decrement<const L: u32>(&mut self, i: u64) -> bool {
        let (w, shift, old) = Self::slot::<L>(&mut self.words, i);
        if old == 0 {
            return false;
        }
        if old != Self::max_of::<L>() {
            *w -= 1 << shift;
        }
        true
    }

    /// Reverses a [`decrement`](Counters::decrement) that returned `true`.
    #[inline(always)]
    pub(crate) fn undo_decrement<const L: u32>(&mut self, i: u64) {
        let (w, shift, old) = Self::slot::<L>(&mut self.words, i);
        // A decremented counter is below the maximum; a saturated one was left alone.
        if old != Self::max_of::<L>() {
            *w += 1 << shift;
        }
    }

    /// Adds `other`'s counters to these, saturating at the maximum.
    ///
    /// The caller has checked that both have the same length and width.
    pub(crate) fn saturating_add(&mut self, other: &Self) {
        let width = self.width();
        let per_word = 64 / width;
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            if b == 0 {
                continue;
            }
            let mut out = 0u64;
            for slot in 0..per_word {
                let shift = slot * width;
                let sum = ((*a >> shift) & self.max) + ((b >> shift) & self.max);
                out |= sum.min(self.max) << shift;
            }
            *a = out;
        }
        self.saturated = self.count_saturated();
    }

    /// One bit per counter, set where the counter is non-zero: bit i in
    /// `words[i / 64]` at `1 << (i % 64)`, as a classic filter stores its bits.
    pub(crate) fn nonzero_bits(&self) -> Vec<u64> {
        let width = self.width();
        let per_word = 64 / width;
        let mut bits = vec![0u64; self.len.div_ceil(64) as usize];
        for (w, &word) in self.words.iter().enumerate() {
            if word == 0 {
                continue;
            }
            for slot in 0..per_word {
                if (word >> (slot * width)) & self.max != 0 {
                    let i = w as u64 * u64::from(per_word) + u64::from(slot);
                    bits[(i / 64) as usize] |= 1 << (i % 64);
                }
            }
        }
        bits
    }

    /// Sets every counter to zero.
    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
        self.saturated = 0;
    }

    fn count_saturated(&self) -> u64 {
        (0..self.len).filter(|&i| self.get(i) == self.max).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inc(c: &mut Counters, i: u64) -> u64 {
        match c.log2_width() {
            2 => c.increment::<2>(i),
            3 => c.increment::<3>(i),
            _ => c.increment::<4>(i),
        }
    }

    fn dec(c: &mut Counters, i: u64) -> bool {
        match c.log2_width() {
            2 => c.decrement::<2>(i),
            3 => c.decrement::<3>(i),
            _ => c.decrement::<4>(i),
        }
    }

    fn counters(len: u64, width: u32) -> Counters {
        let words = words_for(len, width).unwrap() as usize;
        Counters::zeroed(len, width, words).unwrap()
    }

    #[test]
    fn layout_is_little_endian_within_words() {
        let mut c = counters(20, 4);
        inc(&mut c, 0);
        inc(&mut c, 1);
        inc(&mut c, 1);
        inc(&mut c, 16);
        assert_eq!(c.words(), &[0x21, 0x1]);
        let mut c = counters(9, 8);
        inc(&mut c, 8);
        inc(&mut c, 7);
        assert_eq!(c.words(), &[1 << 56, 1]);
        let mut c = counters(5, 16);
        inc(&mut c, 3);
        assert_eq!(c.words(), &[1 << 48, 0]);
    }

    #[test]
    fn saturation_is_sticky() {
        for width in WIDTHS {
            let mut c = counters(3, width);
            let max = (1u64 << width) - 1;
            for _ in 0..max {
                inc(&mut c, 1);
            }
            assert_eq!(c.get(1), max);
            assert_eq!(c.saturated(), 1);
            // Neighbours are untouched by the carry-free arithmetic.
            assert_eq!((c.get(0), c.get(2)), (0, 0));
            assert_eq!(inc(&mut c, 1), max);
            assert!(dec(&mut c, 1));
            assert_eq!(c.get(1), max, "width {width}");
            assert_eq!(c.saturated(), 1);
            assert_eq!((c.get(0), c.get(2)), (0, 0));
        }
    }

    #[test]
    fn zero_refuses_decrement_and_undo_restores() {
        let mut c = counters(4, 4);
        assert!(!dec(&mut c, 2));
        assert_eq!(c.get(2), 0);
        inc(&mut c, 2);
        inc(&mut c, 2);
        assert!(dec(&mut c, 2));
        assert_eq!(c.get_at::<2>(2), 1);
        c.undo_decrement::<2>(2);
        assert_eq!(c.get(2), 2);
    }

    #[test]
    fn saturating_add_caps_and_recounts() {
        let mut a = counters(17, 4);
        let mut b = counters(17, 4);
        for _ in 0..10 {
            inc(&mut a, 3);
            inc(&mut b, 3);
        }
        inc(&mut a, 16);
        inc(&mut b, 16);
        inc(&mut b, 0);
        a.saturating_add(&b);
        assert_eq!((a.get(0), a.get(3), a.get(16)), (1, 15, 2));
        assert_eq!(a.saturated(), 1);
    }

    #[test]
    fn nonzero_bits_follow_the_counters() {
        for width in WIDTHS {
            let mut c = counters(130, width);
            for i in [0, 5, 63, 64, 65, 129] {
                inc(&mut c, i);
            }
            assert_eq!(
                c.nonzero_bits(),
                vec![1 | 1 << 5 | 1 << 63, 0b11, 1 << 1],
                "width {width}"
            );
        }
    }

    #[test]
    fn word_counts() {
        assert_eq!(words_for(16, 4), Some(1));
        assert_eq!(words_for(17, 4), Some(2));
        assert_eq!(words_for(8, 8), Some(1));
        assert_eq!(words_for(5, 16), Some(2));
        assert_eq!(words_for(u64::MAX, 16), Some(u64::MAX / 4 + 1));
    }
}
