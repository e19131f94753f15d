//! Theory of the scalable filter: filled in with bloomlab-scalable.
