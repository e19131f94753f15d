//! Filters that live outside one process: in Redis, shared by several
//! processes (`--shared`, bloomlab-redis), or in a file a Java service reads
//! (`--java`, bloomlab-guava).
//!
//! Each crate offers a few filters; every one is sized for the workload
//! exactly as its constructor sizes it, and weighed against the same
//! requirements as the in-process filters (removes, unknown growth, the
//! memory limit). The figures are what the filter costs where it lives:
//! the memory Redis holds for it, or the bytes of the file.

pub mod guava;
pub mod redis;

use serde::Serialize;

use super::decide::{Recommendation, relative};
use super::numbers::{bytes, grouped, items, rate};
use super::workload::{Growth, Workload};

pub use super::candidates::Supports;

/// Where the filter lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// In Redis, shared by several processes (bloomlab-redis).
    Redis,
    /// In a file that a Java service reads with Guava (bloomlab-guava).
    Guava,
}

/// One filter of the family, sized for the workload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Offer {
    /// 1 for the recommendation.
    pub rank: usize,
    /// A short stable name: `redis-bloom`, `guava`, …
    pub id: &'static str,
    /// The Rust type.
    pub filter: &'static str,
    /// The crate it is in.
    #[serde(rename = "crate")]
    pub crate_name: &'static str,
    /// The expression that creates it (empty if it cannot be sized).
    pub construct: String,
    /// Its table, in one line.
    pub parameters: String,
    /// What it can do besides insert and look up.
    pub supports: Supports,
    /// Whether it meets every requirement.
    pub fits: bool,
    /// Why it does not fit.
    pub reasons: Vec<String>,
    /// What a user of it must know, where it bites.
    pub caveats: Vec<String>,
    /// Context.
    pub notes: Vec<String>,
    /// Bytes where it lives (see [`FamilyReport::measure`]), if it can be sized.
    pub bytes: Option<u64>,
    /// `bytes · 8 / items`.
    pub bits_per_item: Option<f64>,
    /// The rate theory predicts holding the workload's peak.
    pub expected_fpr: Option<f64>,
    /// What filling it past its plan does (a reason for an unknown size).
    #[serde(skip)]
    pub beyond: Option<String>,
}

impl Offer {
    fn new(
        id: &'static str,
        filter: &'static str,
        crate_name: &'static str,
        supports: Supports,
    ) -> Self {
        Self {
            rank: 0,
            id,
            filter,
            crate_name,
            construct: String::new(),
            parameters: String::new(),
            supports,
            fits: false,
            reasons: Vec::new(),
            caveats: Vec::new(),
            notes: Vec::new(),
            bytes: None,
            bits_per_item: None,
            expected_fpr: None,
            beyond: None,
        }
    }

    fn set_figures(&mut self, bytes: u64, fpr: f64, items: u64) {
        self.bytes = Some(bytes);
        self.bits_per_item = Some(bytes as f64 * 8.0 / items as f64);
        self.expected_fpr = Some(fpr);
    }
}

/// What `choose --shared` or `--java` concludes; `--json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilyReport {
    /// The format's version: 1.
    pub version: u32,
    /// Where the filter lives.
    pub target: Target,
    /// The workload, as checked.
    pub workload: Workload,
    /// What an offer's `bytes` counts.
    pub measure: String,
    /// Every offer, ranked: those that fit first, then by bytes.
    pub offers: Vec<Offer>,
    /// What to use, and why.
    pub recommendation: Recommendation,
}

/// The report for a filter that lives at `target`.
pub fn report(w: &Workload, target: Target) -> FamilyReport {
    let (mut offers, measure) = match target {
        Target::Redis => (redis::offers(w), redis::measure()),
        Target::Guava => (guava::offers(w), guava::measure()),
    };
    for o in &mut offers {
        judge(o, w);
    }
    // A stable sort keeps the crate's order as the last tie-break.
    offers.sort_by_key(|o| (!o.fits, o.bytes.is_none(), o.bytes.unwrap_or(u64::MAX)));
    for (i, o) in offers.iter_mut().enumerate() {
        o.rank = i + 1;
    }
    let recommendation = recommend(w, target, &offers);
    FamilyReport {
        version: 1,
        target,
        workload: *w,
        measure,
        offers,
        recommendation,
    }
}

/// Adds the workload's requirements that `o` misses, and sets `fits`.
fn judge(o: &mut Offer, w: &Workload) {
    if w.deletes && !o.supports.remove {
        o.reasons.push("cannot remove items".to_owned());
    }
    if matches!(w.growth, Growth::Unknown) && !o.supports.grow {
        let beyond = o.beyond.clone().unwrap_or_default();
        o.reasons
            .push(format!("fixed capacity, no upper bound known: {beyond}"));
    }
    if let (Some(limit), Some(b)) = (w.max_memory, o.bytes)
        && b > limit
    {
        o.reasons.push(format!(
            "needs {}, over the {} limit",
            bytes(b),
            bytes(limit)
        ));
    }
    if w.concurrent && !o.supports.concurrent_insert {
        o.notes.push(
            "its inserts take `&mut self`: put them behind a lock (a Mutex) when many threads \
             insert"
                .to_owned(),
        );
    }
    o.fits = o.reasons.is_empty() && o.bytes.is_some();
}

/// The paragraph: the offer to use, its figures and caveats, or why none fits.
fn recommend(w: &Workload, target: Target, ranked: &[Offer]) -> Recommendation {
    let place = match target {
        Target::Redis => "in Redis",
        Target::Guava => "in a file for Java",
    };
    let mut fitting = ranked.iter().filter(|o| o.fits);
    let (Some(top), next) = (fitting.next(), fitting.next()) else {
        let mut text = format!("No filter {place} meets every requirement.");
        for o in ranked {
            text.push_str(&format!(" {}: {}.", o.filter, o.reasons.join("; ")));
        }
        if matches!(w.growth, Growth::Unknown) && w.deletes {
            text.push_str(
                " A removable filter needs a bound: size it for a generous maximum \
                 (`--grows-to`) and rebuild it if the set outgrows that.",
            );
        }
        return Recommendation {
            id: None,
            runner_up: None,
            text,
        };
    };
    let (b, fpr) = (top.bytes.unwrap_or(0), top.expected_fpr.unwrap_or(f64::NAN));
    let mut text = format!(
        "Use {} ({}): `{}`. It takes {} ({} bytes) {place} ({:.2} bits per item), expected \
         rate {} at {}.",
        top.filter,
        top.crate_name,
        top.construct,
        bytes(b),
        grouped(b),
        top.bits_per_item.unwrap_or(f64::NAN),
        rate(fpr),
        items(w.peak_items()),
    );
    if !top.caveats.is_empty() {
        text.push_str(&format!(" Caveats: {}.", top.caveats.join("; ")));
    }
    if let Some(next) = next
        && let Some(nb) = next.bytes
    {
        text.push_str(&format!(
            " Next best: {}, {} ({}).",
            next.filter,
            bytes(nb),
            relative(nb, b)
        ));
    }
    Recommendation {
        id: Some(top.id.to_owned()),
        runner_up: next.map(|n| n.id.to_owned()),
        text,
    }
}

#[cfg(test)]
mod tests;
