//! Inputs a hostile user chose: each returns in bounded time with a typed
//! answer (issue 12, case 1 — and case 3 in `lazy_table.rs`).

use std::time::Duration;

use bloomlab_classic::{BlockLayout, BlockedBloomFilter};
use bloomlab_core::codec::{Envelope, Reader, Writer};
use bloomlab_testkit::machine::within;

/// Generous: each call takes milliseconds; before the fix the first took
/// about a minute and the second never returned.
const LIMIT: Duration = Duration::from_secs(60);

/// An empty filter of `n` blocks and 7 hashes in the positions layout (the
/// one whose exact rate costs the most), seeded 1.
fn blocks(n: u64) -> BlockedBloomFilter<u64> {
    BlockedBloomFilter::builder_with_blocks(n, 7)
        .layout(BlockLayout::Positions)
        .seed(1)
        .build()
        .unwrap()
}

/// `f`'s `expected_fpr` after `items` inserts, which must return within
/// [`LIMIT`] (`what` names the call if it does not).
fn rate_after(mut f: BlockedBloomFilter<u64>, items: u64, what: &'static str) -> f64 {
    for i in 0..items {
        f.insert(&i).unwrap();
    }
    within(LIMIT, what, move || f.expected_fpr())
}

#[test]
fn expected_fpr_of_overfull_sectored_blocks_returns() {
    for k in [8, 64] {
        let f = BlockedBloomFilter::builder_with_blocks(1, k)
            .seed(1)
            .build()
            .unwrap();
        let rate = rate_after(f, 100_000, "expected_fpr of a full sectored block");
        assert_eq!(rate, 1.0);
    }
}

#[test]
fn expected_fpr_of_one_overfull_block_returns() {
    let rate = rate_after(blocks(1), 3_000_000, "expected_fpr after 3e6 inserts");
    // 3·10^6 items in 512 bits: every bit is set, every probe passes.
    assert_eq!(rate, 1.0);
}

#[test]
fn expected_fpr_of_a_resealed_file_claiming_u64_max_items_returns() {
    let mut f = blocks(4);
    f.insert(&1u64).unwrap();
    let env = Envelope::decode(&f.to_bytes(), bloomlab_classic::BLOCKED_TAG).unwrap();
    // Parameters: blocks (u64), hashes (u32), items (u64). Rewrite the item
    // count and re-encode, which recomputes the checksum.
    let mut r = Reader::new(&env.params);
    let (blocks, hashes) = (r.u64().unwrap(), r.u32().unwrap());
    let params = Writer::new().u64(blocks).u32(hashes).u64(u64::MAX).finish();
    let forged = Envelope { params, ..env }.encode();
    let g: BlockedBloomFilter<u64> =
        BlockedBloomFilter::from_bytes(&forged).expect("a consistent file decodes");
    assert_eq!(g.len(), usize::MAX);
    let rate = within(LIMIT, "expected_fpr with u64::MAX items", move || {
        g.expected_fpr()
    });
    assert_eq!(rate, 1.0);
}
