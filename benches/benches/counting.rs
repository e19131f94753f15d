//! Benchmarks of bloomlab-counting: being written.
fn main() {}
