//! Rows of `guard.csv`.

use super::*;

/// One row of the results.
#[derive(Debug)]
pub(super) struct Row {
    pub(super) guard: Guard,
    pub(super) stream: Stream,
    pub(super) memory_bytes: u64,
    pub(super) expected_fpr: f64,
    pub(super) tally: Tally,
    /// Latency quantiles (p50, p99, p99.9) and mean, in ns.
    pub(super) p50: u64,
    pub(super) p99: u64,
    pub(super) p999: u64,
    pub(super) mean: f64,
}

impl Row {
    /// The row of `guard` on `stream` from what its run counted: the
    /// latencies sorted into their quantiles.
    pub(super) fn measured(
        guard: Guard,
        stream: Stream,
        memory_bytes: u64,
        expected_fpr: f64,
        mut tally: Tally,
    ) -> Self {
        tally.latencies_ns.sort_unstable();
        let l = &tally.latencies_ns;
        let mean = l.iter().sum::<u64>() as f64 / l.len().max(1) as f64;
        Row {
            guard,
            stream,
            memory_bytes,
            expected_fpr,
            p50: quantile(l, 0.5),
            p99: quantile(l, 0.99),
            p999: quantile(l, 0.999),
            mean,
            tally,
        }
    }

    pub(super) fn per_1000(&self, count: u64) -> f64 {
        1000.0 * count as f64 / self.tally.requests.max(1) as f64
    }

    pub(super) fn db_queries(&self) -> u64 {
        self.tally.db_found + self.tally.db_not_found
    }

    /// Whether the guard's answers on absent ids are the binomial draws
    /// `expected_fpr` describes: not so for the deleted rows a classic
    /// filter still holds (stale entries pass every time).
    pub(super) fn theory_applies(&self) -> bool {
        self.tally.absent_requests > 0 && (self.stream != Stream::Churn || self.guard.deletes())
    }

    pub(super) fn interval(&self) -> Option<(f64, f64)> {
        (self.tally.absent_requests > 0)
            .then(|| clopper_pearson(self.tally.false_positives, self.tally.absent_requests, 0.95))
    }

    /// Whether the measured rate's 95% interval holds `expected_fpr`.
    pub(super) fn theory_inside(&self) -> bool {
        self.interval()
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&self.expected_fpr))
    }

    pub(super) fn bits_per_row(&self, n_rows: u64) -> f64 {
        self.memory_bytes as f64 * 8.0 / n_rows as f64
    }

    pub(super) fn measured_fpr(&self) -> f64 {
        self.tally.false_positives as f64 / self.tally.absent_requests.max(1) as f64
    }

    /// Theory's absent-id queries per 1,000 requests: 1000·a·ε.
    pub(super) fn theory_absent_per_1000(&self) -> f64 {
        let a = self.tally.absent_requests as f64 / self.tally.requests.max(1) as f64;
        1000.0 * a * self.expected_fpr
    }
}

pub(super) const COLUMNS: [&str; 30] = [
    "guard",
    "filter_type",
    "target_fpr",
    "memory_bytes",
    "bits_per_row",
    "cache",
    "workload",
    "skew",
    "absent_share",
    "rows",
    "requests",
    "absent_requests",
    "db_queries",
    "db_queries_per_1000",
    "absent_db_queries",
    "absent_db_queries_per_1000",
    "theory_absent_db_queries_per_1000",
    "cache_hits",
    "false_positives",
    "measured_fpr",
    "ci95_low",
    "ci95_high",
    "expected_fpr",
    "theory_applies",
    "theory_in_ci95",
    "wrong_answers",
    "mean_ns",
    "p50_ns",
    "p99_ns",
    "p999_ns",
];

pub(super) fn table(rows: &[Row], n_rows: u64, cache: &str) -> Table {
    let mut t = Table::new(&COLUMNS);
    for r in rows {
        let (lo, hi) = r.interval().unwrap_or((f64::NAN, f64::NAN));
        let applies = r.theory_applies();
        let inside = if applies {
            yes_no(r.theory_inside())
        } else {
            "-"
        };
        let or_dash = |ok: bool, s: String| if ok { s } else { "-".into() };
        let some = r.tally.absent_requests > 0;
        t.push(vec![
            r.guard.label.into(),
            r.guard.type_name().into(),
            r.guard.fpr.to_string(),
            r.memory_bytes.to_string(),
            fixed(r.bits_per_row(n_rows)),
            cache.into(),
            r.stream.name(),
            r.stream.skew().into(),
            r.stream.absent_share().to_string(),
            n_rows.to_string(),
            r.tally.requests.to_string(),
            r.tally.absent_requests.to_string(),
            r.db_queries().to_string(),
            fixed(r.per_1000(r.db_queries())),
            r.tally.db_not_found.to_string(),
            fixed(r.per_1000(r.tally.db_not_found)),
            fixed(r.theory_absent_per_1000()),
            r.tally.cache_hits.to_string(),
            r.tally.false_positives.to_string(),
            or_dash(some, rate(r.measured_fpr())),
            or_dash(some, rate(lo)),
            or_dash(some, rate(hi)),
            rate(r.expected_fpr),
            yes_no(applies).into(),
            inside.into(),
            r.tally.wrong_answers.to_string(),
            format!("{:.0}", r.mean),
            r.p50.to_string(),
            r.p99.to_string(),
            r.p999.to_string(),
        ]);
    }
    t
}
