//! Building a large filter commits no memory: its table is a mapping whose
//! pages are committed only as bits are set ([`bloomlab_core::alloc`]).
//!
//! One test in its own binary, so no other test's allocations move the
//! resident-set reading, and so that switching huge pages off for its
//! second half changes no other test.

use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
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

    // Huge pages on (the default): nothing is committed at build.
    let atomic: AtomicBloomFilter<u64> =
        AtomicBloomFilter::with_bits(TABLE_BITS, 3).expect("2 GiB is within the limit");
    grown("AtomicBloomFilter::with_bits(1 << 34, 3)");
    drop(atomic);
    let classic: BloomFilter<u64> =
        BloomFilter::with_bits(TABLE_BITS, 3).expect("within the limit");
    grown("BloomFilter::with_bits(1 << 34, 3)");
    drop(classic);
    let blocked: BlockedBloomFilter<u64> =
        BlockedBloomFilter::with_blocks(TABLE_BITS / 512, 8).expect("within the limit");
    grown("BlockedBloomFilter::with_blocks(1 << 25, 8)");
    drop(blocked);

    // With 4 KiB pages, a few inserts commit only the pages they touch: at
    // most 3,000 of them, 12 MiB. (With huge pages each touch commits 2 MiB,
    // so 1,000 random inserts would commit most of the table: the trade
    // `set_huge_pages` documents.)
    bloomlab_core::alloc::set_huge_pages(false);
    let atomic = AtomicBloomFilter::with_bits(TABLE_BITS, 3).expect("2 GiB is within the limit");
    grown("AtomicBloomFilter::with_bits(1 << 34, 3), 4 KiB pages");
    for i in 0..1_000u64 {
        atomic.insert(&i).unwrap();
    }
    assert!((0..1_000u64).all(|i| atomic.contains(&i)));
    grown("AtomicBloomFilter after 1,000 inserts, 4 KiB pages");
}
