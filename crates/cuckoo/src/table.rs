//! The bit-packed table: `num_buckets` buckets of `b` slots of `f` bits each,
//! `b·f` bits per bucket and no padding between buckets.
//!
//! A bucket is read and written as one `u128` (b·f ≤ 8·16 = 128 bits) whose
//! lane `j`, bits `j·f .. (j+1)·f`, is slot `j`. A slot holding 0 is empty,
//! which is why fingerprints are never 0. Lookups compare all lanes at once
//! with the "has a zero lane" word trick instead of a loop.

use bloomlab_core::batch;

/// Bucket sizes the filter supports.
pub const BUCKET_SIZES: [u32; 3] = [2, 4, 8];

/// The narrowest and widest fingerprints the filter supports, in bits.
pub const FINGERPRINT_BITS: std::ops::RangeInclusive<u32> = 4..=16;

#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Table {
    words: Vec<u64>,
    /// log2 of the number of buckets (at most 32).
    log2_buckets: u32,
    /// Slots per bucket.
    b: u32,
    /// Bits per fingerprint.
    f: u32,
    /// `b·f`.
    bucket_bits: u32,
    /// The low `b·f` bits set.
    bucket_mask: u128,
    /// Bit 0 of every lane set.
    lane_low: u128,
    /// The top bit of every lane set.
    lane_high: u128,
    /// The low `f` bits set.
    fp_mask: u128,
}

impl Table {
    /// Words needed for `2^log2_buckets` buckets of `b·f` bits.
    pub(crate) fn words_for(log2_buckets: u32, b: u32, f: u32) -> Option<usize> {
        let bits = (1u128 << log2_buckets) * u128::from(b * f);
        usize::try_from(bits.div_ceil(64)).ok()
    }

    /// An empty table, lazily paged; `b`, `f` and `log2_buckets` were checked
    /// by the caller. An error if the allocator refuses the words.
    pub(crate) fn new(
        log2_buckets: u32,
        b: u32,
        f: u32,
        words: usize,
    ) -> Result<Self, bloomlab_core::alloc::OutOfMemory> {
        let words = bloomlab_core::alloc::zeroed_words(words)?;
        Ok(Self::from_words(words, log2_buckets, b, f))
    }

    pub(crate) fn from_words(words: Vec<u64>, log2_buckets: u32, b: u32, f: u32) -> Self {
        let bucket_bits = b * f;
        let bucket_mask = if bucket_bits == 128 {
            u128::MAX
        } else {
            (1u128 << bucket_bits) - 1
        };
        let lane_low = (0..b).fold(0u128, |acc, j| acc | 1u128 << (j * f));
        Self {
            words,
            log2_buckets,
            b,
            f,
            bucket_bits,
            bucket_mask,
            lane_low,
            lane_high: lane_low << (f - 1),
            fp_mask: (1u128 << f) - 1,
        }
    }

    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    #[inline]
    pub(crate) fn log2_buckets(&self) -> u32 {
        self.log2_buckets
    }

    #[inline]
    pub(crate) fn num_buckets(&self) -> u64 {
        1 << self.log2_buckets
    }

    #[inline]
    pub(crate) fn bucket_size(&self) -> u32 {
        self.b
    }

    #[inline]
    pub(crate) fn fingerprint_bits(&self) -> u32 {
        self.f
    }

    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Whether the bits past the last bucket, in the last word, are all zero.
    pub(crate) fn tail_is_clear(&self) -> bool {
        let used = (u128::from(self.num_buckets()) * u128::from(self.bucket_bits) % 64) as u32;
        match (used, self.words.last()) {
            (0, _) | (_, None) => true,
            (used, Some(&last)) => last >> used == 0,
        }
    }

    /// The bucket's `b·f` bits.
    #[inline]
    pub(crate) fn bucket(&self, i: usize) -> u128 {
        let pos = i * self.bucket_bits as usize;
        let (w, off) = (pos / 64, (pos % 64) as u32);
        let word = |k: usize| u128::from(self.words.get(k).copied().unwrap_or(0));
        let mut v = (word(w) | word(w + 1) << 64) >> off;
        if off + self.bucket_bits > 128 {
            v |= word(w + 2) << (128 - off);
        }
        v & self.bucket_mask
    }

    /// Starts loading bucket `i`: its first word, and its last when the
    /// bucket straddles a word boundary. (A bucket of more than 64 bits may
    /// touch three words; the middle one shares a 64-byte cache line with
    /// the first or the last.)
    #[inline]
    pub(crate) fn prefetch(&self, i: usize) {
        let first = i * self.bucket_bits as usize;
        let last = first + self.bucket_bits as usize - 1;
        if let Some(word) = self.words.get(first / 64) {
            batch::prefetch(word);
        }
        if last / 64 != first / 64 {
            if let Some(word) = self.words.get(last / 64) {
                batch::prefetch(word);
            }
        }
    }

    /// The bucket's `b·f` bits when they fit a word (`b·f ≤ 64`).
    #[inline(always)]
    fn bucket64(&self, i: usize) -> u64 {
        let pos = i * self.bucket_bits as usize;
        let (w, off) = (pos / 64, (pos % 64) as u32);
        let word = |k: usize| self.words.get(k).copied().unwrap_or(0);
        let mut v = word(w) >> off;
        if off + self.bucket_bits > 64 {
            // off > 0 here, so the shift is below 64.
            v |= word(w + 1) << (64 - off);
        }
        v & self.bucket_mask as u64
    }

    /// Whether bucket `i1` or bucket `i2` holds `fp` (non-zero): the lookup.
    ///
    /// Both buckets are read before either is tested, so their two memory
    /// reads overlap; buckets of at most 64 bits take the one-word path.
    #[inline(always)]
    pub(crate) fn holds_either(&self, i1: usize, i2: usize, fp: u32) -> bool {
        if self.bucket_bits <= 64 {
            let (low, high) = (self.lane_low as u64, self.lane_high as u64);
            let pattern = u64::from(fp) * low;
            let x1 = self.bucket64(i1) ^ pattern;
            let x2 = self.bucket64(i2) ^ pattern;
            ((x1.wrapping_sub(low) & !x1) | (x2.wrapping_sub(low) & !x2)) & high != 0
        } else {
            let (b1, b2) = (self.bucket(i1), self.bucket(i2));
            self.holds(b1, fp) | self.holds(b2, fp)
        }
    }

    /// Replaces the bucket's bits with `v` (whose bits above `b·f` are zero).
    #[inline]
    pub(crate) fn set_bucket(&mut self, i: usize, v: u128) {
        let pos = i * self.bucket_bits as usize;
        let (w, off) = (pos / 64, (pos % 64) as u32);
        let mask = self.bucket_mask << off;
        let shifted = v << off;
        let mut put = |k: usize, m: u64, x: u64| {
            if let Some(word) = self.words.get_mut(k) {
                *word = (*word & !m) | (x & m);
            }
        };
        put(w, mask as u64, shifted as u64);
        if off + self.bucket_bits > 64 {
            put(w + 1, (mask >> 64) as u64, (shifted >> 64) as u64);
        }
        if off + self.bucket_bits > 128 {
            let m = self.bucket_mask >> (128 - off);
            put(w + 2, m as u64, (v >> (128 - off)) as u64);
        }
    }

    /// Slot `j` of a bucket value.
    #[inline]
    pub(crate) fn lane(&self, bucket: u128, j: u32) -> u32 {
        ((bucket >> (j * self.f)) & self.fp_mask) as u32
    }

    /// A bucket value with slot `j` replaced by `fp`.
    #[inline]
    pub(crate) fn with_lane(&self, bucket: u128, j: u32, fp: u32) -> u128 {
        let shift = j * self.f;
        (bucket & !(self.fp_mask << shift)) | (u128::from(fp) << shift)
    }

    /// A mask with the top bit of every lane of `x` that is zero set, and
    /// possibly of lanes above the lowest zero lane: exact as to whether some
    /// lane is zero and which is the lowest.
    #[inline]
    fn zero_lanes(&self, x: u128) -> u128 {
        x.wrapping_sub(self.lane_low) & !x & self.lane_high
    }

    /// Whether some slot of the bucket value holds `fp` (non-zero).
    #[inline]
    pub(crate) fn holds(&self, bucket: u128, fp: u32) -> bool {
        self.zero_lanes(bucket ^ (u128::from(fp) * self.lane_low)) != 0
    }

    /// The lowest slot of the bucket value holding `fp`, if any.
    #[inline]
    pub(crate) fn find(&self, bucket: u128, fp: u32) -> Option<u32> {
        let z = self.zero_lanes(bucket ^ (u128::from(fp) * self.lane_low));
        (z != 0).then(|| z.trailing_zeros() / self.f)
    }

    /// Slots of the bucket value holding `fp`.
    pub(crate) fn count(&self, bucket: u128, fp: u32) -> u32 {
        (0..self.b).filter(|&j| self.lane(bucket, j) == fp).count() as u32
    }

    /// Occupied slots of the bucket value.
    pub(crate) fn occupied(&self, bucket: u128) -> u32 {
        (0..self.b).filter(|&j| self.lane(bucket, j) != 0).count() as u32
    }

    /// Puts `fp` in the lowest empty slot of bucket `i`; false if it is full.
    #[inline]
    pub(crate) fn put(&mut self, i: usize, fp: u32) -> bool {
        let bucket = self.bucket(i);
        match self.find(bucket, 0) {
            Some(j) => {
                self.set_bucket(i, self.with_lane(bucket, j, fp));
                true
            }
            None => false,
        }
    }

    /// Replaces slot `j` of bucket `i` with `fp` and returns what it held.
    #[inline]
    pub(crate) fn swap(&mut self, i: usize, j: u32, fp: u32) -> u32 {
        let bucket = self.bucket(i);
        self.set_bucket(i, self.with_lane(bucket, j, fp));
        self.lane(bucket, j)
    }

    /// Empties one slot of bucket `i` holding `fp`; false if none does.
    #[inline]
    pub(crate) fn take(&mut self, i: usize, fp: u32) -> bool {
        let bucket = self.bucket(i);
        match self.find(bucket, fp) {
            Some(j) => {
                self.set_bucket(i, self.with_lane(bucket, j, 0));
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (b, f) pair: buckets written in a scattered order read back,
    /// and writing one bucket leaves its neighbours alone.
    #[test]
    fn packing_round_trips_for_every_shape() {
        for b in BUCKET_SIZES {
            for f in FINGERPRINT_BITS {
                let log2 = 5;
                let words = Table::words_for(log2, b, f).unwrap();
                assert_eq!(words, (32 * b * f).div_ceil(64) as usize);
                let mut t = Table::new(log2, b, f, words).unwrap();
                let value = |i: usize, j: u32| -> u32 {
                    ((i as u32 * 7919 + j * 104_729) % ((1 << f) - 1)) + 1
                };
                for i in (0..32).map(|i| (i * 13) % 32) {
                    for j in 0..b {
                        assert_eq!(t.swap(i, j, value(i, j)), 0);
                    }
                }
                for i in 0..32 {
                    let bucket = t.bucket(i);
                    for j in 0..b {
                        assert_eq!(t.lane(bucket, j), value(i, j), "b {b} f {f} bucket {i}");
                        assert!(t.holds(bucket, value(i, j)));
                    }
                    assert_eq!(t.occupied(bucket), b);
                    assert_eq!(t.find(bucket, 0), None);
                }
                assert!(t.tail_is_clear());
                t.clear();
                assert!(t.words().iter().all(|&w| w == 0));
            }
        }
    }

    #[test]
    fn lookup_paths_agree_for_every_shape() {
        for b in BUCKET_SIZES {
            for f in FINGERPRINT_BITS {
                let log2 = 6;
                let mut t = Table::new(log2, b, f, Table::words_for(log2, b, f).unwrap()).unwrap();
                let mut x = u64::from(b * 100 + f);
                for i in 0..64 {
                    for j in 0..b {
                        x = bloomlab_core::hash::mix64(x);
                        // A quarter of the slots empty, the rest random.
                        let fp = if x & 3 == 0 {
                            0
                        } else {
                            (x >> 8) as u32 & ((1 << f) - 1)
                        };
                        t.swap(i, j, fp);
                    }
                }
                for i1 in 0..64 {
                    let i2 = (i1 * 37 + 5) % 64;
                    for fp in 1..(1u32 << f).min(300) {
                        let slow = t.holds(t.bucket(i1), fp) || t.holds(t.bucket(i2), fp);
                        assert_eq!(t.holds_either(i1, i2, fp), slow, "b {b} f {f}");
                    }
                }
            }
        }
    }

    #[test]
    fn put_take_and_find() {
        let mut t = Table::new(2, 4, 12, Table::words_for(2, 4, 12).unwrap()).unwrap();
        assert!(t.put(1, 0xabc));
        assert!(t.put(1, 0x123));
        assert!(t.put(1, 0xabc));
        assert!(t.put(1, 0xfff));
        assert!(!t.put(1, 0x001), "a full bucket takes nothing");
        let b1 = t.bucket(1);
        assert_eq!(t.count(b1, 0xabc), 2);
        assert_eq!(t.find(b1, 0x123), Some(1));
        assert!(!t.holds(b1, 0x124));
        assert!(t.take(1, 0xabc));
        assert_eq!(t.find(t.bucket(1), 0), Some(0));
        assert_eq!(t.count(t.bucket(1), 0xabc), 1);
        assert!(!t.take(1, 0x555));
        assert_eq!(t.bucket(0), 0);
        assert_eq!(t.bucket(2), 0);
    }

    /// The zero-lane trick never reports a lane that is not there, for any
    /// lane pattern: checked against the plain loop over every 4-bit value of
    /// a 2-slot bucket, and on a pseudo-random sample of 16-bit 8-slot ones.
    #[test]
    fn word_trick_agrees_with_the_loop() {
        let t = Table::new(0, 2, 4, 1).unwrap();
        for bucket in 0..=0xffu128 {
            for fp in 1..16 {
                let by_loop = (0..2).any(|j| t.lane(bucket, j) == fp);
                assert_eq!(t.holds(bucket, fp), by_loop, "{bucket:#x} {fp}");
                let first = (0..2).find(|&j| t.lane(bucket, j) == fp);
                assert_eq!(t.find(bucket, fp), first);
            }
        }
        let t = Table::new(0, 8, 16, 2).unwrap();
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            x = bloomlab_core::hash::mix64(x);
            let y = bloomlab_core::hash::mix64(x ^ 1);
            // Many zero and repeated lanes: mask random lanes to 0 or to 7.
            let mut bucket = u128::from(x) | u128::from(y) << 64;
            for j in 0..8 {
                match (x >> (j * 2)) & 3 {
                    0 => bucket = t.with_lane(bucket, j as u32, 0),
                    1 => bucket = t.with_lane(bucket, j as u32, 7),
                    _ => {}
                }
            }
            for fp in [0, 7, (y & 0xffff) as u32] {
                let first = (0..8).find(|&j| t.lane(bucket, j) == fp);
                assert_eq!(t.find(bucket, fp), first);
            }
        }
    }
}
