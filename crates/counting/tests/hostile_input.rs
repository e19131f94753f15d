//! Sizes a caller can choose but no machine can hold: a typed error, never
//! an abort (issue 12, case 2).

use bloomlab_counting::{BuildError, CountingBloomFilter};
use bloomlab_testkit::machine;

fn check(result: Result<CountingBloomFilter<u64>, BuildError>, bytes: u128) {
    machine::assert_refused_or_granted(result, BuildError::OutOfMemory { bytes }, bytes);
}

#[test]
fn a_trillion_items_is_out_of_memory_not_an_abort() {
    // 9.85·10^12 counters of 4 bits: 4.9 TB (the process used to abort on 4.8).
    let f = CountingBloomFilter::new(1_000_000_000_000, 0.01);
    check(f, 4_924_401_827_104);
    let e = CountingBloomFilter::<u64>::new(1_000_000_000_000, 0.01).err();
    if let Some(e) = e {
        assert_eq!(
            e.to_string(),
            "could not allocate a table of 4924401827104 bytes"
        );
    }
}

#[test]
fn two_to_the_45_counters_is_out_of_memory_not_an_abort() {
    // 2^45 counters of 4 bits: 2^47 bits, 16 TiB.
    check(CountingBloomFilter::with_counters(1 << 45, 3, 4), 1 << 44);
}
