#![doc = include_str!("../README.md")]
//!
//! ## Contents
//!
//! - [`CuckooFilter<T>`](CuckooFilter): the filter of items of type `T`;
//!   [`Membership<T>`](Membership) and [`Deletable<T>`](Deletable) from its
//!   [`HashMembership`] and [`HashDeletable`] operations, [`Persist`]
//!   through the core envelope under [`TAG`];
//! - [`Builder`]: bucket size (2, 4, 8), fingerprint width (4 to 32 bits),
//!   plain or semi-sorted buckets, hash key or hasher, relocation bound,
//!   memory limit;
//! - [`plan`]: how [`CuckooFilter::new`] sizes a table, for planning tools;
//! - [`BuildError`]: why a filter could not be built (with [`Invalid`], the
//!   reasons of this crate alone).
//!
//! The formulas it is measured against are in
//! [`bloomlab_core::theory::cuckoo`].
//!
//! ## Sizing
//!
//! [`CuckooFilter::new`]`(n, ε)` ([`plan`]) takes the narrowest fingerprint
//! whose exact rate at the design load is at most `ε`
//! ([`theory::fingerprint_bits_at_load`](bloomlab_core::theory::cuckoo::fingerprint_bits_at_load)),
//! and `⌈n / (b · load)⌉` buckets, any count (rounded up to an even one), at
//! the design load [`theory::design_load`](bloomlab_core::theory::cuckoo::design_load):
//! 94% with 4 slots, 80% with 2, 97% with 8, each below the lowest load at
//! which a first insert failed in some 6,000 measured tables per bucket size
//! (the numbers are in the source of `plan`). Earlier versions rounded the
//! bucket count up to a power of two, which left a table between half and
//! 95% full: 13.1 bits per item at 1% and 100,000 items, 10.6 now.
//!
//! Any bucket count needs an alternate-bucket map other than the paper's
//! XOR: `i2 = (h(fp) − i1) mod m` is its own inverse for any `m` (`h − (h −
//! i) = i`), with `h(fp)` reduced onto `0 .. m` by multiply-shift and odd
//! when `m` is even, so that the two buckets always differ. XOR, possible
//! only for powers of two, did not measure faster on them (the source of
//! `NEW_TABLE_MAP` in `builder.rs`), so it is kept only to read the files
//! of the first format.
//!
//! Measured, for `new(n, ε)` in each layout (`cargo run --release -p
//! bloomlab-cuckoo --example sizing_table`; the paper's bits are
//! `(log2(1/ε) + 3) / 0.95` plain and `(log2(1/ε) + 2) / 0.95` semi-sorted;
//! up to 10,000,000 probes, never members; the interval is the 95% binomial
//! interval of the count `expected_fpr()` predicts; both layouts store the
//! same fingerprints, so they count the same false positives):
//!
//! | n | ε | f | layout | load | bits/item | ÷ paper | measured rate | expected_fpr | false positives | 95% interval |
//! |---|---|---|---|---|---|---|---|---|---|---|
//! | 1000 | 3e-2 | 8 | plain | 94.0% | 8.51 | 1.003 | 2.925e-2 | 2.911e-2 | 29247 of 1000000 | 28782..=29441 |
//! | 1000 | 3e-2 | 8 | semi-sorted | 94.0% | 7.49 | 1.008 | 2.925e-2 | 2.911e-2 | 29247 of 1000000 | 28782..=29441 |
//! | 1000 | 1e-2 | 10 | plain | 94.0% | 10.69 | 1.053 | 7.144e-3 | 7.326e-3 | 7144 of 1000000 | 7160..=7494 |
//! | 1000 | 1e-2 | 10 | semi-sorted | 94.0% | 9.60 | 1.055 | 7.144e-3 | 7.326e-3 | 7144 of 1000000 | 7160..=7494 |
//! | 1000 | 1e-3 | 13 | plain | 94.0% | 13.89 | 1.018 | 8.951e-4 | 9.176e-4 | 1951 of 2179674 | 1913..=2088 |
//! | 1000 | 1e-3 | 13 | semi-sorted | 94.0% | 12.80 | 1.016 | 8.951e-4 | 9.176e-4 | 1951 of 2179674 | 1913..=2088 |
//! | 1000 | 1e-4 | 17 | plain | 94.0% | 18.11 | 1.056 | 5.520e-5 | 5.736e-5 | 552 of 10000000 | 527..=621 |
//! | 1000 | 1e-4 | 17 | semi-sorted | 94.0% | 17.02 | 1.058 | 5.520e-5 | 5.736e-5 | 552 of 10000000 | 527..=621 |
//! | 1000 | 1e-5 | 20 | plain | 94.0% | 21.31 | 1.032 | 7.400e-6 | 7.170e-6 | 74 of 10000000 | 56..=89 |
//! | 1000 | 1e-5 | 20 | semi-sorted | 94.0% | 20.22 | 1.032 | 7.400e-6 | 7.170e-6 | 74 of 10000000 | 56..=89 |
//! | 1000 | 1e-6 | 23 | plain | 94.0% | 24.51 | 1.015 | 1.000e-6 | 8.963e-7 | 10 of 10000000 | 4..=15 |
//! | 1000 | 1e-6 | 23 | semi-sorted | 94.0% | 23.42 | 1.015 | 1.000e-6 | 8.963e-7 | 10 of 10000000 | 4..=15 |
//! | 100000 | 3e-2 | 8 | plain | 94.0% | 8.51 | 1.003 | 2.879e-2 | 2.912e-2 | 28794 of 1000000 | 28787..=29446 |
//! | 100000 | 3e-2 | 8 | semi-sorted | 94.0% | 7.45 | 1.002 | 2.879e-2 | 2.912e-2 | 28794 of 1000000 | 28787..=29446 |
//! | 100000 | 1e-2 | 10 | plain | 94.0% | 10.64 | 1.048 | 7.294e-3 | 7.327e-3 | 7294 of 1000000 | 7161..=7495 |
//! | 100000 | 1e-2 | 10 | semi-sorted | 94.0% | 9.58 | 1.052 | 7.294e-3 | 7.327e-3 | 7294 of 1000000 | 7161..=7495 |
//! | 100000 | 1e-3 | 13 | plain | 94.0% | 13.83 | 1.013 | 9.269e-4 | 9.177e-4 | 2020 of 2179346 | 1913..=2088 |
//! | 100000 | 1e-3 | 13 | semi-sorted | 94.0% | 12.77 | 1.014 | 9.269e-4 | 9.177e-4 | 2020 of 2179346 | 1913..=2088 |
//! | 100000 | 1e-4 | 17 | plain | 94.0% | 18.09 | 1.055 | 5.740e-5 | 5.737e-5 | 574 of 10000000 | 527..=621 |
//! | 100000 | 1e-4 | 17 | semi-sorted | 94.0% | 17.02 | 1.058 | 5.740e-5 | 5.737e-5 | 574 of 10000000 | 527..=621 |
//! | 100000 | 1e-5 | 20 | plain | 94.0% | 21.28 | 1.031 | 6.400e-6 | 7.172e-6 | 64 of 10000000 | 56..=89 |
//! | 100000 | 1e-5 | 20 | semi-sorted | 94.0% | 20.21 | 1.032 | 6.400e-6 | 7.172e-6 | 64 of 10000000 | 56..=89 |
//! | 100000 | 1e-6 | 23 | plain | 94.0% | 24.47 | 1.014 | 1.700e-6 | 8.964e-7 | 17 of 10000000 | 4..=15 |
//! | 100000 | 1e-6 | 23 | semi-sorted | 94.0% | 23.40 | 1.014 | 1.700e-6 | 8.964e-7 | 17 of 10000000 | 4..=15 |
//! | 10000000 | 3e-2 | 8 | plain | 94.0% | 8.51 | 1.003 | 2.911e-2 | 2.912e-2 | 29106 of 1000000 | 28787..=29446 |
//! | 10000000 | 3e-2 | 8 | semi-sorted | 94.0% | 7.45 | 1.002 | 2.911e-2 | 2.912e-2 | 29106 of 1000000 | 28787..=29446 |
//! | 10000000 | 1e-2 | 10 | plain | 94.0% | 10.64 | 1.048 | 7.386e-3 | 7.328e-3 | 7386 of 1000000 | 7161..=7495 |
//! | 10000000 | 1e-2 | 10 | semi-sorted | 94.0% | 9.57 | 1.052 | 7.386e-3 | 7.328e-3 | 7386 of 1000000 | 7161..=7495 |
//! | 10000000 | 1e-3 | 13 | plain | 94.0% | 13.83 | 1.013 | 9.333e-4 | 9.177e-4 | 2034 of 2179326 | 1913..=2088 |
//! | 10000000 | 1e-3 | 13 | semi-sorted | 94.0% | 12.77 | 1.014 | 9.333e-4 | 9.177e-4 | 2034 of 2179326 | 1913..=2088 |
//! | 10000000 | 1e-4 | 17 | plain | 94.0% | 18.09 | 1.055 | 5.770e-5 | 5.737e-5 | 577 of 10000000 | 527..=621 |
//! | 10000000 | 1e-4 | 17 | semi-sorted | 94.0% | 17.02 | 1.058 | 5.770e-5 | 5.737e-5 | 577 of 10000000 | 527..=621 |
//! | 10000000 | 1e-5 | 20 | plain | 94.0% | 21.28 | 1.031 | 7.300e-6 | 7.172e-6 | 73 of 10000000 | 56..=89 |
//! | 10000000 | 1e-5 | 20 | semi-sorted | 94.0% | 20.21 | 1.032 | 7.300e-6 | 7.172e-6 | 73 of 10000000 | 56..=89 |
//! | 10000000 | 1e-6 | 23 | plain | 94.0% | 24.47 | 1.014 | 1.200e-6 | 8.965e-7 | 12 of 10000000 | 4..=15 |
//! | 10000000 | 1e-6 | 23 | semi-sorted | 94.0% | 23.40 | 1.014 | 1.200e-6 | 8.965e-7 | 12 of 10000000 | 4..=15 |
//!
//! Every row holds its `n` items without a `Full`, and costs at most 1.058
//! times the paper's bits (bits per item fall a little as `n` grows: the
//! last word's padding, and the rounding of the bucket count, spread over
//! more items). Of 18 rates measured, 16 fall in their 95%
//! interval, one below it (1,000 items at 1%), and one above (100,000 at
//! 10^-6: 17 false positives where 4 to 15 were likely). The test
//! `tests/sizing.rs` checks the same promises for item counts drawn at
//! random.
//!
//! ## Semi-sorted buckets
//!
//! [`Builder::semi_sorted`] stores 4-slot buckets semi-sorted (Fan et al.
//! 2014, §5.2): the bucket's four fingerprints in ascending order, their
//! top 4 bits as one 12-bit index into the 3,876 sorted multisets of four
//! 4-bit values, then the four `f − 4`-bit suffixes: `4f − 4` bits a bucket
//! instead of `4f`, one bit per slot less at the same false-positive rate
//! (about 7% of the table at 1%). A lookup unpacks each bucket back into
//! four `f`-bit lanes with a table lookup and a few shifts, then tests them
//! as a plain bucket.
//!
//! `new` uses it only where its lookups stay within 1.3 times the plain
//! layout's, and measured, they do not. On a million items (`cargo bench
//! -p bloomlab-benches --bench cuckoo -- cuckoo/layout`, hits and misses
//! mixed, two runs on a shared 2-core machine), semi-sorted lookups took
//! 1.33 and 1.11 times the plain ones' at 1% (10-bit fingerprints), 1.93
//! and 1.84 times at 10^-4 (17 bits), 1.19 and 1.59 times at 10^-6 (23
//! bits); on 943,718 items in 2^18 buckets of 8 bits (`cuckoo/lookup_hit`,
//! `cuckoo/lookup_miss`), 1.45 to 1.8 times. Since a lookup reads a bucket
//! that may span two words with one unaligned load instead of testing
//! whether to read the second word, both layouts' lookups at 1% are faster
//! and the plain ones more so: semi-sorted took 1.42 to 1.60 times the
//! plain ones' in six runs. Inserts, which decode, sort and encode a bucket
//! at every step of a cuckoo walk, took about 1.7 times as long on 943,718
//! items (`cuckoo/insert`: 114 to 122 ns against 71). So `new`
//! builds plain tables, and semi-sorting is for callers who trade that time
//! for the space.
//!
//! ## Format
//!
//! [`to_bytes`](CuckooFilter::to_bytes) writes the bucket count itself, the
//! layout and the alternate-bucket map; files written before (a log2
//! bucket count, fingerprints of at most 16 bits) are still read, and
//! answer exactly as they did.
#![doc(html_root_url = "https://docs.rs/bloomlab-cuckoo/0.1.0")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod codec;
pub mod descriptor;
mod error;
mod filter;
#[cfg(feature = "serde")]
mod serde_impls;
mod table;

// The traits and errors this crate's API uses, so that a program depending on
// bloomlab-cuckoo alone can name them.
pub use bloomlab_core::{
    DecodeError, DefaultHasher, Deletable, Filter, HashDeletable, HashMembership, InsertBatchError,
    InsertError, Membership, ParamError, Persist, RemoveError, Tag,
};
pub use builder::{Builder, DEFAULT_MAX_RELOCATIONS, MAX_BUCKETS, MAX_RELOCATIONS, Plan, plan};
pub use codec::TAG;
pub use error::{BuildError, Invalid};
pub use filter::CuckooFilter;
pub use table::{BUCKET_SIZES, FINGERPRINT_BITS};
