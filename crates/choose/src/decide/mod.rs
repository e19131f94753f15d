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

use bloomlab::catalog::Catalog;
use bloomlab::theory::{self, classic};

use super::candidates::{self, Figures, Kind, Rebuild, Supports};
use super::numbers::{bytes, grouped, items, rate};
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
    /// Items are added after the filter is built (every workload but
    /// `--static`'s): a filter built at once from its keys takes none.
    Inserts,
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
            Rule::Inserts => "adding items after construction",
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
    /// What a rebuild costs, for a filter built from its keys in a
    /// `--static` workload.
    pub rebuild: Option<Rebuild>,
    /// The configuration (not in the JSON: `id` names it there).
    #[serde(skip)]
    pub kind: Kind,
}

/// Evaluates every [`Kind`] of `catalog` against `w`, best first.
pub fn evaluate(catalog: &Catalog<u64>, w: &Workload) -> Vec<Candidate> {
    let mut all: Vec<Candidate> = Kind::all(catalog)
        .into_iter()
        .map(|k| assess(k, w))
        .collect();
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
    let figures = match candidates::size(&kind, w) {
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
    let mut rebuild = None;
    if kind.variant.can.from_keys && w.rebuilt {
        if let Some(f) = &figures {
            match candidates::rebuild(&kind, f.params.theory.as_ref(), w.items, w.fpr) {
                Ok(cost) => rebuild = cost,
                Err(why) => reasons.push(Reason {
                    rule: Rule::Buildable,
                    why,
                }),
            }
        }
        if let Some(r) = &rebuild {
            notes.push(rebuild_note(r, w.items));
        }
    } else if kind.variant.can.from_keys {
        reasons.push(Reason {
            rule: Rule::Inserts,
            why: "built at once from its keys: takes no inserts; a changed set is built anew"
                .to_owned(),
        });
    }
    if w.deletes {
        if supports.remove {
            notes.push(match &figures {
                Some(f) => f.params.theory.remove_caveat(),
                None => "remove only items that were inserted".to_owned(),
            });
        } else {
            reasons.push(Reason {
                rule: Rule::Deletes,
                why: "cannot remove items".to_owned(),
            });
        }
    }
    if let Some(f) = &figures {
        growth_notes(&kind, w, f, &mut reasons, &mut notes);
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
        rebuild,
        kind,
    }
}

/// "each rebuild from its 1,000,000 keys holds 31 MB besides the filter
/// and took 41 ns a key here (1,000,000 keys timed)".
fn rebuild_note(r: &Rebuild, items: u64) -> String {
    format!(
        "each rebuild from its {} holds {} besides the filter while it runs (the keys' hashes \
         and working arrays) and took {:.0} ns a key here ({} keys timed: {} for the whole set \
         at that speed)",
        self::items(items),
        bytes(r.scratch_bytes),
        r.ns_per_key,
        grouped(r.timed_keys),
        duration(r.ns_per_key * items as f64 * 1e-9)
    )
}

/// `41 ms`, `4.1 s`: a duration in seconds, in the unit that reads best.
fn duration(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{:.0} ms", seconds * 1e3)
    } else {
        format!("{seconds:.1} s")
    }
}

/// What the workload's growth means for `kind`.
fn growth_notes(
    kind: &Kind,
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
            notes.push(format!(
                "starts with {} for {} items and grows as it fills: {} at {} items",
                bytes(f.initial_memory_bytes),
                grouped(w.items),
                f.params.short(),
                grouped(to)
            ));
        }
        (Growth::Unknown, false) => reasons.push(Reason {
            rule: Rule::UnknownSize,
            why: f.params.theory.beyond_capacity(f.items),
        }),
        (Growth::Unknown, true) => notes.extend(f.params.theory.outlook(w.max_memory)),
    }
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
    text.push_str(&caveats(w, top, f));
    if top.verdict == Verdict::FitsWithLock {
        text.push_str(
            " Its inserts need a lock: no lock-free filter (AtomicBloomFilter) meets the other requirements.",
        );
    }
    if let Some(r) = &top.rebuild {
        text.push_str(&format!(
            " It is built at once from the whole set and takes no item afterwards: a row added \
             since the last build is answered absent until the next; {}.",
            rebuild_note(r, w.items)
        ));
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

/// What a user of `top` must know where it bites: where its inserts start
/// to fail, and what its `remove` asks of the caller when items are removed.
fn caveats(w: &Workload, top: &Candidate, f: &Figures) -> String {
    let theory = &f.params.theory;
    let mut said: Vec<String> = theory.insert_caveat(f.items).into_iter().collect();
    if w.deletes && top.supports.remove {
        said.push(theory.remove_caveat());
    }
    if said.is_empty() {
        String::new()
    } else {
        format!(" Caveats: {}.", said.join("; "))
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
        Rule::Inserts,
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
mod tests;
