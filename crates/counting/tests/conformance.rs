//! The core conformance suite, run against the counting filter at each width.

use bloomlab_counting::CountingBloomFilter;
use bloomlab_testkit::conformance;

#[test]
fn conformance_default_width() {
    conformance::run(|n, p, seed| CountingBloomFilter::builder(n, p).seed(seed).build());
}

#[test]
fn conformance_sixteen_bit_counters() {
    conformance::run(|n, p, seed| {
        CountingBloomFilter::builder(n, p)
            .seed(seed)
            .counter_width(16)
            .build()
    });
}
