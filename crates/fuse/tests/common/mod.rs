//! What the fuse filter's integration tests share.

use std::borrow::Borrow;
use std::hash::Hash;

use bloomlab_fuse::BinaryFuseFilter;

/// The 1% filter of `keys` under the hash key from `seed`.
pub fn at_one_percent<T, K>(seed: u64, keys: impl IntoIterator<Item = K>) -> BinaryFuseFilter<T>
where
    T: Hash + ?Sized,
    K: Borrow<T>,
{
    BinaryFuseFilter::builder(0.01)
        .seed(seed)
        .build(keys)
        .expect("a 1% filter builds")
}
