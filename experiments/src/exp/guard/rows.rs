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

    /// The wrong answers and the latencies, last in both CSV files.
    pub(super) fn latency_cells(&self) -> [(&'static str, String); 5] {
        [
            ("wrong_answers", self.tally.wrong_answers.to_string()),
            ("mean_ns", format!("{:.0}", self.mean)),
            ("p50_ns", self.p50.to_string()),
            ("p99_ns", self.p99.to_string()),
            ("p999_ns", self.p999.to_string()),
        ]
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
