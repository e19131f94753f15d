use std::panic;

use super::*;

/// The tag the test samples carry.
const TAG: Tag = Tag::new(1, "BloomFilter");

fn sample() -> Sample {
    let p = Parts {
        version: FORMAT_VERSION,
        tag: TAG.id(),
        key: [7; 16],
        params: vec![1, 2, 3, 4, 5, 6, 7, 8],
        payload: vec![9; 24],
    };
    Sample {
        label: "test".into(),
        bytes: p.seal(),
        fields: vec![Field::param("first", 0, Kind::U64)],
    }
}

#[test]
fn envelopes_parse_and_seal_alike() {
    let s = sample();
    let p = Parts::parse(&s.bytes).unwrap();
    assert_eq!(p.seal(), s.bytes);
    assert_eq!(p.params, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert!(Parts::parse(&s.bytes[1..]).is_none());
}

#[test]
fn cases_are_deterministic_and_varied() {
    let plan = Plan::new("test", TAG, vec![sample()]);
    let n = plan.directed().len() as u64;
    assert!(n > 20);
    for i in [0, 3, n, n + 1, n + 999] {
        let (a, b) = (plan.case(i), plan.case(i));
        assert_eq!((a.description, a.bytes), (b.description, b.bytes));
    }
    assert_ne!(plan.case(n).bytes, plan.case(n + 1).bytes);
    assert_eq!(plan.case(0).bytes, sample().bytes);
}

#[test]
fn edge_values_leave_out_the_original() {
    let v = edge_values(Kind::U64, 5);
    assert!(v.contains(&u64::MAX) && v.contains(&6) && !v.contains(&5));
    assert!(edge_values(Kind::U8, 3).iter().all(|&x| x <= 255));
}

#[test]
fn panics_and_hangs_are_reported() {
    let mut plan = Plan::new("test", TAG, vec![sample()]);
    plan.random_cases = 10;
    let r = run(&plan, |_| true);
    assert_eq!(r.cases, plan.directed().len() as u64 + 10);

    let first = sample().bytes;
    let panicking = panic::catch_unwind(|| run(&plan, move |b| b != first || panic!("boom")));
    let msg = panicking.unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("PANICKED") && msg.contains("boom"), "{msg}");

    plan.case_limit = Duration::from_millis(200);
    let hanging = panic::catch_unwind(|| {
        let first = sample().bytes;
        run(&plan, move |b| {
            if b == first {
                std::thread::sleep(Duration::from_secs(1));
            }
            true
        })
    });
    let msg = hanging.unwrap_err();
    let msg = msg.downcast_ref::<String>().unwrap();
    assert!(msg.contains("HUNG"), "{msg}");
}
