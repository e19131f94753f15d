//! Rows of `guard.csv`.

use super::*;

/// Requests a run must have beyond a latency quantile for the row to
/// report it: with fewer, the quantile is a handful of the run's slowest
/// requests (p99.9 of 10,000 requests is the 10th-worst), noise that reads
/// as an effect.
pub(super) const TAIL: f64 = 50.0;

/// The latency quantiles a row reports: p50, p99, p99.9.
const QUANTILES: [f64; 3] = [0.5, 0.99, 0.999];

/// The CSV's latency columns: each statistic of [`Row::latencies`], and
/// its interval's ends.
const LATENCY_COLUMNS: [[&str; 3]; 4] = [
    ["mean_ns", "mean_ns_ci95_low", "mean_ns_ci95_high"],
    ["p50_ns", "p50_ns_ci95_low", "p50_ns_ci95_high"],
    ["p99_ns", "p99_ns_ci95_low", "p99_ns_ci95_high"],
    ["p999_ns", "p999_ns_ci95_low", "p999_ns_ci95_high"],
];

/// A latency statistic of a row over its runs: the mean of the runs'
/// values, and the 95% Student-t interval of that mean (none for one run).
#[derive(Debug, Clone, Copy)]
pub(super) struct Estimate {
    pub(super) value: f64,
    pub(super) interval: Option<(f64, f64)>,
}

impl Estimate {
    fn over(values: &[f64]) -> Self {
        Estimate {
            value: values.iter().sum::<f64>() / values.len().max(1) as f64,
            interval: t_interval(values),
        }
    }
}

/// `ns` in µs: one decimal, two below 1 µs (an in-process guard's answer).
pub(super) fn micros(ns: f64) -> String {
    let us = ns / 1000.0;
    if us < 1.0 {
        format!("{us:.2}")
    } else {
        format!("{us:.1}")
    }
}

/// One row of the results: a guard on a stream, over its runs.
#[derive(Debug)]
pub(super) struct Row {
    pub(super) guard: Guard,
    pub(super) stream: Stream,
    pub(super) memory_bytes: u64,
    pub(super) expected_fpr: f64,
    /// The runs' counts added together (latencies left out).
    pub(super) tally: Tally,
    /// Each run's false positives among its absent requests.
    pub(super) runs: Vec<Hits>,
    /// Latency in ns: the mean and the quantiles p50, p99, p99.9, each
    /// over the runs; a quantile is `None` where a run has fewer than
    /// [`TAIL`] requests beyond it.
    pub(super) mean: Estimate,
    pub(super) p50: Option<Estimate>,
    pub(super) p99: Option<Estimate>,
    pub(super) p999: Option<Estimate>,
}

impl Row {
    /// The row of `guard` on `stream` from what its runs counted: each
    /// run's latencies sorted into their quantiles, the counts added.
    pub(super) fn measured(
        guard: Guard,
        stream: Stream,
        memory_bytes: u64,
        expected_fpr: f64,
        runs: Vec<Tally>,
    ) -> Self {
        let requests = runs.iter().map(|r| r.latencies_ns.len()).min().unwrap_or(0);
        let mut means = Vec::with_capacity(runs.len());
        let mut quantiles: [Vec<f64>; 3] = Default::default();
        let mut hits = Vec::with_capacity(runs.len());
        let mut tally = Tally::default();
        for mut run in runs {
            run.latencies_ns.sort_unstable();
            let l = &run.latencies_ns;
            means.push(l.iter().sum::<u64>() as f64 / l.len().max(1) as f64);
            for (values, q) in quantiles.iter_mut().zip(QUANTILES) {
                values.push(quantile(l, q) as f64);
            }
            hits.push(Hits::new(run.false_positives, run.absent_requests));
            tally.add(run);
        }
        let supported = |q: f64| requests as f64 * (1.0 - q) >= TAIL;
        let [p50, p99, p999] =
            std::array::from_fn(|i| supported(QUANTILES[i]).then(|| Estimate::over(&quantiles[i])));
        Row {
            guard,
            stream,
            memory_bytes,
            expected_fpr,
            tally,
            runs: hits,
            mean: Estimate::over(&means),
            p50,
            p99,
            p999,
        }
    }

    /// The mean and the quantiles p50, p99, p99.9.
    pub(super) fn latencies(&self) -> [Option<Estimate>; 4] {
        [Some(self.mean), self.p50, self.p99, self.p999]
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

    /// The 95% interval of the rate over the runs, each with its own
    /// filter ([`instance_interval`]).
    pub(super) fn interval(&self) -> Option<(f64, f64)> {
        (self.tally.absent_requests > 0).then(|| instance_interval(&self.runs))
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

impl Row {
    /// The guard's three columns, first in both CSV files.
    pub(super) fn guard_cells(&self) -> [(&'static str, String); 3] {
        [
            ("guard", self.guard.label.into()),
            ("filter_type", self.guard.type_name().into()),
            ("target_fpr", self.guard.fpr.to_string()),
        ]
    }

    /// The cache hits, the false positives and their rate ("-" without
    /// absent requests), and the expected rate: in both CSV files.
    pub(super) fn rate_cells(&self) -> [(&'static str, String); 6] {
        let (lo, hi) = self.interval().unwrap_or((f64::NAN, f64::NAN));
        let shown = |x: f64| self.or_dash(rate(x));
        [
            ("cache_hits", self.tally.cache_hits.to_string()),
            ("false_positives", self.tally.false_positives.to_string()),
            ("measured_fpr", shown(self.measured_fpr())),
            ("ci95_low", shown(lo)),
            ("ci95_high", shown(hi)),
            ("expected_fpr", rate(self.expected_fpr)),
        ]
    }

    /// `cell`, or "-" for a run without absent requests.
    pub(super) fn or_dash(&self, cell: String) -> String {
        if self.tally.absent_requests > 0 {
            cell
        } else {
            "-".into()
        }
    }

    /// The wrong answers, the runs and the latencies with their
    /// intervals ("-" where there is none), last in both CSV files.
    pub(super) fn latency_cells(&self) -> Vec<(&'static str, String)> {
        let mut cells = vec![
            ("wrong_answers", self.tally.wrong_answers.to_string()),
            ("runs", self.runs.len().to_string()),
        ];
        for (names, estimate) in LATENCY_COLUMNS.into_iter().zip(self.latencies()) {
            let ns = |x: Option<f64>| x.map_or("-".into(), |x| format!("{x:.0}"));
            let interval = estimate.and_then(|e| e.interval);
            cells.extend(names.into_iter().zip([
                ns(estimate.map(|e| e.value)),
                ns(interval.map(|i| i.0)),
                ns(interval.map(|i| i.1)),
            ]));
        }
        cells
    }
}

/// `guard.csv`.
pub(super) fn table(rows: &[Row], n_rows: u64, cache: &str) -> Table {
    Table::from_records(rows.iter().map(|r| {
        let t = &r.tally;
        let applies = r.theory_applies();
        let inside = if applies {
            yes_no(r.theory_inside())
        } else {
            "-"
        };
        let middle = [
            ("memory_bytes", r.memory_bytes.to_string()),
            ("bits_per_row", fixed(r.bits_per_row(n_rows))),
            ("cache", cache.into()),
            ("workload", r.stream.name()),
            ("skew", r.stream.skew().into()),
            ("absent_share", r.stream.absent_share().to_string()),
            ("rows", n_rows.to_string()),
            ("requests", t.requests.to_string()),
            ("absent_requests", t.absent_requests.to_string()),
            ("db_queries", r.db_queries().to_string()),
            ("db_queries_per_1000", fixed(r.per_1000(r.db_queries()))),
            ("absent_db_queries", t.db_not_found.to_string()),
            (
                "absent_db_queries_per_1000",
                fixed(r.per_1000(t.db_not_found)),
            ),
            (
                "theory_absent_db_queries_per_1000",
                fixed(r.theory_absent_per_1000()),
            ),
        ];
        let theory = [
            ("theory_applies", yes_no(applies).into()),
            ("theory_in_ci95", inside.into()),
        ];
        (r.guard_cells().into_iter())
            .chain(middle)
            .chain(r.rate_cells())
            .chain(theory)
            .chain(r.latency_cells())
            .collect()
    }))
}
