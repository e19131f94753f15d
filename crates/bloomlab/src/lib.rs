//! bloomlab: approximate-membership filters behind one trait.
//!
//! This facade re-exports every variant, so a program can depend on
//! `bloomlab` alone; a program that needs one variant can depend on its crate
//! (`bloomlab-classic`, `bloomlab-counting`, `bloomlab-scalable`,
//! `bloomlab-cuckoo`) and pull in nothing else.
//!
//! | type | crate | deletes | grows | concurrent insert |
//! |---|---|---|---|---|
//! | [`BloomFilter`] | `bloomlab-classic` | no | no | no |
//! | [`BlockedBloomFilter`] | `bloomlab-classic` | no | no | no |
//! | [`AtomicBloomFilter`] | `bloomlab-classic` | no | no | yes |
//! | [`CountingBloomFilter`] | `bloomlab-counting` | yes | no | no |
//! | [`ScalableBloomFilter`] | `bloomlab-scalable` | no | yes | no |
//! | [`CuckooFilter`] | `bloomlab-cuckoo` | yes | no | no |
//!
//! # Example
//!
//! A guard in front of a database: a key the filter reports absent cannot be
//! in the store, so the look-up is skipped.
//!
//! ```
//! use bloomlab::prelude::*;
//!
//! // A fixed seed makes this example repeatable; a service guarding a
//! // database uses `BloomFilter::new`, whose hash key is secret and random.
//! let mut users = BloomFilter::builder(10_000, 0.001).seed(2024).build()?;
//! for id in 0..10_000u64 {
//!     // One signature for every filter: a `Result`, never an error here.
//!     users.insert(&id)?;
//! }
//! assert!(users.contains(&42)); // a u64, as the items inserted
//! let false_alarms = (1_000_000..1_100_000u64).filter(|id| users.contains(id)).count();
//! // Theory expects 100 of 100,000; 150 is more than five standard deviations away.
//! assert!(false_alarms < 150, "{false_alarms} of 100,000");
//! assert!((users.memory_bytes() as f64 * 8.0 / 10_000.0) < 14.5); // 14.4 bits per item
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! One loop drives every variant through the shared trait:
//!
//! ```
//! use bloomlab::prelude::*;
//!
//! let mut filters: Vec<(&str, Box<dyn Membership<str>>)> = vec![
//!     ("classic", Box::new(BloomFilter::builder(1_000, 0.01).seed(1).build()?)),
//!     ("blocked", Box::new(BlockedBloomFilter::builder(1_000, 0.01).seed(1).build()?)),
//!     ("atomic", Box::new(AtomicBloomFilter::builder(1_000, 0.01).seed(1).build()?)),
//!     ("counting", Box::new(CountingBloomFilter::builder(1_000, 0.01).seed(1).build()?)),
//!     ("scalable", Box::new(ScalableBloomFilter::builder(100, 0.01).seed(1).build()?)),
//!     ("cuckoo", Box::new(CuckooFilter::builder(1_000, 0.01).seed(1).build()?)),
//! ];
//! for (name, f) in &mut filters {
//!     for i in 0..1_000 {
//!         f.insert(&format!("user{i}"))?;
//!     }
//!     assert!((0..1_000).all(|i| f.contains(&format!("user{i}"))), "{name}");
//!     // Each keeps the rate it was built for at the load it was built for.
//!     assert!(f.expected_fpr() <= 0.01, "{name}: {}", f.expected_fpr());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The crate's `examples/` folder holds seven short programs: saving a
//! guard to a file and restoring it (`guard`), a filter of `String`s
//! (`emails`), deletes and a full cuckoo table (`cuckoo_full`), growth from
//! 1,000 to 10 million items (`growth`), inserts from four threads through
//! an `Arc` (`threads`), one function over every variant (`generic`) and
//! merging (`merge`). `cargo run --release -p bloomlab --example guard`.
//!
//! With the feature `serde`, every filter implements `Serialize` and
//! `Deserialize` through the bytes of its envelope.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod catalog;

pub use bloomlab_classic as classic;
pub use bloomlab_core as core;
pub use bloomlab_counting as counting;
pub use bloomlab_cuckoo as cuckoo;
pub use bloomlab_scalable as scalable;

pub use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, InsertBatchError, InsertError, Membership,
    ParamError, Persist, RemoveError, theory,
};
pub use bloomlab_counting::CountingBloomFilter;
pub use bloomlab_cuckoo::CuckooFilter;
pub use bloomlab_scalable::ScalableBloomFilter;

// Each variant crate has its own build and merge errors; here they carry the
// variant in their names, so every error a program meets has a top-level path.
pub use bloomlab_classic::{BuildError as ClassicBuildError, MergeError as ClassicMergeError};
pub use bloomlab_counting::{BuildError as CountingBuildError, MergeError as CountingMergeError};
pub use bloomlab_cuckoo::BuildError as CuckooBuildError;
pub use bloomlab_scalable::BuildError as ScalableBuildError;

/// The traits and types most programs need: `use bloomlab::prelude::*;`.
pub mod prelude {
    pub use bloomlab_classic::{AtomicBloomFilter, BlockedBloomFilter, BloomFilter};
    pub use bloomlab_core::{
        DecodeError, DefaultHasher, Deletable, Filter, InsertBatchError, InsertError, Membership,
        ParamError, Persist, RemoveError,
    };
    pub use bloomlab_counting::CountingBloomFilter;
    pub use bloomlab_cuckoo::CuckooFilter;
    pub use bloomlab_scalable::ScalableBloomFilter;
}

/// The README's examples, compiled and run as doctests.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
