//! One signature per operation (issue 13, point 2): each filter's inherent
//! `insert` and `insert_batch` return what `Membership`'s return, so code
//! written against one compiles against the other. The function pointers
//! below only type-check if the signatures agree; the calls check that the
//! answers do too.

use bloomlab::prelude::*;

type Insert<F> = fn(&mut F, &u64) -> Result<bool, InsertError>;
type InsertBatch<F> = fn(&mut F, &[u64]) -> Result<usize, InsertBatchError>;

fn agree<F: Membership<u64> + Clone>(f: F, insert: Insert<F>, insert_batch: InsertBatch<F>) {
    let (mut a, mut b) = (f.clone(), f);
    for item in [1, 2, 1] {
        assert_eq!(insert(&mut a, &item), Membership::insert(&mut b, &item));
    }
    let items = [3, 4, 3];
    assert_eq!(
        insert_batch(&mut a, &items),
        Membership::insert_batch(&mut b, &items)
    );
    assert_eq!(a.len(), b.len());
}

#[test]
fn inherent_and_trait_inserts_have_one_signature() {
    agree(
        BloomFilter::builder(100, 0.01).seed(1).build().unwrap(),
        BloomFilter::insert,
        BloomFilter::insert_batch,
    );
    agree(
        BlockedBloomFilter::builder(100, 0.01)
            .seed(1)
            .build()
            .unwrap(),
        BlockedBloomFilter::insert,
        BlockedBloomFilter::insert_batch,
    );
    // The atomic filter inserts through `&self` (many threads at once); its
    // return types are the same.
    agree(
        AtomicBloomFilter::builder(100, 0.01)
            .seed(1)
            .build()
            .unwrap(),
        |f, item| AtomicBloomFilter::insert(f, item),
        |f, items| AtomicBloomFilter::insert_batch(f, items),
    );
    agree(
        CountingBloomFilter::builder(100, 0.01)
            .seed(1)
            .build()
            .unwrap(),
        CountingBloomFilter::insert,
        CountingBloomFilter::insert_batch,
    );
    agree(
        ScalableBloomFilter::builder(100, 0.01)
            .seed(1)
            .build()
            .unwrap(),
        ScalableBloomFilter::insert,
        ScalableBloomFilter::insert_batch,
    );
    agree(
        CuckooFilter::builder(100, 0.01).seed(1).build().unwrap(),
        CuckooFilter::insert,
        CuckooFilter::insert_batch,
    );
}
