//! Rows of `growth.csv`: one a filter and checkpoint, pooled over its
//! instances, measured once and read by the table, the charts and the report.

use super::*;
use crate::exp::fpr::spread::{self, Spread};

/// One instance of one filter at one checkpoint.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sample {
    /// False positives among its probes.
    pub(super) fp: Hits,
    /// Theory for it as it is ([`Grower::theory`]).
    pub(super) theory: f64,
    pub(super) bits: u64,
    pub(super) lines: u64,
}

impl Sample {
    pub(super) fn of(filter: &Grower, probes: &[u64]) -> Self {
        let hits = probes.iter().filter(|&&q| filter.contains(q)).count() as u64;
        Sample {
            fp: Hits::new(hits, probes.len() as u64),
            theory: filter.theory(),
            bits: filter.bits(),
            lines: filter.lines(),
        }
    }
}

/// One filter at one checkpoint, over its instances.
pub(super) struct Row {
    /// Index of the subject.
    pub(super) which: usize,
    /// Items inserted.
    pub(super) n: u64,
    /// `n / n0`.
    pub(super) growth: u64,
    /// False positives among all instances' probes.
    pub(super) fp: Hits,
    /// The 95% interval of the mean rate over the instances
    /// ([`instance_interval`]); `None` for fewer than two.
    pub(super) instance_ci: Option<(f64, f64)>,
    /// How many instances.
    pub(super) instances: usize,
    /// The mean of the instances' theory.
    pub(super) theory: f64,
    /// The spread of the instances' rates beyond their probes' noise.
    pub(super) spread: Option<Spread>,
    /// Mean bits of the instances' tables.
    pub(super) bits: f64,
    /// Cache lines a miss reads, at most, in the largest instance.
    pub(super) lines: u64,
    /// Bits per item theory allocates for n items, from the parameters.
    pub(super) theory_bits_per_item: f64,
    /// Bits of a classic filter right-sized for `n` at `TARGET`.
    pub(super) classic_bits: u64,
}

impl Row {
    /// Pools `samples`, one an instance, of subject `which` holding `n0 · growth` items.
    pub(super) fn pool(
        which: usize,
        subject: &Subject,
        samples: &[Sample],
        n0: u64,
        growth: u64,
    ) -> Result<Self, Error> {
        let n = n0 * growth;
        let count = samples.len().max(1) as f64;
        let (classic_bits, _) = theory::classic::size_for(n, TARGET)
            .map_err(Error::filter("growth: classic sizing"))?;
        let instances: Vec<Hits> = samples.iter().map(|s| s.fp).collect();
        let pairs: Vec<(u64, u64)> = instances.iter().map(|h| (h.hits, h.trials)).collect();
        let spread = spread::measure(&pairs);
        Ok(Self {
            which,
            n,
            growth,
            fp: Hits::pooled(&instances),
            instance_ci: instance_interval(&instances),
            instances: instances.len(),
            theory: samples.iter().map(|s| s.theory).sum::<f64>() / count,
            spread,
            bits: samples.iter().map(|s| s.bits as f64).sum::<f64>() / count,
            lines: samples.iter().map(|s| s.lines).max().unwrap_or(0),
            theory_bits_per_item: subject.bits_after(n0, n)? as f64 / n as f64,
            classic_bits,
        })
    }

    /// Whether theory lies inside the probes' 95% interval (Clopper–Pearson
    /// over the pooled probes, as if one filter had answered them all).
    pub(super) fn theory_inside(&self) -> bool {
        self.fp.holds(self.theory)
    }

    /// Whether theory lies inside the instances' interval.
    pub(super) fn within_spread(&self) -> bool {
        self.instance_ci
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&self.theory))
    }

    /// Whether the measured rate lies above `TARGET`, judged on the
    /// instances' interval ([`above`]).
    pub(super) fn measured_above(&self) -> &'static str {
        let (lo, hi) = self.instance_ci.unwrap_or_else(|| self.fp.interval());
        above(lo, hi, TARGET)
    }

    pub(super) fn theory_above(&self) -> bool {
        self.theory > TARGET
    }

    pub(super) fn bits_per_item(&self) -> f64 {
        self.bits / self.n as f64
    }

    pub(super) fn classic_bits_per_item(&self) -> f64 {
        self.classic_bits as f64 / self.n as f64
    }

    pub(super) fn memory_ratio(&self) -> f64 {
        self.bits / self.classic_bits as f64
    }

    /// The row of `growth.csv`: (column, cell) pairs.
    pub(super) fn cells(&self, subjects: &[Subject], n0: u64) -> Vec<(&'static str, String)> {
        let measured = against_theory(self.fp.hits, self.fp.trials, self.theory);
        let (lo, hi) = self.instance_ci.unwrap_or((f64::NAN, f64::NAN));
        let sd =
            |pick: fn(&Spread) -> f64| self.spread.as_ref().map(pick).map_or(String::new(), rate);
        let head = [
            ("filter", subjects[self.which].name.clone()),
            ("growth_factor", GROWTH.to_string()),
            ("tightening_ratio", or_empty(subjects[self.which].ratio())),
            ("n0", n0.to_string()),
            ("items", self.n.to_string()),
            ("growth", self.growth.to_string()),
            ("lookup_lines", self.lines.to_string()),
            ("instances", self.instances.to_string()),
            ("probes", self.fp.trials.to_string()),
        ];
        let tail = [
            ("instance_ci95_low", rate(lo)),
            ("instance_ci95_high", rate(hi)),
            (
                "theory_in_instance_ci95",
                yes_no(self.within_spread()).into(),
            ),
            ("rate_sd", sd(|s| s.sd)),
            ("probe_sd", sd(|s| s.probe_sd)),
            ("target_fpr", TARGET.to_string()),
            ("rate_bound", rate(subjects[self.which].bound())),
            ("measured_above_target", self.measured_above().into()),
            ("theory_above_target", yes_no(self.theory_above()).into()),
            ("memory_bits", format!("{:.0}", self.bits)),
            ("bits_per_item", fixed(self.bits_per_item())),
            ("theory_bits_per_item", fixed(self.theory_bits_per_item)),
            ("classic_bits_per_item", fixed(self.classic_bits_per_item())),
            ("memory_ratio_to_classic", fixed(self.memory_ratio())),
        ];
        head.into_iter()
            .chain(AGAINST_THEORY.into_iter().zip(measured))
            .chain(tail)
            .collect()
    }
}

/// `growth.csv`: a row a filter and checkpoint.
pub(super) fn table(rows: &[Row], subjects: &[Subject], n0: u64) -> Table {
    Table::from_records(rows.iter().map(|r| r.cells(subjects, n0)))
}

/// The rows of subject `which`.
pub(super) fn rows_of(rows: &[Row], which: usize) -> impl Iterator<Item = &Row> {
    rows.iter().filter(move |r| r.which == which)
}

/// The 95% interval of the mean rate over `instances`: Student's t on the
/// instances' rates, whose scatter holds both the probes' noise and the
/// tables' spread. `None` for fewer than two instances.
fn instance_interval(instances: &[Hits]) -> Option<(f64, f64)> {
    let rates: Vec<f64> = instances.iter().map(|h| h.rate()).collect();
    crate::table::t_interval(&rates)
}
