//! The measuring loops every bench file shares, over bloomlab's traits, so
//! that a bloomlab filter and a peer (through its `bloomlab_lab::peers`
//! adapter) are timed by the same code.
//!
//! Every row handles a batch of [`BATCH`] keys per iteration, cycling
//! through its keys, so that tables and keys are read as a real workload
//! reads them, not from one hot cache line; the group's throughput is the
//! batch, so the report reads ns per operation.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloomlab_core::{Deletable, Lookup, Membership};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BatchSize, Bencher, BenchmarkGroup, BenchmarkId, Criterion, Throughput};

/// Keys per iteration.
pub const BATCH: usize = 10_000;

/// Criterion without plots: they cost about 4 s per benchmark on the 2-core
/// machine, more than the measurement itself, and the report tool reads
/// criterion's JSON estimates.
pub fn criterion() -> Criterion {
    Criterion::default().without_plots()
}

/// Criterion for the [`Turns`] rows, configured as [`criterion()`] and from
/// the command line (its filter, `--test`), as `criterion_group!` configures
/// the bench file's own.
pub fn turns_criterion() -> Criterion<Turns> {
    criterion().with_measurement(Turns).configure_from_args()
}

/// A criterion measurement of two loops timed in alternating turns: a
/// sample's value is the first loop's time over the second's, on
/// successive batches of the same keys, measured in the same seconds. Two rows measured one
/// after the other, as every other row here is, can differ by a sixth on
/// this virtual machine for no reason of their own (see
/// `benches/FINDINGS.md`); a ratio taken in turns of one batch each
/// carries the same slowdowns on both sides, so a floor measured this way
/// bounds its filter at every moment.
///
/// The value of `iters` iterations is `iters` times the ratio, so that
/// criterion's per-iteration estimates (value over iterations) are the
/// ratio itself; warm-up and the number of iterations per sample follow
/// wall time, as criterion does for every measurement.
#[derive(Debug, Clone, Copy, Default)]
pub struct Turns;

impl Turns {
    /// The value of `iters` iterations whose first loop took `first` in all
    /// and whose second took `second`: `iters · first / second` (a second
    /// loop too fast for the clock counts as one nanosecond).
    pub fn value(iters: u64, first: Duration, second: Duration) -> f64 {
        let second = second.as_nanos().max(1) as f64;
        iters as f64 * first.as_nanos() as f64 / second
    }
}

impl Measurement for Turns {
    type Intermediate = ();
    type Value = f64;

    /// Only [`TurnsGroup::pair`] measures, through `iter_custom`: a row
    /// timed by criterion's own `iter` would read zero.
    fn start(&self) {}
    fn end(&self, _: ()) -> f64 {
        0.0
    }
    fn add(&self, a: &f64, b: &f64) -> f64 {
        a + b
    }
    fn zero(&self) -> f64 {
        0.0
    }
    fn to_f64(&self, value: &f64) -> f64 {
        *value
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self
    }
}

impl ValueFormatter for Turns {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "x"
    }
    fn scale_throughputs(
        &self,
        _typical: f64,
        _: &Throughput,
        _values: &mut [f64],
    ) -> &'static str {
        "x"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ratio"
    }
}

/// A criterion group of [`Turns`] rows, `{family}/turns_{kind}` (see
/// [`turns_groups`]), one row per pair, named [`turns_id`]`(first,
/// second)`, at one setting.
pub struct TurnsGroup<'a> {
    inner: BenchmarkGroup<'a, Turns>,
    param: String,
}

/// The id of the [`Turns`] row of `first` against `second`.
pub fn turns_id(first: &str, second: &str) -> String {
    format!("{first} vs {second}")
}

impl<'a> TurnsGroup<'a> {
    /// The group `name` of pairs at `setting`, with the sampling of
    /// [`Group::new`]'s rows.
    pub fn new(c: &'a mut Criterion<Turns>, name: &str, setting: Setting<'_>) -> Self {
        let mut inner = c.benchmark_group(name);
        inner
            .sample_size(setting.samples)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));
        Self {
            inner,
            param: setting.param.to_owned(),
        }
    }

    /// The row `first vs second`: each iteration runs `first` on one batch
    /// of `keys` and `second` on the next (the other way round every other
    /// iteration), cycling through them, and times each. The two never
    /// read the same batch back to back: where they read the same table
    /// (a floor over a filter's own lines), the second would find the
    /// first's lines in the cache.
    pub fn pair<R, S>(
        &mut self,
        [first_name, second_name]: [&str; 2],
        keys: &[u64],
        mut first: impl FnMut(&[u64]) -> R,
        mut second: impl FnMut(&[u64]) -> S,
    ) {
        let mut batches = keys.chunks(BATCH).cycle();
        let id = BenchmarkId::new(turns_id(first_name, second_name), &self.param);
        self.inner.bench_function(id, |b| {
            b.iter_custom(|iters| {
                let (mut a, mut z) = (Duration::ZERO, Duration::ZERO);
                for i in 0..iters {
                    let order = if i % 2 == 0 {
                        [true, false]
                    } else {
                        [false, true]
                    };
                    for is_first in order {
                        let batch = batches.next().unwrap_or_default();
                        let start = Instant::now();
                        if is_first {
                            black_box(first(black_box(batch)));
                            a += start.elapsed();
                        } else {
                            black_box(second(black_box(batch)));
                            z += start.elapsed();
                        }
                    }
                }
                Turns::value(iters, a, z)
            })
        });
    }

    /// Ends the group.
    pub fn finish(self) {
        self.inner.finish();
    }
}

/// What the rows of a bench file share: the setting they are measured at
/// (the parameter of their ids) and how many samples each takes.
#[derive(Debug, Clone, Copy)]
pub struct Setting<'p> {
    /// The parameter of every row's id, e.g. `1M items, 1%`.
    pub param: &'p str,
    /// Samples per row.
    pub samples: usize,
}

impl<'p> Setting<'p> {
    /// Rows at `param`, of `samples` samples each.
    pub const fn new(param: &'p str, samples: usize) -> Self {
        Self { param, samples }
    }
}

/// What a row times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Inserts, one key at a time.
    Insert,
    /// Lookups, one key at a time; the iteration returns how many were
    /// reported present.
    Lookup,
}

/// A criterion group whose rows share one setting (the id's parameter).
pub struct Group<'a> {
    inner: BenchmarkGroup<'a, WallTime>,
    param: String,
}

impl<'a> Group<'a> {
    /// The group `name` of rows at `setting`: its samples after half a
    /// second of warm-up, two seconds of measurement, `elements` operations
    /// per iteration.
    pub fn new(c: &'a mut Criterion, name: &str, setting: Setting<'_>, elements: usize) -> Self {
        let mut inner = c.benchmark_group(name);
        inner
            .sample_size(setting.samples)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2))
            .throughput(Throughput::Elements(elements as u64));
        Self {
            inner,
            param: setting.param.to_owned(),
        }
    }

    /// Criterion's group, for settings of its own (sampling mode, samples).
    pub fn criterion(&mut self) -> &mut BenchmarkGroup<'a, WallTime> {
        &mut self.inner
    }

    /// Rows from here on are at setting `param`.
    pub fn set_param(&mut self, param: impl Into<String>) {
        self.param = param.into();
    }

    /// A row of criterion's own making.
    pub fn bench(&mut self, name: &str, routine: impl FnMut(&mut Bencher<'_, WallTime>)) {
        self.inner
            .bench_function(BenchmarkId::new(name, &self.param), routine);
    }

    /// Times `op` on batches of `keys`, cycling through them.
    pub fn cycle<R>(&mut self, name: &str, keys: &[u64], mut op: impl FnMut(&[u64]) -> R) {
        let mut batches = keys.chunks(BATCH).cycle();
        self.bench(name, |b| {
            b.iter(|| black_box(op(black_box(batches.next().unwrap_or_default()))))
        });
    }

    /// `op` on `f`, one key at a time, on batches of `keys`.
    pub fn row<F: Membership<u64>>(&mut self, name: &str, f: &mut F, op: Op, keys: &[u64]) {
        match op {
            Op::Insert => self.cycle(name, keys, |batch| insert_each(f, batch)),
            Op::Lookup => {
                let f = &*f;
                self.cycle(name, keys, |batch| hits(f, batch))
            }
        }
    }

    /// The `(batch)` row of `name`: `op` on `f` through `insert_batch` /
    /// `contains_batch` (hash a group of keys, prefetch their memory, then
    /// probe), counting the `true` answers of a lookup.
    pub fn batch_row<F: Membership<u64>>(&mut self, name: &str, f: &mut F, op: Op, keys: &[u64]) {
        let name = format!("{name} (batch)");
        match op {
            Op::Insert => self.cycle(&name, keys, |batch| f.insert_batch(batch).unwrap_or(0)),
            Op::Lookup => self.cycle(&name, keys, |batch| trues(&f.contains_batch(batch))),
        }
    }

    /// [`row`](Self::row) and [`batch_row`](Self::batch_row).
    pub fn rows<F: Membership<u64>>(&mut self, name: &str, f: &mut F, op: Op, keys: &[u64]) {
        self.row(name, f, op, keys);
        self.batch_row(name, f, op, keys);
    }

    /// Times `op` on `f` for each batch of `keys`, then calls `undo` on the
    /// same batch, untimed, so that every batch meets the same load.
    pub fn undone<F, R>(
        &mut self,
        name: &str,
        f: &mut F,
        keys: &[u64],
        mut op: impl FnMut(&mut F, &[u64]) -> R,
        mut undo: impl FnMut(&mut F, &[u64]),
    ) {
        let mut batches = keys.chunks(BATCH).cycle();
        self.bench(name, |b| {
            b.iter_custom(|iters| {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    let batch = batches.next().unwrap_or_default();
                    let start = Instant::now();
                    black_box(op(f, black_box(batch)));
                    timed += start.elapsed();
                    undo(f, batch);
                }
                timed
            })
        });
    }

    /// Times `op` on a fresh copy of `full` for each batch of `keys` (the
    /// copy is not timed), so that every batch meets the same load.
    pub fn on_copies<F: Clone>(
        &mut self,
        name: &str,
        full: &F,
        keys: &[u64],
        mut op: impl FnMut(&mut F, &[u64]),
    ) {
        let mut batches = keys.chunks(BATCH).cycle();
        self.bench(name, |b| {
            b.iter_batched_ref(
                || full.clone(),
                |f| op(f, black_box(batches.next().unwrap_or_default())),
                BatchSize::PerIteration,
            )
        });
    }

    /// Ends the group.
    pub fn finish(self) {
        self.inner.finish();
    }
}

/// The groups `{prefix}/lookup_hit` on `hits` and `{prefix}/lookup_miss` on
/// `misses`, each given its rows by `rows(group, keys)`.
pub fn lookup_groups(
    c: &mut Criterion,
    prefix: &str,
    setting: Setting<'_>,
    [hits, misses]: [&[u64]; 2],
    mut rows: impl FnMut(&mut Group<'_>, &[u64]),
) {
    for (kind, keys) in [("lookup_hit", hits), ("lookup_miss", misses)] {
        let mut group = Group::new(c, &format!("{prefix}/{kind}"), setting, BATCH);
        rows(&mut group, keys);
        group.finish();
    }
}

/// The [`Turns`] groups `{family}/turns_{kind}`, one for each stream
/// `(kind, keys)` of `streams` (`("hit", hits)`, `("miss", misses)`, …,
/// pairing the rows of `{family}/lookup_{kind}`), each given its pairs by
/// `pairs(group, keys)`.
pub fn turns_groups(
    c: &mut Criterion<Turns>,
    family: &str,
    setting: Setting<'_>,
    streams: &[(&str, &[u64])],
    mut pairs: impl FnMut(&mut TurnsGroup<'_>, &[u64]),
) {
    for &(kind, keys) in streams {
        let mut group = TurnsGroup::new(c, &format!("{family}/turns_{kind}"), setting);
        pairs(&mut group, keys);
        group.finish();
    }
}

/// The [`Turns`] rows of `f`, named `name`, against `peer`, named
/// `peer_name`: single lookups of both, on hits and on misses.
pub fn peer_turns<F: Membership<u64>, P: Membership<u64>>(
    c: &mut Criterion<Turns>,
    family: &str,
    setting: Setting<'_>,
    [name, peer_name]: [&str; 2],
    (f, peer): (&F, &P),
    [members, absent]: [&[u64]; 2],
) {
    let streams = [("hit", members), ("miss", absent)];
    turns_groups(c, family, setting, &streams, |group, keys| {
        group.pair([name, peer_name], keys, |b| hits(f, b), |b| hits(peer, b));
    });
}

/// Inserts `keys` one at a time; how many inserts succeeded.
pub fn insert_each<F: Membership<u64> + ?Sized>(f: &mut F, keys: &[u64]) -> usize {
    keys.iter()
        .filter(|k| f.insert(black_box(k)).is_ok())
        .count()
}

/// Removes `keys` one at a time; how many removes succeeded.
pub fn remove_each<F: Deletable<u64> + ?Sized>(f: &mut F, keys: &[u64]) -> usize {
    keys.iter()
        .filter(|k| f.remove(black_box(k)).is_ok())
        .count()
}

/// How many of `keys` `f` reports present, one lookup at a time.
///
/// A function of its own for every subject and peer alike, its filter a
/// parameter, as the floors' loops are (`crate::floor`) and as a program's
/// lookup loop has it. Folded into a timing closure instead, a loop reads
/// its filter through the closure's captures and, not knowing that the
/// filter stays unchanged across the call to the hasher, loads the
/// filter's constants again for every key: that cost the binary fuse
/// filter's lookups about a third of their time in turns against their
/// floor (1.33 times it, against 1.19 as a function), and xorf's about 5%.
#[inline(never)]
pub fn hits<F: Lookup<u64> + ?Sized>(f: &F, keys: &[u64]) -> usize {
    keys.iter().filter(|k| f.contains(k)).count()
}

/// How many answers of a batch lookup are "present".
pub fn trues(answers: &[bool]) -> usize {
    answers.iter().filter(|&&present| present).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_samples_value_is_its_iterations_times_the_ratio() {
        let ns = Duration::from_nanos;
        // Criterion divides a sample's value by its iterations: the ratio.
        assert_eq!(Turns::value(10, ns(3_000), ns(2_000)) / 10.0, 1.5);
        assert_eq!(Turns::value(4, ns(500), ns(1_000)), 2.0);
        // A second loop below the clock's resolution counts as 1 ns, so the
        // value stays finite.
        assert_eq!(Turns::value(1, ns(7), Duration::ZERO), 7.0);
        assert_eq!(turns_id("a", "b"), "a vs b");
    }
}
