//! The core conformance suite, run against the cuckoo filter.

use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::conformance;

#[test]
fn conformance() {
    conformance::run(|n, p, seed| CuckooFilter::builder(n, p).seed(seed).build());
}

#[test]
fn conformance_with_two_and_eight_slot_buckets() {
    for b in [2, 8] {
        conformance::run(|n, p, seed| {
            CuckooFilter::builder(n, p)
                .bucket_size(b)
                .seed(seed)
                .build()
        });
    }
}
