//! Sizes a caller can choose but no machine can hold: a typed error, never
//! an abort (issue 12, case 2).

use bloomlab_counting::{BuildError, CountingBloomFilter};
use bloomlab_testkit::machine;

fn check(result: Result<CountingBloomFilter<u64>, BuildError>, bytes: u128) {
    machine::assert_refused_or_granted(result, BuildError::OutOfMemory { bytes }, bytes);
}

#[test]
fn a_trillion_items_is_out_of_memory_not_an_abort() {
    // 9.59·10^12 counters of 4 bits: the 4.8 TB the process used to abort on.
    let f = CountingBloomFilter::new(1_000_000_000_000, 0.01);
    check(f, 4_796_477_358_560);
    let e = CountingBloomFilter::<u64>::new(1_000_000_000_000, 0.01).err();
    if let Some(e) = e {
        assert_eq!(
            e.to_string(),
            "could not allocate a table of 4796477358560 bytes"
        );
    }
}

#[test]
fn two_to_the_45_counters_is_out_of_memory_not_an_abort() {
    // 2^45 counters of 4 bits: 2^47 bits, 16 TiB.
    check(CountingBloomFilter::with_counters(1 << 45, 3, 4), 1 << 44);
}
