//! Two services build filters of what they saw and merge them. Filters made
//! with `new` each draw their own key and cannot merge; the second is built
//! to be compatible with the first.
//!
//! `cargo run -p bloomlab --example merge`

use std::error::Error;

use bloomlab::prelude::*;

fn main() -> Result<(), Box<dyn Error>> {
    let mut east = BloomFilter::new(20_000, 0.01)?;
    let mut west = BloomFilter::compatible_with(&east)?;
    east.extend(0..10_000u64);
    west.extend(10_000..20_000u64);

    let both = (&east | &west)?;
    assert!((0..20_000u64).all(|id| both.contains(&id)));
    println!(
        "merged: {} items, expected rate {:.4}",
        both.len(),
        both.expected_fpr()
    );

    // A filter with its own key is refused with a typed error, not merged
    // into nonsense.
    let stranger = BloomFilter::new(20_000, 0.01)?;
    match &east | &stranger {
        Err(e) => println!("a filter with another key: {e}"),
        Ok(_) => unreachable!("keys differ"),
    }

    // Counting filters merge by adding counters, and can still delete.
    let mut mon = CountingBloomFilter::new(1_000, 0.01)?;
    let mut tue = CountingBloomFilter::compatible_with(&mon)?;
    mon.insert(&7u64)?;
    tue.insert(&7u64)?;
    let mut week = (&mon | &tue)?;
    week.remove(&7)?;
    assert!(week.contains(&7), "seen twice, removed once");
    Ok(())
}
