//! Tables: the documents' hashing and bloomlab's behind one small interface.

use super::*;

/// A table that takes string items.
pub(crate) trait StrTable {
    /// Adds `s`.
    fn put(&mut self, s: &str);
    /// Whether `s` is reported present.
    fn test(&mut self, s: &str) -> bool;
    /// Bits set.
    fn ones(&self) -> u64;
}

/// A table that takes Java `int` items.
pub(super) trait IntTable {
    fn put_int(&mut self, v: i32);
    fn test_int(&mut self, v: i32) -> bool;
}

impl StrTable for NaiveFilter {
    fn put(&mut self, s: &str) {
        self.insert_str(s);
    }
    fn test(&mut self, s: &str) -> bool {
        self.contains_str(s)
    }
    fn ones(&self) -> u64 {
        self.count_ones()
    }
}

impl IntTable for NaiveFilter {
    fn put_int(&mut self, v: i32) {
        self.insert_int(v);
    }
    fn test_int(&mut self, v: i32) -> bool {
        self.contains_int(v)
    }
}

impl<S: BuildHasher> StrTable for BloomFilter<str, S> {
    fn put(&mut self, s: &str) {
        // Never refused: a classic filter's insert cannot fail.
        let _ = self.insert(s);
    }
    fn test(&mut self, s: &str) -> bool {
        self.contains(s)
    }
    fn ones(&self) -> u64 {
        self.count_ones()
    }
}

impl<S: BuildHasher> IntTable for BloomFilter<i32, S> {
    fn put_int(&mut self, v: i32) {
        let _ = self.insert(&v);
    }
    fn test_int(&mut self, v: i32) -> bool {
        self.contains(&v)
    }
}

/// Guava's `BloomFilter` of `Funnels.integerFunnel()` (`putInt`, four
/// little-endian bytes), from [`bloomlab_guava`], which answers bit for bit
/// as Debian's Guava does (its fixtures are written by the real jar).
impl IntTable for GuavaBloomFilter<IntegerFunnel> {
    fn put_int(&mut self, v: i32) {
        self.put(&v);
    }
    fn test_int(&mut self, v: i32) -> bool {
        self.might_contain(&v)
    }
}

/// Guava's `BloomFilter.create(integerFunnel, n, p)`: its sizing and its
/// default strategy, `MURMUR128_MITZ_64`.
pub(super) fn guava_ints(n: u64, p: f64) -> Result<GuavaBloomFilter<IntegerFunnel>, Error> {
    GuavaBloomFilter::create(IntegerFunnel, n, p)
        .map_err(Error::filter("Guava create(integerFunnel)"))
}

/// The seeds of document 002's eight functions (CLAIMS.md H2).
pub(super) const H2_SEEDS: [i32; 8] = [3, 5, 7, 11, 13, 31, 37, 61];

/// What document 002's hashing is (CLAIMS.md H2).
pub(super) const H2_DOC: &str =
    "8 functions h = seed*h + c with seeds 3 5 7 11 13 31 37 61; index = (2^30-1) & h";

/// Document 002's eight functions over a table of `2^log2_bits` bits:
/// `(2^log2_bits − 1) & poly_hash(seed, s)` in Java `int` arithmetic. At 30
/// bits it is exactly [`Strategy::H2`]; a smaller table changes only the
/// document's constant `DEFAULT_SIZE`, so that E6 can run at the document's
/// bits per item with fewer items.
#[derive(Debug, Clone)]
pub(super) struct PolyTable {
    pub(super) mask: i32,
    pub(super) words: Vec<u64>,
}

impl PolyTable {
    /// Only the mask: positions without a table.
    pub(super) fn new_mask(log2_bits: u32) -> Self {
        Self {
            mask: ((1u64 << log2_bits) - 1) as i32,
            words: Vec::new(),
        }
    }

    pub(super) fn new(log2_bits: u32) -> Self {
        let bits = 1u64 << log2_bits;
        Self {
            mask: (bits - 1) as i32,
            words: vec![0; bits.div_ceil(64) as usize],
        }
    }

    pub(super) fn positions<'a>(&self, s: &'a str) -> impl Iterator<Item = u64> + use<'a> {
        let mask = self.mask;
        H2_SEEDS
            .iter()
            .map(move |&seed| (mask & seeded_poly_hash(seed, s)) as u64)
    }
}

impl StrTable for PolyTable {
    fn put(&mut self, s: &str) {
        let mut set = [0u64; 8];
        for (slot, p) in set.iter_mut().zip(self.positions(s)) {
            *slot = p;
        }
        for p in set {
            self.words[(p / 64) as usize] |= 1 << (p % 64);
        }
    }
    fn test(&mut self, s: &str) -> bool {
        self.positions(s)
            .all(|p| self.words[(p / 64) as usize] & (1 << (p % 64)) != 0)
    }
    fn ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// Inserts keys `0..n` of `keys`.
pub(crate) fn fill<T: StrTable + ?Sized>(table: &mut T, keys: Keys, n: u64) {
    let mut buf = String::new();
    for i in 0..n {
        keys.write(i, &mut buf);
        table.put(&buf);
    }
}

/// How many of keys `range` of `keys` the table reports present.
pub(crate) fn hits<T: StrTable + ?Sized>(table: &mut T, keys: Keys, range: Range<u64>) -> u64 {
    let mut buf = String::new();
    let mut hits = 0;
    for i in range {
        keys.write(i, &mut buf);
        hits += u64::from(table.test(&buf));
    }
    hits
}

pub(super) fn fill_ints(table: &mut impl IntTable, range: Range<i32>) {
    for v in range {
        table.put_int(v);
    }
}

pub(super) fn hits_ints(table: &mut impl IntTable, range: Range<i32>) -> u64 {
    range.map(|v| u64::from(table.test_int(v))).sum()
}

/// bloomlab's filter of exactly `m` bits and `k` hashes, its key from `seed`.
pub(super) fn ours<T: ?Sized>(m: u64, k: u32, seed: u64) -> Result<BloomFilter<T>, Error> {
    BloomFilter::builder_with_bits(m, k)
        .seed(seed)
        .build()
        .map_err(Error::filter(format!(
            "BloomFilter of {m} bits and {k} hashes"
        )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guava_create_reproduces_the_documents_fourteen() {
        // Document 000 ran Guava's create(integerFunnel, 1000, 0.001), put 0..999
        // and found 14 of 11000..20999 reported present.
        let mut g = guava_ints(1_000, 0.001).unwrap();
        assert_eq!((g.bit_size(), g.num_hash_functions()), (14_400, 10));
        fill_ints(&mut g, 0..1_000);
        assert!((0..1_000).all(|v| g.test_int(v)));
        assert_eq!(hits_ints(&mut g, 11_000..21_000), 14);
    }

    #[test]
    fn poly_table_at_2_pow_30_is_document_002() {
        let t = PolyTable::new(30);
        let mut want = Vec::new();
        for s in ["0", "99999999", "234567890", "YuShiwen42", "a@qq.com"] {
            Strategy::H2.positions_str(s, &mut want);
            let got: Vec<u64> = t.positions(s).collect();
            assert_eq!(got, want, "{s}");
        }
    }
}
