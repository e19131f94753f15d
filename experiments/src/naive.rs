//! The documents' own hash functions (CLAIMS.md H1–H4), reproduced faithfully
//! as baselines: Java `int` arithmetic (wrapping 32-bit), `String.hashCode`
//! over UTF-16 code units, and Guava's murmur3-based double hashing.
//!
//! They live here, in the experiment runner, and nowhere in the library: they
//! exist to measure how far each falls short of theory.

/// Java's `String.hashCode`: `s[0]·31^(n−1) + … + s[n−1]` over UTF-16 code units, wrapping.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The polynomial string hash of documents 001 and 002 with a given seed:
/// `h = seed·h + c` over UTF-16 code units, in Java `int` arithmetic.
pub fn seeded_poly_hash(seed: i32, s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| seed.wrapping_mul(h).wrapping_add(i32::from(c)))
}

/// One of the documents' ways of turning an item into bit positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// H1 (document 001): 2<<24 bits, seeds {5, 7, 11, 13, 31, 37, 61},
    /// index = (bits − 1) & poly_hash(seed).
    H1,
    /// H2 (document 002): seeds {3, 5, 7, 11, 13, 31, 37, 61}, same
    /// polynomial, over `2^log2_bits` bits. The document's `DEFAULT_SIZE` is
    /// 256<<22 = 2^30; a smaller table changes only that constant, so that
    /// E6 can run at the document's bits per item with fewer items.
    H2 {
        /// Base-2 logarithm of the table's bits: 30 in the document.
        log2_bits: u32,
    },
    /// H3 (document 004): 2<<24 bits, seeds {3, 13, 46, 71, 91, 134},
    /// index = |seed·(bits − 1) & (h ^ (h >>> 16))| with h = `String.hashCode`.
    H3,
    /// H4 (document 000, a Guava-style helper over Redis): murmur3_128 once,
    /// `h1` = low 32 bits, `h2` = high 32 bits of its first 64-bit word,
    /// `g_i = h1 + i·h2` (i = 1..k, wrapping), negative → `!g`, then `g % bits`.
    H4 {
        /// Bits in the table (Java `int`).
        bits: i32,
        /// Number of hash functions.
        k: u32,
    },
}

impl Strategy {
    /// Bits in the table this strategy indexes.
    pub fn bits(self) -> u64 {
        match self {
            Strategy::H1 | Strategy::H3 => 2 << 24,
            Strategy::H2 { log2_bits } => 1 << log2_bits,
            Strategy::H4 { bits, .. } => bits as u64,
        }
    }

    /// One past the largest index the strategy can produce. Equal to
    /// [`bits`](Self::bits) except for H3: its mask `seed·(bits − 1)` keeps
    /// bits above the table's size, and Java's `BitSet` silently grows to hold
    /// them, so H3 really indexes up to 2^31 bits.
    pub fn index_range(self) -> u64 {
        match self {
            Strategy::H3 => 1 << 31,
            _ => self.bits(),
        }
    }

    /// Number of positions per item.
    pub fn k(self) -> u32 {
        match self {
            Strategy::H4 { k, .. } => k,
            _ => self.seeds().len() as u32,
        }
    }

    /// The seeds of H1–H3, one per position; none for H4.
    fn seeds(self) -> &'static [i32] {
        match self {
            Strategy::H1 => &[5, 7, 11, 13, 31, 37, 61],
            Strategy::H2 { .. } => &[3, 5, 7, 11, 13, 31, 37, 61],
            Strategy::H3 => &[3, 13, 46, 71, 91, 134],
            Strategy::H4 { .. } => &[],
        }
    }

    /// The positions of a string item, appended to `out` (cleared first).
    /// For H4 the string is funnelled as its UTF-8 bytes, as Guava's
    /// `Funnels.stringFunnel(UTF_8)` does.
    pub fn positions_str(self, s: &str, out: &mut Vec<u64>) {
        out.clear();
        let mask = self.bits() as i32 - 1;
        match self {
            Strategy::H1 | Strategy::H2 { .. } => {
                let hashes = self.seeds().iter().map(|&seed| seeded_poly_hash(seed, s));
                out.extend(hashes.map(|h| (mask & h) as u64));
            }
            Strategy::H3 => {
                let h = java_string_hash(s);
                let spread = h ^ ((h as u32) >> 16) as i32;
                out.extend(self.seeds().iter().map(|&seed| {
                    // Java's Math.abs(Integer.MIN_VALUE) is MIN_VALUE; the mask keeps
                    // the value non-negative whenever the seed product is, as here.
                    (seed.wrapping_mul(mask) & spread).wrapping_abs() as u32 as u64
                }));
            }
            Strategy::H4 { .. } => self.positions_bytes(s.as_bytes(), out),
        }
    }

    /// The positions of an `int` item under H4, funnelled as Guava's
    /// `Funnels.integerFunnel()` does (four little-endian bytes). For H1–H3,
    /// the documents hash the decimal string, so this does too.
    pub fn positions_int(self, v: i32, out: &mut Vec<u64>) {
        match self {
            Strategy::H4 { .. } => self.positions_bytes(&v.to_le_bytes(), out),
            _ => self.positions_str(&v.to_string(), out),
        }
    }

    fn positions_bytes(self, bytes: &[u8], out: &mut Vec<u64>) {
        out.clear();
        let Strategy::H4 { bits, k } = self else {
            return;
        };
        // Guava's `Hashing.murmur3_128().hashBytes(b).asLong()`: the first word.
        let (hash64, _) = bloomlab_guava::murmur3_128(bytes);
        let h1 = hash64 as i32;
        let h2 = (hash64 >> 32) as i32;
        for i in 1..=k as i32 {
            let mut g = h1.wrapping_add(i.wrapping_mul(h2));
            if g < 0 {
                g = !g;
            }
            out.push((g % bits) as u64);
        }
    }
}

/// A plain bit array probed by one of the documents' strategies.
#[derive(Debug, Clone)]
pub struct NaiveFilter {
    strategy: Strategy,
    words: Vec<u64>,
    scratch: Vec<u64>,
}

impl NaiveFilter {
    /// An empty table of `strategy.bits()` bits.
    pub fn new(strategy: Strategy) -> Self {
        let words = vec![0; strategy.index_range().div_ceil(64) as usize];
        Self {
            strategy,
            words,
            scratch: Vec::new(),
        }
    }

    /// How the table turns items into positions.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Sets the bits of a string item.
    pub fn insert_str(&mut self, s: &str) {
        self.strategy.positions_str(s, &mut self.scratch);
        self.set_scratch();
    }

    /// Sets the bits of an `int` item.
    pub fn insert_int(&mut self, v: i32) {
        self.strategy.positions_int(v, &mut self.scratch);
        self.set_scratch();
    }

    /// Whether every bit of a string item is set.
    pub fn contains_str(&mut self, s: &str) -> bool {
        self.strategy.positions_str(s, &mut self.scratch);
        self.scratch_set()
    }

    /// Whether every bit of an `int` item is set.
    pub fn contains_int(&mut self, v: i32) -> bool {
        self.strategy.positions_int(v, &mut self.scratch);
        self.scratch_set()
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Sets the bits at the positions in the scratch buffer.
    fn set_scratch(&mut self) {
        for &p in &self.scratch {
            self.words[(p / 64) as usize] |= 1 << (p % 64);
        }
    }

    /// Whether the bits at the positions in the scratch buffer are all set.
    fn scratch_set(&self) -> bool {
        let set = |p: u64| self.words[(p / 64) as usize] & (1 << (p % 64)) != 0;
        self.scratch.iter().all(|&p| set(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_hash_code_matches_java() {
        // "hello".hashCode() == 99162322 and "polygenelubricants".hashCode() == Integer.MIN_VALUE in Java.
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
        assert_eq!(java_string_hash(""), 0);
        // UTF-16 code units: U+1F600 is a surrogate pair (0xD83D, 0xDE00).
        assert_eq!(java_string_hash("😀"), 0xD83D * 31 + 0xDE00);
    }

    #[test]
    fn poly_hash_with_seed_31_is_hash_code() {
        for s in ["", "a", "YuShiwen42", "xiaocheng999", "99999999"] {
            assert_eq!(seeded_poly_hash(31, s), java_string_hash(s));
        }
    }

    #[test]
    fn murmur3_matches_guava() {
        // Guava's test vector: murmur3_128 of the fox sentence is 6c1b07bc7bbc4be347939ac4a93c437a;
        // asLong() reads its first eight bytes little-endian.
        let (w, _) = bloomlab_guava::murmur3_128(b"The quick brown fox jumps over the lazy dog");
        assert_eq!(w, 0xe34b_bc7b_bc07_1b6c);
        assert_eq!(bloomlab_guava::murmur3_128(b""), (0, 0));
    }

    #[test]
    fn h3_matches_java_semantics() {
        // Computed independently (Python emulating Java int arithmetic) for "hello":
        // hashCode 99162322, spread 99163451; two seeds give the same index.
        let mut pos = Vec::new();
        Strategy::H3.positions_str("hello", &mut pos);
        let expected = [
            99_163_449, 32_054_579, 32_054_546, 99_163_449, 99_163_425, 32_054_586,
        ];
        assert_eq!(pos, expected);
    }

    #[test]
    fn filters_have_no_false_negatives() {
        for strategy in [
            Strategy::H1,
            Strategy::H2 { log2_bits: 30 },
            Strategy::H3,
            Strategy::H4 {
                bits: 14_377,
                k: 10,
            },
        ] {
            let mut pos = Vec::new();
            strategy.positions_str("x", &mut pos);
            assert_eq!(pos.len(), strategy.k() as usize);
            assert!(pos.iter().all(|&p| p < strategy.index_range()));
            let mut f = NaiveFilter::new(strategy);
            for i in 0..200 {
                f.insert_str(&format!("item{i}"));
                f.insert_int(i);
            }
            assert!((0..200).all(|i| f.contains_str(&format!("item{i}")) && f.contains_int(i)));
            assert!(f.count_ones() > 0);
        }
    }
}
