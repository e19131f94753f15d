//! Experiment `throughput`: nanoseconds per insert and per look-up for every
//! variant, measured in-process with a wall clock. Indicative only: the
//! criterion benchmarks in `benches/` are the reference for speed.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Instant;

use bloomlab_lab::keys::{members, probes};

use super::subject;
use super::{Ctx, Error, Output, sub_seed};
use crate::progress;
use crate::report::Section;
use crate::table::Table;

/// Runs the experiment: `throughput.csv`.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let n = ctx.scale.capacity() * 10;
    let mut table = Table::new(&[
        "variant",
        "items",
        "target_fpr",
        "insert_ns",
        "hit_lookup_ns",
        "miss_lookup_ns",
        "hits_found",
    ]);
    let bar = progress::bar(subject::all().len() as u64, "throughput");
    for kind in &subject::all() {
        let part = format!("throughput/{}", kind.id);
        let mut s = subject::build(kind, n, 0.01, sub_seed(ctx.seed, &part))?;
        let keys = members(sub_seed(ctx.seed, &format!("{part}/members")), n);
        let misses: Vec<u64> = probes(sub_seed(ctx.seed, &format!("{part}/probes")), n).collect();
        let t = Instant::now();
        for k in &keys {
            s.filter.insert(k).map_err(Error::filter(&part))?;
        }
        let insert = t.elapsed().as_nanos() as f64 / n as f64;
        let f = &s.filter;
        let t = Instant::now();
        let found = keys.iter().filter(|k| f.contains(black_box(k))).count();
        let hit = t.elapsed().as_nanos() as f64 / n as f64;
        let t = Instant::now();
        let false_hits = misses.iter().filter(|k| f.contains(black_box(k))).count();
        let miss = t.elapsed().as_nanos() as f64 / n as f64;
        black_box(false_hits);
        table.push(vec![
            kind.id.into(),
            n.to_string(),
            "0.01".into(),
            format!("{insert:.1}"),
            format!("{hit:.1}"),
            format!("{miss:.1}"),
            found.to_string(),
        ]);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mut body = String::new();
    let _ = writeln!(
        body,
        "Each variant built for {n} items at 1%, filled, then every member and {n} non-members \
         looked up once, through `dyn Membership<u64>` (one virtual call per operation, keyed \
         SipHash-1-3 included), timed with the wall clock on whatever else the machine was \
         doing. **Indicative only**: the criterion benchmarks in `benches/` (see \
         `results/BENCH.md` where present) are the reference, with medians and peers measured in \
         the same run.\n"
    );
    body.push_str(&table.to_markdown_filtered(
        &[
            ("variant", "variant"),
            ("items", "items"),
            ("insert_ns", "insert (ns)"),
            ("hit_lookup_ns", "hit look-up (ns)"),
            ("miss_lookup_ns", "miss look-up (ns)"),
        ],
        |_| true,
    ));
    let _ = writeln!(body, "\nData: [`throughput.csv`](throughput.csv).");
    let section = Section {
        title: "Throughput (indicative)".into(),
        body,
    };
    Ok(Output::new(section).table("throughput.csv", table))
}
