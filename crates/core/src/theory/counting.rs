//! Theory of the counting filter: filled in with bloomlab-counting.
