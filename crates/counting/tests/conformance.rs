//! The core conformance suite, run against the counting filter at each width.

use bloomlab_counting::CountingBloomFilter;
use bloomlab_testkit::conformance;

/// The default width, then 16-bit counters.
#[test]
fn conformance_at_each_width() {
    for width in [None, Some(16)] {
        conformance::run(|n, p, seed| {
            let builder = CountingBloomFilter::builder(n, p).seed(seed);
            match width {
                Some(width) => builder.counter_width(width).build(),
                None => builder.build(),
            }
        });
    }
}
