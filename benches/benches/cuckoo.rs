//! Benchmarks of bloomlab-cuckoo: being written.
fn main() {}
