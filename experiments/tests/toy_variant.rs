//! Variants defined and registered in this file alone join the chooser,
//! the trade-off, fpr and space experiments and the bench list: nothing
//! else names them. One toy takes inserts (a bit array probed by one
//! hash); the other is built at once from its keys (their sorted
//! fingerprints), as a static filter is.

use std::hash::Hasher;
use std::sync::Arc;

use bloomlab::catalog::{
    AnyFilter, Build, BuildError, Capabilities, Catalog, Descriptor, Lines, Plan, State, Table,
    Value,
};
use bloomlab::{DecodeError, Deletable, Filter, InsertError, Lookup, Membership, ParamError};
use bloomlab_experiments::exp::{self, Ctx, Output};
use bloomlab_experiments::scale::Scale;

/// The largest table the toy builds: a rate it cannot reach in this
/// much memory is refused, as a real crate refuses a table too large.
const MAX_BYTES: u128 = 1 << 24;

/// `m` bits, one hash: a false positive is a probe landing on a set bit.
#[derive(Debug)]
struct OneHash {
    bits: u64,
}

impl Table for OneHash {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![("bits", Value::Count(self.bits))]
    }
    fn fpr(&self, items: u64) -> f64 {
        1.0 - (-(items as f64) / self.bits as f64).exp()
    }
    fn theory_bits_per_item(&self, eps: f64, _items: u64) -> f64 {
        // 1 − e^(−n/m) = ε  ⇒  m/n = 1 / ln(1/(1 − ε)).
        1.0 / (1.0 / (1.0 - eps)).ln()
    }
    fn lookup_lines(&self, _items: u64) -> Lines {
        Lines {
            hit: 1.0,
            miss: 1.0,
        }
    }
}

fn plan(n: u64, p: f64) -> Result<Plan, ParamError> {
    bloomlab::core::check_fpr(p)?;
    if n == 0 {
        return Err(ParamError::ZeroItems);
    }
    let per_item = OneHash { bits: 1 }.theory_bits_per_item(p, n);
    let bits = ((n as f64 * per_item).ceil() as u64).div_ceil(64) * 64;
    Ok(Plan::new(OneHash { bits }, u128::from(bits / 8)))
}

/// The toy filter.
struct ToyFilter {
    seed: u64,
    words: Vec<u64>,
    len: usize,
}

impl ToyFilter {
    fn new(n: usize, p: f64, seed: u64) -> Result<Self, ParamError> {
        let plan = plan(n as u64, p)?;
        if plan.memory_bytes > MAX_BYTES {
            return Err(ParamError::TooLarge {
                needed: plan.memory_bytes,
                limit: MAX_BYTES,
            });
        }
        Ok(ToyFilter {
            seed,
            words: vec![0; (plan.memory_bytes / 8) as usize],
            len: 0,
        })
    }

    fn bit(&self, item: &u64) -> (usize, u64) {
        // SipHash with fixed keys, keyed by the seed written first.
        let mut h = std::hash::DefaultHasher::new();
        h.write_u64(self.seed);
        h.write_u64(*item);
        let bit = h.finish() % (self.words.len() as u64 * 64);
        ((bit / 64) as usize, 1 << (bit % 64))
    }
}

impl Filter for ToyFilter {
    fn len(&self) -> usize {
        self.len
    }
    fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }
    fn expected_fpr(&self) -> f64 {
        self.table().fpr(self.len as u64)
    }
    fn clear(&mut self) {
        self.words.fill(0);
        self.len = 0;
    }
}

impl Membership<u64> for ToyFilter {
    fn insert(&mut self, item: &u64) -> Result<bool, InsertError> {
        let (word, mask) = self.bit(item);
        let new = self.words[word] & mask == 0;
        self.words[word] |= mask;
        self.len += 1;
        Ok(new)
    }
    fn contains(&self, item: &u64) -> bool {
        let (word, mask) = self.bit(item);
        self.words[word] & mask != 0
    }
}

impl AnyFilter<u64> for ToyFilter {
    fn table(&self) -> Arc<dyn Table> {
        Arc::new(OneHash {
            bits: self.words.len() as u64 * 64,
        })
    }
    fn as_membership(&mut self) -> Option<&mut dyn Membership<u64>> {
        Some(self)
    }
    fn into_membership(self: Box<Self>) -> Option<Box<dyn Membership<u64>>> {
        Some(self)
    }
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<u64>> {
        None
    }
    fn to_bytes(&self) -> Vec<u8> {
        le_bytes(&[self.seed, self.len as u64], &self.words)
    }
    fn state(&self) -> State {
        let ones: u32 = self.words.iter().map(|w| w.count_ones()).sum();
        let fill = f64::from(ones) / (self.words.len() as f64 * 64.0);
        State {
            parameters: self.table().parameters(),
            fill_ratio: fill,
            len: self.len as u64,
            estimate_count: -(self.words.len() as f64 * 64.0) * (1.0 - fill).ln(),
            estimated_fpr: fill,
            estimated_from: "the bits set",
        }
    }
    fn lookup_lines(&self) -> usize {
        1
    }
}

/// The toy filters' byte format: little-endian words, a header then a body.
fn le_bytes(head: &[u64], body: &[u64]) -> Vec<u8> {
    head.iter()
        .chain(body)
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

/// The words of [`le_bytes`]' output (a trailing part word is dropped; the
/// decoders check the length).
fn le_words(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect()
}

fn decode(bytes: &[u8]) -> Result<Box<dyn AnyFilter<u64>>, DecodeError> {
    let words = le_words(bytes);
    match words.as_slice() {
        [seed, len, table @ ..] if !table.is_empty() && bytes.len().is_multiple_of(8) => {
            Ok(Box::new(ToyFilter {
                seed: *seed,
                len: *len as usize,
                words: table.to_vec(),
            }))
        }
        _ => Err(DecodeError::Truncated),
    }
}

fn toy() -> Descriptor<u64> {
    Descriptor {
        id: "toy",
        type_name: "ToyFilter",
        option: "",
        crate_name: "toy",
        tag: 0x7e57,
        can: Capabilities::default(),
        caveat: "one hash: many bits per item",
        plan,
        choices: Descriptor::<u64>::as_built(plan),
        build: Build::Empty(|n, p, seed| BuildError::boxed("toy", ToyFilter::new(n, p, seed))),
        decode,
    }
}

/// `f`-bit fingerprints of `items` keys, sorted: a probe is a false
/// positive when its fingerprint is among them.
#[derive(Debug)]
struct Prints {
    items: u64,
    bits: u32,
}

impl Prints {
    /// The width for rate `p` with `n` keys: `⌈log2(n/p)⌉`, at most 64.
    fn width(n: u64, p: f64) -> u32 {
        ((n.max(1) as f64 / p).log2().ceil() as u32).clamp(1, 64)
    }
}

impl Table for Prints {
    fn parameters(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("items", Value::Count(self.items)),
            ("fingerprint_bits", Value::Count(self.bits.into())),
        ]
    }
    fn fpr(&self, items: u64) -> f64 {
        // Any of `items` fingerprints matching: 1 − (1 − 2^−f)^items.
        -(items as f64 * (-(-f64::from(self.bits)).exp2()).ln_1p()).exp_m1()
    }
    fn theory_bits_per_item(&self, _eps: f64, _items: u64) -> f64 {
        // Stored in whole words.
        64.0
    }
    fn lookup_lines(&self, items: u64) -> Lines {
        let depth = (items.max(1) as f64).log2().ceil();
        Lines {
            hit: depth,
            miss: depth,
        }
    }
}

fn plan_prints(n: u64, p: f64) -> Result<Plan, ParamError> {
    bloomlab::core::check_fpr(p)?;
    let bits = Prints::width(n, p);
    Ok(Plan::new(Prints { items: n, bits }, u128::from(n) * 8))
}

/// The static toy: sorted fingerprints, built from the keys.
struct Sorted {
    seed: u64,
    bits: u32,
    prints: Vec<u64>,
    keys: usize,
}

impl Sorted {
    fn print(seed: u64, bits: u32, key: &u64) -> u64 {
        let mut h = std::hash::DefaultHasher::new();
        h.write_u64(seed);
        h.write_u64(*key);
        h.finish() >> (64 - bits)
    }

    fn from_keys(keys: &[&u64], p: f64, seed: u64) -> Result<Self, ParamError> {
        bloomlab::core::check_fpr(p)?;
        if keys.is_empty() {
            return Err(ParamError::ZeroItems);
        }
        let bits = Prints::width(keys.len() as u64, p);
        let mut prints: Vec<u64> = keys.iter().map(|k| Self::print(seed, bits, k)).collect();
        prints.sort_unstable();
        Ok(Sorted {
            seed,
            bits,
            prints,
            keys: keys.len(),
        })
    }
}

impl Filter for Sorted {
    fn len(&self) -> usize {
        self.keys
    }
    fn memory_bytes(&self) -> usize {
        self.prints.len() * 8
    }
    fn expected_fpr(&self) -> f64 {
        self.table().fpr(self.keys as u64)
    }
    fn clear(&mut self) {
        self.prints.clear();
        self.keys = 0;
    }
}

impl Lookup<u64> for Sorted {
    fn contains(&self, item: &u64) -> bool {
        let print = Self::print(self.seed, self.bits, item);
        self.prints.binary_search(&print).is_ok()
    }
}

impl AnyFilter<u64> for Sorted {
    fn table(&self) -> Arc<dyn Table> {
        Arc::new(Prints {
            items: self.keys as u64,
            bits: self.bits,
        })
    }
    fn as_membership(&mut self) -> Option<&mut dyn Membership<u64>> {
        None
    }
    fn into_membership(self: Box<Self>) -> Option<Box<dyn Membership<u64>>> {
        None
    }
    fn as_deletable(&mut self) -> Option<&mut dyn Deletable<u64>> {
        None
    }
    fn to_bytes(&self) -> Vec<u8> {
        le_bytes(
            &[self.seed, u64::from(self.bits), self.keys as u64],
            &self.prints,
        )
    }
    fn state(&self) -> State {
        State {
            parameters: self.table().parameters(),
            fill_ratio: 1.0,
            len: self.keys as u64,
            estimate_count: self.keys as f64,
            estimated_fpr: self.expected_fpr(),
            estimated_from: "the fingerprints stored",
        }
    }
    fn lookup_lines(&self) -> usize {
        self.table().lookup_lines(self.keys as u64).miss as usize
    }
}

fn decode_sorted(bytes: &[u8]) -> Result<Box<dyn AnyFilter<u64>>, DecodeError> {
    let words = le_words(bytes);
    match words.as_slice() {
        [seed, bits @ 1..=64, keys, prints @ ..] if bytes.len().is_multiple_of(8) => {
            Ok(Box::new(Sorted {
                seed: *seed,
                bits: *bits as u32,
                keys: *keys as usize,
                prints: prints.to_vec(),
            }))
        }
        _ => Err(DecodeError::Truncated),
    }
}

fn sorted() -> Descriptor<u64> {
    Descriptor {
        id: "toy-sorted",
        type_name: "SortedPrints",
        option: "",
        crate_name: "toy",
        tag: 0x7e58,
        can: Capabilities {
            from_keys: true,
            ..Capabilities::default()
        },
        caveat: "built from its keys: a changed set is built anew",
        plan: plan_prints,
        choices: Descriptor::<u64>::as_built(plan_prints),
        build: Build::FromKeys(|keys, p, seed| {
            BuildError::boxed("toy-sorted", Sorted::from_keys(keys, p, seed))
        }),
        decode: decode_sorted,
    }
}

fn catalog() -> &'static Catalog<u64> {
    Box::leak(Box::new(Catalog::standard().with(toy()).with(sorted())))
}

/// The rows of `output`'s table `name` whose first column is `id`.
fn rows_of(output: &Output, name: &str, id: &str) -> usize {
    let (_, table) = output
        .tables
        .iter()
        .find(|(file, _)| file == name)
        .unwrap_or_else(|| panic!("no {name}"));
    table.rows().iter().filter(|row| row[0] == id).count()
}

#[test]
fn a_registered_variant_joins_everything() {
    let catalog = catalog();
    let ctx = Ctx {
        scale: Scale::Quick,
        seed: 2024,
        catalog,
    };

    // The chooser weighs it, and its table and text name it.
    let w = bloomlab_choose::Workload::fixed(10_000, 0.01);
    let report = bloomlab_choose::choose_in(catalog, &w);
    let mine = report
        .candidates
        .iter()
        .find(|c| c.id == "toy")
        .expect("the chooser weighs the toy");
    let figures = mine.figures.as_ref().expect("sized");
    assert_eq!(
        figures.memory_bytes as u128,
        plan(10_000, 0.01).unwrap().memory_bytes
    );
    let text = bloomlab_choose::render::text(&report);
    assert!(text.contains("ToyFilter") && text.contains("SortedPrints"));
    // The static one is weighed, and ruled out: the workload inserts.
    let sorted = report
        .candidates
        .iter()
        .find(|c| c.id == "toy-sorted")
        .unwrap();
    assert!(
        sorted
            .reasons
            .iter()
            .any(|r| r.why.contains("from its keys"))
    );

    // Each rate of the trade-off table, a row.
    let tradeoff = exp::tradeoff::run(&ctx).unwrap();
    for id in ["toy", "toy-sorted"] {
        assert_eq!(rows_of(&tradeoff, "tradeoff.csv", id), 3, "{id}");
        assert!(tradeoff.section.body.contains(&format!("| {id} |")), "{id}");
    }

    // Its rate measured against its theory, target by target and load by
    // load (the static one built anew at each load).
    let fpr = exp::fpr::run(&ctx).unwrap();
    for id in ["toy", "toy-sorted"] {
        assert!(rows_of(&fpr, "fpr.csv", id) > 0, "{id}");
    }

    // Its space at every rate it can be built for (the one-hash toy not at
    // the lowest: 16 MiB).
    let space = exp::space::run(&ctx).unwrap();
    let rows = rows_of(&space, "space.csv", "toy");
    assert!(rows > 0 && rows < exp::space::TARGETS.len(), "{rows}");
    assert_eq!(
        rows_of(&space, "space.csv", "toy-sorted"),
        exp::space::TARGETS.len()
    );

    // And a row of every catalog bench group.
    let benches = bloomlab_benches::catalog::bench_list(catalog);
    assert_eq!(
        benches[benches.len() - 2..],
        ["bloomlab toy", "bloomlab toy-sorted"]
    );
}
