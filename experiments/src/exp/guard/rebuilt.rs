//! A static filter rebuilt from the database (issue 51): a
//! [`BinaryFuseFilter`] of every id SQLite holds, read with one `SELECT`
//! and rebuilt after every R requests, beside a [`BloomFilter`] of the rows
//! inserted since the last build. The guard answers "maybe present" if
//! either part does, so a new row is never answered absent. It runs the
//! inserts stream ([`Stream::Inserts`]) with no guard and the classic 1%
//! filter beside it, into `guard_rebuilt.csv`.

use std::time::Duration;

use super::*;

/// The inserts stream is this many times a stream's requests long, so that
/// the longest finite interval ([`intervals`]) still rebuilds five times.
pub(super) const INSERTS_LENGTH: usize = 5;

/// The target rate of both parts, and of the classic filter beside them.
const TARGET: f64 = 0.01;

/// The label of every rebuilt guard; its rows differ in `rebuild_every`.
const LABEL: &str = "fuse + delta 1%";

/// The guards of `guard.csv` that run the inserts stream as references:
/// what no guard and an insertable filter give.
const REFERENCES: [&str; 2] = ["none", "classic 1%"];

/// Requests between two builds: a quarter of a stream's requests, a
/// stream's requests, and never within the run. At quick scale (2,000
/// requests a stream): 500, 2,000 and never, over 10,000 requests.
pub(super) fn intervals(requests: usize) -> [Option<u64>; 3] {
    let r = requests as u64;
    [Some((r / 4).max(1)), Some(r.max(1)), None]
}

/// The rows expected between two builds of a guard rebuilt after every
/// `every` requests, of a stream of `length`: what its insertable part is
/// sized for. More only raise that part's rate; none is ever lost.
pub(super) fn delta_rows(every: Option<u64>, length: usize) -> usize {
    let interval = every.map_or(length as f64, |e| e as f64);
    ((interval * INSERT_SHARE).ceil() as usize).max(1)
}

/// One build of the static part: the `SELECT` and the whole build.
#[derive(Debug, Clone, Copy)]
struct Build {
    /// The `SELECT` of every id.
    select: Duration,
    /// The `SELECT` and the construction.
    total: Duration,
}

/// A static filter of the database's ids, rebuilt now and then, and an
/// insertable filter of the rows inserted since its last build.
pub(super) struct Rebuilt {
    /// Every id the database held at the last build.
    static_part: BinaryFuseFilter<u64>,
    /// The ids inserted since the last build.
    delta: BloomFilter<u64>,
    /// Ops between two builds; `None`: never rebuilt.
    every: Option<u64>,
    /// The target rate of both parts.
    fpr: f64,
    /// The static part's hash key, the same at every build.
    seed: u64,
    /// Ops counted since the last build.
    since: u64,
    /// Whether the last look-up passed by the delta alone.
    pub(super) last_by_delta: bool,
    /// Every build, the first included.
    builds: Vec<Build>,
}

impl Rebuilt {
    /// The guard of the ids in `db`, rebuilt after every `every` requests,
    /// its insertable part sized for `delta_rows` rows; both parts at `fpr`.
    pub(super) fn build(
        every: Option<u64>,
        fpr: f64,
        delta_rows: usize,
        seed: u64,
        db: &Database,
    ) -> Result<Self, Error> {
        let delta = BloomFilter::builder(delta_rows, fpr)
            .seed(sub_seed(seed, "delta"))
            .build()
            .map_err(Error::filter("guard: the rebuilt guard's delta filter"))?;
        let (static_part, build) = Self::from_db(fpr, seed, db)?;
        Ok(Self {
            static_part,
            delta,
            every,
            fpr,
            seed,
            since: 0,
            last_by_delta: false,
            builds: vec![build],
        })
    }

    /// The static filter of every id in `db`, and how long the `SELECT`
    /// and the whole build took.
    fn from_db(
        fpr: f64,
        seed: u64,
        db: &Database,
    ) -> Result<(BinaryFuseFilter<u64>, Build), Error> {
        let started = Instant::now();
        let ids = db.ids()?;
        let select = started.elapsed();
        let filter = BinaryFuseFilter::<u64>::builder(fpr)
            .seed(seed)
            .build(&ids)
            .map_err(Error::filter("guard: building the static filter"))?;
        let total = started.elapsed();
        Ok((filter, Build { select, total }))
    }

    /// Rebuilds the static part from `db` and clears the delta, whose rows
    /// the database now holds.
    fn rebuild(&mut self, db: &Database) -> Result<(), Error> {
        let (filter, build) = Self::from_db(self.fpr, self.seed, db)?;
        self.static_part = filter;
        self.delta.clear();
        self.builds.push(build);
        Ok(())
    }

    /// Whether `id` may be present: in the static part, or else in the delta.
    pub(super) fn contains(&mut self, id: u64) -> bool {
        let in_static = self.static_part.contains(&id);
        self.last_by_delta = !in_static && self.delta.contains(&id);
        in_static || self.last_by_delta
    }

    /// Adds a new row's id to the delta.
    pub(super) fn insert(&mut self, id: u64) -> Result<(), Error> {
        self.delta
            .insert(&id)
            .map(drop)
            .map_err(Error::filter(format!(
                "inserting {id} into the delta filter"
            )))
    }

    /// Counts one op; rebuilds from `db` when the interval is complete.
    pub(super) fn after_op(&mut self, db: &Database) -> Result<(), Error> {
        self.since += 1;
        if self.every == Some(self.since) {
            self.rebuild(db)?;
            self.since = 0;
        }
        Ok(())
    }

    /// The rate of an absent id now: it passes if either part lets it,
    /// `1 − (1 − ε_static)(1 − ε_delta)`, the delta's at its present load.
    pub(super) fn expected_fpr(&self) -> f64 {
        1.0 - (1.0 - self.static_part.expected_fpr()) * (1.0 - self.delta.expected_fpr())
    }

    /// Bytes of both parts.
    pub(super) fn memory_bytes(&self) -> u64 {
        (self.static_part.memory_bytes() + self.delta.memory_bytes()) as u64
    }

    /// What the rebuilds of the run cost, and the parts' sizes now.
    fn stats(&self) -> Rebuilds {
        let mean = |f: fn(&Build) -> Duration| {
            let sum: Duration = self.builds.iter().map(f).sum();
            sum.as_secs_f64() * 1e3 / self.builds.len().max(1) as f64
        };
        Rebuilds {
            every: self.every,
            rebuilds: self.builds.len().saturating_sub(1) as u64,
            build_ms: mean(|b| b.total),
            select_ms: mean(|b| b.select),
            static_bytes: self.static_part.memory_bytes() as u64,
            static_keys: self.static_part.len() as u64,
            fingerprint_bits: self.static_part.fingerprint_bits(),
            static_fpr: self.static_part.expected_fpr(),
            delta_bytes: self.delta.memory_bytes() as u64,
        }
    }
}

/// A rebuilt guard's side of its row.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rebuilds {
    /// Requests between two builds; `None`: never rebuilt within the run.
    pub(super) every: Option<u64>,
    /// Rebuilds within the run (the first build not counted).
    pub(super) rebuilds: u64,
    /// Mean time of one build from the database, the `SELECT` and the
    /// construction, over every build (the first included: the same work).
    pub(super) build_ms: f64,
    /// Of which the `SELECT` of every id.
    pub(super) select_ms: f64,
    /// Bytes of the static filter after the last build.
    pub(super) static_bytes: u64,
    /// The rows it was built from.
    pub(super) static_keys: u64,
    /// Its fingerprints' width.
    pub(super) fingerprint_bits: u32,
    /// Its rate, `2^−f`.
    pub(super) static_fpr: f64,
    /// Bytes of the delta filter (fixed at its build).
    pub(super) delta_bytes: u64,
}

/// One row of `guard_rebuilt.csv`: a guard on the inserts stream.
#[derive(Debug)]
pub(super) struct RebuiltRow {
    /// The counts, as a row of `guard.csv` has them.
    pub(super) row: Row,
    /// `None` for the reference guards.
    pub(super) rebuilds: Option<Rebuilds>,
}

impl RebuiltRow {
    /// Rows in the database at the end of the run.
    pub(super) fn rows_at_end(&self, n_rows: u64) -> u64 {
        n_rows + self.row.tally.inserts
    }

    /// Bits of the guard per row in the database at the end of the run.
    pub(super) fn bits_per_row_at_end(&self, n_rows: u64) -> f64 {
        self.row.memory_bytes as f64 * 8.0 / self.rows_at_end(n_rows) as f64
    }

    /// Database queries per 1,000 reads.
    pub(super) fn queries_per_1000(&self) -> f64 {
        self.row.per_1000(self.row.db_queries())
    }

    /// The rebuild interval as the CSV and the report give it.
    pub(super) fn every(&self) -> String {
        match self.rebuilds {
            None => "-".into(),
            Some(Rebuilds { every: None, .. }) => "never".into(),
            Some(Rebuilds { every: Some(e), .. }) => e.to_string(),
        }
    }
}

/// The guards of `guard_rebuilt.csv`, in report order: the references,
/// then the rebuilt guard at each interval.
pub(super) fn guards(requests: usize) -> Vec<Guard> {
    let references = REFERENCES
        .iter()
        .filter_map(|&label| GUARDS.into_iter().find(|g| g.label == label));
    let rebuilt =
        intervals(requests).map(|every| Guard::new(Kind::Rebuilt { every }, TARGET, LABEL));
    references.chain(rebuilt).collect()
}

/// Runs the inserts stream of `length` requests through each guard of
/// [`guards`], against `db` (which holds the rows `0..n_rows`, and again
/// does afterwards) behind `cache`.
pub(super) fn run_inserts(
    ctx: &Ctx,
    n_rows: u64,
    requests: usize,
    db: &Database,
    cache: &mut Cache,
    bar: &indicatif::ProgressBar,
) -> Result<Vec<RebuiltRow>, Error> {
    let length = INSERTS_LENGTH * requests;
    let ops = script(Stream::Inserts, n_rows, length, ctx.seed)?;
    let mut out = Vec::new();
    for guard in guards(requests) {
        cache.clear()?;
        let mut filter = match guard.kind {
            Kind::Rebuilt { every } => {
                let seed = sub_seed(ctx.seed, &format!("guard/filter/rebuilt/{every:?}"));
                let g = Rebuilt::build(every, guard.fpr, delta_rows(every, length), seed, db)?;
                Built::Rebuilt(Box::new(g))
            }
            _ => {
                let seed = sub_seed(ctx.seed, &format!("guard/filter/{}", guard.label));
                Built::build(guard, n_rows, seed, None)?
            }
        };
        let tally = run_script(&mut filter, cache, db, &ops)?;
        for id in inserted(&ops) {
            db.delete(id)?;
        }
        let rebuilds = match &filter {
            Built::Rebuilt(g) => Some(g.stats()),
            _ => None,
        };
        let expected = tally.expected_false_positives / tally.absent_requests.max(1) as f64;
        let row = Row::measured(
            guard,
            Stream::Inserts,
            filter.memory_bytes(),
            expected,
            vec![tally],
        );
        out.push(RebuiltRow { row, rebuilds });
        bar.inc(1);
    }
    Ok(out)
}

/// Database queries per 1,000 reads with no guard, on the inserts stream.
pub(super) fn none_per_1000(rows: &[RebuiltRow]) -> Option<f64> {
    rows.iter()
        .find(|r| r.row.guard.kind == Kind::None)
        .map(RebuiltRow::queries_per_1000)
}

/// `guard_rebuilt.csv`: the columns of `guard.csv` that apply, and what a
/// rebuilt guard adds ("-" for the references).
pub(super) fn rebuilt_table(rows: &[RebuiltRow], n_rows: u64, cache: &str) -> Table {
    let none = none_per_1000(rows);
    Table::from_records(rows.iter().map(|r| {
        let (row, tally) = (&r.row, &r.row.tally);
        let part = |f: fn(&Rebuilds) -> String| r.rebuilds.as_ref().map_or("-".into(), f);
        let middle = [
            ("rebuild_every", r.every()),
            ("rebuilds", part(|b| b.rebuilds.to_string())),
            ("rebuild_ms", part(|b| format!("{:.3}", b.build_ms))),
            ("select_ms", part(|b| format!("{:.3}", b.select_ms))),
            ("static_bytes", part(|b| b.static_bytes.to_string())),
            ("delta_bytes", part(|b| b.delta_bytes.to_string())),
            ("memory_bytes", row.memory_bytes.to_string()),
            ("bits_per_row", fixed(r.bits_per_row_at_end(n_rows))),
            ("cache", cache.into()),
            ("workload", row.stream.name()),
            ("rows", n_rows.to_string()),
            ("rows_at_end", r.rows_at_end(n_rows).to_string()),
            ("requests", tally.requests.to_string()),
            ("inserts", tally.inserts.to_string()),
            ("absent_requests", tally.absent_requests.to_string()),
            ("new_row_requests", tally.new_row_requests.to_string()),
            ("found_by_delta", tally.found_by_delta.to_string()),
            ("db_queries", row.db_queries().to_string()),
            ("db_queries_per_1000", fixed(r.queries_per_1000())),
            (
                "db_queries_saved_per_1000",
                none.map_or("-".into(), |n| fixed(n - r.queries_per_1000())),
            ),
            ("absent_db_queries", tally.db_not_found.to_string()),
            (
                "absent_db_queries_per_1000",
                fixed(row.per_1000(tally.db_not_found)),
            ),
        ];
        let inside = (
            "theory_in_ci95",
            row.or_dash(yes_no(row.theory_inside()).into()),
        );
        (row.guard_cells().into_iter())
            .chain(middle)
            .chain(row.rate_cells())
            .chain([inside])
            .chain(row.latency_cells())
            .collect()
    }))
}
