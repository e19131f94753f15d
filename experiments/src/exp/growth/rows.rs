//! Rows of `growth.csv`: one a filter and checkpoint, measured once and read
//! by the table, the charts and the report.

use super::*;

/// One filter at one checkpoint.
pub(super) struct Row {
    pub(super) which: Which,
    /// Items inserted.
    pub(super) n: u64,
    /// `n / n0`.
    pub(super) growth: u64,
    /// False positives among the non-members probed.
    pub(super) fp: Hits,
    /// Theory and memory at this checkpoint.
    pub(super) state: State,
    /// Bits of a classic filter right-sized for `n` at `TARGET`.
    pub(super) classic_bits: u64,
}

impl Row {
    /// Measures `filter` holding `n0 · growth` items with `probes`.
    pub(super) fn measure(
        which: Which,
        filter: &Grower,
        n0: u64,
        growth: u64,
        probes: &[u64],
    ) -> Result<Self, Error> {
        let n = n0 * growth;
        let hits = probes.iter().filter(|&&q| filter.contains(q)).count() as u64;
        let trials = probes.len() as u64;
        let (classic_bits, _) = theory::classic::size_for(n, TARGET)
            .map_err(Error::filter("growth: classic sizing"))?;
        Ok(Self {
            which,
            n,
            growth,
            fp: Hits { hits, trials },
            state: state(which, filter, n0, n)?,
            classic_bits,
        })
    }

    /// Whether theory lies inside the 95% interval.
    pub(super) fn theory_inside(&self) -> bool {
        self.fp.holds(self.state.theory)
    }

    /// Whether theory lies within the filter-to-filter spread ([`within_spread`]).
    pub(super) fn within_spread(&self) -> bool {
        within_spread(
            self.fp.rate(),
            self.state.theory,
            self.state.spread,
            self.fp.trials as usize,
        )
    }

    /// Whether the measured rate lies above `TARGET` ([`above`]).
    pub(super) fn measured_above(&self) -> &'static str {
        let (lo, hi) = self.fp.interval();
        above(lo, hi, TARGET)
    }

    pub(super) fn theory_above(&self) -> bool {
        self.state.theory > TARGET
    }

    pub(super) fn bits_per_item(&self) -> f64 {
        self.state.bits as f64 / self.n as f64
    }

    pub(super) fn classic_bits_per_item(&self) -> f64 {
        self.classic_bits as f64 / self.n as f64
    }

    pub(super) fn memory_ratio(&self) -> f64 {
        self.state.bits as f64 / self.classic_bits as f64
    }

    /// The row of `growth.csv`: (column, cell) pairs.
    pub(super) fn cells(&self, n0: u64) -> Vec<(&'static str, String)> {
        let measured = against_theory(self.fp.hits, self.fp.trials, self.state.theory);
        let head = [
            ("filter", self.which.name().into()),
            ("growth_factor", GROWTH.to_string()),
            ("tightening_ratio", self.which.ratio().to_string()),
            ("n0", n0.to_string()),
            ("items", self.n.to_string()),
            ("growth", self.growth.to_string()),
            ("layers", self.state.layers.to_string()),
            ("probes", self.fp.trials.to_string()),
        ];
        let tail = [
            ("instance_sd", rate(self.state.spread)),
            ("theory_within_spread", yes_no(self.within_spread()).into()),
            ("target_fpr", TARGET.to_string()),
            ("rate_bound", rate(self.which.bound())),
            ("measured_above_target", self.measured_above().into()),
            ("theory_above_target", yes_no(self.theory_above()).into()),
            ("memory_bits", self.state.bits.to_string()),
            ("bits_per_item", fixed(self.bits_per_item())),
            (
                "theory_bits_per_item",
                fixed(self.state.theory_bits_per_item),
            ),
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
pub(super) fn table(rows: &[Row], n0: u64) -> Table {
    Table::from_records(rows.iter().map(|r| r.cells(n0)))
}

/// The rows of `which`.
pub(super) fn rows_of(rows: &[Row], which: Which) -> impl Iterator<Item = &Row> {
    rows.iter().filter(move |r| r.which == which)
}
