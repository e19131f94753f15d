//! Four threads inserting into one filter without a lock, and readers
//! sharing it through an `Arc`.
//!
//! `cargo run -p bloomlab --example threads`

use std::error::Error;
use std::sync::Arc;
use std::thread;

use bloomlab::prelude::*;

fn main() -> Result<(), Box<dyn Error>> {
    let seen = Arc::new(AtomicBloomFilter::new(400_000, 0.01)?);
    let writers: Vec<_> = (0..4u64)
        .map(|t| {
            let seen = Arc::clone(&seen);
            thread::spawn(move || {
                for i in 0..100_000u64 {
                    // `insert(&self)`: no lock, no `&mut`.
                    seen.insert(&(t << 32 | i))
                        .expect("an atomic filter never refuses");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().map_err(|_| "a writer panicked")?;
    }
    println!("{} inserts from 4 threads", seen.len());
    assert_eq!(seen.len(), 400_000);
    assert!((0..4u64).all(|t| (0..100_000u64).all(|i| seen.contains(&(t << 32 | i)))));

    // Once the writers are done, a plain filter is one conversion away.
    let plain: BloomFilter<u64> = Arc::try_unwrap(seen).map_err(|_| "still shared")?.into();
    println!(
        "as a plain filter: {} bytes, rate {:.4}",
        plain.memory_bytes(),
        plain.expected_fpr()
    );
    Ok(())
}
