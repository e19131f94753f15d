//! What the Redis benches share: criterion's settings.

use std::time::Duration;

use criterion::Criterion;

/// Criterion with `samples` samples measured over `seconds` seconds, after
/// two seconds of warm-up.
pub fn criterion(samples: usize, seconds: u64) -> Criterion {
    Criterion::default()
        .sample_size(samples)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(seconds))
}
