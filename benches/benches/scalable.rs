//! Benchmarks of bloomlab-scalable: being written.
fn main() {}
