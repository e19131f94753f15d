//! A table of results, written as CSV and rendered as Markdown.

use std::fmt::Write as _;

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

    /// The rows.
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// Index of a column by name.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
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
        let mut out = String::new();
        let heads: Vec<&str> = columns.iter().map(|(_, shown)| *shown).collect();
        let _ = writeln!(out, "| {} |", heads.join(" | "));
        let _ = writeln!(out, "|{}", "---|".repeat(heads.len()));
        for row in self.rows.iter().filter(|r| keep(r)) {
            let cells: Vec<&str> = idx.iter().map(|&i| row[i].as_str()).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out
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

/// `hits` false positives in `probes`: the count, the rate, its 95%
/// Clopper–Pearson interval, `theory`, and whether the interval holds it.
pub fn against_theory(hits: u64, probes: u64, theory: f64) -> [String; 6] {
    let (lo, hi) = bloomlab_lab::stats::clopper_pearson(hits, probes, 0.95);
    let inside = if (lo..=hi).contains(&theory) {
        "yes"
    } else {
        "no"
    };
    [
        hits.to_string(),
        rate(hits as f64 / probes as f64),
        rate(lo),
        rate(hi),
        rate(theory),
        inside.to_owned(),
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
        assert_eq!(
            t.to_markdown_filtered(&[("b", "B")], |_| true),
            "| B |\n|---|\n| x |\n"
        );
        assert_eq!(rate(0.000123456), "1.2346e-4");
    }
}
