//! The section (how it was measured, the chart, the frontier at each rate
//! with the ratios that matter) and the appendix (every filter at every
//! rate).

use super::{PASSES, RATES, Row, SLACK, frontier};
use crate::report::Section;
use crate::table::{markdown_records, percent, short_percent, yes_no};
use bloomlab_choose::numbers::grouped;

/// The section and the appendix for `rows`, measured with `n` items and `n`
/// probes per filter.
pub(super) fn write(rows: &[Row], n: usize) -> (Section, String) {
    let count = grouped(n as u64);
    let mut body = String::new();
    for target in RATES {
        body += &format!("{}\n", answer(rows, target, n));
    }
    body.push_str(
        "The frontier (filters that take inserts and meet the target, none beating them on \
         both axes):\n\n",
    );
    body.push_str(&frontier_table(rows, n));
    body += &format!(
        "\n![miss look-up time against bits per item](pareto.svg)\n\n\
         {count} items, {count} absent probes a filter, best of {PASSES} in-process passes \
         through `dyn Lookup<u64>`: **indicative** (`benches/` is the reference). Off target: \
         the 95% interval wholly above {SLACK} × the target. Set-up and every filter: appendix; \
         data: [`throughput.csv`](throughput.csv).\n"
    );
    let section = Section::new("Speed, space and accuracy", body);
    let setup = format!(
        "Each filter was built for {count} items, filled with the same keys and probed with \
         them and {count} non-members; times are in-process wall clock, best of {PASSES} passes \
         that each visit every filter in turn, every call through `dyn Lookup<u64>` (peers \
         through their `bloomlab_lab::peers` adapters). Bits per item are table bytes × 8 / \
         items. bloomlab's filters hash with their default, keyed AES-128-CMAC; crates \
         that take a hasher get keyed SipHash-1-3, bloomlab's default before, which \
         their per-item `build_hasher` calls make as cheap as their own; \
         `growable-bloom-filter` and `fastbloom-rs` use their own xxh3. Scalable filters start \
         at a tenth of the items (`growable-bloom-filter` at a first-layer rate P·(1 − r), so \
         its total stays under P). `cuckoofilter` and BinaryFuse8 take no rate.\n\n"
    );
    (section, setup + &appendix(rows, n))
}

/// The answer at `target`, in a sentence or three: the frontier's ends,
/// the static filters against it, and the filters off target.
fn answer(rows: &[Row], target: f64, n: usize) -> String {
    let best = frontier(rows, target);
    let at = |r: &Row| {
        format!(
            "{} ({:.2} bits/item, {:.1} ns a miss)",
            r.name, r.bits_per_item, r.measured.miss_ns
        )
    };
    let ends = match (best.first(), best.last()) {
        (Some(a), Some(b)) if a.name != b.name => {
            format!("the frontier runs from {} to {}.", at(a), at(b))
        }
        (Some(a), _) => format!("the frontier is {} alone.", at(a)),
        _ => "no filter that takes inserts met the target.".to_owned(),
    };
    let mut out = format!("**At {}** {ends}", short_percent(target));
    for r in rows
        .iter()
        .filter(|r| r.target == target && !r.takes_inserts)
    {
        let beaten: Vec<&str> = best
            .iter()
            .filter(|b| {
                r.bits_per_item < b.bits_per_item && r.measured.miss_ns < b.measured.miss_ns
            })
            .map(|b| b.name.as_str())
            .collect();
        // Its figures, then the filters of the frontier it beats on both.
        let sentence = if !r.on_target() {
            format!("cannot reach the target ({})", percent(r.fpr(n)))
        } else {
            let beaten = match beaten.len() {
                0 => "none of them".to_owned(),
                k if k == best.len() => "all of them".to_owned(),
                _ => beaten.join(", "),
            };
            format!(
                "({:.2} bits, {:.1} ns, {}) beats {beaten} on both",
                r.bits_per_item,
                r.measured.miss_ns,
                percent(r.fpr(n))
            )
        };
        out += &format!(" The static {} {sentence}.", r.name);
    }
    let off: Vec<String> = rows
        .iter()
        .filter(|r| r.target == target && r.takes_inserts && !r.on_target())
        .map(|r| format!("{} ({})", r.name, percent(r.fpr(n))))
        .collect();
    if !off.is_empty() {
        out += &format!(" Off target: {}.", off.join(", "));
    }
    out.push('\n');
    out
}

/// The frontier at each rate, with ratios to the best filter that takes
/// inserts and meets the target.
fn frontier_table(rows: &[Row], n: usize) -> String {
    let mut out = Vec::new();
    for target in RATES {
        let on: Vec<&Row> = rows.iter().filter(|r| r.competes(target)).collect();
        let least = |f: fn(&Row) -> f64| on.iter().map(|r| f(r)).fold(f64::INFINITY, f64::min);
        let (fewest, fastest) = (least(|r| r.bits_per_item), least(|r| r.measured.miss_ns));
        for r in frontier(rows, target) {
            out.push(vec![
                ("target", short_percent(target)),
                ("filter", r.name.clone()),
                ("bits/item", format!("{:.2}", r.bits_per_item)),
                ("× fewest", format!("{:.2}×", r.bits_per_item / fewest)),
                ("miss (ns)", format!("{:.1}", r.measured.miss_ns)),
                ("× fastest", format!("{:.2}×", r.measured.miss_ns / fastest)),
                ("measured rate", percent(r.fpr(n))),
            ]);
        }
    }
    markdown_records(out)
}

/// Every filter at every rate, frontier members marked.
fn appendix(rows: &[Row], n: usize) -> String {
    let mut table = Vec::new();
    for target in RATES {
        let best = frontier(rows, target);
        for r in rows.iter().filter(|r| r.target == target) {
            let on_front = best.iter().any(|b| b.name == r.name);
            table.push(vec![
                ("target", short_percent(target)),
                ("filter", r.name.clone()),
                ("crate", format!("`{}`", r.crate_name)),
                ("bits/item", format!("{:.2}", r.bits_per_item)),
                ("measured rate", percent(r.fpr(n))),
                (
                    "95% interval",
                    format!("{} – {}", percent(r.ci.0), percent(r.ci.1)),
                ),
                ("on target", yes_no(r.on_target()).into()),
                ("frontier", if on_front { "yes" } else { "" }.into()),
                ("insert (ns)", format!("{:.1}", r.measured.insert_ns)),
                ("hit (ns)", format!("{:.1}", r.measured.hit_ns)),
                ("miss (ns)", format!("{:.1}", r.measured.miss_ns)),
            ]);
        }
    }
    let count = grouped(n as u64);
    let intro = format!(
        "Every filter at every target, {count} items and {count} non-member probes each (times: best of \
         {PASSES} passes, ns per operation; BinaryFuse8's insert is its construction per key; its \
         rate varies from run to run, since xorf fills the slots no key claims from \
         `thread_rng`, and is left out of the CSV).\n\n"
    );
    intro + &markdown_records(table)
}
