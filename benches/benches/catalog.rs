//! Every variant of the standard catalog side by side, built by its
//! descriptor and driven through `dyn AnyFilter`
//! ([`bloomlab_benches::catalog`]): 1M items at 1%, inserts one at a time
//! and lookups of members and of absent keys.

use criterion::{Criterion, criterion_group, criterion_main};

use bloomlab::catalog::Catalog;
use bloomlab_benches::harness::{self, Setting};

const SETTING: Setting<'static> = Setting::new("1M items, 1%", 10);

fn bench(c: &mut Criterion) {
    bloomlab_benches::catalog::bench(c, &Catalog::standard(), 1_000_000, SETTING);
}

criterion_group! {
    name = benches;
    config = harness::criterion();
    targets = bench
}
criterion_main!(benches);
