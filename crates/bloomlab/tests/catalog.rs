//! The catalog agrees with the filters it builds: each entry's plan is what
//! its constructor allocates, its shape is the built filter's, its
//! capabilities are what the built filter does, and its decoder reads what
//! the filter writes.

use std::collections::HashMap;

use bloomlab::catalog::{self, Table};
use bloomlab::scalable::descriptor::Layers;

const SIZES: [(u64, f64); 6] = [
    (1, 0.5),
    (1_000, 0.01),
    (12_345, 0.001),
    (100_000, 1e-4),
    (70_001, 0.05),
    (250_000, 1e-6),
];

#[test]
fn catalog_is_the_only_list() {
    let variants = catalog::variants::<u64>();
    let mut ids = HashMap::new();
    let mut tags: HashMap<u16, &str> = HashMap::new();
    for v in &variants {
        assert!(ids.insert(v.id, ()).is_none(), "{} listed twice", v.id);
        // One tag a type, and one type a tag.
        let owner = *tags.entry(v.tag).or_insert(v.type_name);
        assert_eq!(owner, v.type_name, "tag {} names two types", v.tag);
        assert!(v.crate_name.starts_with("bloomlab-"), "{}", v.crate_name);
        // A caveat goes into CSV cells: words, no commas.
        assert!(!v.caveat.is_empty() && !v.caveat.contains(','), "{}", v.id);
    }
    // The standard list is the families' descriptors, in report order.
    let ids: Vec<&str> = variants.iter().map(|v| v.id).collect();
    let families: Vec<&str> = [
        bloomlab::classic::descriptor::descriptors::<u64>(),
        bloomlab::counting::descriptor::descriptors(),
        bloomlab::scalable::descriptor::descriptors(),
        bloomlab::cuckoo::descriptor::descriptors(),
        bloomlab::fuse::descriptor::descriptors(),
        bloomlab::quotient::descriptor::descriptors(),
    ]
    .iter()
    .flatten()
    .map(|v| v.id)
    .collect();
    assert_eq!(ids, families);
    for (n, p) in SIZES {
        for v in &variants {
            let items: Vec<u64> = (0..n.min(5_000)).collect();
            // A variant built from its keys is planned for those keys.
            let planned = if v.can.from_keys {
                items.len() as u64
            } else {
                n
            };
            let plan = (v.plan)(planned, p).unwrap();
            let mut f = match v.empty() {
                Some(build) => build(n as usize, p, 42).unwrap(),
                None => {
                    let keys: Vec<&u64> = items.iter().collect();
                    v.holding(&keys, n as usize, p, 42).unwrap()
                }
            };
            let what = format!("{} at ({n}, {p})", v.id);
            assert_eq!(plan.memory_bytes, f.memory_bytes() as u128, "{what}");
            // The plan's table is the built filter's.
            assert_eq!(plan.table.label(), f.table().label(), "{what}");
            assert_eq!(plan.table.parameters(), f.table().parameters(), "{what}");
            assert_eq!(f.as_deletable().is_some(), v.can.delete, "{what}");
            // Every variant but those built from their keys takes inserts.
            assert_eq!(f.as_membership().is_some(), !v.can.from_keys, "{what}");
            // One line a block, two buckets, k bits or counters; a chain of
            // one layer, as built, reads that layer's k lines (a grown chain
            // reads a first round of a few lines in each layer): what the
            // table's theory says of a look-up of an item it holds.
            let lines = plan.table.lookup_lines(1).hit as usize;
            let lines = lines..=lines;
            assert!(lines.contains(&f.lookup_lines()), "{what}");

            if let Some(m) = f.as_membership() {
                for i in &items {
                    m.insert(i).unwrap();
                }
            }
            if let Some(d) = f.as_deletable() {
                d.remove(&0).unwrap();
            }
            let bytes = f.to_bytes();
            let back = (catalog::by_tag::<u64>(v.tag).unwrap().decode)(&bytes).unwrap();
            assert_eq!(back.to_bytes(), bytes, "{what}");
            assert_eq!(back.table().label(), f.table().label(), "{what}");
            assert!(items[1..].iter().all(|i| back.contains(i)), "{what}");
        }
    }
}

#[test]
fn the_theory_of_a_shape_is_the_filter_s_own() {
    // Every filter's expected_fpr() at its present load is the catalog
    // shape's theory at that load. A growing chain is the exception: it
    // skips an item an older layer already reports present (a false
    // positive there), so its layers hold a little less than the theory's
    // `n` distinct items and its own figure is lower, by well under 1%.
    for v in catalog::variants::<u64>() {
        let items: Vec<u64> = (0..20_000).collect();
        let keys: Vec<&u64> = items.iter().collect();
        let f = v.holding(&keys, 20_000, 0.01, 3).unwrap();
        let theory = f.table().fpr(20_000);
        let own = f.expected_fpr();
        let close = if v.can.grow {
            own <= theory && own >= theory * 0.99
        } else {
            (theory - own).abs() <= 1e-9 * own
        };
        assert!(close, "{}: shape {theory} against expected_fpr {own}", v.id);
    }
}

#[test]
fn a_growing_chain_s_theory_counts_its_layers() {
    let shape = Layers {
        initial_capacity: 1_000,
        growth: 2,
        tightening: 0.85,
        fpr: 0.01,
    };
    // Three full layers (1,000 + 2,000 + 4,000) and half of the fourth.
    let rate = shape.fpr(11_000);
    assert!(rate > 0.0 && rate <= 0.01, "{rate}");
    assert!(shape.fpr(1_000) < rate);
}

#[test]
fn lookups_by_id_and_tag() {
    assert_eq!(
        catalog::find::<str>("cuckoo-ss").unwrap().label(),
        "CuckooFilter (semi-sorted)"
    );
    assert_eq!(catalog::by_tag::<str>(6).unwrap().id, "cuckoo");
    assert_eq!(catalog::by_tag::<str>(9).unwrap().id, "quotient");
    assert!(catalog::find::<str>("xor").is_none());
    assert!(catalog::by_tag::<str>(99).is_none());
}
