//! What the bloomlab experiments and benchmarks run on (not published): the
//! runtime side of the test helpers, so that the `bloomlab` binary and the
//! benches do not depend on `bloomlab-testkit`.
//!
//! - [`keys`]: seeded random keys, members and probes disjoint by construction;
//! - [`stats`]: binomial acceptance intervals and Clopper–Pearson intervals;
//! - [`redis_server`]: real `redis-server` processes, standalone or as a
//!   Cluster, on free loopback ports, with a tiny RESP client.
//!
//! `bloomlab-testkit` re-exports all three for the library crates' tests.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod keys;
pub mod redis_server;
pub mod stats;
