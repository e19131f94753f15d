//! Sizes a caller can choose but no machine can hold: a typed error, never
//! an abort (issue 12, case 2).

use bloomlab_counting::{BuildError, CountingBloomFilter};

/// Whether this machine's allocator refuses a request larger than its memory
/// (Linux overcommit modes 0 and 2). In mode 1 every request succeeds
/// lazily, and the filter is built instead; either way nothing aborts.
fn refuses_oversized_requests() -> bool {
    std::fs::read_to_string("/proc/sys/vm/overcommit_memory").is_ok_and(|m| m.trim() != "1")
}

fn check(result: Result<CountingBloomFilter, BuildError>, bytes: u128) {
    match result {
        Err(BuildError::OutOfMemory { bytes: b }) => assert_eq!(b, bytes),
        Err(e) => panic!("expected OutOfMemory, got {e}"),
        Ok(f) => {
            assert!(!refuses_oversized_requests(), "{bytes} bytes were granted");
            assert_eq!(f.memory_bytes() as u128, bytes);
        }
    }
}

#[test]
fn a_trillion_items_is_out_of_memory_not_an_abort() {
    // 9.59·10^12 counters of 4 bits: the 4.8 TB the process used to abort on.
    let f = CountingBloomFilter::new(1_000_000_000_000, 0.01);
    check(f, 4_796_477_358_560);
    let e = CountingBloomFilter::new(1_000_000_000_000, 0.01).err();
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
