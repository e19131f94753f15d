//! The bloomlab experiment runner: being written.
fn main() {}
