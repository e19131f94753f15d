//! One function over every filter: generic over `Membership<T>`, or through
//! `dyn Membership<T>`, and `Filter` for what needs no item.
//!
//! `cargo run -p bloomlab --example generic`

use std::error::Error;

use bloomlab::prelude::*;

/// Inserts `items` and reports how many absent probes pass.
fn fill_and_probe<F: Membership<u64>>(filter: &mut F, items: u64) -> Result<usize, InsertError> {
    for i in 0..items {
        filter.insert(&i)?;
    }
    Ok((items..items + 100_000)
        .filter(|p| filter.contains(p))
        .count())
}

/// Memory and rate of any filter, whatever it holds (a trait object too).
fn describe(name: &str, filter: &(impl Filter + ?Sized)) {
    println!(
        "{name:>10}: {:>7} bytes, {:>5.2} bits per item, expected rate {:.4}",
        filter.memory_bytes(),
        filter.bits_per_item().unwrap_or(0.0),
        filter.expected_fpr()
    );
}

fn main() -> Result<(), Box<dyn Error>> {
    let n = 10_000;
    let mut classic = BloomFilter::new(n, 0.01)?;
    let mut cuckoo = CuckooFilter::new(n, 0.01)?;
    println!(
        "classic: {} of 100,000 probes pass",
        fill_and_probe(&mut classic, n as u64)?
    );
    println!(
        "cuckoo:  {} of 100,000 probes pass",
        fill_and_probe(&mut cuckoo, n as u64)?
    );

    // The same through trait objects: one loop over every variant.
    let mut all: Vec<(&str, Box<dyn Membership<u64>>)> = vec![
        ("classic", Box::new(classic)),
        ("blocked", Box::new(BlockedBloomFilter::new(n, 0.01)?)),
        ("counting", Box::new(CountingBloomFilter::new(n, 0.01)?)),
        ("scalable", Box::new(ScalableBloomFilter::new(n, 0.01)?)),
        ("cuckoo", Box::new(cuckoo)),
    ];
    for (name, filter) in &mut all {
        if filter.is_empty() {
            fill_and_probe(filter, n as u64)?;
        }
        describe(name, filter.as_ref());
    }
    Ok(())
}
