//! A table of results, written as CSV and rendered as Markdown.

use std::collections::HashMap;

use bloomlab_choose::numbers::sci;

/// Rows of text cells under named columns.
#[derive(Debug, Clone, Default)]
pub struct Table {
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with these column names.
    pub fn new(columns: &[&str]) -> Self {
        Self {
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows: Vec::new(),
        }
    }

    /// A table of these columns holding `rows` ([`Table::push`] each).
    pub fn with_rows(columns: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> Self {
        let mut table = Self::new(columns);
        for row in rows {
            table.push(row);
        }
        table
    }

    /// A table of rows given as (column, cell) pairs, under the columns of
    /// the first row (none without rows).
    pub fn from_records<'a>(rows: impl IntoIterator<Item = Vec<(&'a str, String)>>) -> Self {
        let mut rows = rows.into_iter().peekable();
        let columns: Vec<&str> = rows
            .peek()
            .map_or(Vec::new(), |r| r.iter().map(|c| c.0).collect());
        Self::with_rows(&columns, rows.map(|r| r.into_iter().map(|c| c.1).collect()))
    }

    /// Appends a row.
    ///
    /// # Panics
    ///
    /// If the row has the wrong number of cells: a bug in the experiment.
    pub fn push(&mut self, row: Vec<String>) {
        assert_eq!(
            row.len(),
            self.columns.len(),
            "row {row:?} for columns {:?}",
            self.columns
        );
        self.rows.push(row);
    }

    /// The rows, as written.
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// Index of a column by name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// A table from CSV text as [`Table::to_csv`] writes it; `None` without
    /// a header line.
    pub fn from_csv(text: &str) -> Option<Self> {
        let mut lines = text.lines();
        let columns = lines.next()?.split(',').map(str::to_owned).collect();
        let rows = lines
            .map(|l| l.split(',').map(str::to_owned).collect())
            .collect();
        Some(Self { columns, rows })
    }

    /// The rows, each cell by its column name.
    pub fn records(&self) -> Vec<HashMap<String, String>> {
        let by_name = |row: &Vec<String>| self.columns.iter().cloned().zip(row.clone()).collect();
        self.rows.iter().map(by_name).collect()
    }

    /// The table as CSV (no cell holds a comma or a quote).
    pub fn to_csv(&self) -> String {
        let mut out = self.columns.join(",");
        out.push('\n');
        for row in &self.rows {
            assert!(row.iter().all(|c| !c.contains([',', '"', '\n'])));
            out.push_str(&row.join(","));
            out.push('\n');
        }
        out
    }

    /// The chosen columns as a Markdown table, with display names, for the
    /// rows `keep` accepts.
    pub fn to_markdown_filtered(
        &self,
        columns: &[(&str, &str)],
        keep: impl Fn(&[String]) -> bool,
    ) -> String {
        let idx: Vec<usize> = columns
            .iter()
            .filter_map(|(name, _)| self.column(name))
            .collect();
        let heads: Vec<&str> = columns.iter().map(|(_, shown)| *shown).collect();
        let rows = self.rows.iter().filter(|r| keep(r));
        markdown(&heads, rows.map(|row| idx.iter().map(|&i| &row[i])))
    }

    /// The chosen columns as a Markdown table, with display names.
    pub fn to_markdown(&self, columns: &[(&str, &str)]) -> String {
        self.to_markdown_filtered(columns, |_| true)
    }
}

/// A Markdown table of `rows` (cells) under `heads`.
pub fn markdown<C: AsRef<str>>(
    heads: &[impl AsRef<str>],
    rows: impl IntoIterator<Item = impl IntoIterator<Item = C>>,
) -> String {
    let line = |cells: Vec<&str>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(heads.iter().map(AsRef::as_ref).collect());
    out += &format!("|{}\n", "---|".repeat(heads.len()));
    for row in rows {
        let cells: Vec<C> = row.into_iter().collect();
        out.push_str(&line(cells.iter().map(AsRef::as_ref).collect()));
    }
    out
}

/// A Markdown table of rows given as (heading, cell) pairs, under the
/// headings of the first row: nothing without rows.
pub fn markdown_records<'a>(rows: impl IntoIterator<Item = Vec<(&'a str, String)>>) -> String {
    let mut rows = rows.into_iter().peekable();
    match rows
        .peek()
        .map(|r| r.iter().map(|c| c.0).collect::<Vec<_>>())
    {
        Some(heads) => markdown(&heads, rows.map(|r| r.into_iter().map(|c| c.1))),
        None => String::new(),
    }
}

/// A rate in scientific notation with four significant digits (stable text for CSV).
pub fn rate(x: f64) -> String {
    format!("{x:.4e}")
}

/// A fraction or ratio with four decimals.
pub fn fixed(x: f64) -> String {
    format!("{x:.4}")
}

/// An optional value's cell: empty for none.
pub fn or_empty(x: Option<impl ToString>) -> String {
    x.map_or(String::new(), |x| x.to_string())
}

/// `yes` or `no`, as the CSV files and the report write a flag.
pub fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// A rate as a percentage with three significant digits (choose's
/// [`sci`]): `0.010214` as `1.02%`, `0.01` as `1.00%`, `0` as `0%`.
pub fn percent(x: f64) -> String {
    format!("{}%", sci(100.0 * x))
}

/// A target rate as a percentage without trailing zeros: `0.01` as `1%`,
/// `0.001` as `0.1%`, `0.0039` as `0.39%`.
pub fn short_percent(x: f64) -> String {
    let p = sci(100.0 * x);
    match p.contains('.') && !p.contains('e') {
        true => format!("{}%", p.trim_end_matches('0').trim_end_matches('.')),
        false => format!("{p}%"),
    }
}

/// The columns of a measured rate: the false positives, the rate, and its
/// 95% Clopper–Pearson interval.
pub const MEASURED: [&str; 4] = ["false_positives", "measured_fpr", "ci95_low", "ci95_high"];

/// The columns of [`against_theory`]: [`MEASURED`], theory's rate, and
/// whether the interval holds it.
pub const AGAINST_THEORY: [&str; 6] = [
    "false_positives",
    "measured_fpr",
    "ci95_low",
    "ci95_high",
    "theory_fpr",
    "theory_in_ci95",
];

/// The same columns as the report shows them.
pub const AGAINST_THEORY_VIEW: [(&str, &str); 6] = [
    ("false_positives", "false positives"),
    ("measured_fpr", "measured"),
    ("ci95_low", "95% low"),
    ("ci95_high", "95% high"),
    ("theory_fpr", "theory"),
    ("theory_in_ci95", "inside"),
];

/// `hits` in `trials` (false positives in probes): a measured rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hits {
    /// The events counted.
    pub hits: u64,
    /// The trials they were counted in.
    pub trials: u64,
}

impl Hits {
    /// `hits` in `trials`.
    pub fn new(hits: u64, trials: u64) -> Self {
        Self { hits, trials }
    }

    /// The counts of `instances` added together.
    pub fn pooled(instances: &[Hits]) -> Self {
        Self {
            hits: instances.iter().map(|h| h.hits).sum(),
            trials: instances.iter().map(|h| h.trials).sum(),
        }
    }

    /// The rate, `hits / trials`.
    pub fn rate(self) -> f64 {
        self.hits as f64 / self.trials as f64
    }

    /// Its 95% Clopper–Pearson interval; all of `[0, 1]` without trials.
    pub fn interval(self) -> (f64, f64) {
        match self.trials {
            0 => (0.0, 1.0),
            n => bloomlab_lab::stats::clopper_pearson(self.hits, n, 0.95),
        }
    }

    /// A chart's point at `x`: (x, the interval's low end, the rate, its high end).
    pub fn point(self, x: f64) -> (f64, f64, f64, f64) {
        let (lo, hi) = self.interval();
        (x, lo, self.rate(), hi)
    }

    /// Whether the 95% interval holds `x`.
    pub fn holds(self, x: f64) -> bool {
        let (lo, hi) = self.interval();
        (lo..=hi).contains(&x)
    }

    /// Whether the count lies in the 99.9% binomial range of the rate `p`
    /// (all of it at `p` ≥ 1): a miss of the 95% interval that chance
    /// explains (one row in twenty misses it by chance). Never without
    /// trials.
    pub fn within_chance(self, p: f64) -> bool {
        match self.trials {
            0 => false,
            n if p >= 1.0 => self.hits == n,
            n => {
                let (lo, hi) = bloomlab_lab::stats::binomial_interval(n, p, 0.999);
                (lo..=hi).contains(&self.hits)
            }
        }
    }
}

/// The columns of a rate measured over keyed instances, beside
/// [`AGAINST_THEORY`]'s pooled ones.
pub const AGAINST_INSTANCES: [&str; 4] = [
    "instances",
    "instance_ci95_low",
    "instance_ci95_high",
    "theory_in_instance_ci95",
];

/// The 95% interval of the mean rate of `instances` whose tables differ:
/// the pooled Clopper–Pearson interval widened by their scatter
/// ([`bloomlab_lab::stats::overdispersed_interval`]); all of `[0, 1]` when
/// an instance has no trials.
pub fn instance_interval(instances: &[Hits]) -> (f64, f64) {
    let pairs: Vec<(u64, u64)> = instances.iter().map(|h| (h.hits, h.trials)).collect();
    bloomlab_lab::stats::overdispersed_interval(&pairs, 0.95).unwrap_or((0.0, 1.0))
}

/// The 95% Student-t interval of the mean of `values`, one a run or an
/// instance: `None` for fewer than two.
pub fn t_interval(values: &[f64]) -> Option<(f64, f64)> {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let r = values.len();
    if r < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / r as f64;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (r - 1) as f64;
    let t = StudentsT::new(0.0, 1.0, (r - 1) as f64)
        .ok()?
        .inverse_cdf(0.975);
    let half = t * (var / r as f64).sqrt();
    Some((mean - half, mean + half))
}

/// [`AGAINST_INSTANCES`]' cells: how many instances, their interval
/// ([`instance_interval`]), and whether it holds `theory`.
pub fn against_instances(instances: &[Hits], theory: f64) -> [String; 4] {
    let (lo, hi) = instance_interval(instances);
    [
        instances.len().to_string(),
        rate(lo),
        rate(hi),
        yes_no((lo..=hi).contains(&theory)).to_owned(),
    ]
}

/// How every verdict words a rate inside a count's 95% interval.
pub const INSIDE: &str = "inside the 95% interval";
/// … outside it, but inside the 99.9% binomial range ([`Hits::within_chance`]).
pub const CHANCE: &str =
    "outside the 95% interval but inside the 99.9% binomial range: a miss chance explains";
/// … outside both.
pub const OFF: &str = "outside even the 99.9% binomial range";

/// `hits` false positives in `probes`: the count, the rate, its 95%
/// Clopper–Pearson interval, `theory`, and whether the interval holds it.
pub fn against_theory(hits: u64, probes: u64, theory: f64) -> [String; 6] {
    let (lo, hi) = bloomlab_lab::stats::clopper_pearson(hits, probes, 0.95);
    [
        hits.to_string(),
        rate(hits as f64 / probes as f64),
        rate(lo),
        rate(hi),
        rate(theory),
        yes_no((lo..=hi).contains(&theory)).to_owned(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_and_markdown() {
        let mut t = Table::new(&["a", "b"]);
        t.push(vec!["1".into(), "x".into()]);
        assert_eq!(t.to_csv(), "a,b\n1,x\n");
        let back = Table::from_csv(&t.to_csv()).unwrap();
        assert_eq!(back.to_csv(), t.to_csv());
        assert_eq!(back.records()[0]["b"], "x");
        assert_eq!(
            t.to_markdown_filtered(&[("b", "B")], |_| true),
            "| B |\n|---|\n| x |\n"
        );
        assert_eq!(rate(0.000123456), "1.2346e-4");
    }

    #[test]
    fn percentages() {
        let shown = [0.010214, 0.01, 0.000449, 0.029726, 0.0].map(percent);
        assert_eq!(shown, ["1.02%", "1.00%", "0.0449%", "2.97%", "0%"]);
        let shown = [0.1, 0.01, 0.001, 0.0001, 0.003_91, 0.0312].map(short_percent);
        assert_eq!(shown, ["10%", "1%", "0.1%", "0.01%", "0.391%", "3.12%"]);
    }
}
