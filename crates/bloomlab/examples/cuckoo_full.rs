//! Deleting from a cuckoo filter, and what happens when it is full: the
//! insert that does not fit is refused, and nothing stored is lost.
//!
//! `cargo run -p bloomlab --example cuckoo_full`

use std::error::Error;

use bloomlab::prelude::*;

fn main() -> Result<(), Box<dyn Error>> {
    // A small table: 1,024 buckets of 4 slots, 12-bit fingerprints.
    let mut sessions = CuckooFilter::builder_with_buckets(1_024, 12).build()?;
    let mut stored = Vec::new();
    for id in 0u64.. {
        match sessions.insert(&id) {
            Ok(_) => stored.push(id),
            Err(InsertError::Full) => break,
            Err(e) => return Err(e.into()),
        }
    }
    println!(
        "full at {} of {} slots ({:.1}% load)",
        stored.len(),
        sessions.capacity(),
        sessions.fill_ratio() * 100.0
    );
    assert!(
        stored.iter().all(|id| sessions.contains(id)),
        "a refused insert lost nothing"
    );

    // Expired sessions are removed, which makes room again.
    for id in &stored[..100] {
        sessions.remove(id)?;
    }
    let next = stored.last().copied().unwrap_or(0) + 1;
    sessions.insert(&next)?;
    assert!(sessions.contains(&next));
    assert!(stored[100..].iter().all(|id| sessions.contains(id)));

    // Removing what was never inserted is refused when the filter can tell.
    match sessions.remove(&u64::MAX) {
        Err(RemoveError::NotPresent) => println!("u64::MAX was never inserted: nothing removed"),
        other => println!("u64::MAX matched a stored fingerprint: {other:?}"),
    }
    Ok(())
}
