//! Benchmarks of bloomlab-classic: being written.
fn main() {}
