//! The bit-packed table: `num_buckets` buckets of `b` slots of `f` bits each,
//! no padding between buckets, and the two maps from a hash to its buckets.
//!
//! **Plain layout.** A bucket is `b·f` bits; slot `j` is bits `j·f ..
//! (j+1)·f`. A bucket of at most 128 bits is read and written as one `u128`
//! (one `u64` when it fits 64, by one unaligned 8-byte load or store where
//! it may span two words); an 8-slot bucket of
//! fingerprints wider than 16 bits (up to 256 bits) is two halves of four
//! slots, each one `u128`. Lookups compare all the lanes of a word at once
//! with the "has a zero lane" word trick instead of a loop.
//!
//! **Semi-sorted layout** (4-slot buckets; Fan et al. 2014, §5.2). A
//! bucket's four fingerprints are kept in ascending order. Their top 4 bits
//! (prefixes) then form one of the 3,876 sorted multisets of four 4-bit
//! values, stored as a 12-bit index (bits 0..12) into [`SEMI_DECODE`];
//! the four `f − 4`-bit suffixes follow in the same order. `4f − 4` bits a
//! bucket instead of `4f`. Every multiset of fingerprints has exactly one
//! encoding, so a bucket that is changed and changed back is bit for bit
//! what it was.
//!
//! In both, a slot holding 0 is empty (which is why fingerprints are never
//! 0); empty slots sort first in a semi-sorted bucket.

use bloomlab_core::alloc::{Buffer, packed_words};
use bloomlab_core::batch;

/// Bucket sizes the filter supports.
pub const BUCKET_SIZES: [u32; 3] = [2, 4, 8];

/// The narrowest and widest fingerprints the filter supports, in bits.
///
/// The fingerprint comes from the lower 32 bits of the item's 64-bit hash
/// and the bucket index from the upper 32, so 32 is the most there is.
pub const FINGERPRINT_BITS: std::ops::RangeInclusive<u32> = 4..=32;

/// Fibonacci hashing's multiplier (2^64 / golden ratio): the top bits of
/// `fp · PHI` spread a fingerprint over 32 bits.
pub(crate) const PHI: u64 = 0x9e37_79b9_7f4a_7c15;

/// How a bucket's slots are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `b` slots of `f` bits.
    Plain,
    /// Four slots in `4f − 4` bits, sorted (Fan et al. 2014, §5.2).
    SemiSorted,
}

/// How the other bucket of a fingerprint is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AltMap {
    /// `i XOR offset(fp)`: the power-of-two tables of the first format,
    /// whose files must still read; never chosen for a new table.
    Xor,
    /// `(h(fp) − i) mod m`: any bucket count.
    Sub,
}

/// Which lookup code a table's shape takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// Plain buckets of at most 64 bits, each read from the word it
    /// starts in and, if it spans two, the next ([`Table::read64`]): 58 to
    /// 63 bits, and every width that does not divide 64 on a big-endian
    /// target.
    Plain64,
    /// Plain buckets of a width that divides 64 (8, 16, 32 or 64 bits),
    /// which never span two words: each read from its word alone
    /// ([`Table::read_word`]).
    Plain64Aligned,
    /// Plain buckets of at most 57 bits that may span two words, each read
    /// by one unaligned 8-byte load ([`Table::load64`]), where
    /// [`Plain64`](Self::Plain64) would test, about half the time wrongly
    /// predicted, whether to read a second word.
    Plain64Bytes,
    /// Plain buckets of 65 to 128 bits, read from the two words they start
    /// in and, if they span three, the next ([`Table::read128`]).
    Plain128,
    /// Plain buckets of 65 to 121 bits that may span three words, each read
    /// by one unaligned 16-byte load ([`Table::load128`]).
    Plain128Bytes,
    /// Plain 8-slot buckets of more than 128 bits: two halves.
    Plain256,
    /// Semi-sorted buckets of fingerprints of at most 16 bits, unpacked
    /// into one 64-bit word, read as [`Plain64`](Self::Plain64) reads.
    Semi64,
    /// As [`Semi64`](Self::Semi64), read as
    /// [`Plain64Bytes`](Self::Plain64Bytes) reads.
    Semi64Bytes,
    /// Semi-sorted buckets of 17- to 32-bit fingerprints, unpacked into a
    /// `u128`.
    Semi128,
    /// As [`Semi128`](Self::Semi128), read as
    /// [`Plain128Bytes`](Self::Plain128Bytes) reads.
    Semi128Bytes,
}

/// Binomial coefficients `C(n, k)` for `k ≤ 4`, `n ≤ 18`.
const fn choose(n: u32, k: u32) -> u32 {
    match k {
        1 => n,
        2 => n * n.saturating_sub(1) / 2,
        3 => n * n.saturating_sub(1) * n.saturating_sub(2) / 6,
        _ => n * n.saturating_sub(1) * n.saturating_sub(2) * n.saturating_sub(3) / 24,
    }
}

/// The index of four sorted 4-bit prefixes `a ≤ b ≤ c ≤ d`: the
/// combinatorial number system's rank of the strictly increasing
/// `a < b + 1 < c + 2 < d + 3` among 4-subsets of `0..19`, in `0..3,876`.
const fn semi_rank(a: u32, b: u32, c: u32, d: u32) -> u32 {
    choose(a, 1) + choose(b + 1, 2) + choose(c + 2, 3) + choose(d + 3, 4)
}

/// The prefixes of each semi-sorted index, nibble `j` holding prefix `j`
/// (ascending). 4,096 entries so that any 12-bit value indexes it without a
/// bounds check; the 220 past 3,875 are never written by the filter, and a
/// file holding one is refused.
const SEMI_DECODE: [u16; 4096] = {
    let mut table = [0u16; 4096];
    let mut d = 0;
    while d < 16 {
        let mut c = 0;
        while c <= d {
            let mut b = 0;
            while b <= c {
                let mut a = 0;
                while a <= b {
                    table[semi_rank(a, b, c, d) as usize] = (a | b << 4 | c << 8 | d << 12) as u16;
                    a += 1;
                }
                b += 1;
            }
            c += 1;
        }
        d += 1;
    }
    table
};

/// [`semi_rank`]'s four terms, one table per prefix position: the rank
/// of `a ≤ b ≤ c ≤ d` is `RANK_TERMS[0][a] + RANK_TERMS[1][b] +
/// RANK_TERMS[2][c] + RANK_TERMS[3][d]`, four loads from 128 bytes where
/// the binomials take a dozen multiplications.
const RANK_TERMS: [[u16; 16]; 4] = {
    let mut terms = [[0u16; 16]; 4];
    let mut p = 0;
    while p < 16 {
        terms[0][p] = choose(p as u32, 1) as u16;
        terms[1][p] = choose(p as u32 + 1, 2) as u16;
        terms[2][p] = choose(p as u32 + 2, 3) as u16;
        terms[3][p] = choose(p as u32 + 3, 4) as u16;
        p += 1;
    }
    terms
};

/// Sorts four values (a five-comparator network), without branches: a
/// bucket's fingerprints are random, so a compare-and-branch would be
/// mispredicted about half the time.
#[inline]
fn sort4(mut v: [u32; 4]) -> [u32; 4] {
    for (x, y) in [(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)] {
        let (lo, hi) = (v[x].min(v[y]), v[x].max(v[y]));
        v[x] = lo;
        v[y] = hi;
    }
    v
}

/// The low `bits` bits set, `bits ≤ 128`.
const fn mask128(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Table {
    words: Buffer<u64>,
    buckets: u64,
    /// Slots per bucket.
    b: u32,
    /// Bits per fingerprint.
    f: u32,
    layout: Layout,
    alt: AltMap,
    probe: Probe,
    /// Bits per bucket: `b·f`, or `4f − 4` semi-sorted.
    bucket_bits: u32,
    /// The low `bucket_bits` bits set (all of them past 128).
    bucket_mask: u128,
    /// Plain: a bucket is `parts` (1 or 2) runs of `lanes` slots, each run
    /// `part_bits ≤ 128` bits.
    parts: u32,
    lanes: u32,
    part_bits: u32,
    part_mask: u128,
    /// Bit 0 of every lane of a part set.
    lane_low: u128,
    /// The top bit of every lane of a part set.
    lane_high: u128,
    /// The low `f` bits set.
    fp_mask: u128,
    /// Semi-sorted: bits per suffix, `f − 4`, and their mask.
    sfx_bits: u32,
    sfx_mask: u32,
    /// Semi-sorted: the masks that spread the four suffixes and the four
    /// prefixes of a bucket into four `f`-bit lanes ([`Self::unpack`]).
    unpack_pair: u128,
    unpack_even: u128,
    unpack_odd: u128,
    prefix_even: u128,
    prefix_odd: u128,
    /// [`AltMap::Sub`]: `h(fp) = ((spread · h_mul) >> 32 << h_shift) + h_add`,
    /// odd when the bucket count is even so that `h − i ≢ i`.
    h_mul: u64,
    h_shift: u32,
    h_add: u64,
}

/// The largest table, in bytes, this target can hold: one whose every bit
/// has a `usize` position (bit positions index the table; a byte or word
/// index would not overflow first). 512 MiB less 8 bytes on a 32-bit
/// target, which a larger table would make wrap silently; far more than
/// [`MAX_BUCKETS`](crate::builder::MAX_BUCKETS) of the widest buckets on a
/// 64-bit one.
pub(crate) const MAX_TABLE_BYTES: u128 = (usize::MAX / 64) as u128 * 8;

impl Table {
    /// Bits per bucket of a shape.
    pub(crate) fn bucket_bits(b: u32, f: u32, layout: Layout) -> u32 {
        match layout {
            Layout::Plain => b * f,
            Layout::SemiSorted => 4 * f - 4,
        }
    }

    /// Words needed for `buckets` buckets of `bucket_bits` bits, or `None`
    /// for a table above [`MAX_TABLE_BYTES`]: the check every table passes
    /// before it is built or decoded, which keeps each bit position
    /// ([`bucket_pos`](Self::bucket_pos)) inside `usize`.
    pub(crate) fn words_for(buckets: u64, bucket_bits: u32) -> Option<usize> {
        let words = packed_words(buckets, u64::from(bucket_bits));
        if words * 8 > MAX_TABLE_BYTES {
            return None;
        }
        usize::try_from(words).ok()
    }

    /// The table of `words` ([`words_for`](Self::words_for) of them: zeroed
    /// and lazily paged for an empty table, decoded for a stored one); the
    /// shape was checked by the caller (`b` in [`BUCKET_SIZES`], `f` in
    /// [`FINGERPRINT_BITS`], semi-sorted only with `b = 4`, XOR only for a
    /// power-of-two count, `1 ≤ buckets`).
    pub(crate) fn from_words(
        words: Buffer<u64>,
        buckets: u64,
        b: u32,
        f: u32,
        layout: Layout,
        alt: AltMap,
    ) -> Self {
        let bucket_bits = Self::bucket_bits(b, f, layout);
        let parts = if layout == Layout::Plain && bucket_bits > 128 {
            2
        } else {
            1
        };
        let lanes = b / parts;
        let part_bits = lanes * f;
        let lane_low = (0..lanes).fold(0u128, |acc, j| acc | 1u128 << (j * f));
        let sfx_bits = f.saturating_sub(4);
        let sfx = mask128(sfx_bits);
        // Shifts by 2f reach 64 only for f = 32, where u128 holds them.
        let (bytes8, bytes16) = (
            Self::read_as_bytes(bucket_bits, 64),
            Self::read_as_bytes(bucket_bits, 128),
        );
        let probe = match layout {
            Layout::Plain if 64 % bucket_bits == 0 => Probe::Plain64Aligned,
            Layout::Plain if bucket_bits <= 64 && bytes8 => Probe::Plain64Bytes,
            Layout::Plain if bucket_bits <= 64 => Probe::Plain64,
            Layout::Plain if bucket_bits <= 128 && bytes16 => Probe::Plain128Bytes,
            Layout::Plain if bucket_bits <= 128 => Probe::Plain128,
            Layout::Plain => Probe::Plain256,
            Layout::SemiSorted if f <= 16 && bytes8 => Probe::Semi64Bytes,
            Layout::SemiSorted if f <= 16 => Probe::Semi64,
            Layout::SemiSorted if bytes16 => Probe::Semi128Bytes,
            Layout::SemiSorted => Probe::Semi128,
        };
        let even = buckets.is_multiple_of(2);
        Self {
            words,
            buckets,
            b,
            f,
            layout,
            alt,
            probe,
            bucket_bits,
            bucket_mask: mask128(bucket_bits),
            parts,
            lanes,
            part_bits,
            part_mask: mask128(part_bits),
            lane_low,
            lane_high: lane_low << (f - 1),
            fp_mask: mask128(f),
            sfx_bits,
            sfx_mask: sfx as u32,
            unpack_pair: mask128(2 * sfx_bits),
            unpack_even: sfx | sfx << (2 * f),
            unpack_odd: sfx << sfx_bits | sfx << (2 * f + sfx_bits),
            prefix_even: 0xf | 0xf << (2 * f),
            prefix_odd: 0xf0 | 0xf0 << (2 * f),
            h_mul: if even { buckets / 2 } else { buckets },
            h_shift: u32::from(even),
            h_add: u64::from(even),
        }
    }

    #[inline]
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    #[inline]
    pub(crate) fn num_buckets(&self) -> u64 {
        self.buckets
    }

    #[inline]
    pub(crate) fn bucket_size(&self) -> u32 {
        self.b
    }

    #[inline]
    pub(crate) fn fingerprint_bits(&self) -> u32 {
        self.f
    }

    #[inline]
    pub(crate) fn layout(&self) -> Layout {
        self.layout
    }

    #[inline]
    pub(crate) fn alt_map(&self) -> AltMap {
        self.alt
    }

    /// Bits per bucket.
    #[inline]
    pub(crate) fn bits_per_bucket(&self) -> u32 {
        self.bucket_bits
    }

    pub(crate) fn clear(&mut self) {
        self.words.fill(0);
    }

    /// Whether the bits past the last bucket, in the last word, are all zero.
    pub(crate) fn tail_is_clear(&self) -> bool {
        let used = (u128::from(self.buckets) * u128::from(self.bucket_bits) % 64) as u32;
        match (used, self.words.last()) {
            (0, _) | (_, None) => true,
            (used, Some(&last)) => last >> used == 0,
        }
    }

    // ---- The two maps -------------------------------------------------

    /// The fingerprint: the lower 32 bits of the hash scaled onto `1 ..= 2^f − 1`.
    #[inline]
    pub(crate) fn fingerprint(&self, hash: u64) -> u32 {
        let values = (1u64 << self.f) - 1;
        1 + ((u64::from(hash as u32) * values) >> 32) as u32
    }

    /// The first bucket: the upper 32 bits of the hash reduced onto
    /// `0 .. buckets` by multiply-shift (for `2^k` buckets, their top `k`
    /// bits, as the first format did).
    #[inline]
    pub(crate) fn first_bucket(&self, hash: u64) -> usize {
        (((hash >> 32) * self.buckets) >> 32) as usize
    }

    /// The other bucket of a fingerprint stored in bucket `i`; applied twice
    /// it gives `i` back.
    ///
    /// [`AltMap::Sub`]: `(h(fp) − i) mod m`, `h` a hash of the fingerprint
    /// reduced onto `0 .. m` by multiply-shift. With an even `m`, `h` is
    /// odd, so the two buckets always differ (`2i ≡ h` has no solution); an
    /// odd `m` gives one bucket `i` per fingerprint whose other bucket is
    /// itself. [`AltMap::Xor`]: `i XOR offset(fp)`, the offset in
    /// `1 .. m`.
    #[inline]
    pub(crate) fn other_bucket(&self, i: usize, fp: u32) -> usize {
        match self.alt {
            AltMap::Sub => {
                // Not Fibonacci hashing alone: its h(fp) are nearly an
                // arithmetic progression in fp, so that h(a) − h(b) takes few
                // values, few buckets are two moves apart, and a table of
                // 2^20 − 1 buckets of 6-bit fingerprints filled to 88.9%,
                // not 95%. Folding the product's halves together breaks the
                // progression for the price of a shift and a XOR.
                let x = u64::from(fp).wrapping_mul(PHI);
                let spread = u64::from((x ^ (x >> 32)) as u32);
                let h = (((spread * self.h_mul) >> 32) << self.h_shift) + self.h_add;
                // h − i lies in (−m, m): add m back when it wrapped, without
                // a branch (which way it goes is a coin toss per lookup).
                let d = h.wrapping_sub(i as u64);
                let wrapped = ((d as i64) >> 63) as u64;
                d.wrapping_add(wrapped & self.buckets) as usize
            }
            AltMap::Xor => {
                let spread = u64::from(fp).wrapping_mul(PHI) >> 32;
                let mask = self.buckets - 1;
                let offset = (1 + ((spread * mask) >> 32)) & mask;
                i ^ offset as usize
            }
        }
    }

    // ---- Bits ---------------------------------------------------------

    #[inline(always)]
    fn word(&self, k: usize) -> u64 {
        self.words.get(k).copied().unwrap_or(0)
    }

    /// Whether buckets of `bucket_bits` bits are read by one load of
    /// `load_bits` (64 or 128) bits ([`load64`](Self::load64),
    /// [`load128`](Self::load128)) rather than word by word: when some of
    /// them span one word more than the load's own count (the width does
    /// not divide `load_bits`), and each lies within the `load_bits / 8`
    /// bytes from the byte it starts in. A bucket starting at bit `8q + r`
    /// (`r < 8`) ends by bit `8q + load_bits` when `r + bucket_bits ≤
    /// load_bits`, which holds for every `r` up to `load_bits − 7` bits.
    /// The words' little-endian layout is what makes those bytes the
    /// table's bits in order.
    fn read_as_bytes(bucket_bits: u32, load_bits: u32) -> bool {
        cfg!(target_endian = "little")
            && bucket_bits + 7 <= load_bits
            && !load_bits.is_multiple_of(bucket_bits)
    }

    /// The bits of the word that holds bit `pos`, from `pos` on, unmasked:
    /// the whole bucket starting there when its width divides 64.
    #[inline(always)]
    fn read_word(&self, pos: usize) -> u64 {
        self.word(pos / 64) >> (pos % 64)
    }

    /// The 64 bits from the byte that holds bit `pos`, shifted so that bit
    /// `pos` is bit 0: bits `pos .. pos + 64 − pos % 8`, unmasked, in one
    /// unaligned load where [`read64`](Self::read64) takes a word, a test
    /// and sometimes a second word. Only little-endian targets use it
    /// ([`read_as_bytes`](Self::read_as_bytes)); bytes past the table read
    /// as zero.
    #[inline(always)]
    fn load64(&self, pos: usize) -> u64 {
        u64::from_le_bytes(self.bytes_at(pos / 8)) >> (pos % 8)
    }

    /// [`load64`](Self::load64) with 16 bytes: bits `pos .. pos + 128 −
    /// pos % 8`, unmasked.
    #[inline(always)]
    fn load128(&self, pos: usize) -> u128 {
        u128::from_le_bytes(self.bytes_at(pos / 8)) >> (pos % 8)
    }

    /// The `N` bytes of the table from byte `at`, those past its end zero.
    #[inline(always)]
    fn bytes_at<const N: usize>(&self, at: usize) -> [u8; N] {
        let bytes: &[u8] = bytemuck::cast_slice(&self.words);
        match bytes.get(at..at + N).map(<[u8; N]>::try_from) {
            Some(Ok(whole)) => whole,
            _ => Self::last_bytes(bytes, at),
        }
    }

    /// The bytes of `bytes` from `at` on, at most `N`, zero-padded: the
    /// last buckets' loads.
    #[cold]
    fn last_bytes<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
        let mut some = [0u8; N];
        for (b, &byte) in some.iter_mut().zip(bytes.iter().skip(at)) {
            *b = byte;
        }
        some
    }

    /// `width ≤ 64` bits from bit `pos`, unmasked above `width`.
    #[inline(always)]
    fn read64(&self, pos: usize, width: u32) -> u64 {
        let (w, off) = (pos / 64, (pos % 64) as u32);
        let mut v = self.word(w) >> off;
        if off + width > 64 {
            // off > 0 here, so the shift is below 64.
            v |= self.word(w + 1) << (64 - off);
        }
        v
    }

    /// `width ≤ 128` bits from bit `pos`.
    #[inline(always)]
    fn read128(&self, pos: usize, width: u32) -> u128 {
        let (w, off) = (pos / 64, (pos % 64) as u32);
        let word = |k: usize| u128::from(self.word(k));
        let mut v = (word(w) | word(w + 1) << 64) >> off;
        if off + width > 128 {
            v |= word(w + 2) << (128 - off);
        }
        v & mask128(width)
    }

    /// Writes `v` (zero above `width ≤ 128`) at bit `pos`.
    #[inline]
    fn write128(&mut self, pos: usize, width: u32, v: u128) {
        let (w, off) = (pos / 64, (pos % 64) as u32);
        let mask = mask128(width) << off;
        let shifted = v << off;
        let mut put = |k: usize, m: u64, x: u64| {
            if let Some(word) = self.words.get_mut(k) {
                *word = (*word & !m) | (x & m);
            }
        };
        put(w, mask as u64, shifted as u64);
        if off + width > 64 {
            put(w + 1, (mask >> 64) as u64, (shifted >> 64) as u64);
        }
        if off + width > 128 {
            let m = mask128(width) >> (128 - off);
            put(w + 2, m as u64, (v >> (128 - off)) as u64);
        }
    }

    /// A bucket of at most 64 bits (plain, or semi-sorted and packed) at
    /// bit `pos`, masked, read as the lookup reads it (one load where the
    /// shape allows).
    #[inline(always)]
    fn read_bucket64(&self, pos: usize) -> u64 {
        let v = match self.probe {
            Probe::Plain64Aligned => self.read_word(pos),
            Probe::Plain64Bytes | Probe::Semi64Bytes => self.load64(pos),
            _ => self.read64(pos, self.bucket_bits),
        };
        v & self.bucket_mask as u64
    }

    /// Writes `v` (zero above `bucket_bits ≤ 64`) as the bucket at bit
    /// `pos`: into its word when it is plain and its width divides 64, by
    /// one unaligned 8-byte read-modify-write where [`load64`](Self::load64)
    /// reads it, word by word otherwise (and for the last bytes of the
    /// table).
    #[inline(always)]
    fn write_bucket64(&mut self, pos: usize, v: u64) {
        let mask = self.bucket_mask as u64;
        match self.probe {
            Probe::Plain64Aligned => {
                let (w, off) = (pos / 64, pos % 64);
                if let Some(word) = self.words.get_mut(w) {
                    *word = (*word & !(mask << off)) | v << off;
                }
            }
            Probe::Plain64Bytes | Probe::Semi64Bytes => {
                let (at, off) = (pos / 8, pos % 8);
                let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.words);
                match bytes.get_mut(at..at + 8) {
                    Some(window) => {
                        let mut raw = [0u8; 8];
                        raw.copy_from_slice(window);
                        let word = u64::from_le_bytes(raw);
                        let word = (word & !(mask << off)) | v << off;
                        window.copy_from_slice(&word.to_le_bytes());
                    }
                    None => self.write128(pos, self.bucket_bits, u128::from(v)),
                }
            }
            _ => self.write128(pos, self.bucket_bits, u128::from(v)),
        }
    }

    /// The position of bucket `i`'s first bit. `i` is below the bucket
    /// count, so the position is below the table's bits, which
    /// [`words_for`](Self::words_for) kept within `usize`.
    #[inline(always)]
    fn bucket_pos(&self, i: usize) -> usize {
        i * self.bucket_bits as usize
    }

    /// Starts loading bucket `i`: its first word, and its last when the
    /// bucket straddles a word boundary. (A bucket of more than 64 bits may
    /// touch more words; the ones between share a 64-byte cache line with
    /// the first or the last.)
    #[inline]
    pub(crate) fn prefetch(&self, i: usize) {
        let first = self.bucket_pos(i);
        let last = first + self.bucket_bits as usize - 1;
        if let Some(word) = self.words.get(first / 64) {
            batch::prefetch(word);
        }
        if last / 64 != first / 64
            && let Some(word) = self.words.get(last / 64)
        {
            batch::prefetch(word);
        }
    }

    // ---- Lookups ------------------------------------------------------

    /// Whether bucket `i1` or bucket `i2` holds `fp` (non-zero): the lookup.
    ///
    /// Both buckets are read before either is tested, so their two memory
    /// reads overlap.
    #[inline(always)]
    pub(crate) fn holds_either(&self, i1: usize, i2: usize, fp: u32) -> bool {
        let (p1, p2) = (self.bucket_pos(i1), self.bucket_pos(i2));
        let (width, part) = (self.bucket_bits, self.part_bits);
        match self.probe {
            Probe::Plain64 => {
                self.plain64_holds(self.read64(p1, width), self.read64(p2, width), fp)
            }
            Probe::Plain64Aligned => self.plain64_holds(self.read_word(p1), self.read_word(p2), fp),
            Probe::Plain64Bytes => self.plain64_holds(self.load64(p1), self.load64(p2), fp),
            Probe::Semi64 => self.semi64_holds(self.read64(p1, width), self.read64(p2, width), fp),
            Probe::Semi64Bytes => self.semi64_holds(self.load64(p1), self.load64(p2), fp),
            Probe::Plain128 => {
                self.lanes_hold(self.read128(p1, part), fp)
                    | self.lanes_hold(self.read128(p2, part), fp)
            }
            Probe::Plain128Bytes => {
                let mask = self.part_mask;
                self.lanes_hold(self.load128(p1) & mask, fp)
                    | self.lanes_hold(self.load128(p2) & mask, fp)
            }
            Probe::Plain256 => {
                let half = part as usize;
                let parts = [
                    self.read128(p1, part),
                    self.read128(p1 + half, part),
                    self.read128(p2, part),
                    self.read128(p2 + half, part),
                ];
                parts.iter().any(|&v| self.lanes_hold(v, fp))
            }
            Probe::Semi128 => {
                let (v1, v2) = (self.read128(p1, width), self.read128(p2, width));
                self.lanes_hold(self.unpack(v1), fp) | self.lanes_hold(self.unpack(v2), fp)
            }
            Probe::Semi128Bytes => {
                let mask = self.bucket_mask;
                let (v1, v2) = (self.load128(p1) & mask, self.load128(p2) & mask);
                self.lanes_hold(self.unpack(v1), fp) | self.lanes_hold(self.unpack(v2), fp)
            }
        }
    }

    /// Whether either of two plain buckets of at most 64 bits, read
    /// unmasked, holds `fp`: every lane XORed with `fp` and tested for zero
    /// at once.
    #[inline(always)]
    fn plain64_holds(&self, v1: u64, v2: u64, fp: u32) -> bool {
        let mask = self.bucket_mask as u64;
        self.lanes_hold64(v1 & mask, fp) | self.lanes_hold64(v2 & mask, fp)
    }

    /// [`plain64_holds`](Self::plain64_holds) for two semi-sorted buckets,
    /// unpacked first.
    #[inline(always)]
    fn semi64_holds(&self, v1: u64, v2: u64, fp: u32) -> bool {
        let mask = self.bucket_mask as u64;
        self.lanes_hold64(self.unpack64(v1 & mask), fp)
            | self.lanes_hold64(self.unpack64(v2 & mask), fp)
    }

    /// A semi-sorted bucket value unpacked into the plain form: four
    /// `f`-bit lanes, lane `j` the `j`-th fingerprint (prefix from the
    /// index table above its suffix), so that the plain zero-lane test
    /// answers a lookup. Branch-free: two shift-and-mask steps move the
    /// suffixes from `j·(f − 4)` to `j·f`, two more the prefixes from `4j`
    /// to `j·f + f − 4`.
    #[inline(always)]
    fn unpack(&self, v: u128) -> u128 {
        let (s, f) = (self.sfx_bits, self.f);
        let y = v >> 12;
        let y = (y & self.unpack_pair) | ((y >> (2 * s)) & self.unpack_pair) << (2 * f);
        let y = (y & self.unpack_even) | ((y & self.unpack_odd) << 4);
        let n = u128::from(SEMI_DECODE[(v & 0xfff) as usize]);
        let n = (n & 0xff) | (n >> 8) << (2 * f);
        let n = (n & self.prefix_even) | ((n & self.prefix_odd) << (f - 4));
        y | n << s
    }

    /// [`unpack`](Self::unpack) in 64-bit arithmetic, for `f ≤ 16`.
    #[inline(always)]
    fn unpack64(&self, v: u64) -> u64 {
        let (s, f) = (self.sfx_bits, self.f);
        let pair = self.unpack_pair as u64;
        let y = v >> 12;
        let y = (y & pair) | ((y >> (2 * s)) & pair) << (2 * f);
        let y = (y & self.unpack_even as u64) | ((y & self.unpack_odd as u64) << 4);
        let n = u64::from(SEMI_DECODE[(v & 0xfff) as usize]);
        let n = (n & 0xff) | (n >> 8) << (2 * f);
        let n = (n & self.prefix_even as u64) | ((n & self.prefix_odd as u64) << (f - 4));
        y | n << s
    }

    /// A mask with the top bit of every lane of a plain part `x` that is
    /// zero set, and possibly of lanes above the lowest zero lane: exact as
    /// to whether some lane is zero and which is the lowest.
    #[inline]
    fn zero_lanes(&self, x: u128) -> u128 {
        x.wrapping_sub(self.lane_low) & !x & self.lane_high
    }

    /// [`zero_lanes`](Self::zero_lanes) in 64-bit arithmetic, for lanes of a
    /// bucket of at most 64 bits.
    #[inline(always)]
    fn zero_lanes64(&self, x: u64) -> u64 {
        let (low, high) = (self.lane_low as u64, self.lane_high as u64);
        x.wrapping_sub(low) & !x & high
    }

    /// [`lanes_hold`](Self::lanes_hold) in 64-bit arithmetic.
    #[inline(always)]
    fn lanes_hold64(&self, lanes: u64, fp: u32) -> bool {
        self.zero_lanes64(lanes ^ (u64::from(fp) * self.lane_low as u64)) != 0
    }

    /// Whether some slot of a plain part holds `fp` (non-zero).
    #[inline]
    fn lanes_hold(&self, part: u128, fp: u32) -> bool {
        self.zero_lanes(part ^ (u128::from(fp) * self.lane_low)) != 0
    }

    /// The lowest slot of a plain part holding `fp`, if any, as the bit
    /// its lane starts at: the lane's top bit, which
    /// [`zero_lanes`](Self::zero_lanes) sets, less `f − 1` (no division
    /// by `f`).
    #[inline]
    fn find_shift(&self, part: u128, fp: u32) -> Option<u32> {
        let z = self.zero_lanes(part ^ (u128::from(fp) * self.lane_low));
        (z != 0).then(|| z.trailing_zeros() + 1 - self.f)
    }

    /// [`find_shift`](Self::find_shift) in 64-bit arithmetic, for a bucket
    /// of at most 64 bits.
    #[inline(always)]
    fn find_shift64(&self, bucket: u64, fp: u32) -> Option<u32> {
        let z = self.zero_lanes64(bucket ^ (u64::from(fp) * self.lane_low as u64));
        (z != 0).then(|| z.trailing_zeros() + 1 - self.f)
    }

    #[inline]
    fn part_pos(&self, i: usize, p: u32) -> usize {
        self.bucket_pos(i) + (p * self.part_bits) as usize
    }

    #[inline]
    fn read_part(&self, i: usize, p: u32) -> u128 {
        self.read128(self.part_pos(i, p), self.part_bits)
    }

    /// `part` with the lane starting at bit `shift` set to `fp`.
    #[inline]
    fn with_lane(&self, part: u128, shift: u32, fp: u32) -> u128 {
        (part & !(self.fp_mask << shift)) | (u128::from(fp) << shift)
    }

    /// [`with_lane`](Self::with_lane) in 64-bit arithmetic.
    #[inline(always)]
    fn with_lane64(&self, bucket: u64, shift: u32, fp: u32) -> u64 {
        (bucket & !((self.fp_mask as u64) << shift)) | u64::from(fp) << shift
    }

    // ---- Semi-sorted buckets ------------------------------------------

    /// The four fingerprints of a semi-sorted bucket value, in stored order
    /// (ascending, for a bucket this table wrote).
    #[inline]
    fn decode(&self, v: u128) -> [u32; 4] {
        let nib = u32::from(SEMI_DECODE[(v & 0xfff) as usize]);
        let s = self.sfx_bits;
        let sfx = v >> 12;
        std::array::from_fn(|j| {
            let j = j as u32;
            let suffix = (sfx >> (s * j)) as u32 & self.sfx_mask;
            ((nib >> (4 * j)) & 15) << s | suffix
        })
    }

    /// The bucket value of four ascending fingerprints.
    #[inline]
    fn encode(&self, fps: [u32; 4]) -> u128 {
        let s = self.sfx_bits;
        let [a, b, c, d] = fps.map(|fp| (fp >> s) as usize & 15);
        let t = &RANK_TERMS;
        let mut v = u128::from(t[0][a] + t[1][b] + t[2][c] + t[3][d]);
        for (j, fp) in fps.into_iter().enumerate() {
            v |= u128::from(fp & self.sfx_mask) << (12 + s * j as u32);
        }
        v
    }

    /// The fingerprints of semi-sorted bucket `i`; a bucket of at most 64
    /// bits is read as the lookup reads it ([`read_bucket64`](Self::read_bucket64)).
    #[inline]
    fn read_sorted(&self, i: usize) -> [u32; 4] {
        let pos = self.bucket_pos(i);
        let v = if self.bucket_bits <= 64 {
            u128::from(self.read_bucket64(pos))
        } else {
            self.read128(pos, self.bucket_bits)
        };
        self.decode(v)
    }

    /// Stores `fps`, sorted, as semi-sorted bucket `i`.
    #[inline]
    fn write_sorted(&mut self, i: usize, fps: [u32; 4]) {
        let (pos, v) = (self.bucket_pos(i), self.encode(sort4(fps)));
        if self.bucket_bits <= 64 {
            self.write_bucket64(pos, v as u64);
        } else {
            self.write128(pos, self.bucket_bits, v);
        }
    }

    /// Whether semi-sorted bucket `i` is the one encoding of its
    /// fingerprints: an index below 3,876 and the fingerprints ascending.
    /// (Always true for a plain bucket.)
    pub(crate) fn is_canonical(&self, i: usize) -> bool {
        match self.layout {
            Layout::Plain => true,
            Layout::SemiSorted => {
                let v = self.read128(self.bucket_pos(i), self.bucket_bits);
                let fps = self.decode(v);
                fps.is_sorted() && self.encode(fps) == v
            }
        }
    }

    // ---- Slot operations ----------------------------------------------

    /// The fingerprints of bucket `i` (0 for an empty slot), `b` of them.
    fn slots(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        let sorted = match self.layout {
            Layout::SemiSorted => self.read_sorted(i),
            Layout::Plain => [0; 4],
        };
        (0..self.b).map(move |j| match self.layout {
            Layout::SemiSorted => sorted[j as usize],
            Layout::Plain => {
                let part = self.read_part(i, j / self.lanes);
                ((part >> ((j % self.lanes) * self.f)) & self.fp_mask) as u32
            }
        })
    }

    /// Slots of bucket `i` holding `fp`.
    pub(crate) fn count(&self, i: usize, fp: u32) -> u32 {
        self.slots(i).filter(|&x| x == fp).count() as u32
    }

    /// Occupied slots of bucket `i`.
    pub(crate) fn occupied(&self, i: usize) -> u32 {
        self.slots(i).filter(|&x| x != 0).count() as u32
    }

    /// Puts `fp` in an empty slot of bucket `i`; false if it is full.
    #[inline]
    pub(crate) fn put(&mut self, i: usize, fp: u32) -> bool {
        self.replace(i, 0, fp)
    }

    /// Empties one slot of bucket `i` holding `fp`; false if none does.
    #[inline]
    pub(crate) fn take(&mut self, i: usize, fp: u32) -> bool {
        self.replace(i, fp, 0)
    }

    /// Replaces one copy of `old` in bucket `i` (the lowest slot holding
    /// it, plain) with `new`; false if the bucket holds no `old`.
    #[inline]
    fn replace(&mut self, i: usize, old: u32, new: u32) -> bool {
        match self.layout {
            Layout::Plain if self.bucket_bits <= 64 => {
                let pos = self.bucket_pos(i);
                let bucket = self.read_bucket64(pos);
                match self.find_shift64(bucket, old) {
                    Some(shift) => {
                        self.write_bucket64(pos, self.with_lane64(bucket, shift, new));
                        true
                    }
                    None => false,
                }
            }
            Layout::Plain => {
                for p in 0..self.parts {
                    let part = self.read_part(i, p);
                    if let Some(shift) = self.find_shift(part, old) {
                        let pos = self.part_pos(i, p);
                        self.write128(pos, self.part_bits, self.with_lane(part, shift, new));
                        return true;
                    }
                }
                false
            }
            Layout::SemiSorted => {
                let mut fps = self.read_sorted(i);
                match fps.iter().position(|&x| x == old) {
                    Some(j) => {
                        fps[j] = new;
                        self.write_sorted(i, fps);
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// Replaces slot `j` of bucket `i` with `fp` and returns what it held.
    /// In a semi-sorted bucket `j` is a position in ascending order, and
    /// `fp` then takes its own place in that order.
    #[inline]
    pub(crate) fn swap(&mut self, i: usize, j: u32, fp: u32) -> u32 {
        match self.layout {
            Layout::Plain if self.bucket_bits <= 64 => {
                let pos = self.bucket_pos(i);
                let bucket = self.read_bucket64(pos);
                let shift = j * self.f;
                self.write_bucket64(pos, self.with_lane64(bucket, shift, fp));
                ((bucket >> shift) & self.fp_mask as u64) as u32
            }
            Layout::Plain => {
                // `lanes` is `b` or `b / 2`, a power of two.
                let (p, lane) = (j >> self.lanes.trailing_zeros(), j & (self.lanes - 1));
                let part = self.read_part(i, p);
                let pos = self.part_pos(i, p);
                let shift = lane * self.f;
                self.write128(pos, self.part_bits, self.with_lane(part, shift, fp));
                ((part >> shift) & self.fp_mask) as u32
            }
            Layout::SemiSorted => {
                let mut fps = self.read_sorted(i);
                let old = std::mem::replace(&mut fps[j as usize & 3], fp);
                self.write_sorted(i, fps);
                old
            }
        }
    }

    /// Undoes `swap(i, j, fp)`, which returned `old`, when every later
    /// change has been undone: the bucket is bit for bit as before it.
    #[inline]
    pub(crate) fn unswap(&mut self, i: usize, j: u32, fp: u32, old: u32) {
        match self.layout {
            Layout::Plain => {
                let back = self.swap(i, j, old);
                debug_assert_eq!(back, fp);
            }
            Layout::SemiSorted => {
                // One encoding per multiset: putting `old` back in place of
                // `fp` restores the bits.
                let undone = self.replace(i, fp, old);
                debug_assert!(undone);
            }
        }
    }
}

#[cfg(test)]
mod tests;
