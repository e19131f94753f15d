//! Theory of the cuckoo filter: filled in with bloomlab-cuckoo.
