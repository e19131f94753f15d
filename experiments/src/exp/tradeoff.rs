//! Experiment `tradeoff`: every variant at 1%, 0.1% and 0.01%, side by side —
//! the table at the top of the report.

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloomlab::catalog::Descriptor;
use bloomlab::prelude::*;
use bloomlab_lab::keys::{members, probes};

use super::subject;
use super::{Ctx, Error, Output, ns_per_item, sub_seed};
use crate::progress;
use crate::report::Section;
use crate::table::{
    AGAINST_INSTANCES, AGAINST_THEORY, Hits, Table, against_instances, against_theory, fixed,
    instance_interval, yes_no,
};

/// The rates of the table.
pub const RATES: [f64; 3] = [0.01, 0.001, 0.0001];

/// Keyed instances of each row: each its own hash key and keys, the scale's
/// probes shared out among them.
pub const INSTANCES: usize = 20;

/// Runs the experiment: `tradeoff.csv` and the report's first table.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let capacity = ctx.scale.capacity();
    let n_probes = ctx.scale.probes();
    let mut records = Vec::new();
    let per_instance = n_probes / INSTANCES;
    let mut body = intro(capacity, n_probes);
    let bar = progress::bar((ctx.catalog.len() * RATES.len()) as u64, "tradeoff");
    for v in ctx.catalog {
        for (j, &p) in RATES.iter().enumerate() {
            let part = format!("tradeoff/{}/{p}", v.id);
            // INSTANCES keyed instances, each with its own keys, sharing the
            // probes; the first one's table gives the row's bits and lines
            // (every instance has the same parameters).
            let mut fp = Vec::with_capacity(INSTANCES);
            let (mut first, mut theory) = (None, 0.0);
            let (mut took, mut looked) = (Duration::ZERO, Duration::ZERO);
            for i in 0..INSTANCES {
                let part = format!("{part}/{i}");
                let keys = members(sub_seed(ctx.seed, &format!("{part}/members")), capacity);
                let absent: Vec<u64> =
                    probes(sub_seed(ctx.seed, &format!("{part}/probes")), per_instance).collect();
                // Inserts timed one by one, or the construction from the keys.
                let (s, fill) = subject::holding(v, &keys, p, sub_seed(ctx.seed, &part))?;
                took += fill;
                let t = Instant::now();
                let hits = absent
                    .iter()
                    .filter(|q| s.filter.contains(black_box(q)))
                    .count();
                looked += t.elapsed();
                fp.push(Hits::new(hits as u64, per_instance as u64));
                theory += s.theory(s.filter.len() as u64) / INSTANCES as f64;
                first.get_or_insert(s);
            }
            let s = first.expect("at least one instance");
            let insert_ns = ns_per_item(took, capacity * INSTANCES);
            let miss_ns = ns_per_item(looked, per_instance * INSTANCES);
            let f = &s.filter;
            // Theory's from the parameters alone (never from the table built).
            let bits = [
                s.table.theory_bits_per_item(p, f.len() as u64),
                f.bits_per_item().unwrap_or(f64::NAN),
            ];
            let pooled = Hits::pooled(&fp);
            let memory = |n| memory_for(v, n, p).map(|bytes| bytes.to_string());
            let mut row = vec![
                ("variant", v.id.into()),
                ("target_fpr", p.to_string()),
                ("k_or_f", s.k_or_f.clone()),
                ("bits_per_item_theory", fixed(bits[0])),
                ("bits_per_item_measured", fixed(bits[1])),
                ("memory_1m_bytes", memory(1_000_000)?),
                ("memory_100m_bytes", memory(100_000_000)?),
                ("lookup_lines", f.lookup_lines().to_string()),
            ];
            // Capabilities and caveat: in every CSV row; the capabilities on
            // the variant's row of the section, the caveat in the appendix.
            row.extend(abilities(v).map(|(name, can)| (name, yes_no(can).into())));
            row.extend([("caveat", v.caveat.into()), ("items", capacity.to_string())]);
            let measured = against_theory(pooled.hits, pooled.trials, theory);
            row.extend(AGAINST_THEORY.into_iter().zip(measured));
            let spread = against_instances(&fp, theory);
            row.extend(AGAINST_INSTANCES.into_iter().zip(spread));
            row.push(("insert_ns", format!("{insert_ns:.1}")));
            row.push(("miss_lookup_ns", format!("{miss_ns:.1}")));
            records.push(row);
            // The section's row: each variant at the first rate (1%); the
            // others are the appendix's, so the report grows by one row a
            // variant.
            bar.inc(1);
            if j > 0 {
                continue;
            }
            let (lo, hi) = instance_interval(&fp);
            let tick = if (lo..=hi).contains(&theory) {
                " ✓"
            } else {
                ""
            };
            body += &format!(
                "| {} | {:.2} → {:.2} | {:.3e} ({lo:.3e}–{hi:.3e}){tick} | {} | \
                 {miss_ns:.1} | {insert_ns:.1} | {} |\n",
                v.id,
                bits[0],
                bits[1],
                pooled.rate(),
                f.lookup_lines(),
                abilities_text(v)
            );
        }
    }
    bar.finish_and_clear();
    let section = Section::new("The trade-off table", body);
    let table = Table::from_records(records);
    let caveats: String = ctx
        .catalog
        .iter()
        .map(|v| format!("- {}: {}\n", v.id, v.caveat))
        .collect();
    let appendix = table.to_markdown(&[
        ("variant", "variant"),
        ("target_fpr", "target"),
        ("k_or_f", "parameters"),
        ("bits_per_item_theory", "bits/item theory"),
        ("bits_per_item_measured", "bits/item built"),
        ("lookup_lines", "lines"),
        ("memory_1m_bytes", "bytes for 1M"),
        ("memory_100m_bytes", "bytes for 100M"),
        ("false_positives", "false positives"),
        ("ci95_low", "95% low"),
        ("ci95_high", "95% high"),
        ("theory_fpr", "theory rate"),
        ("theory_in_ci95", "inside"),
    ]);
    let appendix = format!("{appendix}\nWhat each variant asks of its user:\n\n{caveats}");
    Ok(Output::new(section)
        .table("tradeoff.csv", table)
        .appendix(appendix))
}

/// Bytes the variant's constructor allocates for `n` items at rate `p`
/// (a growing filter: what theory says it holds after growing from the
/// experiments' start, [`subject::capacity`]).
fn memory_for(v: &Descriptor<u64>, n: usize, p: f64) -> Result<usize, Error> {
    let err = format!("{} memory for {n} at {p}", v.id);
    let plan = (v.plan)(subject::capacity(v, n) as u64, p).map_err(Error::filter(&err))?;
    let bytes = plan.bytes_holding(n as u64).map_err(Error::filter(&err))?;
    usize::try_from(bytes).map_err(Error::filter(&err))
}

/// What `v` can do beyond inserts and lookups, by the name of its CSV column.
fn abilities(v: &Descriptor<u64>) -> [(&'static str, bool); 4] {
    [
        ("delete", v.can.delete),
        ("grow", v.can.grow),
        ("concurrent_insert", v.can.concurrent_insert),
        ("merge", v.can.merge),
    ]
}

/// What `v` can do beyond inserts and lookups: "delete, grow", or "–".
fn abilities_text(v: &Descriptor<u64>) -> String {
    let listed: Vec<String> = (abilities(v).iter())
        .filter(|c| c.1)
        .map(|c| c.0.replace('_', " "))
        .collect();
    if listed.is_empty() {
        "–".into()
    } else {
        listed.join(", ")
    }
}

/// The section's opening: how the table was made, and the table's head.
fn intro(capacity: usize, n_probes: usize) -> String {
    format!(
        "Each variant built by `builder(n, p)` for n = {capacity} (growing filters from n/10) \
         in {INSTANCES} keyed instances, probed with {n_probes} absent keys in all. Bits per \
         item: theory → the table built. Rate: the 95% interval of the instances' mean, \
         widened by their scatter; ✓ when theory is inside. Lines: cache lines a look-up \
         reads. ns: per miss and insert, in cache, indicative. Other rates, memory and \
         caveats: appendix, [`tradeoff.csv`](tradeoff.csv).\n\n\
         | variant, 1% | bits/item | measured rate (95%) | lines | miss ns | insert ns | \
         also |\n\
         |---|---|---|---|---|---|---|\n"
    )
}
