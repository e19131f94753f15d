//! Building a large filter commits no memory: its table comes from the
//! allocator's zeroed path, and pages are committed only as bits are set.
//!
//! One test in its own binary, so no other test's allocations move the
//! resident-set reading. (The blocked filter is not here: its 64-byte-aligned
//! blocks come from the allocator's aligned path, which zeroes by writing, so
//! its table is committed at build; it is still allocated fallibly.)

use bloomlab_classic::{AtomicBloomFilter, BloomFilter};
use bloomlab_testkit::machine::resident_bytes;

/// Tables of 2 GiB: resident memory must grow by far less than that.
const TABLE_BITS: u64 = 1 << 34;
const SLACK: u64 = 64 << 20;

#[test]
fn two_gibibyte_tables_stay_uncommitted_until_written() {
    let Some(before) = resident_bytes() else {
        eprintln!("no /proc/self/status: resident memory cannot be read here");
        return;
    };
    let grown = |what: &str| {
        let now = resident_bytes().expect("readable before");
        assert!(
            now < before + SLACK,
            "{what}: resident memory grew from {before} to {now} bytes"
        );
    };

    let atomic = AtomicBloomFilter::with_bits(TABLE_BITS, 3).expect("2 GiB is within the limit");
    grown("AtomicBloomFilter::with_bits(1 << 34, 3)");
    // It works, and a few inserts commit only the pages they touch.
    for i in 0..1_000u64 {
        atomic.insert(&i).unwrap();
    }
    assert!((0..1_000u64).all(|i| atomic.contains(&i)));
    grown("AtomicBloomFilter after 1,000 inserts");
    drop(atomic);

    let classic: BloomFilter<u64> =
        BloomFilter::with_bits(TABLE_BITS, 3).expect("within the limit");
    grown("BloomFilter::with_bits(1 << 34, 3)");
    drop(classic);
}
