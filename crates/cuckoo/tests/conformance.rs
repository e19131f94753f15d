//! The core conformance suite, run against the cuckoo filter.

use bloomlab_cuckoo::CuckooFilter;

#[test]
fn conformance() {
    bloomlab_testkit::conformance::run(|n, p, seed| {
        CuckooFilter::builder(n, p).seed(seed).build().unwrap()
    });
}

#[test]
fn conformance_with_two_and_eight_slot_buckets() {
    for b in [2, 8] {
        bloomlab_testkit::conformance::run(|n, p, seed| {
            CuckooFilter::builder(n, p)
                .bucket_size(b)
                .seed(seed)
                .build()
                .unwrap()
        });
    }
}
