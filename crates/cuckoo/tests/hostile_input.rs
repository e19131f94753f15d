//! Tables a caller can ask for but no machine can hold: a typed error, never
//! an abort (issue 12, case 2).

use bloomlab_cuckoo::{BuildError, CuckooFilter};
use bloomlab_testkit::machine;

fn check(result: Result<CuckooFilter<u64>, BuildError>, bytes: u128) {
    machine::assert_refused_or_granted(result, BuildError::OutOfMemory { bytes }, bytes);
}

#[test]
fn two_to_the_32_buckets_of_eight_is_out_of_memory_not_an_abort() {
    // 2^32 buckets × 8 slots × 16 bits: 2^39 bits, 64 GiB.
    let f = CuckooFilter::builder_with_buckets(1 << 32, 16)
        .bucket_size(8)
        .build();
    check(f, 1 << 36);
}

#[test]
fn thirty_billion_items_is_out_of_memory_not_an_abort() {
    let plan = bloomlab_cuckoo::plan(30_000_000_000, 0.001, 8).unwrap();
    let bytes = (u128::from(plan.buckets) * 8 * u128::from(plan.fingerprint_bits)).div_ceil(64) * 8;
    let f = CuckooFilter::builder(30_000_000_000, 0.001)
        .bucket_size(8)
        .build();
    check(f, bytes);
}
