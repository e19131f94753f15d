//! Every variant of a catalog in the same criterion groups, built by its
//! descriptor and driven through `dyn AnyFilter`: the bench list a new
//! variant joins through its descriptor alone (`benches/benches/catalog.rs`
//! runs it over the standard catalog). The per-family bench files measure
//! the concrete types against their peers; these rows put every variant
//! side by side, dynamic dispatch included.

use criterion::Criterion;

use bloomlab::catalog::{AnyFilter, Catalog, Descriptor};

use crate::harness::{self, Group, Setting};

/// The rate every row is built for.
pub const FPR: f64 = 0.01;

/// The row name of `v` in every group.
pub fn row_name(v: &Descriptor<u64>) -> String {
    format!("bloomlab {}", v.id)
}

/// The rows of `catalog`'s groups, in order: one per entry.
pub fn bench_list(catalog: &Catalog<u64>) -> Vec<String> {
    catalog.iter().map(row_name).collect()
}

/// The groups `catalog/insert`, `catalog/lookup_hit` and
/// `catalog/lookup_miss`: each entry of `catalog` built for `items` at
/// [`FPR`] (a growing one for a tenth of them, as the experiments build
/// it), seeded, then filled. An entry its constructor refuses at this size
/// is left out, with a line on stderr.
pub fn bench(c: &mut Criterion, catalog: &Catalog<u64>, items: usize, setting: Setting<'_>) {
    let (members, others) = crate::keys(2024, items);
    let capacity = |v: &Descriptor<u64>| if v.can.grow { items / 10 } else { items }.max(1);
    // Inserts: the entries that take them.
    let mut group = Group::new(c, "catalog/insert", setting, harness::BATCH);
    for v in catalog {
        let Some(build) = v.empty() else { continue };
        let empty = || match build(capacity(v), FPR, 7) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("catalog bench: {e}");
                None
            }
        };
        let Some(mut f) = empty() else { continue };
        // Built anew (untimed) once it holds `items`, so that every batch
        // inserts distinct keys into a filter within its size.
        group.undone(
            &row_name(v),
            &mut f,
            &members,
            |f, batch| match f.as_membership() {
                Some(m) => harness::insert_each(m, batch),
                None => 0,
            },
            |f, _| {
                if f.len() >= items
                    && let Some(fresh) = empty()
                {
                    *f = fresh;
                }
            },
        );
    }
    group.finish();
    // Lookups: every entry, holding the members.
    let keys: Vec<&u64> = members.iter().collect();
    let filled: Vec<(String, Box<dyn AnyFilter<u64>>)> = catalog
        .iter()
        .filter_map(|v| match v.holding(&keys, capacity(v), FPR, 7) {
            Ok(f) => Some((row_name(v), f)),
            Err(e) => {
                eprintln!("catalog bench: {e}");
                None
            }
        })
        .collect();
    let hits_misses = [&members[..], &others[..]];
    harness::lookup_groups(c, "catalog", setting, hits_misses, |group, keys| {
        for (name, f) in &filled {
            group.cycle(name, keys, |batch| {
                batch.iter().filter(|k| f.contains(k)).count()
            });
        }
    });
}
