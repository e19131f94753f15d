//! [`RedisScalableBloomFilter`]: layers that open as the filter fills.

mod filter;
mod insert;
mod layers;
mod lookup;
mod options;

pub use filter::RedisScalableBloomFilter;
use insert::Insert;
pub(crate) use layers::Layers;
use layers::{COUNTS, Counts, WRITE_ATTEMPTS};
use lookup::{Found, Read};
pub use options::ScalableOptions;
