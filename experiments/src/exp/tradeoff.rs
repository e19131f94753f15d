//! Experiment `tradeoff`: every variant at 1%, 0.1% and 0.01%, side by side —
//! the table at the top of the report.

use std::fmt::Write as _;

use bloomlab::prelude::*;
use bloomlab::theory;
use bloomlab_lab::keys::{members, probes};

use bloomlab::catalog::{Shape, Variant};

use super::subject;
use super::{Ctx, Error, Output, sub_seed};
use crate::progress;
use crate::report::Section;
use crate::table::{AGAINST_THEORY, Table, against_theory, fixed};

/// The rates of the table.
pub const RATES: [f64; 3] = [0.01, 0.001, 0.0001];

/// Runs the experiment: `tradeoff.csv` and the report's first table.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let capacity = ctx.scale.capacity();
    let n_probes = ctx.scale.probes();
    let head = [
        "variant",
        "target_fpr",
        "k_or_f",
        "bits_per_item_theory",
        "bits_per_item_measured",
        "memory_1m_bytes",
        "memory_100m_bytes",
        "operations",
        "items",
    ];
    let mut table = Table::new(&[&head[..], &AGAINST_THEORY].concat());
    let bar = progress::bar((subject::all().len() * RATES.len()) as u64, "tradeoff");
    for kind in &subject::all() {
        for &p in &RATES {
            let part = format!("tradeoff/{}/{p}", kind.id);
            let mut s = subject::build(kind, capacity, p, sub_seed(ctx.seed, &part))?;
            let keys = members(sub_seed(ctx.seed, &format!("{part}/members")), capacity);
            for k in &keys {
                s.filter.insert(k).map_err(Error::filter(&part))?;
            }
            let f = &s.filter;
            let hits = probes(sub_seed(ctx.seed, &format!("{part}/probes")), n_probes)
                .filter(|q| f.contains(q))
                .count() as u64;
            let theory_fpr = s.theory(f.len() as u64);
            let row = vec![
                kind.id.into(),
                p.to_string(),
                s.k_or_f.clone(),
                fixed(theory_bits_per_item(p, &s)),
                fixed(f.bits_per_item().unwrap_or(f64::NAN)),
                memory_for(kind, 1_000_000, p)?.to_string(),
                memory_for(kind, 100_000_000, p)?.to_string(),
                operations(kind).into(),
                capacity.to_string(),
            ];
            table.push(
                [
                    row,
                    against_theory(hits, n_probes as u64, theory_fpr).into(),
                ]
                .concat(),
            );
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let section = Section {
        title: "The trade-off table".into(),
        body: body(&table, capacity, n_probes),
    };
    Ok(Output::new(section).table("tradeoff.csv", table))
}

/// What a variant offers beyond insert and look-up (no commas: it goes into CSV).
fn operations(v: &Variant<u64>) -> &'static str {
    match (
        v.can.concurrent_insert,
        v.can.grow,
        v.can.delete,
        v.can.merge,
    ) {
        (true, ..) => "concurrent insert",
        (_, true, ..) => "grow",
        (_, _, true, true) => "delete and union",
        (_, _, true, false) => "delete",
        _ => "union and intersect",
    }
}

/// Bits per item theory gives for a subject built for rate `p`, at the load
/// it was filled to.
fn theory_bits_per_item(p: f64, s: &subject::Subject) -> f64 {
    match s.shape {
        Shape::Bits { .. } => theory::classic::bits_per_item(p),
        Shape::Blocks { block_bits, .. } => {
            theory::blocked::bits_per_item(block_bits, p).map_or(f64::NAN, |(c, _)| c)
        }
        Shape::Counters { width, .. } => theory::counting::bits_per_item(p, width),
        // Grown from a tenth of the items: the memory theory says those layers take.
        Shape::Layers {
            growth, tightening, ..
        } => {
            let n = s.filter.len() as u64;
            let n0 = (n / 10).max(1);
            theory::scalable::bits_after(n0, growth, p, tightening, n)
                .map_or(f64::NAN, |b| b as f64 / n as f64)
        }
        // The fingerprint and load the crate plans for the rate: f/α bits
        // per item, or (f − 1)/α semi-sorted.
        Shape::Buckets {
            bucket_size,
            semi_sorted,
            ..
        } => {
            bloomlab::cuckoo::plan(s.filter.len() as u64, p, bucket_size).map_or(f64::NAN, |plan| {
                if semi_sorted {
                    theory::cuckoo::bits_per_item_semi_sorted(plan.fingerprint_bits, plan.load)
                } else {
                    theory::cuckoo::bits_per_item(plan.fingerprint_bits, plan.load)
                }
            })
        }
    }
}

/// Bytes the variant's constructor allocates for `n` items at rate `p`
/// (a growing filter: the layers theory says it holds after growing from n/10).
fn memory_for(v: &Variant<u64>, n: usize, p: f64) -> Result<usize, Error> {
    let err = format!("{} memory for {n} at {p}", v.id);
    let plan = (v.plan)(n as u64, p).map_err(Error::filter(&err))?;
    let bytes = match plan.shape {
        Shape::Layers {
            growth, tightening, ..
        } => {
            let bits = theory::scalable::bits_after(
                (n as u64 / 10).max(1),
                growth,
                p,
                tightening,
                n as u64,
            )
            .map_err(Error::filter(&err))?;
            u128::from(bits.div_ceil(8))
        }
        _ => plan.memory_bytes,
    };
    usize::try_from(bytes).map_err(Error::filter(&err))
}

fn human(bytes: &str) -> String {
    let b: f64 = bytes.parse().unwrap_or(f64::NAN);
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.0} kB", b / 1e3)
    }
}

fn body(table: &Table, capacity: usize, n_probes: usize) -> String {
    let col = |n: &str| table.column(n).unwrap_or(0);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Each variant built by its `builder(n, p)` for n = {capacity} items at each rate, filled \
         with n random keys, and probed with {n_probes} keys never inserted (the scalable filter \
         starts at n/10 and grows to n). *Theory* bits per item: the optimal classic filter \
         −log2(p)/ln 2, the blocked Poisson-mixture sizing, 4 × classic for 4-bit counters, the \
         scalable filter's layers after growing tenfold, and for the cuckoo filter f/α plain \
         or (f − 1)/α semi-sorted, with the fingerprint width f and design load α the crate \
         plans (`bloomlab_cuckoo::plan`; every cuckoo row has 4-slot buckets, its layout named \
         in the k-or-f column); *measured*: the filter's table bytes × 8 / items. Memory for \
         1M and 100M items is what the constructor allocates (for the scalable filter, the \
         layers after growing from a tenth). The lower bound is log2(1/p): 6.64, 9.97 and \
         13.29 bits per item. *Theory FPR* \
         is the theory function at the filter's parameters and load, as in the fpr \
         experiment; the scalable filter, grown through several layers, sits well below its \
         target.\n"
    );
    let _ = writeln!(
        out,
        "| variant | target | k or f | bits/item theory | bits/item measured | memory 1M | memory 100M | measured FPR (95% interval) | theory FPR | theory inside | also supports |\n|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in table.rows() {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} ({} – {}) | {} | {} | {} |",
            r[col("variant")],
            r[col("target_fpr")],
            r[col("k_or_f")],
            r[col("bits_per_item_theory")],
            r[col("bits_per_item_measured")],
            human(&r[col("memory_1m_bytes")]),
            human(&r[col("memory_100m_bytes")]),
            r[col("measured_fpr")],
            r[col("ci95_low")],
            r[col("ci95_high")],
            r[col("theory_fpr")],
            r[col("theory_in_ci95")],
            r[col("operations")],
        );
    }
    let _ = writeln!(out, "\nData: [`tradeoff.csv`](tradeoff.csv).");
    out
}
