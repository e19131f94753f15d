//! Test helpers shared by the bloomlab crates (not published).
//!
//! - [`keys`]: seeded random keys, members and probes disjoint by construction;
//! - [`stats`]: binomial acceptance intervals and Clopper–Pearson intervals;
//! - [`conformance`]: the suite every variant's tests run against a constructor;
//! - [`fuzz`]: decode-and-use fuzzing of a variant's decoder, under a watchdog;
//! - [`machine`]: how this machine's allocator treats oversized requests, the
//!   process's resident memory, and a watchdog for one call;
//! - [`redis_server`]: real `redis-server` processes, standalone or as a
//!   Cluster, on free loopback ports, with a tiny RESP client.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod conformance;
pub mod fuzz;
pub mod machine;

// Kept in bloomlab-lab, which the experiments and benches use at run time.
pub use bloomlab_lab::{keys, redis_server, stats};
