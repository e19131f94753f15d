//! A filter that does not know how many items will come: it starts at 1,000
//! and grows to 10 million, keeping its promised rate.
//!
//! `cargo run --release -p bloomlab --example growth`

use std::error::Error;

use bloomlab::prelude::*;

fn main() -> Result<(), Box<dyn Error>> {
    let target = 0.01;
    let mut f = ScalableBloomFilter::new(1_000, target)?;
    let mut next = 0u64;
    for stop in [1_000u64, 10_000, 100_000, 1_000_000, 10_000_000] {
        while next < stop {
            f.insert(&next)?;
            next += 1;
        }
        println!(
            "{:>10} items: {:>2} layers, {:>9.1} kB, {:.2} bits per item, expected rate {:.4} (promised {target})",
            f.len(),
            f.layers().len(),
            f.memory_bytes() as f64 / 1e3,
            f.bits_per_item().unwrap_or(0.0),
            f.expected_fpr()
        );
        assert!(f.expected_fpr() <= target);
    }
    let absent = (1u64 << 40..(1 << 40) + 100_000)
        .filter(|i| f.contains(i))
        .count();
    println!("{absent} of 100,000 absent items pass (at most about 1,000 promised)");
    Ok(())
}
