//! Where a cuckoo filter is smaller than a Bloom filter: every
//! constructor asked for one item count at a fine scan of target rates.

use super::*;

/// Bits per item of the filters each constructor builds for a scan of
/// target rates at a fixed item count: the classic filter and the cuckoo
/// filter in both layouts, beside theory for each.
pub(super) struct Scan {
    pub(super) items: usize,
    pub(super) rows: Vec<ScanRow>,
}

/// Bits per item of the tables the constructors allocate for one target rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct ScanRow {
    pub(super) target: f64,
    pub(super) classic: f64,
    /// The cuckoo filter plain, then semi-sorted.
    pub(super) cuckoo: [f64; 2],
}

/// The cuckoo layouts, in [`ScanRow::cuckoo`]'s order: semi-sorted or not,
/// and the name of each.
const LAYOUTS: [(bool, &str); 2] = [(false, "plain"), (true, "semi-sorted")];

impl Scan {
    /// Builds each filter for every target rate (tables allocated lazily,
    /// never filled: their size is fixed when built).
    pub(super) fn run(items: usize) -> Result<Self, Error> {
        let per_item = |bytes: usize| bytes as f64 * 8.0 / items as f64;
        let mut rows = Vec::new();
        for i in 0..=5 * SCAN_PER_DECADE {
            let eps = 10f64.powf(-1.0 - f64::from(i) / f64::from(SCAN_PER_DECADE));
            let classic = BloomFilter::<u64>::builder(items, eps)
                .seed(0)
                .build()
                .map_err(Error::filter(format!("BloomFilter at {eps:e}")))?;
            let cuckoo = |semi: bool| {
                CuckooFilter::<u64>::builder(items, eps)
                    .semi_sorted(semi)
                    .seed(0)
                    .build()
                    .map(|f| per_item(f.memory_bytes()))
                    .map_err(Error::filter(format!("CuckooFilter at {eps:e}")))
            };
            rows.push(ScanRow {
                target: eps,
                classic: per_item(classic.memory_bytes()),
                cuckoo: [cuckoo(false)?, cuckoo(true)?],
            });
        }
        Ok(Self { items, rows })
    }

    /// The target rates, as intervals `[low, high]` of the scan, at which
    /// `smaller` holds, from high rates to low.
    pub(super) fn intervals(&self, smaller: impl Fn(&ScanRow) -> bool) -> Vec<(f64, f64)> {
        let mut out: Vec<(f64, f64)> = Vec::new();
        let mut open: Option<f64> = None;
        let mut last = f64::NAN;
        for row in &self.rows {
            match (smaller(row), open) {
                (true, None) => open = Some(row.target),
                (false, Some(high)) => {
                    out.push((last, high));
                    open = None;
                }
                _ => {}
            }
            last = row.target;
        }
        if let Some(high) = open {
            out.push((last, high));
        }
        out
    }

    /// Where each cuckoo layout is smaller than the classic filter, built
    /// (`measured`) and in theory.
    pub(super) fn crossovers(&self) -> Vec<(String, Vec<(f64, f64)>)> {
        let built = LAYOUTS.map(|(semi, name)| {
            let smaller = self.intervals(|r| r.cuckoo[usize::from(semi)] < r.classic);
            (format!("{name}, built"), smaller)
        });
        let by_theory = LAYOUTS.map(|(semi, name)| {
            let smaller = self.intervals(|r| {
                cuckoo_theory_bits(r.target, semi) < theory::classic::bits_per_item(r.target)
            });
            (format!("{name}, theory"), smaller)
        });
        built.into_iter().chain(by_theory).collect()
    }

    /// The largest relative gap between a built cuckoo table's bits per
    /// item and its theory, f/α or (f − 1)/α, over the scan.
    pub(super) fn cuckoo_gap(&self) -> f64 {
        (self.rows.iter())
            .flat_map(|r| {
                LAYOUTS.map(|(semi, _)| {
                    r.cuckoo[usize::from(semi)] / cuckoo_theory_bits(r.target, semi)
                })
            })
            .map(|ratio| (ratio - 1.0).abs())
            .fold(0.0, f64::max)
    }

    pub(super) fn table(&self) -> Table {
        let columns = [
            "target_fpr",
            "items",
            "classic_bits_per_item",
            "cuckoo_bits_per_item",
            "cuckoo_ss_bits_per_item",
            "classic_theory_bits",
            "cuckoo_theory_bits",
            "cuckoo_ss_theory_bits",
        ];
        let rows = self.rows.iter().map(|r| {
            vec![
                rate(r.target),
                self.items.to_string(),
                fixed(r.classic),
                fixed(r.cuckoo[0]),
                fixed(r.cuckoo[1]),
                fixed(theory::classic::bits_per_item(r.target)),
                fixed(cuckoo_theory_bits(r.target, false)),
                fixed(cuckoo_theory_bits(r.target, true)),
            ]
        });
        Table::with_rows(&columns, rows)
    }

    /// Bits per item against the target rate: what the constructors build
    /// (steps: whole fingerprint bits, whole hash counts) and the theory
    /// curves.
    pub(super) fn chart(&self) -> Chart {
        let series = |label: &str, f: &dyn Fn(&ScanRow) -> f64| Curve {
            label: label.into(),
            theory: self.rows.iter().map(|r| (r.target, f(r))).collect(),
            points: Vec::new(),
        };
        Chart {
            title: format!(
                "Space of a Bloom and a cuckoo filter for {} items",
                self.items
            ),
            x_label: "target false-positive rate (log scale)".into(),
            y_label: "bits per item".into(),
            x_log: true,
            curves: vec![
                series("Bloom theory −log2(ε)/ln 2", &|r| {
                    theory::classic::bits_per_item(r.target)
                }),
                series("BloomFilter, built", &|r| r.classic),
                series("CuckooFilter plain, built", &|r| r.cuckoo[0]),
                series("CuckooFilter semi-sorted, built", &|r| r.cuckoo[1]),
            ],
            ..Chart::default()
        }
    }
}

/// `[1.2e-3, 1.9e-3]; [8.4e-4, 9.8e-4]`, or "none".
pub(super) fn show_intervals(intervals: &[(f64, f64)]) -> String {
    if intervals.is_empty() {
        return "none".into();
    }
    intervals
        .iter()
        .map(|(lo, hi)| format!("[{lo:.2e}, {hi:.2e}]"))
        .collect::<Vec<_>>()
        .join("; ")
}
