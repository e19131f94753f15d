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

use bloomlab_core::{Deletable, Membership};
use criterion::measurement::WallTime;
use criterion::{BatchSize, Bencher, BenchmarkGroup, BenchmarkId, Criterion, Throughput};

/// Keys per iteration.
pub const BATCH: usize = 10_000;

/// Criterion without plots: they cost about 4 s per benchmark on the 2-core
/// machine, more than the measurement itself, and the report tool reads
/// criterion's JSON estimates.
pub fn criterion() -> Criterion {
    Criterion::default().without_plots()
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
pub fn hits<F: Membership<u64> + ?Sized>(f: &F, keys: &[u64]) -> usize {
    keys.iter().filter(|k| f.contains(k)).count()
}

/// How many answers of a batch lookup are "present".
pub fn trues(answers: &[bool]) -> usize {
    answers.iter().filter(|&&present| present).count()
}
