//! Issue 50's question about the hash: does bloomlab-core's own AES-128-CMAC
//! (`AesCmac`: its CMAC mode, with AES-NI rounds in the module `raw`) earn
//! its place against RustCrypto's `cmac::Cmac<aes::Aes128>`, whose `aes`
//! picks AES-NI at run time too? The rule: keep it only if it is at
//! least 1.25 times as fast on a `u64`.
//!
//! Every row computes the same function, the one stored filters were
//! written with: the first eight bytes, little-endian, of the CMAC of the
//! bytes an item's `Hash` impl writes, under the key of
//! `DefaultHasher::from_seed(7)`. The setup checks that the three rows agree
//! on every item before anything is timed. Items are a `u64`, a 16-byte
//! string and a 64-byte string (a string's `Hash` adds one byte, `0xff`);
//! each iteration hashes a batch of distinct items, so the report reads ns
//! per hash.
//!
//! The rows:
//! - `AesCmac::hash_one`: what every filter calls.
//! - `Cmac<Aes128>, keyed once, cloned per hash`: what a `BuildHasher` over
//!   the crates would do, since `hash_one` takes `&self` and `Cmac`'s
//!   `finalize` consumes it. The key schedule is expanded once; the clone
//!   copies it.
//! - `Cmac<Aes128>, one, finalize_reset`: the crate at its cheapest, one
//!   `Cmac` reset after each tag. A filter could use it only behind a lock
//!   or per thread; it is here to show what the clone costs.
//!
//! `cargo bench -p bloomlab-benches --bench cmac -- --warm-up-time 1
//! --measurement-time 3` gives the numbers quoted in
//! `bloomlab-core`'s `cmac` module.

use std::hash::{BuildHasher, Hash, Hasher};
use std::hint::black_box;

use aes::Aes128;
use aes::cipher::KeyInit;
use bloomlab_core::{AesCmac, DefaultHasher};
use cmac::{Cmac, Mac};
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};

/// Items per iteration.
const ITEMS: usize = 1_000;
const SEED: u64 = 7;

/// Feeds what an item's `Hash` impl writes to a `Cmac`.
struct Feed<'m>(&'m mut Cmac<Aes128>);

impl Hasher for Feed<'_> {
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    fn finish(&self) -> u64 {
        unreachable!("the tag is taken from the Cmac itself")
    }
}

/// The hash from a `Cmac` that has been fed an item.
fn first_word(mac: Cmac<Aes128>) -> u64 {
    let tag = mac.finalize().into_bytes();
    u64::from_le_bytes(tag[..8].try_into().expect("a 16-byte tag"))
}

/// The hash of `item` by a clone of the keyed `mac`.
fn by_clone<T: Hash + ?Sized>(mac: &Cmac<Aes128>, item: &T) -> u64 {
    let mut mac = mac.clone();
    item.hash(&mut Feed(&mut mac));
    first_word(mac)
}

/// The hash of `item` by `mac`, left reset for the next one.
fn by_reset<T: Hash + ?Sized>(mac: &mut Cmac<Aes128>, item: &T) -> u64 {
    item.hash(&mut Feed(mac));
    let tag = mac.finalize_reset().into_bytes();
    u64::from_le_bytes(tag[..8].try_into().expect("a 16-byte tag"))
}

/// `Cmac<Aes128>` under `hasher`'s key (its words' little-endian bytes).
fn crate_mac(hasher: &AesCmac) -> Cmac<Aes128> {
    let [a, b] = hasher.key();
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&a.to_le_bytes());
    key[8..].copy_from_slice(&b.to_le_bytes());
    <Cmac<Aes128> as KeyInit>::new_from_slice(&key).expect("a 16-byte key")
}

/// `ITEMS` distinct strings of `len` bytes.
fn strings(len: usize) -> Vec<String> {
    (0..ITEMS as u64)
        .map(|i| format!("{:0len$x}", i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .map(|s| s[s.len() - len..].to_owned())
        .collect()
}

/// The three rows over `items`, after checking that they agree.
fn rows<T: Hash + ?Sized>(c: &mut Criterion, input: &str, items: &[&T]) {
    let ours = AesCmac::from_key(DefaultHasher::from_seed(SEED).key());
    let keyed = crate_mac(&ours);
    let mut reused = keyed.clone();
    for item in items {
        let want = ours.hash_one(item);
        assert_eq!(
            by_clone(&keyed, item),
            want,
            "the clone row computes another hash"
        );
        assert_eq!(
            by_reset(&mut reused, item),
            want,
            "the reset row computes another hash"
        );
    }

    let mut group = c.benchmark_group("cmac");
    group.throughput(Throughput::Elements(items.len() as u64));
    row(&mut group, "AesCmac::hash_one", input, items, |item| {
        ours.hash_one(item)
    });
    let name = "Cmac<Aes128>, keyed once, cloned per hash";
    row(&mut group, name, input, items, |item| {
        by_clone(&keyed, item)
    });
    let name = "Cmac<Aes128>, one, finalize_reset";
    row(&mut group, name, input, items, |item| {
        by_reset(&mut reused, item)
    });
    group.finish();
}

/// The row `name` at `input`: `hash` of every item, once an iteration.
fn row<T: ?Sized>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    input: &str,
    items: &[&T],
    mut hash: impl FnMut(&T) -> u64,
) {
    group.bench_function(BenchmarkId::new(name, input), |b| {
        b.iter(|| {
            let items = black_box(items);
            items.iter().fold(0u64, |acc, item| acc ^ hash(item))
        })
    });
}

fn bench(c: &mut Criterion) {
    let words: Vec<u64> = (0..ITEMS as u64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    rows(c, "u64", &words.iter().collect::<Vec<_>>());
    for len in [16, 64] {
        let texts = strings(len);
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        rows::<str>(c, &format!("{len}-byte string"), &texts);
    }
}

criterion_group! {
    name = benches;
    config = bloomlab_benches::harness::criterion();
    targets = bench
}
criterion_main!(benches);
