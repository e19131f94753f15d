//! Which candidates meet the workload, their ranking, and the recommendation.
//!
//! A candidate *fits* when it can be built, holds the workload's items at
//! its rate (now and, with growth, at its largest), removes items if asked,
//! and stays within the memory limit.
//!
//! Concurrency is handled differently, on purpose: any filter can take
//! inserts from many threads behind a lock, so `--concurrent` excludes
//! nothing. A filter that needs the lock is ranked *fits with a lock*,
//! after every filter that fits without one (today only
//! `AtomicBloomFilter` does), and its row says so. An engineer who asked
//! for concurrency therefore sees the lock-free choice first, and still
//! sees what a locked filter would save.
//!
//! Ranking: fits, then fits with a lock, then does not fit; within each,
//! by memory at the workload's peak, then by expected cache lines per
//! look-up of an absent item, then of a present one, then in the order of
//! [`Kind::all`].

use serde::Serialize;

use bloomlab::theory::{self, blocked, classic, cuckoo, scalable};

use super::candidates::{self, BLOCK_BITS, Figures, Kind, Params, Supports};
use super::numbers::{bytes, grouped, items, rate, sci};
use super::workload::{Growth, Workload};

/// How well a candidate meets the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Meets every requirement as it is.
    Fits,
    /// Meets every requirement once its inserts are put behind a lock.
    FitsWithLock,
    /// Misses at least one requirement (see its reasons).
    DoesNotFit,
}

/// The requirement a candidate misses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The filter crate cannot build it (or theory cannot size it).
    Buildable,
    /// Items must be removed.
    Deletes,
    /// The set may outgrow any fixed capacity.
    UnknownSize,
    /// It takes more memory than allowed.
    MaxMemory,
}

impl Rule {
    /// The requirement, as a phrase: "removing items".
    fn phrase(self) -> &'static str {
        match self {
            Rule::Buildable => "what the crates can build",
            Rule::Deletes => "removing items",
            Rule::UnknownSize => "an unknown size",
            Rule::MaxMemory => "the memory limit",
        }
    }
}

/// Why a candidate does not fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    /// The requirement missed.
    pub rule: Rule,
    /// In words, with the numbers.
    pub why: String,
}

/// One filter, evaluated against the workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// 1 for the recommendation.
    pub rank: usize,
    /// A short stable name: `classic`, `cuckoo-4`, …
    pub id: String,
    /// The type, with its distinguishing option.
    pub filter: String,
    /// The crate it is in.
    #[serde(rename = "crate")]
    pub crate_name: &'static str,
    /// The expression that builds it.
    pub construct: String,
    /// What it can do besides insert and look up.
    pub supports: Supports,
    /// How well it meets the workload.
    pub verdict: Verdict,
    /// Why it does not fit (empty if it does).
    pub reasons: Vec<Reason>,
    /// Caveats and context.
    pub notes: Vec<String>,
    /// Its numbers, unless it cannot be sized at all.
    pub figures: Option<Figures>,
    #[serde(skip)]
    pub kind: Kind,
}

/// Evaluates every [`Kind`] against `w`, best first.
pub fn evaluate(w: &Workload) -> Vec<Candidate> {
    let mut all: Vec<Candidate> = Kind::all().into_iter().map(|k| assess(k, w)).collect();
    rank(&mut all);
    all
}

/// Sorts by the ranking rules of this module and numbers the result.
pub fn rank(all: &mut [Candidate]) {
    // A stable sort keeps `Kind::all`'s order as the last tie-break.
    all.sort_by(|a, b| {
        let key = |c: &Candidate| {
            let f = c.figures.as_ref();
            (
                c.verdict,
                f.is_none(),
                f.map_or(u64::MAX, |f| f.memory_bytes),
            )
        };
        let lines = |c: &Candidate| {
            c.figures
                .as_ref()
                .map_or((f64::INFINITY, f64::INFINITY), |f| {
                    (f.lines_miss, f.lines_hit)
                })
        };
        key(a).cmp(&key(b)).then_with(|| {
            let (am, ah) = lines(a);
            let (bm, bh) = lines(b);
            am.total_cmp(&bm).then(ah.total_cmp(&bh))
        })
    });
    for (i, c) in all.iter_mut().enumerate() {
        c.rank = i + 1;
    }
}

/// One candidate against the workload.
pub fn assess(kind: Kind, w: &Workload) -> Candidate {
    let supports = kind.supports();
    let mut reasons = Vec::new();
    let mut notes = Vec::new();
    let figures = match candidates::size(kind, w) {
        Ok(sized) => {
            reasons.extend(sized.unbuildable.into_iter().map(|why| Reason {
                rule: Rule::Buildable,
                why,
            }));
            notes.extend(sized.notes);
            Some(sized.figures)
        }
        Err(why) => {
            reasons.push(Reason {
                rule: Rule::Buildable,
                why,
            });
            None
        }
    };
    if w.deletes {
        if supports.remove {
            notes.push(remove_caveat(kind));
        } else {
            reasons.push(Reason {
                rule: Rule::Deletes,
                why: "cannot remove items".to_owned(),
            });
        }
    }
    if let Some(f) = &figures {
        growth_notes(kind, w, f, &mut reasons, &mut notes);
        if let Some(limit) = w.max_memory.filter(|&limit| f.memory_bytes > limit) {
            reasons.push(Reason {
                rule: Rule::MaxMemory,
                why: format!(
                    "needs {}, over the {} limit",
                    bytes(f.memory_bytes),
                    bytes(limit)
                ),
            });
        }
    }
    let verdict = if !reasons.is_empty() {
        Verdict::DoesNotFit
    } else if w.concurrent && !supports.concurrent_insert {
        Verdict::FitsWithLock
    } else {
        Verdict::Fits
    };
    Candidate {
        rank: 0,
        id: kind.id(),
        filter: kind.label(),
        crate_name: kind.crate_name(),
        // A fixed filter is built for the peak, a scalable one for the start.
        construct: kind.construct(
            if supports.grow {
                w.items
            } else {
                w.peak_items()
            },
            w.fpr,
        ),
        supports,
        verdict,
        reasons,
        notes,
        figures,
        kind,
    }
}

/// Documents 002 and 003: a removal is only safe for an item that was inserted.
fn remove_caveat(kind: Kind) -> String {
    match kind {
        Kind::Cuckoo(b) => format!(
            "remove only items that were inserted; one item can be stored at most {} times (2b: each copy takes a slot in its two buckets)",
            2 * b
        ),
        _ => "remove only items that were inserted: removing one that never was can zero another item's counters (a false negative)".to_owned(),
    }
}

/// What the workload's growth means for `kind`.
fn growth_notes(
    kind: Kind,
    w: &Workload,
    f: &Figures,
    reasons: &mut Vec<Reason>,
    notes: &mut Vec<String>,
) {
    let grows = kind.supports().grow;
    match (w.growth, grows) {
        (Growth::Fixed, _) => {}
        (Growth::GrowsTo { to }, false) => notes.push(format!(
            "sized for the {} items it grows to: all of it allocated from the start",
            grouped(to)
        )),
        (Growth::GrowsTo { to }, true) => {
            if let Params::Layers { layers, .. } = &f.params {
                notes.push(format!(
                    "starts with {} for {} items and adds layers as it grows: {} at {} items",
                    bytes(f.initial_memory_bytes),
                    grouped(w.items),
                    layers.len(),
                    grouped(to)
                ));
            }
        }
        (Growth::Unknown, false) => reasons.push(Reason {
            rule: Rule::UnknownSize,
            why: overshoot(kind, f),
        }),
        (Growth::Unknown, true) => {
            if let Kind::Scalable(s) = kind {
                notes.push(scalable_outlook(w, s));
                let capped = w.max_memory.and_then(|limit| {
                    let (layers, items) = scalable_within(w, s, limit)?;
                    Some((limit, layers, items))
                });
                if let Some((limit, layers, items)) = capped.filter(|c| c.1 > 0) {
                    notes.push(format!(
                        "built with .max_bytes({limit}) it holds {} items in {layers} layer{}, then refuses inserts with InsertError::Full",
                        grouped(items),
                        if layers == 1 { "" } else { "s" }
                    ));
                }
            }
        }
    }
}

/// What happens to a fixed-capacity filter pushed past its size.
fn overshoot(kind: Kind, f: &Figures) -> String {
    let n = f.items;
    let rate_at = |times: u64| -> f64 {
        let more = n.saturating_mul(times);
        match &f.params {
            Params::Bits { bits, hashes } => {
                classic::fpr(*bits as f64, more as f64, f64::from(*hashes))
            }
            Params::Counters {
                counters, hashes, ..
            } => classic::fpr(*counters as f64, more as f64, f64::from(*hashes)),
            Params::Blocks { blocks, hashes, .. } => {
                blocked::fpr_exact(BLOCK_BITS, *blocks, more, *hashes)
            }
            _ => f64::NAN,
        }
    };
    match (&f.params, kind) {
        (
            Params::Buckets {
                buckets,
                bucket_size,
                ..
            },
            _,
        ) => {
            let slots = buckets.saturating_mul(u64::from(*bucket_size));
            let load = cuckoo::max_load(*bucket_size).unwrap_or(1.0);
            format!(
                "fixed capacity, no upper bound known: inserts fail (InsertError::Full) near {:.0}% of its {} slots, about {} items",
                100.0 * load,
                grouped(slots),
                grouped((slots as f64 * load) as u64)
            )
        }
        _ => format!(
            "fixed capacity, no upper bound known: past {} items its rate climbs, to {} at twice as many and {} at ten times",
            grouped(n),
            sci(rate_at(2)),
            sci(rate_at(10))
        ),
    }
}

/// A scalable filter's memory if the set turns out 10 and 100 times larger.
fn scalable_outlook(w: &Workload, s: u32) -> String {
    let parts: Vec<String> = [10u64, 100]
        .iter()
        .filter_map(|&times| {
            let n = w.items.checked_mul(times)?;
            let f = candidates::scalable_size(w.items, s, w.fpr, n)
                .ok()?
                .figures;
            Some(format!(
                "{} at {}× ({:.1} bits per item)",
                bytes(f.memory_bytes),
                times,
                f.bits_per_item
            ))
        })
        .collect();
    if parts.is_empty() {
        "grows by adding layers, each a tighter classic filter".to_owned()
    } else {
        format!("grows by adding layers: {}", parts.join(", "))
    }
}

/// How many layers, holding how many items, a scalable filter that starts
/// at `w.items` with growth `s` allocates within `limit` bytes: each new
/// layer must fit beside the ones before, as the filter's `max_bytes` checks.
fn scalable_within(w: &Workload, s: u32, limit: u64) -> Option<(u32, u64)> {
    let r = bloomlab::scalable::DEFAULT_TIGHTENING_RATIO;
    let (mut used, mut items) = (0u64, 0u64);
    for i in 0..64 {
        let Some(capacity) = scalable::layer_capacity(w.items, s, i) else {
            return Some((i, items));
        };
        let Ok((bits, _)) =
            bloomlab::theory::classic::size_for(capacity, scalable::layer_fpr(w.fpr, r, i))
        else {
            return Some((i, items));
        };
        let bytes = bits.div_ceil(64) * 8;
        match used.checked_add(bytes) {
            Some(total) if total <= limit => {
                used = total;
                items = items.saturating_add(capacity);
            }
            _ => return Some((i, items)),
        }
    }
    Some((64, items))
}

/// The recommendation: which filter, and why, in one paragraph.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recommendation {
    /// The id of the recommended candidate, `None` if nothing fits.
    pub id: Option<String>,
    /// The id of the next candidate that fits, if any.
    pub runner_up: Option<String>,
    /// The paragraph.
    pub text: String,
}

/// The recommendation for `w` given its ranked candidates.
pub fn recommend(w: &Workload, ranked: &[Candidate]) -> Recommendation {
    let fitting: Vec<&Candidate> = ranked
        .iter()
        .filter(|c| c.verdict != Verdict::DoesNotFit && c.figures.is_some())
        .collect();
    let Some((&top, rest)) = fitting.split_first() else {
        return Recommendation {
            id: None,
            runner_up: None,
            text: nothing_fits(w, ranked),
        };
    };
    let Some(f) = top.figures.as_ref() else {
        unreachable!("filtered on figures above");
    };
    let lower_bound = theory::lower_bound_bits_per_item(w.fpr);
    let mut text = format!(
        "Use {} ({}): `{}`. It is the smallest filter that {}: {} ({:.2} bits per item, {:.2}× the {:.2} bits any filter needs at this rate), expected rate {} at {}, {} cache line{} per look-up of an absent item.",
        top.filter,
        top.crate_name,
        top.construct,
        requirements(w, top),
        bytes(f.memory_bytes),
        f.bits_per_item,
        f.bits_per_item / lower_bound,
        lower_bound,
        rate(f.expected_fpr),
        items(f.items),
        lines(f.lines_miss),
        if f.lines_miss == 1.0 { "" } else { "s" },
    );
    if top.verdict == Verdict::FitsWithLock {
        text.push_str(
            " Its inserts need a lock: no lock-free filter (AtomicBloomFilter) meets the other requirements.",
        );
    }
    if matches!(w.growth, Growth::GrowsTo { .. }) && f.initial_memory_bytes < f.memory_bytes {
        text.push_str(&format!(
            " It starts at {} and reaches that size only as the set grows.",
            bytes(f.initial_memory_bytes)
        ));
    }
    let runner_up = rest.first().copied();
    if let Some((next, nf)) = runner_up.and_then(with_figures) {
        text.push_str(&format!(
            " Next best: {}, {} ({}), {} line{} per look-up{}.",
            next.filter,
            bytes(nf.memory_bytes),
            relative(nf.memory_bytes, f.memory_bytes),
            lines(nf.lines_miss),
            if nf.lines_miss == 1.0 { "" } else { "s" },
            offers(next, top)
        ));
    }
    text.push_str(&trade_offs(
        w,
        top,
        f,
        ranked,
        runner_up.map(|c| c.id.as_str()),
    ));
    Recommendation {
        id: Some(top.id.clone()),
        runner_up: runner_up.map(|c| c.id.clone()),
        text,
    }
}

/// "holds 1,000 items at 1.00e-3 (1 in 1,000) and removes items".
fn requirements(w: &Workload, top: &Candidate) -> String {
    let mut parts = vec![match w.growth {
        Growth::Fixed => format!("holds {} at {}", items(w.items), rate(w.fpr)),
        Growth::GrowsTo { to } => format!(
            "holds {} growing to {} at {}",
            items(w.items),
            grouped(to),
            rate(w.fpr)
        ),
        Growth::Unknown => format!(
            "keeps {} however far the set grows past {}",
            rate(w.fpr),
            items(w.items)
        ),
    }];
    if w.deletes {
        parts.push("removes items".to_owned());
    }
    if w.concurrent && top.supports.concurrent_insert {
        parts.push("takes inserts from many threads without a lock".to_owned());
    }
    if let Some(limit) = w.max_memory {
        parts.push(format!("fits in {}", bytes(limit)));
    }
    match parts.len() {
        1 => parts.remove(0),
        _ => {
            let last = parts.pop().unwrap_or_default();
            format!("{} and {last}", parts.join(", "))
        }
    }
}

/// What `other` offers that `top` does not, as ", and it removes items".
fn offers(other: &Candidate, top: &Candidate) -> String {
    let mut more = Vec::new();
    if other.supports.remove && !top.supports.remove {
        more.push("removes items");
    }
    if other.supports.grow && !top.supports.grow {
        more.push("grows");
    }
    if other.supports.concurrent_insert && !top.supports.concurrent_insert {
        more.push("takes inserts from many threads without a lock");
    }
    if more.is_empty() {
        String::new()
    } else {
        format!(", and it {}", more.join(" and "))
    }
}

/// Whether a filter offers one capability.
type Capability = fn(&Supports) -> bool;

/// What the recommendation gives up, each with what it would cost to have it.
fn trade_offs(
    w: &Workload,
    top: &Candidate,
    f: &Figures,
    ranked: &[Candidate],
    runner_up: Option<&str>,
) -> String {
    let cheapest_with = |has: Capability| {
        ranked
            .iter()
            .filter(|c| c.verdict != Verdict::DoesNotFit)
            .filter(|c| has(&c.supports))
            .min_by_key(|c| c.figures.as_ref().map_or(u64::MAX, |f| f.memory_bytes))
    };
    let mut out = String::new();
    let wanted: [(bool, Capability, &str); 3] = [
        (
            top.supports.remove || w.deletes,
            |s| s.remove,
            "removing items",
        ),
        (
            top.supports.grow || !matches!(w.growth, Growth::Fixed),
            |s| s.grow,
            "growing past the planned size at the same rate",
        ),
        (
            top.supports.concurrent_insert || w.concurrent,
            |s| s.concurrent_insert,
            "lock-free inserts from many threads",
        ),
    ];
    let mut given_up = Vec::new();
    for (covered, has, what) in wanted {
        if covered {
            continue;
        }
        let cheapest = cheapest_with(has).filter(|c| Some(c.id.as_str()) != runner_up);
        if let Some((c, cf)) = cheapest.and_then(with_figures) {
            given_up.push(format!(
                "{what} would take {} at {} ({})",
                c.filter,
                bytes(cf.memory_bytes),
                relative(cf.memory_bytes, f.memory_bytes)
            ));
        }
    }
    if !given_up.is_empty() {
        out.push_str(&format!(" Given up: {}.", given_up.join("; ")));
    }
    let fastest = ranked
        .iter()
        .filter(|c| c.verdict <= top.verdict)
        .filter_map(with_figures)
        .min_by(|a, b| a.1.lines_miss.total_cmp(&b.1.lines_miss))
        .filter(|(_, cf)| cf.lines_miss < f.lines_miss);
    if let Some((c, cf)) = fastest {
        out.push_str(&format!(
            " If look-up speed matters more than memory, {} touches {} cache line{} per look-up instead of {}, for {} ({}).",
            c.filter,
            lines(cf.lines_miss),
            if cf.lines_miss == 1.0 { "" } else { "s" },
            lines(f.lines_miss),
            bytes(cf.memory_bytes),
            relative(cf.memory_bytes, f.memory_bytes)
        ));
    }
    out
}

/// The paragraph when no candidate fits: which requirement rules out what,
/// and which single requirement, dropped, would leave a filter.
fn nothing_fits(w: &Workload, ranked: &[Candidate]) -> String {
    let mut text = "No filter meets every requirement.".to_owned();
    for rule in [
        Rule::Deletes,
        Rule::UnknownSize,
        Rule::MaxMemory,
        Rule::Buildable,
    ] {
        let mut names: Vec<&str> = Vec::new();
        for c in ranked
            .iter()
            .filter(|c| c.reasons.iter().any(|r| r.rule == rule))
        {
            if !names.contains(&c.kind.type_name()) {
                names.push(c.kind.type_name());
            }
        }
        if !names.is_empty() {
            text.push_str(&format!(
                " {} rules out {}.",
                capitalised(rule.phrase()),
                names.join(", ")
            ));
        }
    }
    // The cheapest candidate that misses exactly one (droppable) requirement.
    let mut options = Vec::new();
    for rule in [Rule::Deletes, Rule::UnknownSize, Rule::MaxMemory] {
        let only = ranked.iter().find(|c| {
            c.figures.is_some() && !c.reasons.is_empty() && c.reasons.iter().all(|r| r.rule == rule)
        });
        if let Some((c, cf)) = only.and_then(with_figures) {
            options.push(format!(
                "without {} it would be {} at {}",
                rule.phrase(),
                c.filter,
                bytes(cf.memory_bytes)
            ));
        }
    }
    if !options.is_empty() {
        text.push_str(&format!(" Closest: {}.", options.join("; ")));
    }
    if matches!(w.growth, Growth::Unknown) && w.deletes {
        text.push_str(
            " A removable filter needs a bound: size a counting or cuckoo filter for a generous maximum (`--grows-to`) and rebuild it if the set outgrows that.",
        );
    }
    let within = w
        .max_memory
        .and_then(|limit| Some((limit, rate_within(limit, w.peak_items())?)));
    if let Some((limit, best)) = within {
        text.push_str(&format!(
            " Within {} a BloomFilter for {} items reaches {} at best.",
            bytes(limit),
            grouped(w.peak_items()),
            rate(best)
        ));
    }
    text
}

/// The lowest rate a classic filter of at most `limit` bytes reaches with
/// `n` items: whole words, the best integer `k` ([`classic::fpr`]).
pub fn rate_within(limit: u64, n: u64) -> Option<f64> {
    let bits = (limit / 8).checked_mul(64)?;
    if bits == 0 || n == 0 {
        return None;
    }
    let k = classic::optimal_num_hashes(bits, n).ok()?;
    let at = |k: u32| classic::fpr(bits as f64, n as f64, f64::from(k));
    Some(at(k).min(at(k + 1)).min(at(k.saturating_sub(1).max(1))))
}

/// The candidate with its figures, if it has them.
fn with_figures(c: &Candidate) -> Option<(&Candidate, &Figures)> {
    c.figures.as_ref().map(|f| (c, f))
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|first| first.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// `+12%`, `−3%`, `4.0×`, or `the same size`.
pub fn relative(other: u64, base: u64) -> String {
    if other == base {
        return "the same size".to_owned();
    }
    let ratio = other as f64 / base as f64;
    if ratio >= 2.0 {
        format!("{ratio:.1}×")
    } else {
        let pct = 100.0 * (ratio - 1.0);
        if pct.abs() < 0.05 {
            format!("{pct:+.2}%")
        } else {
            format!("{pct:+.1}%")
        }
    }
}

/// Cache lines, without a decimal when whole.
pub fn lines(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(w: &Workload) -> (Vec<Candidate>, Recommendation) {
        let ranked = evaluate(w);
        let rec = recommend(w, &ranked);
        (ranked, rec)
    }

    fn find<'a>(ranked: &'a [Candidate], id: &str) -> &'a Candidate {
        ranked
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no candidate {id}"))
    }

    fn memory(c: &Candidate) -> u64 {
        c.figures.as_ref().map_or(u64::MAX, |f| f.memory_bytes)
    }

    fn has_rule(c: &Candidate, rule: Rule) -> bool {
        c.reasons.iter().any(|r| r.rule == rule)
    }

    const SPREAD: [(u64, f64); 4] = [(1_000, 0.01), (50_000, 0.001), (200_000, 1e-4), (7, 0.3)];

    #[test]
    fn ranking_puts_fits_first_then_memory() {
        for (n, p) in SPREAD {
            for concurrent in [false, true] {
                let mut w = Workload::fixed(n, p);
                w.concurrent = concurrent;
                let (ranked, _) = run(&w);
                assert_eq!(ranked.len(), Kind::all().len());
                for (i, pair) in ranked.windows(2).enumerate() {
                    assert_eq!(pair[0].rank, i + 1);
                    assert!(pair[0].verdict <= pair[1].verdict, "{n} {p}");
                    if pair[0].verdict == pair[1].verdict {
                        assert!(memory(&pair[0]) <= memory(&pair[1]), "{n} {p}");
                    }
                }
            }
        }
    }

    #[test]
    fn deletes_exclude_classic_and_scalable() {
        for (n, p) in SPREAD {
            let mut w = Workload::fixed(n, p);
            w.deletes = true;
            let (ranked, rec) = run(&w);
            for id in ["classic", "blocked", "atomic", "scalable-2", "scalable-4"] {
                let c = find(&ranked, id);
                assert_eq!(c.verdict, Verdict::DoesNotFit, "{id}");
                assert!(has_rule(c, Rule::Deletes), "{id}");
            }
            for c in &ranked {
                assert_eq!(has_rule(c, Rule::Deletes), !c.supports.remove);
            }
            // The pick is the smallest filter that removes and can be built.
            let id = rec.id.expect("a counting or cuckoo filter fits");
            let pick = find(&ranked, &id);
            assert!(pick.supports.remove, "{id}");
            let smallest = ranked
                .iter()
                .filter(|c| c.supports.remove && c.reasons.is_empty())
                .map(memory)
                .min();
            assert_eq!(Some(memory(pick)), smallest);
            assert!(rec.text.contains("removes items"), "{}", rec.text);
        }
    }

    #[test]
    fn unknown_size_picks_scalable() {
        for (n, p) in SPREAD {
            for concurrent in [false, true] {
                let mut w = Workload::fixed(n, p);
                w.growth = Growth::Unknown;
                w.concurrent = concurrent;
                let (ranked, rec) = run(&w);
                let id = rec.id.expect("a scalable filter fits");
                assert!(id.starts_with("scalable-"), "{id}");
                for c in ranked.iter().filter(|c| !c.supports.grow) {
                    assert!(has_rule(c, Rule::UnknownSize), "{}", c.id);
                    assert_eq!(c.verdict, Verdict::DoesNotFit);
                }
                if concurrent {
                    assert_eq!(find(&ranked, &id).verdict, Verdict::FitsWithLock);
                    assert!(rec.text.contains("need a lock"), "{}", rec.text);
                }
            }
        }
    }

    #[test]
    fn a_fixed_filter_pushed_past_its_size_says_how_far_its_rate_climbs() {
        let mut w = Workload::fixed(10_000, 0.01);
        w.growth = Growth::Unknown;
        let (ranked, _) = run(&w);
        let c = find(&ranked, "classic");
        let Some(Params::Bits { bits, hashes }) = c.figures.as_ref().map(|f| f.params.clone())
        else {
            panic!("classic has bits");
        };
        let twice = classic::fpr(bits as f64, 20_000.0, f64::from(hashes));
        assert!(twice > 0.1); // 0.157: a 1% filter at twice its size
        let why = &c.reasons[0].why;
        assert!(why.contains(&sci(twice)), "{why}");
    }

    #[test]
    fn a_capped_scalable_filter_says_how_many_items_fit() {
        let mut w = Workload::fixed(1_000, 0.01);
        w.growth = Growth::Unknown;
        w.max_memory = Some(100_000);
        let (ranked, rec) = run(&w);
        assert_eq!(rec.id.as_deref(), Some("scalable-2"));
        // Layers of 1k, 2k, 4k, 8k items take 1.7, 3.6, 7.5 and 15.6 kB …
        let r = bloomlab::scalable::DEFAULT_TIGHTENING_RATIO;
        let bytes_of = |layers: u64| scalable::total_bits(1_000, 2, 0.01, r, layers).unwrap() / 8;
        let (layers, items) = scalable_within(&w, 2, 100_000).unwrap();
        assert!(bytes_of(u64::from(layers)) <= 100_000);
        assert!(bytes_of(u64::from(layers) + 1) > 100_000);
        assert_eq!(items, 1_000 * ((1 << layers) - 1));
        let note = format!("holds {} items in {layers} layers", grouped(items));
        let c = find(&ranked, "scalable-2");
        assert!(c.notes.iter().any(|n| n.contains(&note)), "{:?}", c.notes);
    }

    #[test]
    fn unknown_size_and_deletes_fit_nothing_and_say_why() {
        let mut w = Workload::fixed(10_000, 0.001);
        w.growth = Growth::Unknown;
        w.deletes = true;
        let (ranked, rec) = run(&w);
        assert!(ranked.iter().all(|c| c.verdict == Verdict::DoesNotFit));
        assert_eq!(rec.id, None);
        assert!(rec.text.starts_with("No filter meets every requirement."));
        assert!(
            rec.text.contains("Removing items rules out"),
            "{}",
            rec.text
        );
        assert!(
            rec.text.contains("An unknown size rules out"),
            "{}",
            rec.text
        );
        assert!(
            rec.text
                .contains("without removing items it would be ScalableBloomFilter")
        );
        assert!(rec.text.contains("--grows-to"));
    }

    #[test]
    fn max_memory_excludes_what_does_not_fit() {
        let base = Workload::fixed(10_000, 0.001);
        let (plain, _) = run(&base);
        let classic_bytes = memory(find(&plain, "classic"));
        for limit in [classic_bytes, classic_bytes - 1, 3 * classic_bytes / 2] {
            let mut w = base;
            w.max_memory = Some(limit);
            let (ranked, rec) = run(&w);
            for c in &ranked {
                assert_eq!(has_rule(c, Rule::MaxMemory), memory(c) > limit, "{}", c.id);
            }
            match rec.id {
                Some(id) => assert!(memory(find(&ranked, &id)) <= limit),
                None => {
                    // Nothing fits: the text gives the best rate within the limit.
                    assert!(limit < classic_bytes);
                    let best = rate_within(limit, 10_000).unwrap();
                    assert!(best > 0.001);
                    assert!(rec.text.contains(&rate(best)), "{}", rec.text);
                }
            }
        }
    }

    #[test]
    fn rate_within_the_classic_size_is_the_rate() {
        // The exact classic size reaches the rate; one word less does not.
        for (n, p) in SPREAD {
            let (m, _) = classic::size_for(n, p).unwrap();
            assert!(rate_within(m / 8, n).unwrap() <= p, "{n} {p}");
            if m > 64 {
                assert!(rate_within(m / 8 - 8, n).unwrap() > p, "{n} {p}");
            }
        }
        assert_eq!(rate_within(7, 10), None);
    }

    #[test]
    fn concurrent_inserts_prefer_the_atomic_filter_and_mark_the_others() {
        let mut w = Workload::fixed(1_000_000, 0.01);
        w.concurrent = true;
        let (ranked, rec) = run(&w);
        assert_eq!(rec.id.as_deref(), Some("atomic"));
        assert_eq!(ranked[0].id, "atomic");
        // The plain filter is the same size but needs a lock: listed, not excluded.
        let classic = find(&ranked, "classic");
        assert_eq!(classic.verdict, Verdict::FitsWithLock);
        assert_eq!(memory(classic), memory(&ranked[0]));
        assert!(rec.text.contains("without a lock"), "{}", rec.text);

        // With removes no lock-free filter fits: a locked one is recommended, and says so.
        w.deletes = true;
        let (ranked, rec) = run(&w);
        let id = rec.id.expect("a removable filter fits with a lock");
        assert_eq!(find(&ranked, &id).verdict, Verdict::FitsWithLock);
        assert!(rec.text.contains("need a lock"), "{}", rec.text);
    }

    #[test]
    fn growth_to_a_known_bound_compares_fixed_and_scalable_honestly() {
        let mut w = Workload::fixed(1_000, 0.01);
        w.growth = Growth::GrowsTo { to: 1_000_000 };
        let (ranked, rec) = run(&w);
        let classic = find(&ranked, "classic");
        let scalable = find(&ranked, "scalable-2");
        assert_eq!(classic.verdict, Verdict::Fits);
        assert_eq!(scalable.verdict, Verdict::Fits);
        // The fixed filter is sized for the bound, the scalable one grows
        // layer by layer from 1,000: ten layers at 1,000,000.
        let (m, _) = classic::size_for(1_000_000, 0.01).unwrap();
        assert_eq!(memory(classic), m / 8);
        let bits = scalable::bits_after(
            1_000,
            2,
            0.01,
            bloomlab::scalable::DEFAULT_TIGHTENING_RATIO,
            1_000_000,
        )
        .unwrap();
        let sf = scalable.figures.as_ref().unwrap();
        assert_eq!(sf.memory_bytes, bits / 8);
        let Params::Layers { layers, .. } = &sf.params else {
            panic!("layers");
        };
        assert_eq!(layers.len(), 10);
        assert!(sf.expected_fpr <= 0.01);
        // At the bound the fixed filter is smaller; at the start, the scalable one.
        assert!(memory(classic) < sf.memory_bytes);
        assert!(sf.initial_memory_bytes < memory(classic));
        assert_eq!(rec.id.as_deref(), Some("classic"));
        assert!(
            classic
                .notes
                .iter()
                .any(|n| n.contains("1,000,000 items it grows to"))
        );
        // Each is built for what it holds: the bound, or the start.
        assert_eq!(classic.construct, "BloomFilter::new(1_000_000, 0.01)");
        assert_eq!(
            scalable.construct,
            "ScalableBloomFilter::builder(1_000, 0.01).growth_factor(2).build()"
        );
        assert!(rec.text.contains("`BloomFilter::new(1_000_000, 0.01)`"));
    }

    /// CLAIMS E5 (document 001): 100,000,000 addresses, one false alarm in
    /// 10,000, never deleted. The document's 1.6 billion bits with 8 hashes
    /// (200 MB) miss the rate; the Bloom filter that keeps it takes 239.7
    /// MB, and a cuckoo filter less.
    #[test]
    fn e5_spam_filter_for_100_million_addresses() {
        let n = 100_000_000;
        let w = Workload::fixed(n, 1e-4);
        let (ranked, rec) = run(&w);
        assert_eq!(rec.id.as_deref(), Some("cuckoo-4"));
        let f = find(&ranked, "classic").figures.clone().unwrap();
        assert_eq!(
            f.params,
            Params::Bits {
                bits: 1_917_295_488,
                hashes: 13
            }
        );
        assert_eq!(f.memory_bytes, 239_661_936);
        assert!(f.expected_fpr <= 1e-4);
        // Within 0.02% of the continuous optimum −n ln p / ln² 2.
        let ideal = n as f64 * classic::bits_per_item(1e-4);
        assert!((f.memory_bytes as f64 * 8.0 / ideal - 1.0).abs() < 2e-4);
        // The document's filter: 16 bits per item and k = 8 give 5.7e-4.
        let claimed = classic::fpr(16.0, 1.0, 8.0);
        assert!((claimed - 5.7e-4).abs() < 1e-5, "{claimed}");
        assert!(f.memory_bytes > 200_000_000);
        // The cuckoo filter recommended: 17-bit fingerprints (the least whose
        // rate at the design load is 1e-4 or less) in plain 4-slot buckets;
        // smaller than the Bloom filter, above the 13.29-bit bound.
        let c = find(&ranked, "cuckoo-4").figures.clone().unwrap();
        let Params::Buckets {
            fingerprint_bits,
            semi_sorted,
            ..
        } = c.params
        else {
            panic!("a cuckoo table");
        };
        assert_eq!((fingerprint_bits, semi_sorted), (17, false));
        assert!(c.expected_fpr <= 1e-4);
        assert!(c.memory_bytes < f.memory_bytes);
        let load = cuckoo::design_load(4).unwrap();
        assert!(
            (c.bits_per_item - 17.0 / load).abs() < 0.01,
            "{}",
            c.bits_per_item
        );
        assert!(
            rec.text.contains("CuckooFilter::new(100_000_000, 0.0001)"),
            "{}",
            rec.text
        );
        assert!(rec.text.contains("239.7 MB"), "{}", rec.text);
    }

    /// CLAIMS E3 (document 002, Redisson): 10,000 users at 0.1%, 10 hashes.
    #[test]
    fn e3_redisson_10_000_users() {
        let (ranked, rec) = run(&Workload::fixed(10_000, 0.001));
        // A cuckoo table is smaller; the Bloom filter is next.
        assert_eq!(rec.id.as_deref(), Some("cuckoo-4"));
        let f = find(&ranked, "classic").figures.clone().unwrap();
        assert_eq!(
            f.params,
            Params::Bits {
                bits: 143_808,
                hashes: 10
            }
        );
        assert_eq!(f.memory_bytes, 17_976);
        assert!(rec.text.contains("18.0 kB"), "{}", rec.text);
    }

    /// CLAIMS E1 (document 000, Guava): 1,000 integers at 0.1%: Guava's
    /// 14,377 bits and 10 hashes, here rounded up to 225 words.
    #[test]
    fn e1_guava_1_000_integers() {
        let (ranked, rec) = run(&Workload::fixed(1_000, 0.001));
        // A cuckoo table is smaller; the Bloom filter is next.
        assert_eq!(rec.id.as_deref(), Some("cuckoo-4"));
        let f = find(&ranked, "classic").figures.clone().unwrap();
        assert_eq!(
            f.params,
            Params::Bits {
                bits: 14_400,
                hashes: 10
            }
        );
        assert_eq!(f.memory_bytes, 1_800);
        assert!(rec.text.contains("1.8 kB"), "{}", rec.text);
    }
}
