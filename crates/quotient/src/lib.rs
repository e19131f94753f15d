//! A rank-and-select quotient filter.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod bits;
#[allow(dead_code)]
mod table;
