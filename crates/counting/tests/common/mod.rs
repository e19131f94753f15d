//! What the counting filter's test files share.

use bloomlab_counting::CountingBloomFilter;

/// An empty filter of `counters` counters of the default width and `hashes`
/// hashes, its hash key derived from `seed`.
pub fn seeded<T: ?Sized>(counters: u64, hashes: u32, seed: u64) -> CountingBloomFilter<T> {
    CountingBloomFilter::builder_with_counters(counters, hashes)
        .seed(seed)
        .build()
        .unwrap()
}
