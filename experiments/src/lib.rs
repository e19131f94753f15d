//! The experiments behind the `bloomlab` binary, as a library: each
//! experiment is a function of a [`exp::Ctx`] (scale, seed and the catalog
//! of variants it measures), so that a program, or a test, can run them
//! over a catalog with variants of its own registered
//! (`bloomlab::catalog::Catalog::with`).
#![forbid(unsafe_code)]

pub mod exp;
pub mod files;
pub mod naive;
pub mod plot;
pub mod progress;
pub mod report;
pub mod scale;
pub mod summary;
pub mod table;
