//! [`RedisCuckooFilter`]: what the cuckoo filter adds to [`RedisFilter`].

use std::borrow::Borrow;
use std::hash::Hash;

use crate::conn::Connection;
use crate::error::Error;
use crate::filter::RedisFilter;
use crate::variant::{Cuckoo, Inner, Mode};

/// A cuckoo filter kept in Redis: [`CuckooFilter`](bloomlab_cuckoo::CuckooFilter)'s sizing, hashing and
/// answers, shared by every process that opens it, and RedisBloom's
/// `CF.ADD`, `CF.ADDNX`, `CF.EXISTS`, `CF.DEL` and `CF.COUNT` on stock Redis
/// (no module).
///
/// - [`create`](RedisFilter::create)`(conn, name, n, ε)` sizes the table as
///   [`CuckooFilter::new`](bloomlab_cuckoo::CuckooFilter::new)`(n, ε)` does (4-slot buckets, the same bucket
///   count and fingerprint width, plain buckets), and a filter created and
///   an in-memory one built with the same seed give the same answer for
///   every item, as long as neither has refused an insert.
/// - [`insert`](RedisFilter::insert) stores a copy each time it is called, as the
///   in-memory `insert` does: an item inserted twice takes two removes to
///   forget, and an item can be stored at most `2b` = 8 times.
///   [`insert_unique`](RedisFilter::insert_unique) stores it only if it is not
///   reported present (`CF.ADDNX`).
/// - Inserts fail with [`Error::Full`] once the table is past the load it
///   was planned for (94% of the slots for the `n` items of `create`): an
///   insert that frees no slot within [`max_relocations`](RedisFilter::max_relocations)
///   moves is refused, and nothing already stored is lost or moved.
/// - [`remove`](RedisFilter::remove) deletes one fingerprint equal to the item's.
///   Removing an item that was never inserted but is reported present (a
///   false positive) removes another item's fingerprint, which may then be
///   reported absent: remove only what you inserted.
///
/// The keys share the hash tag `{name}`: on a Cluster the filter lives on
/// one node. See the [module docs](crate::cuckoo) for the layout and the
/// scripts.
///
/// ```
/// use bloomlab_cuckoo::CuckooFilter;
/// use bloomlab_redis::{Error, Options, RedisCuckooFilter};
///
/// # let server = bloomlab_testkit::redis_server::RedisServer::start()?;
/// # let url = server.url();
/// // let url = "redis://127.0.0.1/";
/// let client = redis::Client::open(url)?;
/// let options = Options::new().seed(7);
/// let mut seen =
///     RedisCuckooFilter::<u64, _>::create_with(client.get_connection()?, "seen", 10_000, 0.01, options)?;
/// // Sized as CuckooFilter::new(10_000, 0.01): 2,660 buckets of four 10-bit slots.
/// assert_eq!((seen.num_buckets(), seen.bucket_size(), seen.fingerprint_bits()), (2_660, 4, 10));
/// assert!(seen.insert(&42)?);
/// assert!(!seen.insert(&42)?, "stored again: a second copy");
/// assert_eq!(seen.count(&42)?, 2);
/// assert!(!seen.insert_unique(&42)?, "present: not stored");
/// assert_eq!(seen.insert_batch(&[1, 2, 3])?, 3);
/// assert_eq!(seen.contains_batch(&[1, 4, 42])?, [true, false, true]);
/// seen.remove(&42)?;
/// seen.remove(&42)?;
/// assert!(matches!(seen.remove(&42), Err(Error::NotPresent)));
/// assert_eq!(seen.len()?, 3);
///
/// // The same answers in memory, from a copy or from the same seed.
/// let copy: CuckooFilter<u64> = seen.export()?;
/// let mut same = CuckooFilter::<u64>::builder(10_000, 0.01).seed(7).build()?;
/// same.insert_batch(&[1, 2, 3])?;
/// for probe in 0..1_000u64 {
///     assert_eq!(copy.contains(&probe), same.contains(&probe));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type RedisCuckooFilter<T, C> = RedisFilter<T, C, Cuckoo>;

impl<T: ?Sized, C: Connection> RedisFilter<T, C, Cuckoo> {
    /// The false-positive rate theory predicts at the filter's exact
    /// [`len`](RedisFilter::len), which the scripts count, as
    /// [`CuckooFilter::expected_fpr`](bloomlab_cuckoo::CuckooFilter::expected_fpr).
    ///
    /// # Errors
    ///
    /// Connection errors, [`Error::NotFound`], [`Error::CorruptMetadata`].
    pub fn expected_fpr(&mut self) -> Result<f64, Error> {
        self.0.run(|inner| inner.expected_fpr())
    }

    /// Stores `item` only if it is not reported present (`CF.ADDNX`);
    /// `true` if it was stored.
    ///
    /// # Errors
    ///
    /// As [`insert`](Self::insert).
    pub fn insert_unique(&mut self, item: &T) -> Result<bool, Error>
    where
        T: Hash,
    {
        self.0.run(|table| table.insert_unique(item))
    }

    /// How many stored fingerprints match `item` (`CF.COUNT`): the times it
    /// was stored, plus any other item's equal fingerprint in its buckets.
    ///
    /// # Errors
    ///
    /// As [`contains`](Self::contains).
    pub fn count<Q: ?Sized + Hash>(&mut self, item: &Q) -> Result<usize, Error>
    where
        T: Borrow<Q>,
    {
        self.0.run(|table| table.count(item))
    }
}

impl<T: ?Sized, C, M: Mode> RedisFilter<T, C, Cuckoo, M> {
    /// Buckets in the table.
    pub fn num_buckets(&self) -> u64 {
        self.0.inner.geometry.buckets
    }

    /// Slots per bucket (`b`).
    pub fn bucket_size(&self) -> u32 {
        self.0.inner.geometry.bucket_size
    }

    /// Bits per fingerprint (`f`).
    pub fn fingerprint_bits(&self) -> u32 {
        self.0.inner.geometry.fingerprint_bits
    }

    /// Slots in the table.
    pub fn capacity(&self) -> u64 {
        self.0.inner.capacity()
    }

    /// The most fingerprints one insert may move before it gives up.
    pub fn max_relocations(&self) -> u32 {
        self.0.inner.meta.max_relocations
    }

    /// Shard keys.
    pub fn num_shards(&self) -> u64 {
        self.0.inner.geometry.shards()
    }

    /// The key of shard `s`.
    pub fn shard_key(&self, s: u64) -> String {
        self.0.inner.keys.shard(s)
    }

    /// The metadata hash's key.
    pub fn meta_key(&self) -> String {
        self.0.inner.keys.meta()
    }

    /// Bytes of the table in Redis, guards included.
    pub fn memory_bytes(&self) -> u64 {
        self.0.inner.geometry.table_bytes() + self.num_shards()
    }
}
