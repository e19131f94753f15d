//! Tables: the documents' hashing and bloomlab's behind one small interface,
//! and the measurement of a table's rate.

use super::*;

/// A table of bits that takes items `Q` (strings, Java `int`s, or 64-bit
/// keys) and can say where an item's bits are.
pub(crate) trait BitTable<Q> {
    /// Adds `item`.
    fn put(&mut self, item: &Q);
    /// Whether `item` is reported present.
    fn test(&mut self, item: &Q) -> bool;
    /// Bits set.
    fn ones(&self) -> u64;
    /// The positions of `item`, appended to `out`.
    fn locate(&self, item: &Q, out: &mut Vec<u64>);
}

impl BitTable<String> for NaiveFilter {
    fn put(&mut self, s: &String) {
        self.insert_str(s);
    }
    fn test(&mut self, s: &String) -> bool {
        self.contains_str(s)
    }
    fn ones(&self) -> u64 {
        self.count_ones()
    }
    fn locate(&self, s: &String, out: &mut Vec<u64>) {
        self.strategy().positions_str(s, out);
    }
}

impl BitTable<i32> for NaiveFilter {
    fn put(&mut self, v: &i32) {
        self.insert_int(*v);
    }
    fn test(&mut self, v: &i32) -> bool {
        self.contains_int(*v)
    }
    fn ones(&self) -> u64 {
        self.count_ones()
    }
    fn locate(&self, v: &i32, out: &mut Vec<u64>) {
        self.strategy().positions_int(*v, out);
    }
}

/// bloomlab's filter of `T`, given items that borrow as `T` (a `String` for
/// a filter of `str`).
impl<T: Hash + ?Sized, S: BuildHasher, Q: Borrow<T>> BitTable<Q> for BloomFilter<T, S> {
    fn put(&mut self, item: &Q) {
        // Never refused: a classic filter's insert cannot fail.
        let _ = self.insert(item.borrow());
    }
    fn test(&mut self, item: &Q) -> bool {
        self.contains(item.borrow())
    }
    fn ones(&self) -> u64 {
        self.count_ones()
    }
    /// The positions of the item's one keyed hash.
    fn locate(&self, item: &Q, out: &mut Vec<u64>) {
        let h = self.hasher().hash_one(item.borrow());
        let positions = self.scheme().positions(h, self.num_bits());
        out.extend(positions.take(self.num_hashes() as usize));
    }
}

/// Guava's `BloomFilter` of `Funnels.integerFunnel()` (`putInt`, four
/// little-endian bytes), from [`bloomlab_guava`], which answers bit for bit
/// as Debian's Guava does (its fixtures are written by the real jar).
impl BitTable<i32> for GuavaBloomFilter<IntegerFunnel> {
    fn put(&mut self, v: &i32) {
        GuavaBloomFilter::put(self, v);
    }
    fn test(&mut self, v: &i32) -> bool {
        self.might_contain(v)
    }
    fn ones(&self) -> u64 {
        self.bit_count()
    }
    fn locate(&self, v: &i32, out: &mut Vec<u64>) {
        out.extend(self.bit_indexes(v));
    }
}

/// Guava's `BloomFilter.create(integerFunnel, n, p)`: its sizing and its
/// default strategy, `MURMUR128_MITZ_64`.
pub(super) fn guava_ints(n: u64, p: f64) -> Result<GuavaBloomFilter<IntegerFunnel>, Error> {
    GuavaBloomFilter::create(IntegerFunnel, n, p)
        .map_err(Error::filter("Guava create(integerFunnel)"))
}

/// What document 002's hashing is (CLAIMS.md H2).
pub(super) const H2_DOC: &str =
    "8 functions h = seed*h + c with seeds 3 5 7 11 13 31 37 61; index = (2^30-1) & h";

/// Inserts `items`.
pub(crate) fn fill<Q, T: BitTable<Q> + ?Sized>(table: &mut T, items: impl IntoIterator<Item = Q>) {
    for item in items {
        table.put(&item);
    }
}

/// How many of `items` the table reports present.
pub(crate) fn hits<Q, T: BitTable<Q> + ?Sized>(
    table: &mut T,
    items: impl IntoIterator<Item = Q>,
) -> u64 {
    items.into_iter().map(|q| u64::from(table.test(&q))).sum()
}

/// The rate of `table` (`m` bits, `k` hashes, `n` items) on the probes
/// `probes()` yields, with its bits set and, from the probes' positions,
/// this table's own rate.
pub(super) fn measure<Q, I: Iterator<Item = Q>, T: BitTable<Q> + ?Sized>(
    table: &mut T,
    (m, k, n): (u64, u32, u64),
    probes: impl Fn() -> I,
) -> Rate {
    let (mut count, mut fp) = (0, 0);
    for q in probes() {
        count += 1;
        fp += u64::from(table.test(&q));
    }
    let ones = table.ones();
    let fill = ones as f64 / m as f64;
    let mut rate = Rate::new(m, k, n, count, fp).with_ones(ones);
    rate.uniform = Some(uniform(fill, k, probes(), |q, out| table.locate(q, out)));
    rate
}

/// [`measure`] of `table` filled with keys `0..n` of `members`, on
/// `env.probes` of `probes`.
pub(super) fn filled<T: BitTable<String> + ?Sized>(
    env: &Env<'_>,
    table: &mut T,
    (m, k, n): (u64, u32, u64),
    members: Keys,
    probes: Keys,
) -> Rate {
    fill(table, strings(members, 0..n));
    measure(table, (m, k, n), || strings(probes, 0..env.probes))
}

/// [`measure`] of `f` holding `n` random keys from `seed`, on `env.probes`
/// random probes from it.
pub(super) fn filled_keys(env: &Env<'_>, f: &mut BloomFilter<u64>, n: u64, seed: u64) -> Rate {
    f.extend(members(sub_seed(seed, "members"), n as usize));
    let mkn = (f.num_bits(), f.num_hashes(), n);
    measure(f, mkn, || {
        probes(sub_seed(seed, "probes"), env.probes as usize)
    })
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

/// Document 000's helper (H4): MITZ_32 on `m` bits (a Java `int`) with `k` hashes.
pub(super) fn h4_filter(m: u64, k: u32) -> Result<NaiveFilter, Error> {
    let bits = i32::try_from(m).map_err(Error::size("bits as a Java int"))?;
    Ok(NaiveFilter::new(Strategy::H4 { bits, k }))
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
        fill(&mut g, 0..1_000);
        assert!((0..1_000).all(|v| g.might_contain(&v)));
        assert_eq!(hits(&mut g, 11_000..21_000), 14);
    }

    #[test]
    fn h2_at_2_pow_30_is_document_002() {
        // The smaller tables of E6 differ only in the mask.
        let (mut want, mut got) = (Vec::new(), Vec::new());
        for s in ["0", "99999999", "234567890", "YuShiwen42", "a@qq.com"] {
            Strategy::H2 { log2_bits: 30 }.positions_str(s, &mut want);
            Strategy::H2 { log2_bits: 20 }.positions_str(s, &mut got);
            let masked: Vec<u64> = want.iter().map(|p| p & ((1 << 20) - 1)).collect();
            assert_eq!(got, masked, "{s}");
        }
    }
}
