//! Placeholder while the report tool is written.
fn main() {}
