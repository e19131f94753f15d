//! Experiment `deletion`: what the filters that delete lose, and when.
//!
//! Four parts, each run on bloomlab's counting and cuckoo filters and on the
//! peers `fastbloom-rs` (counting) and `cuckoofilter`, fed the same keys in
//! the same order:
//!
//! 1. *churn*: fill to capacity, then remove a held item and insert a new one
//!    ten times the capacity over; no held item may ever be reported absent;
//! 2. *wrongful removals*: remove keys that were never inserted but are
//!    reported present (false positives), and count the members this makes
//!    absent, against a Poisson model;
//! 3. *saturation*: overload 4-bit counters 2×, 4× and 8× and remove items
//!    until the filter is back at capacity (and the issue's case: 40,000
//!    inserts into 8,192 counters, half removed); count the kept items lost
//!    and the false-positive rate paid;
//! 4. *cuckoo overflow*: insert one item more often than its two buckets
//!    hold, and overfill a table to 1.3× its slots; count what is lost.

use std::fmt::Write as _;

use bloomlab::theory;
use bloomlab_testkit::keys::{self, members, probes};
use bloomlab_testkit::stats::clopper_pearson;
use rand::Rng;

use super::{Ctx, Output, sub_seed};
use crate::plot as chart;
use crate::progress;
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{Table, fixed, rate};

mod peer;

use peer::{Insert, Kind, Subject};

/// The false-positive rate the filters of parts 1 and 2 are built for.
pub const TARGET: f64 = 0.01;

/// Part 1 replaces the whole content this many times over.
pub const TURNOVER: usize = 10;

/// The counter width every counting filter here has.
const WIDTH: u32 = 4;

/// The value a 4-bit counter stops at.
const COUNTER_MAX: u64 = 15;

/// Overloads of part 3, as multiples of the capacity the filter was built
/// for; all but the last `capacity` items are then removed.
pub const OVERLOADS: [u64; 3] = [2, 4, 8];

/// The issue's case: 8,192 4-bit counters, k = 4, 40,000 inserts, then the
/// first half removed.
pub const ISSUE_CASE: (u64, u32, usize) = (8_192, 4, 40_000);

/// Part 4 overfills the cuckoo tables to this multiple of their slots.
pub const OVERFILL: f64 = 1.3;

/// How many times the `cuckoofilter` crate's overfill is repeated: its
/// relocations are unseeded, so one run is one draw.
pub const CRATE_REPEATS: usize = 3;

/// Which part of the experiment a row belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Churn,
    Wrongful,
    Saturation,
    Duplicates,
    Overfill,
}

impl Part {
    fn name(self) -> &'static str {
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
enum Theory {
    /// No theory for this value.
    None,
    /// A predicted rate, compared with the 95% interval of the measured one.
    Rate(f64),
    /// A predicted exact count.
    Exact(f64),
}

/// One measured value.
#[derive(Debug, Clone)]
struct Row {
    part: Part,
    subject: Kind,
    params: String,
    /// What the x column counts (items, overload factor, removals …).
    x_name: &'static str,
    x: String,
    metric: &'static str,
    count: u64,
    /// The denominator when the value is a rate.
    trials: Option<u64>,
    theory: Theory,
    /// Which theory: "exact", "Poisson model", "bound" …
    theory_kind: &'static str,
    /// False when the value depends on the `cuckoofilter` crate's unseeded walks.
    seeded: bool,
    /// The theory is computed from measured values (then unseeded with them).
    theory_from_run: bool,
    note: String,
}

impl Row {
    fn interval(&self) -> Option<(f64, f64)> {
        self.trials
            .filter(|&t| t > 0)
            .map(|t| clopper_pearson(self.count, t, 0.95))
    }

    fn rate(&self) -> Option<f64> {
        self.trials
            .filter(|&t| t > 0)
            .map(|t| self.count as f64 / t as f64)
    }

    fn theory_value(&self) -> String {
        match self.theory {
            Theory::None => String::new(),
            Theory::Rate(t) => rate(t),
            Theory::Exact(t) => format!("{t}"),
        }
    }

    fn check(&self) -> &'static str {
        match (self.theory, self.interval()) {
            (Theory::Rate(t), Some((lo, hi))) => {
                if (lo..=hi).contains(&t) {
                    "inside"
                } else {
                    "outside"
                }
            }
            (Theory::Exact(t), _) => {
                if self.count as f64 == t {
                    "equal"
                } else {
                    "differs"
                }
            }
            _ => "",
        }
    }

    /// The CSV cells; the measured values and denominators of unseeded rows
    /// (and their theory, when computed from them) are `unseeded`.
    fn cells(&self) -> Vec<String> {
        let (lo, hi) = self
            .interval()
            .map_or((String::new(), String::new()), |(l, h)| (rate(l), rate(h)));
        let mut measured = vec![
            self.count.to_string(),
            self.rate().map(rate).unwrap_or_default(),
            lo,
            hi,
            self.check().to_string(),
        ];
        if !self.seeded {
            measured = vec!["unseeded".to_string(); measured.len()];
        }
        let mut out = vec![
            self.part.name().to_string(),
            self.subject.name().to_string(),
            self.params.clone(),
            self.x_name.to_string(),
            self.x.clone(),
            self.metric.to_string(),
            // An unseeded row's denominator may come from the run too
            // (the crate's acknowledged inserts).
            if self.seeded {
                self.trials.map(|t| t.to_string()).unwrap_or_default()
            } else {
                "unseeded".to_string()
            },
        ];
        out.extend(measured);
        let theory = if self.seeded || !self.theory_from_run {
            self.theory_value()
        } else {
            "unseeded".to_string()
        };
        out.extend([
            theory,
            self.theory_kind.to_string(),
            if self.seeded { "yes" } else { "no" }.to_string(),
            self.note.clone(),
        ]);
        out
    }
}

const COLUMNS: [&str; 16] = [
    "part",
    "subject",
    "params",
    "x_name",
    "x",
    "metric",
    "trials",
    "count",
    "rate",
    "ci95_low",
    "ci95_high",
    "theory_check",
    "theory",
    "theory_kind",
    "seeded",
    "note",
];

/// Runs the experiment: `deletion.csv`, `deletion_wrongful.svg`,
/// `deletion_overfill.svg`.
pub fn run(ctx: &Ctx) -> Result<Output, String> {
    let capacity = ctx.scale.capacity();
    let bar = progress::bar(5, "deletion");
    let mut rows = churn(ctx, capacity)?;
    bar.inc(1);
    let (wrongful_rows, wrongful_chart) = wrongful(ctx, capacity)?;
    rows.extend(wrongful_rows);
    bar.inc(1);
    rows.extend(saturation(ctx, capacity)?);
    bar.inc(1);
    let slots = capacity.next_power_of_two();
    rows.extend(duplicates(ctx, slots)?);
    bar.inc(1);
    let (overfill_rows, crate_runs, overfill_chart) = overfill(ctx, slots)?;
    rows.extend(overfill_rows);
    bar.finish_and_clear();

    let mut table = Table::new(&COLUMNS);
    for row in &rows {
        table.push(row.cells());
    }
    let section = Section {
        title: "Deletion: what the counting and cuckoo filters lose".into(),
        body: body(&rows, &crate_runs, ctx.scale, capacity, slots),
    };
    let wrongful_svg = chart::draw("deletion_wrongful.svg", &wrongful_chart)?;
    let overfill_svg = chart::draw("deletion_overfill.svg", &overfill_chart)?;
    Ok(Output::new(section)
        .table("deletion.csv", table)
        .chart("deletion_wrongful.svg", wrongful_svg)
        .chart("deletion_overfill.svg", overfill_svg))
}

/// A row builder for the common case.
#[allow(clippy::too_many_arguments)]
fn row(
    part: Part,
    s: &Subject,
    x_name: &'static str,
    x: impl ToString,
    metric: &'static str,
    count: u64,
    trials: Option<u64>,
    theory: Theory,
    theory_kind: &'static str,
) -> Row {
    Row {
        part,
        subject: s.kind(),
        params: s.params().to_string(),
        x_name,
        x: x.to_string(),
        metric,
        count,
        trials,
        theory,
        theory_kind,
        seeded: true,
        theory_from_run: false,
        note: String::new(),
    }
}

/// The classic or cuckoo rate theory gives `s` holding `n` items.
fn fpr_theory(s: &Subject, n: u64) -> f64 {
    if let Some((m, k)) = s.counting_shape() {
        theory::classic::fpr(m as f64, n as f64, f64::from(k))
    } else if let Some((slots, b, values)) = s.cuckoo_shape() {
        let f = (values + 1).trailing_zeros();
        theory::cuckoo::fpr(f, b, n as f64 / slots as f64)
    } else {
        f64::NAN
    }
}

/// Probes `s` with `n` fresh keys: false positives.
fn false_positives(s: &Subject, seed: u64, n: usize) -> u64 {
    probes(seed, n).filter(|&q| s.contains(q)).count() as u64
}

/// Part 1: fill to capacity, then replace a random held item by a new one,
/// `TURNOVER` × capacity times; check every held item after the fill and
/// after each capacity's worth of replacements.
fn churn(ctx: &Ctx, n: usize) -> Result<Vec<Row>, String> {
    let keys = members(
        sub_seed(ctx.seed, "deletion/churn/keys"),
        n * (TURNOVER + 1),
    );
    let n_probes = ctx.scale.probes();
    let mut rows = Vec::new();
    for kind in Kind::ALL {
        let mut s = Subject::for_items(
            kind,
            n,
            TARGET,
            sub_seed(ctx.seed, &format!("deletion/churn/{}", kind.name())),
        )?;
        let mut failed_inserts = 0u64;
        for &k in &keys[..n] {
            failed_inserts += u64::from(s.insert(k) != Insert::Stored);
        }
        let mut held = keys[..n].to_vec();
        let mut order = keys::rng(sub_seed(ctx.seed, "deletion/churn/order"));
        let (mut missing, mut checks, mut refused) = (0u64, 0u64, 0u64);
        let mut check = |s: &Subject, held: &[u64]| {
            missing += held.iter().filter(|&&k| !s.contains(k)).count() as u64;
            checks += held.len() as u64;
        };
        check(&s, &held);
        let mut next = n;
        for _ in 0..TURNOVER {
            for _ in 0..n {
                let i = order.random_range(0..held.len());
                let old = std::mem::replace(&mut held[i], keys[next]);
                next += 1;
                refused += u64::from(!s.remove(old));
                failed_inserts += u64::from(s.insert(held[i]) != Insert::Stored);
            }
            check(&s, &held);
        }
        let ops = (TURNOVER * n) as u64;
        let x = TURNOVER * n;
        // The crate's outcome is reproducible as long as no insert failed:
        // its walks then only move fingerprints between their two buckets.
        let seeded = kind.seeded() || failed_inserts == 0;
        let mut r = row(
            Part::Churn,
            &s,
            "replacements",
            x,
            "held_items_absent",
            missing,
            Some(checks),
            Theory::Exact(0.0),
            "exact: none",
        );
        r.note = format!("held items checked {} times", TURNOVER + 1);
        r.seeded = seeded;
        rows.push(r);
        let mut r = row(
            Part::Churn,
            &s,
            "replacements",
            x,
            "removes_refused",
            refused,
            Some(ops),
            Theory::Exact(0.0),
            "exact: none",
        );
        r.seeded = seeded;
        rows.push(r);
        let mut r = row(
            Part::Churn,
            &s,
            "replacements",
            x,
            "inserts_failed",
            failed_inserts,
            Some(ops + n as u64),
            Theory::Exact(0.0),
            "exact: none",
        );
        r.seeded = seeded;
        rows.push(r);
        let hits = false_positives(&s, sub_seed(ctx.seed, "deletion/churn/probes"), n_probes);
        let mut r = row(
            Part::Churn,
            &s,
            "replacements",
            x,
            "fpr_after_churn",
            hits,
            Some(n_probes as u64),
            Theory::Rate(fpr_theory(&s, n as u64)),
            "classic or cuckoo rate at n",
        );
        r.seeded = kind.seeded();
        rows.push(r);
    }
    Ok(rows)
}

/// Expected fraction of `n` members of a cuckoo filter (`b`-slot buckets,
/// `values` fingerprint values, load `alpha`) reported absent after `j`
/// false positives were removed.
///
/// A false positive's two buckets hold `Poisson(ν)` fingerprints equal to
/// its own, `ν = 2bα/values`, given at least one. Its removal deletes one;
/// the member that owned it (same fingerprint, hence the same bucket pair)
/// is lost if no other copy is left: `ν e^{−ν}/(1 − e^{−ν})` members per
/// removal, just under one, and `j` times that in all while `j ≪ n`.
pub fn cuckoo_loss(values: u64, b: u32, alpha: f64, n: u64, j: f64) -> f64 {
    let nu = 2.0 * f64::from(b) * alpha / values as f64;
    let per_removal = nu * (-nu).exp() / -(-nu).exp_m1();
    j * per_removal / n as f64
}

/// The checkpoints of part 2: 1, 2, 5, 10, 20, 50 … up to `max`.
fn wrongful_marks(max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut decade = 1;
    while decade <= max {
        for step in [1, 2, 5] {
            if step * decade <= max {
                out.push(step * decade);
            }
        }
        decade *= 10;
    }
    out
}

/// Part 2: remove false positives from a full filter and count the members lost.
fn wrongful(ctx: &Ctx, n: usize) -> Result<(Vec<Row>, chart::Chart), String> {
    let keys = members(sub_seed(ctx.seed, "deletion/wrongful/keys"), n);
    let max = (n / 20) as u64;
    let marks = wrongful_marks(max);
    let probe_budget = 200 * n;
    let mut rows = Vec::new();
    let mut chart = chart::Chart {
        title: format!("Removing false positives from filters holding {n} items"),
        x_label: "false positives removed (log scale)".into(),
        y_label: "fraction of members reported absent (log scale)".into(),
        x_log: true,
        y_log: true,
        y_floor: 0.3 / n as f64,
        ..chart::Chart::default()
    };
    for kind in Kind::ALL {
        let mut s = Subject::for_items(
            kind,
            n,
            TARGET,
            sub_seed(ctx.seed, &format!("deletion/wrongful/{}", kind.name())),
        )?;
        for &k in &keys {
            s.insert(k);
        }
        let counting = s
            .counting_shape()
            .map(|(m, k)| theory::counting::RemovalLoss::new(m, k, n as u64, max));
        let cuckoo = s.cuckoo_shape();
        let loss = |j: f64| -> f64 {
            if let Some(model) = &counting {
                model.fraction(j)
            } else if let Some((slots, b, values)) = cuckoo {
                cuckoo_loss(values, b, n as f64 / slots as f64, n as u64, j)
            } else {
                f64::NAN
            }
        };
        let mut curve = chart::Curve {
            label: kind.name().into(),
            theory: (0..=40)
                .map(|i| {
                    let j = (max as f64).powf(f64::from(i) / 40.0);
                    (j, loss(j))
                })
                .collect(),
            points: Vec::new(),
        };
        let mut removed = 0u64;
        let mut probed = 0u64;
        let mut next_mark = marks.iter().copied().peekable();
        for q in probes(sub_seed(ctx.seed, "deletion/wrongful/probes"), probe_budget) {
            probed += 1;
            if !(s.contains(q) && s.remove(q)) {
                continue;
            }
            removed += 1;
            if next_mark.peek() == Some(&removed) {
                next_mark.next();
                let lost = keys.iter().filter(|&&k| !s.contains(k)).count() as u64;
                let mut r = row(
                    Part::Wrongful,
                    &s,
                    "false_positives_removed",
                    removed,
                    "members_absent",
                    lost,
                    Some(n as u64),
                    Theory::Rate(loss(removed as f64)),
                    if kind.counting() {
                        "Poisson model"
                    } else {
                        "one per removal"
                    },
                );
                r.seeded = kind.seeded();
                r.note = if kind.seeded() {
                    format!("{probed} probes scanned")
                } else {
                    String::new()
                };
                if let (Some(frac), Some((lo, hi))) = (r.rate(), r.interval()) {
                    curve.points.push((removed as f64, lo, frac, hi));
                }
                rows.push(r);
                if removed >= max {
                    break;
                }
            }
        }
        chart.curves.push(curve);
    }
    Ok((rows, chart))
}

/// One case of part 3.
struct Overload {
    /// Shown in the x column.
    label: String,
    /// Built for this many items at `TARGET`; `None`: the issue's counters.
    built_for: Option<usize>,
    /// Items inserted.
    inserts: usize,
    /// Items kept: the last ones inserted; the others are removed.
    kept: usize,
}

/// What the fastbloom-rs models of part 3 leave out.
const SKIPPED: &str = "the model ignores removes skipped once an item is already absent";

/// Part 3: overload, remove all but the kept items, and count what the kept
/// items lost and the rate paid.
fn saturation(ctx: &Ctx, capacity: usize) -> Result<Vec<Row>, String> {
    let n_probes = ctx.scale.probes();
    let mut rows = Vec::new();
    let mut cases: Vec<Overload> = OVERLOADS
        .iter()
        .map(|&f| Overload {
            label: format!("{f}x"),
            built_for: Some(capacity),
            inserts: capacity * f as usize,
            kept: capacity,
        })
        .collect();
    cases.push(Overload {
        label: "issue".into(),
        built_for: None,
        inserts: ISSUE_CASE.2,
        kept: ISSUE_CASE.2 / 2,
    });
    for case in cases {
        let keys = members(
            sub_seed(
                ctx.seed,
                &format!("deletion/saturation/{}/keys", case.label),
            ),
            case.inserts,
        );
        let removed = case.inserts - case.kept;
        for kind in [Kind::OursCounting, Kind::FastbloomCounting] {
            let seed = sub_seed(
                ctx.seed,
                &format!("deletion/saturation/{}/{}", case.label, kind.name()),
            );
            let mut s = match case.built_for {
                Some(n) => Subject::for_items(kind, n, TARGET, seed)?,
                None => Subject::with_counters(kind, ISSUE_CASE.0, ISSUE_CASE.1, seed)?,
            };
            let (m, k) = s
                .counting_shape()
                .ok_or_else(|| format!("{} has no counters", kind.name()))?;
            let x = format!(
                "{}: {} inserted and {} kept",
                case.label, case.inserts, case.kept
            );
            for &key in &keys {
                s.insert(key);
            }
            let saturated = s.saturated().unwrap_or(0);
            let mut refused = 0u64;
            for &key in &keys[..removed] {
                refused += u64::from(!s.remove(key));
            }
            let lost = keys[removed..]
                .iter()
                .filter(|&&key| !s.contains(key))
                .count() as u64;
            let hits = false_positives(
                &s,
                sub_seed(
                    ctx.seed,
                    &format!("deletion/saturation/{}/probes", case.label),
                ),
                n_probes,
            );
            let sticky = kind == Kind::OursCounting;
            let lambda_kept = case.kept as f64 * f64::from(k) / m as f64;
            let lambda_removed = removed as f64 * f64::from(k) / m as f64;
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "saturated_counters",
                saturated,
                Some(m),
                Theory::Rate(
                    theory::counting::expected_saturated(m, case.inserts as u64, k, WIDTH)
                        / m as f64,
                ),
                "binomial tail",
            );
            r.note = "after the inserts and before the removes".into();
            rows.push(r);
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "removes_not_applied",
                refused,
                Some(removed as u64),
                Theory::None,
                "",
            );
            r.note = if sticky {
                "refused with NotPresent".into()
            } else {
                "ignored: an inserted item already reported absent".into()
            };
            rows.push(r);
            // A kept item is lost when one of its counters reaches zero:
            // never for sticky counters; for fastbloom-rs when the removed
            // items alone bring a counter that stopped at 15 down to zero.
            let (kept_theory, kind_text) = if sticky {
                (Theory::Exact(0.0), "exact: none")
            } else {
                let per_counter =
                    theory::counting::counter_tail_poisson(lambda_removed, COUNTER_MAX);
                (
                    Theory::Rate(1.0 - (1.0 - per_counter).powi(k as i32)),
                    "Poisson model",
                )
            };
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "kept_items_absent",
                lost,
                Some(case.kept as u64),
                kept_theory,
                kind_text,
            );
            if !sticky {
                r.note = SKIPPED.into();
            }
            rows.push(r);
            let zero = theory::counting::zero_after_removal(lambda_kept, lambda_removed, 4, sticky);
            let fill = 1.0 - zero;
            let mut r = row(
                Part::Saturation,
                &s,
                "overload",
                &x,
                "fpr_after_removal",
                hits,
                Some(n_probes as u64),
                Theory::Rate(fill.powi(k as i32)),
                "Poisson model",
            );
            r.note = format!(
                "counters expected at zero {:.1}; rate of the kept items without saturation {}",
                zero * m as f64,
                rate(theory::classic::fpr(
                    m as f64,
                    case.kept as f64,
                    f64::from(k)
                ))
            );
            if sticky {
                let bound = theory::counting::fpr_with_stuck(
                    m as f64,
                    case.kept as f64,
                    f64::from(k),
                    saturated as f64,
                );
                let _ = write!(r.note, "; bound with the stuck counters {}", rate(bound));
            } else {
                let _ = write!(r.note, "; {SKIPPED}");
            }
            rows.push(r);
        }
    }
    Ok(rows)
}

/// Part 4a: one item inserted 2b + 1 times into a half-full table, and a
/// second item through the unique insert.
///
/// Both items are keys that both tables report absent after the fill: a key
/// reported present shares its fingerprint with a stored item in one of its
/// buckets, which then counts as one of its copies (its ninth insert would
/// be its eighth), and its unique insert would store nothing.
fn duplicates(ctx: &Ctx, slots: usize) -> Result<Vec<Row>, String> {
    let half = slots / 2;
    let keys = members(sub_seed(ctx.seed, "deletion/duplicates/keys"), half + 64);
    let (held, candidates) = keys.split_at(half);
    let mut subjects = Vec::new();
    let mut fill_failures = Vec::new();
    for kind in [Kind::OursCuckoo, Kind::CuckooCrate] {
        let mut s = Subject::with_slots(
            kind,
            slots,
            sub_seed(ctx.seed, &format!("deletion/duplicates/{}", kind.name())),
        )?;
        let failed = held
            .iter()
            .filter(|&&k| s.insert(k) != Insert::Stored)
            .count();
        fill_failures.push(failed);
        subjects.push(s);
    }
    let mut absent = candidates
        .iter()
        .copied()
        .filter(|&k| subjects.iter().all(|s| !s.contains(k)));
    let (Some(item), Some(unique)) = (absent.next(), absent.next()) else {
        return Err("duplicates: no key is reported absent by both tables".into());
    };
    let mut rows = Vec::new();
    for (mut s, failed) in subjects.into_iter().zip(fill_failures) {
        let kind = s.kind();
        // The crate's outcome is reproducible as long as no insert failed:
        // its walks then only move fingerprints between their two buckets.
        let seeded = kind.seeded() || failed == 0;
        let (_, b, _) = s.cuckoo_shape().unwrap_or((0, 4, 0));
        let tries = 2 * u64::from(b) + 1;
        let mut first_failure = 0u64;
        let mut outcomes = Vec::new();
        for i in 1..=tries {
            let outcome = s.insert(item);
            if outcome != Insert::Stored && first_failure == 0 {
                first_failure = i;
            }
            outcomes.push(outcome);
        }
        let mut r = row(
            Part::Duplicates,
            &s,
            "copies_inserted",
            tries,
            "first_failed_insert",
            first_failure,
            None,
            Theory::Exact(tries as f64),
            "exact: 2b + 1",
        );
        r.note = match outcomes.last() {
            Some(Insert::Refused) => "Full: nothing changed".into(),
            Some(Insert::Failed) => "NotEnoughSpace: dropped one of the item's copies".into(),
            _ => String::new(),
        };
        r.seeded = seeded;
        rows.push(r);
        let lost = held.iter().filter(|&&k| !s.contains(k)).count() as u64;
        let mut r = row(
            Part::Duplicates,
            &s,
            "copies_inserted",
            tries,
            "other_items_absent",
            lost,
            Some(held.len() as u64),
            Theory::Exact(0.0),
            "exact: none",
        );
        r.seeded = seeded;
        rows.push(r);
        let mut r = row(
            Part::Duplicates,
            &s,
            "copies_inserted",
            tries,
            "item_absent",
            u64::from(!s.contains(item)),
            None,
            Theory::Exact(0.0),
            "exact: none",
        );
        if let Some(c) = s.count(item) {
            r.note = format!("copies stored: {c}");
        }
        r.seeded = seeded;
        rows.push(r);
        let mut stored = 0u64;
        for _ in 0..tries {
            stored += u64::from(s.insert_unique(unique)?);
        }
        let mut r = row(
            Part::Duplicates,
            &s,
            "unique_inserts",
            tries,
            "unique_inserts_stored",
            stored,
            None,
            Theory::Exact(1.0),
            "exact: the first",
        );
        r.seeded = seeded;
        rows.push(r);
    }
    Ok(rows)
}

/// One overfill of a cuckoo table.
#[derive(Debug, Clone, Default)]
struct OverfillRun {
    /// Inserts offered.
    offered: u64,
    /// Inserts that reported failure.
    failed: u64,
    /// Items stored at the first failure.
    first_failure_at: Option<u64>,
    /// Inserts that reported success.
    acknowledged: u64,
    /// Acknowledged items reported absent at the end.
    lost: u64,
    /// Offered items (acknowledged or not) reported absent at the end.
    absent: u64,
    /// (offered / slots, acknowledged items absent) along the way.
    curve: Vec<(f64, u64)>,
}

fn overfill_once(s: &mut Subject, keys: &[u64], slots: usize) -> OverfillRun {
    let mut run = OverfillRun::default();
    let mut acknowledged = vec![false; keys.len()];
    let step = (slots / 40).max(1);
    let start = slots * 9 / 10;
    for (i, &k) in keys.iter().enumerate() {
        let ok = s.insert(k) == Insert::Stored;
        acknowledged[i] = ok;
        if ok {
            run.acknowledged += 1;
        } else {
            run.failed += 1;
            run.first_failure_at.get_or_insert(run.acknowledged);
        }
        let done = i + 1;
        if done == keys.len() || (done >= start && (done - start).is_multiple_of(step)) {
            let lost = keys[..done]
                .iter()
                .zip(&acknowledged)
                .filter(|&(&k, &ok)| ok && !s.contains(k))
                .count() as u64;
            run.curve.push((done as f64 / slots as f64, lost));
            run.lost = lost;
        }
    }
    run.offered = keys.len() as u64;
    run.absent = keys.iter().filter(|&&k| !s.contains(k)).count() as u64;
    run
}

/// Part 4b: overfill both cuckoo tables to `OVERFILL` × their slots; the
/// crate's run is repeated `CRATE_REPEATS` times.
fn overfill(ctx: &Ctx, slots: usize) -> Result<(Vec<Row>, Vec<OverfillRun>, chart::Chart), String> {
    let offered = (slots as f64 * OVERFILL).round() as usize;
    let keys = members(sub_seed(ctx.seed, "deletion/overfill/keys"), offered);
    let mut rows = Vec::new();
    let mut crate_runs = Vec::new();
    let mut chart = chart::Chart {
        title: format!("Overfilling a cuckoo table of {slots} slots to {OVERFILL}x"),
        x_label: "items offered / slots".into(),
        y_label: "acknowledged items reported absent".into(),
        ..chart::Chart::default()
    };
    for kind in [Kind::OursCuckoo, Kind::CuckooCrate] {
        let repeats = if kind.seeded() { 1 } else { CRATE_REPEATS };
        let mut first = None;
        for _ in 0..repeats {
            let mut s = Subject::with_slots(
                kind,
                slots,
                sub_seed(ctx.seed, &format!("deletion/overfill/{}", kind.name())),
            )?;
            let run = overfill_once(&mut s, &keys, slots);
            if first.is_none() {
                first = Some((s, run.clone()));
            }
            if !kind.seeded() {
                crate_runs.push(run);
            }
        }
        let Some((s, run)) = first else { continue };
        let x = format!("{offered} offered");
        let mut r = row(
            Part::Overfill,
            &s,
            "inserts",
            &x,
            "inserts_failed",
            run.failed,
            Some(run.offered),
            Theory::None,
            "",
        );
        r.seeded = kind.seeded();
        r.note = if kind.seeded() {
            "Full: nothing changed".into()
        } else {
            "NotEnoughSpace: a stored fingerprint dropped".into()
        };
        rows.push(r);
        let stored = run.first_failure_at.unwrap_or(run.acknowledged);
        let paper = theory::cuckoo::max_load(4).map(fixed).unwrap_or_default();
        let mut r = row(
            Part::Overfill,
            &s,
            "inserts",
            &x,
            "stored_at_first_failure",
            stored,
            None,
            Theory::None,
            "",
        );
        r.seeded = kind.seeded();
        r.note = if kind.seeded() {
            format!(
                "load {} of {slots} slots; the paper's maximum load {paper}",
                fixed(stored as f64 / slots as f64)
            )
        } else {
            format!("the paper's maximum load {paper}")
        };
        rows.push(r);
        // Every failed insert costs one item: ours the refused one, the crate
        // the one whose fingerprint it dropped, unless a matching fingerprint
        // in that item's buckets still reports it (the rate at the final load).
        let (slots_u, b, values) = s.cuckoo_shape().unwrap_or((slots as u64, 4, 255));
        let masked = theory::cuckoo::fpr(
            (values + 1).trailing_zeros(),
            b,
            run.acknowledged as f64 / slots_u as f64,
        );
        let mut r = row(
            Part::Overfill,
            &s,
            "inserts",
            &x,
            "offered_items_absent",
            run.absent,
            Some(run.offered),
            Theory::Rate(run.failed as f64 * (1.0 - masked) / run.offered as f64),
            "one per failed insert",
        );
        r.seeded = kind.seeded();
        r.theory_from_run = true;
        rows.push(r);
        let (theory_lost, kind_text) = if kind.seeded() {
            (Theory::Exact(0.0), "exact: none")
        } else {
            (Theory::None, "")
        };
        let mut r = row(
            Part::Overfill,
            &s,
            "inserts",
            &x,
            "acknowledged_items_absent",
            run.lost,
            Some(run.acknowledged),
            theory_lost,
            kind_text,
        );
        r.seeded = kind.seeded();
        if !kind.seeded() {
            r.note = "silent losses: the insert of each had reported success".into();
        }
        rows.push(r);
        chart.curves.push(chart::Curve {
            label: if kind.seeded() {
                kind.name().to_string()
            } else {
                format!("{} (one unseeded run)", kind.name())
            },
            theory: Vec::new(),
            points: run
                .curve
                .iter()
                .map(|&(x, y)| (x, y as f64, y as f64, y as f64))
                .collect(),
        });
    }
    Ok((rows, crate_runs, chart))
}

fn find<'a>(rows: &'a [Row], part: Part, kind: Kind, metric: &str, x: &str) -> Option<&'a Row> {
    rows.iter().find(|r| {
        r.part == part && r.subject == kind && r.metric == metric && (x.is_empty() || r.x == x)
    })
}

/// "count of trials (rate)" for the report, with the real value even for
/// unseeded rows.
fn shown(r: Option<&Row>) -> String {
    match r {
        None => "—".into(),
        Some(r) => {
            let mark = if r.seeded { "" } else { " †" };
            match r.trials {
                Some(t) => format!("{} of {}{mark}", r.count, t),
                None => format!("{}{mark}", r.count),
            }
        }
    }
}

fn markdown(rows: &[&Row]) -> String {
    let mut out = String::from(
        "| subject | x | metric | count | of | rate | 95% interval | theory | check | note |\n|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let interval = r
            .interval()
            .map(|(lo, hi)| format!("{} – {}", rate(lo), rate(hi)))
            .unwrap_or_default();
        let theory = match r.theory_value() {
            t if t.is_empty() => String::new(),
            t => format!("{t} ({})", r.theory_kind),
        };
        let mark = if r.seeded { "" } else { " †" };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {}{mark} | {} | {} | {} | {} | {} | {} |",
            r.subject.name(),
            r.x,
            r.metric,
            r.count,
            r.trials.map(|t| t.to_string()).unwrap_or_default(),
            r.rate().map(rate).unwrap_or_default(),
            interval,
            theory,
            r.check(),
            r.note,
        );
    }
    out
}

fn body(
    rows: &[Row],
    crate_runs: &[OverfillRun],
    scale: Scale,
    capacity: usize,
    slots: usize,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "bloomlab's `CountingBloomFilter` (4-bit counters that stick at 15) and `CuckooFilter` \
         (a failed insert is undone), side by side with `fastbloom-rs` 0.5's counting filter \
         (4-bit counters that stop at 15 but are still decremented) and the `cuckoofilter` 0.5 \
         crate (8-bit fingerprints; a failed insert drops the fingerprint it was carrying), fed \
         the same random keys in the same order at scale `{scale}` (capacity {capacity}, rate \
         {TARGET}; cuckoo tables of {slots} slots in part 4). fastbloom-rs hashes the key's \
         bytes with its own xxh3; the cuckoofilter crate is given bloomlab's keyed SipHash-1-3 \
         as its hasher type. † marks values that depend on the cuckoofilter crate's relocation \
         walks, which draw from the unseeded `rand::thread_rng()`: they change from run to run, \
         so `deletion.csv` holds `unseeded` in their place and this report shows this run's \
         values.\n"
    );

    // The summary: what each subject loses, scenario by scenario.
    let wrongful_x = rows
        .iter()
        .filter(|r| r.part == Part::Wrongful)
        .map(|r| r.x.clone())
        .max_by_key(|x| x.parse::<u64>().unwrap_or(0))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "| items reported absent that must not be | bloomlab counting | fastbloom-rs counting | bloomlab cuckoo | cuckoofilter crate |\n|---|---|---|---|---|"
    );
    let line = |label: String, part: Part, metric: &str, x: &str| {
        let cells: Vec<String> = Kind::ALL
            .iter()
            .map(|&k| shown(find(rows, part, k, metric, x)))
            .collect();
        format!("| {label} | {} |\n", cells.join(" | "))
    };
    out.push_str(&line(
        format!("churn: held items, over {TURNOVER}× capacity of replacements"),
        Part::Churn,
        "held_items_absent",
        "",
    ));
    out.push_str(&line(
        format!("after {wrongful_x} false positives removed: members"),
        Part::Wrongful,
        "members_absent",
        &wrongful_x,
    ));
    let issue = rows
        .iter()
        .find(|r| r.part == Part::Saturation && r.x.starts_with("issue"))
        .map(|r| r.x.clone())
        .unwrap_or_default();
    let eight = rows
        .iter()
        .find(|r| r.part == Part::Saturation && r.x.starts_with("8x"))
        .map(|r| r.x.clone())
        .unwrap_or_default();
    out.push_str(&line(
        format!("saturation, 8× overload then back to capacity ({eight}): kept items"),
        Part::Saturation,
        "kept_items_absent",
        &eight,
    ));
    out.push_str(&line(
        format!("saturation, the issue's 8,192 counters with k = 4 ({issue}): kept items"),
        Part::Saturation,
        "kept_items_absent",
        &issue,
    ));
    out.push_str(&line(
        "one item inserted 2b + 1 = 9 times: other items".into(),
        Part::Duplicates,
        "other_items_absent",
        "",
    ));
    out.push_str(&line(
        format!("overfill to {OVERFILL}× the slots: acknowledged items"),
        Part::Overfill,
        "acknowledged_items_absent",
        "",
    ));
    if !crate_runs.is_empty() {
        let runs: Vec<String> = crate_runs
            .iter()
            .map(|r| format!("{} lost after {} failed inserts", r.lost, r.failed))
            .collect();
        let _ = writeln!(
            out,
            "\nThe cuckoofilter crate's overfill, run {} times on the same keys: {}.",
            crate_runs.len(),
            runs.join("; ")
        );
    }

    let part_rows = |part: Part| -> Vec<&Row> { rows.iter().filter(|r| r.part == part).collect() };
    let _ = writeln!(
        out,
        "\n### 1. Churn\n\nEach filter is filled with `capacity` items; then {TURNOVER} × \
         capacity times a random held item is removed and a new one inserted (the same \
         choices for every filter). Every held item is checked after the fill and after each \
         capacity's worth of replacements. No filter may report a held item absent, refuse to \
         remove one, or fail an insert at this load; the rate afterwards should be the rate of \
         a filter holding `capacity` items.\n"
    );
    out.push_str(&markdown(&part_rows(Part::Churn)));
    let _ = writeln!(
        out,
        "\n### 2. Removing false positives\n\nEach filter holds `capacity` items. A stream of \
         keys never inserted is run through every filter; each key a filter reports present (a \
         false positive), it is asked to remove. After 1, 2, 5, 10 … such removals the members \
         reported absent are counted. For a counting filter each removal decrements k counters \
         and every member whose counter it brings to zero is lost: the Poisson model \
         (`theory::counting::RemovalLoss`) predicts k·λe^−λ/(1 − e^−λ) members per removal at first, \
         λ = nk/m, which is k·ln 2 ≈ 4.9 at the optimal k = 7. A cuckoo filter deletes one \
         fingerprint, whose owner is lost unless another copy of it sits in the same buckets: \
         just under one member per removal (`cuckoo_loss`). Losses of a counting filter come \
         in clusters (one zeroed counter can cost several members), so the binomial interval \
         understates their spread.\n"
    );
    out.push_str("![members lost to wrongful removals](deletion_wrongful.svg)\n\n");
    out.push_str(&markdown(&part_rows(Part::Wrongful)));
    let _ = writeln!(
        out,
        "\n### 3. Saturation of 4-bit counters\n\nFilters built for `capacity` items at \
         {TARGET} take 2×, 4× and 8× that many, then all but the last `capacity` items are \
         removed, so that the rate would be back at {TARGET} without saturation; the issue's \
         case is 8,192 counters with k = 4 taking 40,000 items, the first half removed. \
         Saturated counters are counted before the removes (theory: \
         `theory::counting::expected_saturated`). bloomlab's counters stay at 15 once there, \
         which keeps every kept item but leaves positions set: the rate after the removes is \
         predicted by the Poisson model `theory::counting::zero_after_removal` (sticky) and bounded by \
         `theory::counting::fpr_with_stuck` (in the note, beside the rate without \
         saturation). fastbloom-rs decrements \
         saturated counters, so the removed items alone can bring a counter that stopped at \
         15 to zero: a kept item is then lost, with probability about \
         1 − (1 − P(Poisson(λ_removed) ≥ 15))^k.\n"
    );
    out.push_str(&markdown(&part_rows(Part::Saturation)));
    let _ = writeln!(
        out,
        "\n### 4. Cuckoo: duplicates and overfill\n\nDuplicates: a table of {slots} slots \
         half full takes one more item 2b + 1 = 9 times. Two buckets of four slots hold 8 \
         copies; the ninth insert must fail. Then another item goes in through the unique \
         insert (`insert_unique`, the crate's `test_and_add`) nine times: stored once. \
         Overfill: the same table size takes {OVERFILL}× its slots in distinct items; the \
         items whose insert reported success are checked at the end.\n"
    );
    out.push_str(&markdown(&part_rows(Part::Duplicates)));
    out.push('\n');
    out.push_str(&markdown(&part_rows(Part::Overfill)));
    out.push_str("\n![overfilling a cuckoo table](deletion_overfill.svg)\n");
    let outside: Vec<String> = rows
        .iter()
        .filter(|r| matches!(r.check(), "outside" | "differs"))
        .map(|r| {
            format!(
                "{} {} {} at {}",
                r.part.name(),
                r.subject.name(),
                r.metric,
                r.x
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "\nRows where the measurement disagrees with its theory: {} (each row's note says what \
         its model leaves out).\n\nData: \
         [`deletion.csv`](deletion.csv) (one row per measured value; `part` says which part).",
        if outside.is_empty() {
            "none".to_string()
        } else {
            outside.join("; ")
        }
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ν = 8·0.5/255 at half load with 8-bit fingerprints: ν/(e^ν − 1) = 0.9922.
    #[test]
    fn cuckoo_loss_is_just_under_one_per_removal() {
        let per = cuckoo_loss(255, 4, 0.5, 1_000, 1.0) * 1_000.0;
        assert!((per - 0.9922).abs() < 0.0001, "{per}");
    }

    #[test]
    fn marks_are_one_two_five() {
        assert_eq!(
            wrongful_marks(500),
            vec![1, 2, 5, 10, 20, 50, 100, 200, 500]
        );
        assert_eq!(wrongful_marks(30), vec![1, 2, 5, 10, 20]);
    }

    /// The issue's sequence: fastbloom-rs loses kept items, ours none.
    #[test]
    fn saturation_issue_case_peer_loses_ours_does_not() {
        let (m, k, inserts) = ISSUE_CASE;
        let keys = members(1, inserts);
        let mut lost = Vec::new();
        for kind in [Kind::OursCounting, Kind::FastbloomCounting] {
            let mut s = Subject::with_counters(kind, m, k, 2).unwrap();
            for &key in &keys {
                s.insert(key);
            }
            for &key in &keys[..inserts / 2] {
                s.remove(key);
            }
            lost.push(
                keys[inserts / 2..]
                    .iter()
                    .filter(|&&key| !s.contains(key))
                    .count(),
            );
        }
        assert_eq!(lost[0], 0);
        assert!(lost[1] > 1_000, "{lost:?}");
    }

    /// Overfilling: ours refuses and keeps everything; the crate drops items.
    #[test]
    fn overfill_peer_loses_ours_does_not() {
        let slots = 1 << 12;
        let keys = members(3, (slots as f64 * OVERFILL) as usize);
        let mut ours = Subject::with_slots(Kind::OursCuckoo, slots, 4).unwrap();
        let run = overfill_once(&mut ours, &keys, slots);
        assert!(run.failed > 0);
        assert_eq!(run.lost, 0);
        let mut theirs = Subject::with_slots(Kind::CuckooCrate, slots, 4).unwrap();
        let run = overfill_once(&mut theirs, &keys, slots);
        assert!(run.failed > 0 && run.lost > 0, "{run:?}");
    }

    /// The ninth copy fails in both tables and neither loses another item.
    #[test]
    fn duplicates_fail_at_nine_and_lose_nothing() {
        let ctx = Ctx {
            scale: Scale::Quick,
            seed: 5,
        };
        let rows = duplicates(&ctx, 1 << 12).unwrap();
        for kind in [Kind::OursCuckoo, Kind::CuckooCrate] {
            let first = find(&rows, Part::Duplicates, kind, "first_failed_insert", "").unwrap();
            assert_eq!(first.count, 9, "{}", kind.name());
            let lost = find(&rows, Part::Duplicates, kind, "other_items_absent", "").unwrap();
            assert_eq!(lost.count, 0, "{}", kind.name());
            let item = find(&rows, Part::Duplicates, kind, "item_absent", "").unwrap();
            assert_eq!(item.count, 0, "{}", kind.name());
        }
    }

    /// Churn at small scale: no subject loses a held item.
    #[test]
    fn churn_loses_nothing() {
        let ctx = Ctx {
            scale: Scale::Quick,
            seed: 6,
        };
        // 3,000 items: the crate's 4,096 slots are 73% full, below where its
        // inserts start to fail.
        let rows = churn(&ctx, 3_000).unwrap();
        for r in rows.iter().filter(|r| r.metric == "held_items_absent") {
            assert_eq!(r.count, 0, "{}", r.subject.name());
            assert!(r.seeded, "{}", r.subject.name());
        }
    }

    #[test]
    fn unseeded_rows_hide_their_values_in_the_csv() {
        let s = Subject::with_slots(Kind::CuckooCrate, 64, 0).unwrap();
        let mut r = row(
            Part::Overfill,
            &s,
            "inserts",
            1,
            "x",
            3,
            Some(10),
            Theory::Rate(0.3),
            "model",
        );
        r.seeded = false;
        let cells = r.cells();
        assert_eq!(cells.len(), COLUMNS.len());
        assert_eq!(
            cells[COLUMNS.iter().position(|c| *c == "count").unwrap()],
            "unseeded"
        );
        assert_eq!(
            cells[COLUMNS.iter().position(|c| *c == "trials").unwrap()],
            "unseeded"
        );
        assert_eq!(
            cells[COLUMNS.iter().position(|c| *c == "theory").unwrap()],
            "3.0000e-1"
        );
        r.theory_from_run = true;
        assert_eq!(
            r.cells()[COLUMNS.iter().position(|c| *c == "theory").unwrap()],
            "unseeded"
        );
    }
}
