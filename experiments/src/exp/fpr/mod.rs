//! Experiment `fpr`: the measured false-positive rate of every variant against
//! theory as its load goes from 10% to 150% of the capacity it was built for
//! (the cuckoo filter to its first `Full`), over independently keyed
//! instances of every configuration, with the rate's spread between them.

mod charts;
mod coverage;
pub(crate) mod spread;
mod text;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bloomlab::catalog::{self, Descriptor};
use bloomlab_core::InsertError;
use bloomlab_lab::keys::{members, probes};
use bloomlab_lab::stats::clopper_pearson;

use super::subject;
use super::{Ctx, Error, Output, sub_seed};
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{MEASURED, Table, fixed, rate, yes_no};
use spread::Spread;

/// Target rates the filters are built for.
pub const TARGETS: [f64; 4] = [0.1, 0.01, 0.001, 0.0001];

/// Loads at which the rate is measured, as fractions of capacity.
pub const LOADS: [f64; 7] = [0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5];

/// The false positives theory must expect of a row's pooled probes for the
/// row to test theory; fewer, and it is `underpowered`.
pub const MIN_EXPECTED: f64 = 100.0;

/// How much work one scale spends.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// Independently keyed filters per configuration.
    instances: usize,
    /// Items each filter is built for.
    capacity: usize,
    /// Probes of one instance at one load, at least.
    floor: u64,
    /// Probes of one row (all its instances), at most.
    budget: u64,
}

impl Plan {
    /// Every scale probes up to 400 times its capacity a row.
    fn of(scale: Scale) -> Self {
        let (instances, capacity, floor) = match scale {
            Scale::Quick => (20, 10_000, 2_000),
            Scale::Default => (20, 100_000, 25_000),
            Scale::Full => (40, 1_000_000, 250_000),
        };
        Plan {
            instances,
            capacity,
            floor,
            budget: 400 * capacity as u64,
        }
    }

    /// Probes for one instance whose theory rate is `theory` and whose
    /// spread theory is `spread` (if any): enough for the row's instances
    /// together to expect [`MIN_EXPECTED`] false positives, at least
    /// `floor`; `floor` alone when the budget cannot reach that. Where a
    /// spread model exists and the budget allows, enough more that one
    /// instance's probe noise `√(p(1 − p)/N)` is at most the modelled
    /// spread, so that the measurement can test it.
    fn probes(&self, theory: f64, spread: Option<f64>) -> u64 {
        let cap = (self.budget / self.instances as u64) as f64;
        let within = |need: f64| (need.is_finite() && need <= cap).then(|| need.ceil() as u64);
        let power = within(MIN_EXPECTED / (theory * self.instances as f64));
        let resolve = spread
            .filter(|&sd| sd > 0.0)
            .and_then(|sd| within(theory * (1.0 - theory) / (sd * sd)));
        match (power, resolve) {
            (Some(p), r) => p.max(r.unwrap_or(0)).max(self.floor),
            (None, _) => self.floor,
        }
    }
}

/// One instance at one load.
#[derive(Debug, Clone)]
struct Obs {
    /// Index into [`LOADS`], or `LOADS.len()` for the first `Full`.
    slot: usize,
    items: usize,
    probes: u64,
    hits: u64,
    theory: f64,
    expected: f64,
    bits_per_item: f64,
}

/// One filter instance filled load by load.
struct Instance {
    params: String,
    table: Arc<dyn catalog::Table>,
    obs: Vec<Obs>,
}

/// One configuration (variant × target × load) over its instances.
#[derive(Debug, Clone)]
pub struct Row {
    variant: &'static str,
    target: f64,
    params: String,
    table: Arc<dyn catalog::Table>,
    load: f64,
    items: f64,
    instances: usize,
    probes: u64,
    hits: u64,
    mean_rate: f64,
    pooled: f64,
    /// The pooled probes' Clopper–Pearson interval: probe noise alone.
    lo: f64,
    hi: f64,
    /// Student's t over the instances' rates ([`spread::mean_interval`]):
    /// probe noise and the tables' spread; the pooled interval where fewer
    /// than two instances.
    instance_lo: f64,
    instance_hi: f64,
    theory: f64,
    expected: f64,
    powered: bool,
    spread: Option<Spread>,
    spread_theory: Option<f64>,
    bits_per_item: f64,
    /// The row of the first `Full` (each instance at its own load).
    full: bool,
}

impl Row {
    /// Theory inside the instance interval: what a row is judged by.
    fn inside(&self) -> bool {
        (self.instance_lo..=self.instance_hi).contains(&self.theory)
    }

    /// Theory inside the pooled interval.
    fn inside_pooled(&self) -> bool {
        (self.lo..=self.hi).contains(&self.theory)
    }
}

/// Runs the experiment: `fpr.csv`; `fpr.svg` (every variant at 1%, measured
/// over theory); per variant `fpr_<variant>.svg` (rate by load, every
/// target) and `fpr_residuals_<variant>.svg` (measured over theory).
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let plan = Plan::of(ctx.scale);
    let kinds: Vec<Descriptor<u64>> = ctx.catalog.iter().cloned().collect();
    let bar = crate::progress::bar((kinds.len() * TARGETS.len() * plan.instances) as u64, "fpr");
    let mut rows = Vec::new();
    for kind in &kinds {
        for &target in &TARGETS {
            let part = format!("fpr/{}/{target}", kind.id);
            // Theory by items, shared: the instances of a configuration have
            // one shape, and the blocked filter's exact rate costs milliseconds.
            let memo = Mutex::new(HashMap::new());
            let runs = parallel(plan.instances, |i| {
                let part = format!("{part}/instance/{i}");
                let run = instance(kind, target, &plan, ctx.seed, &part, &memo);
                bar.inc(1);
                run
            })?;
            rows.extend(aggregate(kind.id, target, &plan, runs)?);
        }
    }
    bar.finish_and_clear();
    let table = table(&rows, plan.capacity);
    let coverage_seed = sub_seed(ctx.seed, "fpr/coverage");
    let simulated = coverage::simulate(coverage_seed, &coverage::SIMULATED, 100);
    let body = text::body(&rows, &kinds, &plan, &simulated);
    let section = Section::new("False-positive rate against theory", body);
    let mut out = Output::new(section)
        .appendix(text::appendix(&table, &rows, &plan))
        .table("fpr.csv", table);
    for (name, svg) in charts::draw(&rows, &kinds, plan.capacity)? {
        out = out.chart(name, svg);
    }
    Ok(out)
}

/// Builds, fills and probes one instance of `kind` at `target`.
fn instance(
    kind: &Descriptor<u64>,
    target: f64,
    plan: &Plan,
    seed: u64,
    part: &str,
    memo: &Mutex<HashMap<usize, (f64, Option<f64>)>>,
) -> Result<Instance, Error> {
    let capacity = plan.capacity;
    let seed_of = sub_seed(seed, part);
    // A filter built from its keys is built anew at each load, for the
    // keys it holds there: its table is always full.
    let from_keys = kind.empty().is_none();
    let build = || subject::build(kind, capacity, target, seed_of);
    let mut subject = (!from_keys).then(build).transpose()?;
    let max_items = (capacity as f64 * LOADS[LOADS.len() - 1]).round() as usize;
    let keys = members(sub_seed(seed, &format!("{part}/members")), max_items);
    let mut obs = Vec::new();
    let mut inserted = 0;
    for (slot, &load) in LOADS.iter().enumerate() {
        let want = (capacity as f64 * load).round() as usize;
        let mut full = false;
        if from_keys {
            subject = Some(subject::holding(kind, &keys[..want], target, seed_of)?.0);
            inserted = want;
        } else if let Some(s) = subject.as_mut() {
            let m = s.inserts()?;
            while inserted < want {
                match m.insert(&keys[inserted]) {
                    Ok(_) => inserted += 1,
                    Err(InsertError::Full) => {
                        full = true;
                        break;
                    }
                    Err(e) => return Err(Error::filter(part)(e)),
                }
            }
        }
        let subject = (subject.as_ref())
            .ok_or_else(|| Error::Invariant(format!("{part}: no filter at load {load}")))?;
        let f = &subject.filter;
        let items = inserted as u64;
        let theory = || (subject.theory(items), subject.table.rate_sd(items));
        let (theory, spread) = match memo.lock() {
            Ok(mut known) => *known.entry(inserted).or_insert_with(theory),
            Err(_) => theory(),
        };
        let n = plan.probes(theory, spread);
        let size = usize::try_from(n).map_err(Error::size(format!("{part}: probes")))?;
        // Fresh probes at every load; top bit set, so never a member.
        let probe_seed = sub_seed(seed, &format!("{part}/probes/{load}"));
        let hits = probes(probe_seed, size).filter(|p| f.contains(p)).count() as u64;
        obs.push(Obs {
            slot: if full { LOADS.len() } else { slot },
            items: inserted,
            probes: n,
            hits,
            theory,
            expected: f.expected_fpr(),
            bits_per_item: f.bits_per_item().unwrap_or(f64::NAN),
        });
        if full {
            break;
        }
    }
    let subject = subject.ok_or_else(|| Error::Invariant(format!("{part}: no filter")))?;
    Ok(Instance {
        params: subject.params,
        table: subject.table,
        obs,
    })
}

/// `f(0), …, f(n − 1)`, on as many threads as the machine has, each taking
/// every `workers`-th index: each instance has its own seeds, so the results
/// do not depend on the order.
pub(crate) fn parallel<T: Send>(
    n: usize,
    f: impl Fn(usize) -> Result<T, Error> + Sync,
) -> Result<Vec<T>, Error> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |w| w.get())
        .clamp(1, n.max(1));
    let f = &f;
    let mut done = Vec::with_capacity(n);
    std::thread::scope(|s| {
        // Worker `w` runs instances w, w + workers, w + 2·workers, ….
        let threads: Vec<_> = (0..workers)
            .map(|w| {
                s.spawn(move || {
                    (w..n)
                        .step_by(workers)
                        .map(|i| (i, f(i)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for t in threads {
            done.extend(t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
    });
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

/// The rows of one configuration: one per load every instance reached,
/// and one for the first `Full` if any instance met it.
fn aggregate(
    variant: &'static str,
    target: f64,
    plan: &Plan,
    runs: Vec<Instance>,
) -> Result<Vec<Row>, Error> {
    let Some(first) = runs.first() else {
        return Ok(Vec::new());
    };
    let (params, table) = (first.params.clone(), first.table.clone());
    let mut rows = Vec::new();
    for slot in 0..=LOADS.len() {
        let obs: Vec<&Obs> = runs
            .iter()
            .flat_map(|r| r.obs.iter().filter(|o| o.slot == slot))
            .collect();
        if obs.is_empty() {
            continue;
        }
        // The mean over the instances of `f`.
        let mean = |f: fn(&Obs) -> f64| obs.iter().map(|o| f(o)).sum::<f64>() / obs.len() as f64;
        let probes: u64 = obs.iter().map(|o| o.probes).sum();
        let hits: u64 = obs.iter().map(|o| o.hits).sum();
        if probes == 0 {
            return Err(Error::Invariant(format!(
                "fpr/{variant}/{target}: a row without probes"
            )));
        }
        let (lo, hi) = clopper_pearson(hits, probes, 0.95);
        // The rate pooled probes expect: each instance's theory, weighted by
        // its probes (all alike except at the first Full).
        let expected_hits: f64 = obs.iter().map(|o| o.theory * o.probes as f64).sum();
        let items = mean(|o| o.items as f64);
        let pairs: Vec<(u64, u64)> = obs.iter().map(|o| (o.hits, o.probes)).collect();
        let (instance_lo, instance_hi) = spread::mean_interval(&pairs).unwrap_or((lo, hi));
        rows.push(Row {
            variant,
            target,
            params: params.clone(),
            table: table.clone(),
            load: items / plan.capacity as f64,
            items,
            instances: obs.len(),
            probes,
            hits,
            mean_rate: mean(|o| o.hits as f64 / o.probes as f64),
            pooled: hits as f64 / probes as f64,
            lo,
            hi,
            instance_lo,
            instance_hi,
            theory: expected_hits / probes as f64,
            expected: mean(|o| o.expected),
            powered: expected_hits >= MIN_EXPECTED,
            spread: spread::measure(&pairs),
            spread_theory: table.rate_sd(items.round() as u64),
            bits_per_item: mean(|o| o.bits_per_item),
            full: slot == LOADS.len(),
        });
    }
    Ok(rows)
}

/// The rows as `fpr.csv`.
fn table(rows: &[Row], capacity: usize) -> Table {
    Table::from_records(rows.iter().map(|row| {
        let sd = |f: fn(&Spread) -> f64| row.spread.as_ref().map_or("n/a".into(), |s| rate(f(s)));
        // The first Full's items are a mean: one decimal.
        let items = format!("{:.*}", usize::from(row.full), row.items);
        let head = [
            ("variant", row.variant.into()),
            ("target_fpr", row.target.to_string()),
            ("params", row.params.clone()),
            ("capacity", capacity.to_string()),
            ("load", fixed(row.load)),
            ("items", items),
            ("instances", row.instances.to_string()),
            (
                "probes_per_instance",
                (row.probes / row.instances as u64).to_string(),
            ),
            ("probes", row.probes.to_string()),
        ];
        let measured = [
            row.hits.to_string(),
            rate(row.pooled),
            rate(row.lo),
            rate(row.hi),
        ];
        let note = if row.full {
            "first Full: each instance filled to its own (mean shown)".into()
        } else {
            String::new()
        };
        let tail = [
            ("mean_fpr", rate(row.mean_rate)),
            ("theory_fpr", rate(row.theory)),
            ("expected_fpr", rate(row.expected)),
            (
                "theory_false_positives",
                format!("{:.1}", row.theory * row.probes as f64),
            ),
            ("underpowered", yes_no(!row.powered).into()),
            ("theory_in_ci95", yes_no(row.inside_pooled()).into()),
            ("instance_ci95_low", rate(row.instance_lo)),
            ("instance_ci95_high", rate(row.instance_hi)),
            ("theory_in_instance_ci95", yes_no(row.inside()).into()),
            ("rate_sd", sd(|s| s.sd)),
            ("rate_sd_ci95_low", sd(|s| s.lo)),
            ("rate_sd_ci95_high", sd(|s| s.hi)),
            (
                "rate_sd_theory",
                row.spread_theory.map_or("no model".into(), rate),
            ),
            ("probe_sd", sd(|s| s.probe_sd)),
            ("bits_per_item", fixed(row.bits_per_item)),
            ("note", note),
        ];
        (head.into_iter())
            .chain(MEASURED.into_iter().zip(measured))
            .chain(tail)
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_reach_the_power_rule_or_mark_the_row() {
        let plan = Plan::of(Scale::Default);
        let r = plan.instances as f64;
        for theory in [0.1, 1e-3, 1e-5, 5e-6, 4.9e-6, 1e-9, 0.0, f64::NAN] {
            let n = plan.probes(theory, None);
            assert!(
                n >= plan.floor
                    && n * plan.instances as u64
                        <= plan.budget.max(plan.floor * plan.instances as u64)
            );
            let powered = theory * n as f64 * r >= MIN_EXPECTED;
            // Powered exactly when the budget allows it.
            let cap = (plan.budget / plan.instances as u64) as f64;
            let reachable = theory > 0.0 && MIN_EXPECTED / (theory * r) <= cap;
            assert_eq!(powered, reachable, "{theory}: {n}");
        }
        // A spread model asks for probe noise at most the spread, within the budget.
        let (p, sd) = (0.2, 4e-4);
        let n = plan.probes(p, Some(sd));
        assert!((p * (1.0 - p) / n as f64).sqrt() <= sd, "{n}");
        assert_eq!(plan.probes(p, Some(1e-6)), plan.probes(p, None));
    }

    #[test]
    fn parallel_keeps_order_and_errors() {
        let squares = parallel(50, |i| Ok(i * i)).unwrap();
        assert_eq!(squares, (0..50).map(|i| i * i).collect::<Vec<_>>());
        let failed = parallel(5, |i| {
            if i == 3 {
                Err(Error::Invariant("three".into()))
            } else {
                Ok(i)
            }
        });
        assert!(matches!(failed, Err(Error::Invariant(s)) if s == "three"));
        assert!(parallel(0, Ok::<usize, Error>).unwrap().is_empty());
    }
}
