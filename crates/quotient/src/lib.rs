//! A rank-and-select quotient filter (Pandey, Bender, Johnson and Patro,
//! "A General-Purpose Counting Filter: Making Every Bit Count", SIGMOD
//! 2017) that deletes, counts, merges, and, if asked, grows without its
//! keys at the false-positive rate it promised (Dayan, Bercea, Reviriego
//! and Pagh, "InfiniFilter: Expanding Filters to Infinity and Beyond",
//! SIGMOD 2023).
//!
//! Each item is hashed once to 64 bits; the top `q` bits are its
//! *quotient*, one of `2^q` canonical slots, the next `r` its *remainder*.
//! Remainders are stored in runs, one per quotient, in quotient order,
//! each as near its canonical slot as the runs before it allow; two bits
//! per slot (`occupieds`, `runends`) and one offset byte per block of 64
//! slots find a run with one rank and one select (`r + 2.125` bits a
//! slot). A probe matches an entry with probability `2^−(q+r)`, so at load
//! `α` the rate is `1 − e^{−α·2^−r} ≤ α·2^−r`.
//!
//! ```
//! use bloomlab_quotient::QuotientFilter;
//!
//! let mut filter = QuotientFilter::<u64>::builder(100_000, 0.01).seed(1).build()?;
//! for id in 0..100_000u64 {
//!     filter.insert(&id)?;
//! }
//! // No member is ever reported absent; removes and counts are exact for
//! // items whose fingerprints are their own.
//! assert!((0..100_000u64).all(|id| filter.contains(&id)));
//! filter.insert(&7)?;
//! assert_eq!(filter.count(&7), 2);
//! filter.remove(&7)?;
//! // 2^17 slots (0.95 · 2^16 < 10^5), load 76%: 7-bit remainders, whose
//! // rate 1 − e^{−0.763/128} = 0.594% is the least at or below 1%. With
//! // the blocks past the last slot, 12.29 bits per item.
//! assert_eq!((filter.quotient_bits(), filter.remainder_bits()), (17, 7));
//! let bits = filter.memory_bytes() as f64 * 8.0 / 100_000.0;
//! assert!((bits - 12.2932).abs() < 1e-4);
//! // 1,188 false positives expected in 200,000 probes, 1,075 to 1,302 in
//! // 99.9% of runs (binomial); 1,178 here.
//! let passed = (1_000_000..1_200_000u64).filter(|i| filter.contains(i)).count();
//! assert_eq!(passed, 1_178);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Contents
//!
//! - [`QuotientFilter<T>`](QuotientFilter): the filter of items of type
//!   `T`, hashed by the family's keyed [`DefaultHasher`] (seedable);
//!   [`Membership<T>`](Membership) and [`Deletable<T>`](Deletable) from its
//!   [`HashMembership`] and [`HashDeletable`] operations, `count`,
//!   `merge`, batch lookups and inserts, [`Persist`] through the core
//!   envelope under [`TAG`], and serde with the feature `serde`;
//! - [`Builder`]: items and a rate, or the table's bits; growth; a byte
//!   limit; hash key or hasher;
//! - [`plan`]: how a filter is sized, without building it;
//! - [`BuildError`] (with [`Invalid`], the reasons of this crate alone) and
//!   [`MergeError`].
//!
//! The formulas it is measured against are in
//! [`bloomlab_core::theory::quotient`].
//!
//! ## Sizing
//!
//! `builder(n, ε)` takes the fewest canonical slots `2^q` that hold `n`
//! items at the maximum load [`MAX_LOAD`] (95%), and the fewest remainder
//! bits whose rate at the load `n/2^q` is at most `ε`. A table fills to
//! 95% of its canonical slots (or until a run would spill past the spare
//! blocks at its end, about `10·√(2^q)` slots); past that an insert is
//! refused ([`InsertError::Full`]) and nothing is lost, unless the filter
//! grows.
//!
//! ## Growth
//!
//! With [`Builder::growth`], a full table doubles instead. The original
//! keys are not needed: each entry gives the top bit of its remainder to
//! its quotient (InfiniFilter's scheme), so it matches exactly the probes
//! it matched before, with a remainder one bit shorter. After the first
//! doubling each slot holds its remainder followed by a set bit and zeros,
//! so that entries of different lengths share the table; new entries get
//! the remainder of the newest generation. An entry whose remainder runs
//! out (a *void* entry) matches every probe of its quotient, and the next
//! doubling copies it to both halves (as the Aleph filter does), which
//! keeps its share of the rate and costs a fraction of the slots equal to
//! that share. A lookup still reads one run of one table: its cost does
//! not grow with the number of doublings, where a chain of filters (the
//! scalable Bloom filter) reads one more filter after each.
//!
//! **The rate.** An entry stored at generation `i` (after `i` doublings)
//! with an `F_i`-bit remainder contributes `α_i · 2^−F_i` to the mean
//! number of matches at every later size (`α_i`: the load it added to its
//! own table), because every doubling adds a bit to its quotient as it
//! takes one from its remainder. The budget `Λ = −ln(1 − ε)` is split:
//! `Λ/2` to the first table, filled to 95%, and `Λ/2 · 6/(π² i²)` to
//! generation `i`, which adds at most 47.5% to a table twice the size; the
//! shares sum to `Λ`, so the rate `1 − e^{−λ}` is at most `ε` at every
//! size ([`theory::growth_fpr`](bloomlab_core::theory::quotient::growth_fpr)).
//! The first table's remainders are therefore one bit or so wider than a
//! filter that never grows needs (8 bits rather than 7 at 1%), and later
//! ones widen by about 2 bits every time the filter grows 4-fold:
//! [`theory::growth_fingerprint_bits`](bloomlab_core::theory::quotient::growth_fingerprint_bits)
//! gives 8, 8, 10, 11, 12, 12, 13, 13, 14, 14, 14 bits for the first 11
//! generations at 1%, so slots of 15 bits after 10 doublings.
//!
//! **Bits per item.** `(slot bits + 2.125)/α` with α between 47.5% (just
//! after a doubling) and 95% ([`theory::growth_bits_per_item`](bloomlab_core::theory::quotient::growth_bits_per_item)):
//! at 1% after 10 doublings, 18.0 to 36.1 bits per item.
//!
//! ```
//! use bloomlab_quotient::QuotientFilter;
//!
//! let mut filter = QuotientFilter::<u64>::builder(1_000, 0.01)
//!     .growth(true)
//!     .seed(1)
//!     .build()?;
//! for id in 0..1_000_000u64 {
//!     filter.insert(&id)?;
//! }
//! // 1,000 times the size it was built for: 10 doublings, 15-bit slots.
//! assert_eq!((filter.expansions(), filter.slot_bits()), (10, 15));
//! assert!((0..1_000_000u64).all(|id| filter.contains(&id)));
//! // Theory for these entries: 0.665%, at most the promised 1%; 1,329
//! // false positives expected in 200,000 probes; 1,337 here.
//! assert!((filter.expected_fpr() - 0.006645).abs() < 1e-6);
//! let passed = (10_000_000..10_200_000u64).filter(|i| filter.contains(i)).count();
//! assert_eq!(passed, 1_337);
//! // Just after the tenth doubling the table is half full: 36.2 bits an item.
//! let bits = filter.memory_bytes() as f64 * 8.0 / 1e6;
//! assert!((bits - 36.1625).abs() < 1e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! What it does not promise: the shares assume each generation's entries
//! are inserted into it; removes and re-inserts within one generation, or
//! merges, can give a later generation more than its share, and
//! [`expected_fpr`](QuotientFilter::expected_fpr) (the rate of the entries
//! as they are) then says so. Growth stops, with inserts refused, at the
//! builder's byte limit, at `2^40` slots, or when quotient and remainder
//! would need more than 64 bits.
//!
//! ## Counts, removes and merges
//!
//! Copies are stored as repeated remainders, one slot per copy (the
//! paper's variable-length counters, which store a count `c` in about
//! `log2 c` slots, are not implemented): [`count`](QuotientFilter::count)
//! is the number of entries that match the item. A remove takes the
//! matching entry with the longest remainder, so removing an item that was
//! inserted never leaves another inserted item unmatched; removing an item
//! never inserted may take another item's entry (as in the counting and
//! cuckoo filters). After its remainder ran out, an item's entry has copies
//! in several quotients: a remove takes the one in its own, and the others
//! stay (they keep matching probes of their quotients; no item is lost).
//! [`merge`](QuotientFilter::merge) adds the entries of a filter of the
//! same key and shape in one pass over both tables.
#![doc(html_root_url = "https://docs.rs/bloomlab-quotient/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod bits;
mod builder;
mod codec;
pub mod descriptor;
mod error;
mod filter;
#[cfg(feature = "serde")]
mod serde_impls;
mod table;

// The traits and errors this crate's API uses, so that a program depending
// on bloomlab-quotient alone can name them.
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, HashDeletable, HashMembership, InsertBatchError,
    InsertError, Membership, ParamError, Persist, RemoveError, Tag,
};
pub use builder::{Builder, Plan, plan};
pub use codec::TAG;
pub use error::{BuildError, Invalid, MergeError};
pub use filter::QuotientFilter;

/// The README's example, run as a doctest (the crate docs are their own).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The fraction of its canonical slots a table fills before it is full
/// (or grows): 95%, the highest load of the paper's measurements.
pub const MAX_LOAD: f64 = 0.95;

/// The most quotient bits: tables of up to `2^40` canonical slots.
pub const MAX_QUOTIENT_BITS: u32 = 40;
