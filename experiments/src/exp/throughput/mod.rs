//! Experiment `throughput`: speed, space and accuracy side by side. Every
//! catalog variant and every peer crate the benchmarks build, at 1% and at
//! 0.1%, on the same keys: bits per item, ns per insert and per look-up
//! (best of three passes, wall clock, in-process) and the measured rate,
//! drawn as a Pareto chart of miss look-up time against bits per item.
//! Indicative only: the criterion benchmarks in `benches/` are the
//! reference for speed.

use bloomlab_lab::keys::{members, probes};
use bloomlab_lab::stats::clopper_pearson;

use super::{Ctx, Error, Output, sub_seed};
use crate::progress;
use crate::table::{MEASURED, Table, rate, short_percent, yes_no};

mod chart;
mod measure;

use measure::PASSES;
mod report;

/// The target rates every filter is built for.
pub const RATES: [f64; 2] = [0.01, 0.001];

/// How far above the target a filter's rate may be and still count as
/// meeting it (and so take part in the frontier): 10%. The measured rate of
/// one filter varies with its hash key beyond the binomial interval (a
/// classic filter sized for exactly 1% measures 1.02% with some keys), so
/// an interval that merely misses the target is not a different filter; a
/// crate with a fixed fingerprint (`cuckoofilter`'s 3%, BinaryFuse8's 0.39%
/// against 0.1%) is far outside it.
pub const SLACK: f64 = 1.1;

/// One filter's row at one rate.
#[derive(Debug, Clone)]
struct Row {
    target: f64,
    name: String,
    crate_name: &'static str,
    /// Whether it takes inserts (false for a static filter, built once from
    /// all the keys).
    takes_inserts: bool,
    /// Whether the rate follows from the seed ([`measure::Contender::seeded`]).
    seeded: bool,
    bits_per_item: f64,
    false_positives: u64,
    /// 95% Clopper–Pearson interval of the rate.
    ci: (f64, f64),
    measured: measure::Measured,
}

impl Row {
    fn fpr(&self, probes: usize) -> f64 {
        self.false_positives as f64 / probes as f64
    }

    /// Whether the filter gives about the rate it was asked for: its 95%
    /// interval reaches down to [`SLACK`] times the target or below.
    fn on_target(&self) -> bool {
        self.ci.0 <= self.target * SLACK
    }

    /// Whether it competes for the frontier at `target`: it takes inserts
    /// and meets that target.
    fn competes(&self, target: f64) -> bool {
        self.target == target && self.on_target() && self.takes_inserts
    }
}

/// Runs the experiment: `throughput.csv`, `pareto.svg`.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let n = ctx.scale.capacity() * 10;
    let keys = members(sub_seed(ctx.seed, "throughput/members"), n);
    let misses: Vec<u64> = probes(sub_seed(ctx.seed, "throughput/probes"), n).collect();
    let mut rows = Vec::new();
    let per_rate = ctx.catalog.len() + measure::peers(1, 0.01, |_| 0).len();
    let steps = per_rate * RATES.len() * measure::PASSES * 2;
    let bar = progress::bar(steps as u64, "throughput");
    for target in RATES {
        let seed = |name: &str| sub_seed(ctx.seed, &format!("throughput/{target}/{name}"));
        let contenders: Vec<measure::Contender> =
            measure::bloomlab(ctx.catalog.iter().cloned().collect(), target, seed)
                .into_iter()
                .chain(measure::peers(n, target, seed))
                .collect();
        bar.set_message(format!("at {}", short_percent(target)));
        let measured = measure::measure(&contenders, &keys, &misses, || bar.inc(1))?;
        for (c, m) in contenders.into_iter().zip(measured) {
            rows.push(Row {
                target,
                takes_inserts: c.takes_inserts(),
                bits_per_item: m.memory_bytes as f64 * 8.0 / n as f64,
                false_positives: m.false_positives,
                ci: clopper_pearson(m.false_positives, n as u64, 0.95),
                name: c.name,
                crate_name: c.crate_name,
                seeded: c.seeded,
                measured: m,
            });
        }
    }
    bar.finish_and_clear();
    let table = csv(&rows, n);
    let svg = chart::draw("pareto.svg", &rows, n)?;
    let (section, appendix) = report::write(&rows, n);
    Ok(Output::new(section)
        .table("throughput.csv", table)
        .chart("pareto.svg", svg)
        .appendix(appendix))
}

/// The CSV: one row per rate and filter; timing columns end in `_ns`.
fn csv(rows: &[Row], n: usize) -> Table {
    Table::from_records(rows.iter().map(|r| {
        // An unseeded filter's count varies from run to run: the CSV keeps
        // only what the seed fixes, the report gives the count.
        let measured = match r.seeded {
            true => [
                r.false_positives.to_string(),
                rate(r.fpr(n)),
                rate(r.ci.0),
                rate(r.ci.1),
            ],
            false => MEASURED.map(|_| String::new()),
        };
        let head = [
            ("rate", r.target.to_string()),
            ("filter", r.name.clone()),
            ("crate", r.crate_name.into()),
            ("takes_inserts", yes_no(r.takes_inserts).into()),
            ("items", n.to_string()),
            ("bits_per_item", format!("{:.2}", r.bits_per_item)),
        ];
        let tail = [
            ("probes", n.to_string()),
            ("on_target", yes_no(r.on_target()).into()),
            ("insert_ns", format!("{:.1}", r.measured.insert_ns)),
            ("hit_lookup_ns", format!("{:.1}", r.measured.hit_ns)),
            ("miss_lookup_ns", format!("{:.1}", r.measured.miss_ns)),
        ];
        (head.into_iter())
            .chain(MEASURED.into_iter().zip(measured))
            .chain(tail)
            .collect()
    }))
}

/// The Pareto frontier at `target`, by bits per item: the filters that take
/// inserts and meet the target, that no other such filter beats on both
/// bits per item and miss look-up time. A static filter is left out (it
/// answers a different need: all keys known up front) and shown apart.
fn frontier(rows: &[Row], target: f64) -> Vec<&Row> {
    let eligible: Vec<&Row> = rows.iter().filter(|r| r.competes(target)).collect();
    // Bits per item as the CSV gives them (two decimals): a filter a
    // thousandth of a bit smaller is not a different trade-off.
    let bits = |r: &Row| (r.bits_per_item * 100.0).round();
    let beats = |a: &Row, b: &Row| {
        let (ab, am) = (bits(a), a.measured.miss_ns);
        let (bb, bm) = (bits(b), b.measured.miss_ns);
        ab <= bb && am <= bm && (ab < bb || am < bm)
    };
    let mut out: Vec<&Row> = eligible
        .iter()
        .copied()
        .filter(|r| !eligible.iter().any(|o| beats(o, r)))
        .collect();
    out.sort_by(|a, b| a.bits_per_item.total_cmp(&b.bits_per_item));
    out
}
