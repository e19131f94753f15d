//! The core conformance suite, run against the default schedule and against
//! RedisBloom's.

use bloomlab_scalable::ScalableBloomFilter;
use bloomlab_testkit::conformance;

/// The default schedule, RedisBloom's, and the default again with a filter
/// built for a tenth of the items, so that it fills four layers before the
/// rate is measured and persists all of them: `(redisbloom, divisor)`.
#[test]
fn conformance_of_each_schedule() {
    for (redisbloom, divisor) in [(false, 1), (true, 1), (false, 10)] {
        conformance::run(|n, p, seed| {
            let builder = ScalableBloomFilter::builder(n.div_ceil(divisor), p);
            let builder = if redisbloom {
                builder.redisbloom()
            } else {
                builder
            };
            builder.seed(seed).build()
        });
    }
}
