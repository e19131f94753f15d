//! Test helpers shared by the bloomlab crates (not published).
//!
//! - [`keys`]: seeded random keys, members and probes disjoint by construction;
//! - [`stats`]: binomial acceptance intervals and Clopper–Pearson intervals;
//! - [`rates`]: measured counts against the binomial interval of a rate;
//! - [`codec`]: stored forms as hex, forged files, and decoding refused for
//!   its parameters;
//! - [`conformance`]: the suite every variant's tests run against a constructor;
//! - [`batch`]: the batch methods against the one-at-a-time ones, over the
//!   methods [`item_methods!`] names;
//! - [`inputs`]: arguments every constructor must refuse, and how;
//! - [`fuzz`]: decode-and-use fuzzing of a variant's decoder, under a watchdog;
//! - [`merge`]: merges of filters that do not match;
//! - [`model`]: the multiset model of model-based tests of filters that
//!   delete, and the run of a test's operations against it;
//! - [`machine`]: how this machine's allocator treats oversized requests, the
//!   process's resident memory, and a watchdog for one call;
//! - [`redis_server`]: real `redis-server` processes, standalone or as a
//!   Cluster, on free loopback ports, with a tiny RESP client.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod batch;
pub mod codec;
pub mod conformance;
pub mod fuzz;
pub mod inputs;
pub mod machine;
pub mod merge;
pub mod model;
pub mod rates;

// Kept in bloomlab-lab, which the experiments and benches use at run time.
pub use bloomlab_lab::{keys, redis_server, stats};
