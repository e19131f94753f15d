//! A filter of email addresses: `String` items, looked up as `&str`
//! without allocating, as a `HashSet<String>` is.
//!
//! `cargo run -p bloomlab --example emails`

use std::error::Error;

use bloomlab::prelude::*;

fn main() -> Result<(), Box<dyn Error>> {
    let subscribed: Vec<String> = (0..10_000)
        .map(|i| format!("user{i}@example.com"))
        .collect();

    let mut filter: BloomFilter<String> = BloomFilter::new(subscribed.len(), 0.01)?;
    filter.extend(&subscribed);

    // Queries borrow: no String is built to ask.
    assert!(filter.contains("user42@example.com"));
    let strangers = (0..10_000)
        .map(|i| format!("stranger{i}@example.org"))
        .filter(|e| filter.contains(e.as_str()))
        .count();
    println!(
        "{} addresses in {} bytes; {strangers} of 10,000 strangers pass (expected about 100)",
        filter.len(),
        filter.memory_bytes()
    );
    assert!(strangers < 200);

    // A filter of `str` works alike, and through the shared trait.
    let mut names: BloomFilter<str> = BloomFilter::new(100, 0.01)?;
    names.insert("ann")?;
    let as_trait: &dyn Membership<str> = &names;
    assert!(as_trait.contains("ann"));
    Ok(())
}
