//! The core conformance suite, run against the default schedule and against
//! RedisBloom's.

use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::conformance;

#[test]
fn conformance_default_schedule() {
    conformance::run(|n, p, seed| ScalableBloomFilter::builder(n, p).seed(seed).build());
}

#[test]
fn conformance_redisbloom_schedule() {
    conformance::run(|n, p, seed| {
        ScalableBloomFilter::builder(n, p)
            .redisbloom()
            .seed(seed)
            .build()
    });
}

/// The suite again, with a filter built for a tenth of the items so that it
/// fills four layers before the rate is measured, and persists all of them.
#[test]
fn conformance_after_growth() {
    conformance::run(|n, p, seed| {
        ScalableBloomFilter::builder(n.div_ceil(10), p)
            .seed(seed)
            .build()
    });
}
