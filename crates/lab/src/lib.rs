//! What the bloomlab experiments and benchmarks run on (not published): the
//! runtime side of the test helpers, so that the `bloomlab` binary and the
//! benches do not depend on `bloomlab-testkit`.
//!
//! - [`keys`]: seeded random keys, members and probes disjoint by construction;
//! - [`stats`]: binomial acceptance intervals and Clopper–Pearson intervals;
//! - [`redis_server`]: real `redis-server` processes, standalone or as a
//!   Cluster, on free loopback ports, with a tiny RESP client;
//! - `peers` (feature `peers`, on by default): one adapter per peer crate,
//!   behind bloomlab's own traits, so that the benches and the experiments
//!   drive the peers and bloomlab's filters through the same code.
//!
//! `bloomlab-testkit` re-exports the first three for the library crates'
//! tests, without the peers.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod keys;
#[cfg(feature = "peers")]
pub mod peers;
pub mod redis_server;
pub mod stats;

/// The workspace README's examples, compiled and run as doctests (here, in
/// a crate that is not published, since the README is outside every
/// published crate's folder).
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
