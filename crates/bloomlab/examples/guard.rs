//! A guard of a million user ids in front of a database, saved to a file
//! and restored by the next process, as a service restarting would.
//!
//! `cargo run --release -p bloomlab --example guard`

use std::error::Error;

use bloomlab::prelude::*;

fn main() -> Result<(), Box<dyn Error>> {
    // The ids in the database. `new` draws a secret random hash key, so
    // nobody can compute ids that pass the guard without being in it.
    let mut guard = BloomFilter::new(1_000_000, 0.001)?;
    guard.extend(0..1_000_000u64);
    println!(
        "{} ids in {:.1} MB: {:.2} bits per id, expected false-positive rate {:.2e}",
        guard.len(),
        guard.memory_bytes() as f64 / 1e6,
        guard.bits_per_item().unwrap_or(0.0),
        guard.expected_fpr()
    );

    // Saved with its key, in a checksummed file.
    let path = std::env::temp_dir().join(format!("bloomlab-guard-{}.bin", std::process::id()));
    std::fs::write(&path, guard.to_bytes())?;

    // The next process reads it back; the item type is named once.
    let restored: BloomFilter<u64> = BloomFilter::from_bytes(&std::fs::read(&path)?)?;
    std::fs::remove_file(&path)?;
    assert_eq!(restored, guard);

    // Every id in the database passes (`42` is a u64 here: the filter's type).
    assert!(restored.contains(&42));
    let missed = (0..1_000_000u64)
        .filter(|id| !restored.contains(id))
        .count();
    assert_eq!(missed, 0, "a Bloom filter never hides an existing id");

    // Absent ids are turned away, but for about 0.1%.
    let absent = 1_000_000..1_100_000u64;
    let passed = absent.filter(|id| restored.contains(id)).count();
    println!("{passed} of 100,000 absent ids would reach the database (expected about 100)");
    assert!(passed < 200);

    // A corrupted file is a typed error, never a wrong filter.
    let mut bytes = guard.to_bytes();
    bytes[40] ^= 1;
    let err = BloomFilter::<u64>::from_bytes(&bytes).unwrap_err();
    println!("a corrupted file: {err}");
    Ok(())
}
