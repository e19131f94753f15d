//! Rows of `deletion.csv`: what was measured, against which theory.

use super::*;

/// Which part of the experiment a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Churn,
    Wrongful,
    Saturation,
    Duplicates,
    Overfill,
}

impl Part {
    pub(super) fn name(self) -> &'static str {
        match self {
            Part::Churn => "churn",
            Part::Wrongful => "wrongful_removal",
            Part::Saturation => "saturation",
            Part::Duplicates => "duplicates",
            Part::Overfill => "overfill",
        }
    }
}

/// How a measured value stands against its theory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Theory {
    /// No theory for this value.
    None,
    /// A predicted rate, compared with the 95% interval of the measured one.
    Rate(f64),
    /// A predicted exact count.
    Exact(f64),
}

/// One measured value.
#[derive(Debug, Clone)]
pub(super) struct Row {
    /// Where it was measured.
    pub(super) at: At,
    pub(super) metric: &'static str,
    pub(super) count: u64,
    /// The denominator when the value is a rate.
    pub(super) trials: Option<u64>,
    pub(super) theory: Theory,
    /// Which theory: "exact", "Poisson model", "bound" …
    pub(super) theory_kind: &'static str,
    /// The theory is computed from measured values (then unseeded with them).
    pub(super) theory_from_run: bool,
    pub(super) note: String,
}

impl Row {
    /// The row with `note`.
    pub(super) fn note(self, note: impl Into<String>) -> Self {
        Self {
            note: note.into(),
            ..self
        }
    }

    /// The report's mark of a value from the crate's unseeded walks.
    pub(super) fn mark(&self) -> &'static str {
        if self.at.seeded { "" } else { " †" }
    }

    fn hits(&self) -> Option<Hits> {
        (self.trials)
            .filter(|&t| t > 0)
            .map(|t| Hits::new(self.count, t))
    }

    pub(super) fn interval(&self) -> Option<(f64, f64)> {
        self.hits().map(Hits::interval)
    }

    pub(super) fn rate(&self) -> Option<f64> {
        self.hits().map(Hits::rate)
    }

    pub(super) fn theory_value(&self) -> String {
        match self.theory {
            Theory::None => String::new(),
            Theory::Rate(t) => rate(t),
            Theory::Exact(t) => format!("{t}"),
        }
    }

    pub(super) fn check(&self) -> &'static str {
        match (self.theory, self.interval()) {
            (Theory::Rate(t), Some((lo, hi))) if (lo..=hi).contains(&t) => "inside",
            (Theory::Rate(_), Some(_)) => "outside",
            (Theory::Exact(t), _) if self.count as f64 == t => "equal",
            (Theory::Exact(_), _) => "differs",
            _ => "",
        }
    }

    /// The CSV cells, by column; the measured values and denominators of
    /// unseeded rows (and their theory, when computed from them) are
    /// `unseeded`.
    pub(super) fn cells(&self) -> Vec<(&'static str, String)> {
        let at = &self.at;
        let unseeded = |cell: String| if at.seeded { cell } else { "unseeded".into() };
        let (lo, hi) = self
            .interval()
            .map_or((String::new(), String::new()), |(l, h)| (rate(l), rate(h)));
        let theory = if at.seeded || !self.theory_from_run {
            self.theory_value()
        } else {
            "unseeded".to_string()
        };
        vec![
            ("part", at.part.name().into()),
            ("subject", at.subject.name()),
            ("params", at.params.clone()),
            ("x_name", at.x_name.into()),
            ("x", at.x.clone()),
            ("metric", self.metric.into()),
            // An unseeded row's denominator may come from the run too
            // (the crate's acknowledged inserts).
            ("trials", unseeded(or_empty(self.trials))),
            ("count", unseeded(self.count.to_string())),
            ("rate", unseeded(self.rate().map(rate).unwrap_or_default())),
            ("ci95_low", unseeded(lo)),
            ("ci95_high", unseeded(hi)),
            ("theory_check", unseeded(self.check().into())),
            ("theory", theory),
            ("theory_kind", self.theory_kind.into()),
            ("seeded", yes_no(at.seeded).into()),
            ("note", self.note.clone()),
        ]
    }
}

/// Where rows are measured: one subject, one x. Its rows are seeded as the
/// subject is, unless [`seeded`](Self::seeded) says otherwise.
#[derive(Debug, Clone)]
pub(super) struct At {
    pub(super) part: Part,
    pub(super) subject: Kind,
    params: String,
    /// What the x column counts (items, overload factor, removals …).
    x_name: &'static str,
    pub(super) x: String,
    /// False when the value depends on the `cuckoofilter` crate's unseeded walks.
    pub(super) seeded: bool,
}

impl At {
    pub(super) fn new(part: Part, s: &Subject, x_name: &'static str, x: impl ToString) -> Self {
        Self {
            part,
            subject: s.kind(),
            params: params(s.table()),
            x_name,
            x: x.to_string(),
            seeded: s.kind().seeded(),
        }
    }

    /// The same place, its rows `seeded` or not.
    pub(super) fn seeded(&self, seeded: bool) -> Self {
        Self {
            seeded,
            ..self.clone()
        }
    }

    /// A value measured here, against `theory`.
    pub(super) fn row(
        &self,
        metric: &'static str,
        count: u64,
        trials: Option<u64>,
        theory: Theory,
        theory_kind: &'static str,
    ) -> Row {
        Row {
            at: self.clone(),
            metric,
            count,
            trials,
            theory,
            theory_kind,
            theory_from_run: false,
            note: String::new(),
        }
    }

    /// A value no theory is held against.
    pub(super) fn measured(&self, metric: &'static str, count: u64, trials: Option<u64>) -> Row {
        self.row(metric, count, trials, Theory::None, "")
    }

    /// Something that must never happen: theory says exactly none.
    pub(super) fn never(&self, metric: &'static str, count: u64, trials: Option<u64>) -> Row {
        self.row(metric, count, trials, Theory::Exact(0.0), "exact: none")
    }
}

/// Probes `s` with `n` fresh keys: false positives.
pub(super) fn false_positives(s: &Subject, seed: u64, n: usize) -> u64 {
    probes(seed, n).filter(|&q| s.contains(q)).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unseeded_rows_hide_their_values_in_the_csv() {
        let s = Subject::new(Kind::CuckooCrate, Size::Slots(64), 0).unwrap();
        let mut r = At::new(Part::Overfill, &s, "inserts", 1).row(
            "x",
            3,
            Some(10),
            Theory::Rate(0.3),
            "model",
        );
        assert!(!r.at.seeded, "the crate's rows are unseeded");
        let cell = |r: &Row, name: &str| {
            let cells = r.cells();
            cells.into_iter().find(|c| c.0 == name).unwrap().1
        };
        assert_eq!(cell(&r, "count"), "unseeded");
        assert_eq!(cell(&r, "trials"), "unseeded");
        assert_eq!(cell(&r, "theory"), "3.0000e-1");
        r.theory_from_run = true;
        assert_eq!(cell(&r, "theory"), "unseeded");
    }
}
