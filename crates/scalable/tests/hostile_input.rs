//! Parameters that would drive a layer's rate out of `f64`'s range are
//! refused at build, naming what the caller gave (issue 12, case 4).

use bloomlab_core::InsertError;
use bloomlab_scalable::{BuildError, Invalid, ScalableBloomFilter};

#[test]
fn a_vanishing_tightening_ratio_is_refused_at_build() {
    // Layer 2 would need 0.01·(1 − r)·r^2 = 1e-602: zero in f64. Before, the
    // filter built and insert 301 returned Full forever.
    let e = ScalableBloomFilter::<u64>::builder(100, 0.01)
        .tightening_ratio(1e-300)
        .seed(1)
        .build()
        .unwrap_err();
    assert_eq!(
        e,
        BuildError::Variant(Invalid::RateUnderflow {
            fpr: 0.01,
            tightening: 1e-300,
            layer: 2
        })
    );
    assert!(e.to_string().contains("tightening ratio 1e-300"), "{e}");
}

#[test]
fn a_rate_whose_first_layer_underflows_is_refused_naming_that_rate() {
    // 5e-324·(1 − 0.85) rounds to 0; the error names 5e-324, not 0.
    let e = ScalableBloomFilter::<u64>::new(1_000, 5e-324).unwrap_err();
    assert_eq!(
        e,
        BuildError::Variant(Invalid::RateUnderflow {
            fpr: 5e-324,
            tightening: 0.85,
            layer: 0
        })
    );
    assert!(e.to_string().contains("false-positive rate 5e-324"), "{e}");
}

#[test]
fn every_accepted_schedule_keeps_growing() {
    // The smallest ratio accepted for 100 items at 1% (the first layer past
    // which capacity overflows has a normal rate): inserts never stop early.
    let mut r = 1e-300;
    let f = loop {
        match ScalableBloomFilter::builder(100, 0.01)
            .tightening_ratio(r)
            .seed(1)
            .build()
        {
            Ok(f) => break f,
            Err(BuildError::Variant(Invalid::RateUnderflow { .. })) => r *= 10.0,
            Err(e) => panic!("{e}"),
        }
    };
    assert!(r > 1e-300 && r < 1e-3, "{r}");
    let mut f = f;
    for i in 0..10_000u64 {
        assert_ne!(f.insert(&i), Err(InsertError::Full), "item {i} at r = {r}");
    }
    assert!(f.layers().len() >= 7, "{} layers", f.layers().len());
}
