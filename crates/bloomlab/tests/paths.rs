//! Every error and trait a program meets has a public path: at the facade's
//! top level, in its prelude, and in each variant crate for what that
//! crate's API uses (issue 13, point 4). This file compiles only if they do.

use bloomlab::prelude::*;

#[test]
fn every_error_has_a_top_level_path() {
    let classic: Result<BloomFilter<u64>, bloomlab::ClassicBuildError> = BloomFilter::new(0, 0.01);
    assert!(matches!(
        classic,
        Err(bloomlab::ClassicBuildError::Param(ParamError::ZeroItems))
    ));
    let counting: Result<CountingBloomFilter<u64>, bloomlab::CountingBuildError> =
        CountingBloomFilter::new(10, 2.0);
    assert!(counting.is_err());
    let cuckoo: Result<CuckooFilter<u64>, bloomlab::CuckooBuildError> = CuckooFilter::new(0, 0.01);
    assert!(cuckoo.is_err());
    let scalable: Result<ScalableBloomFilter<u64>, bloomlab::ScalableBuildError> =
        ScalableBloomFilter::new(0, 0.01);
    assert!(scalable.is_err());

    let a: BloomFilter<u64> = BloomFilter::builder(10, 0.01).seed(1).build().unwrap();
    let b = BloomFilter::builder(10, 0.01).seed(2).build().unwrap();
    let mut merged = a.clone();
    let e: bloomlab::ClassicMergeError = merged.union(&b).unwrap_err();
    assert!(!e.to_string().is_empty());
    let e: DecodeError = BloomFilter::<u64>::from_bytes(b"nope").unwrap_err();
    assert_eq!(e, DecodeError::BadMagic);
    let _: Option<InsertBatchError> = None;
    let _: Option<bloomlab::CountingMergeError> = None;
}

#[test]
fn each_variant_crate_names_the_traits_and_errors_its_api_uses() {
    // Through the variant crates' own paths, as a program depending on one
    // of them alone would write them.
    use bloomlab::cuckoo::{CuckooFilter, Deletable, InsertError, Membership, RemoveError};
    let mut f = CuckooFilter::builder(100, 0.01).seed(1).build().unwrap();
    let inserted: Result<bool, InsertError> = Membership::<u64>::insert(&mut f, &1);
    assert_eq!(inserted, Ok(true));
    let removed: Result<(), RemoveError> = Deletable::<u64>::remove(&mut f, &1);
    assert_eq!(removed, Ok(()));
    let _: Option<bloomlab::classic::InsertError> = None;
    let _: Option<bloomlab::scalable::BloomFilter<u64>> = None;
    let _: Option<bloomlab::counting::InsertBatchError> = None;
    let _: Option<bloomlab::scalable::DecodeError> = None;
    fn persist<P: bloomlab::classic::Persist>() {}
    persist::<bloomlab::classic::BloomFilter<u64>>();
}

#[test]
fn item_independent_methods_need_no_item_type() {
    // Before `Filter`, these failed with E0283 ("cannot satisfy `_: Hash`")
    // unless written `Membership::<u64>::bits_per_item(&f)`.
    let mut f = CuckooFilter::builder(1_000, 0.01).seed(1).build().unwrap();
    assert_eq!(f.bits_per_item(), None);
    for i in 0..100u64 {
        f.insert(&i).unwrap();
    }
    let bits = f.bits_per_item().expect("not empty");
    assert_eq!(bits, f.memory_bytes() as f64 * 8.0 / 100.0);
    let filters: Vec<Box<dyn Filter>> = vec![
        Box::new(f),
        Box::new(
            BloomFilter::<u64>::builder(10, 0.01)
                .seed(1)
                .build()
                .unwrap(),
        ),
    ];
    assert_eq!(filters.iter().map(|f| f.len()).sum::<usize>(), 100);
}
