//! Placeholder while the large-filter benchmark is written.
fn main() {}
