//! The measured table of the crate docs: `CuckooFilter::new(n, ε)` for
//! item counts from 10^3 to 10^7 and rates from 3% to 10^-6, in the layout
//! `new` chooses and in the other one for 4-slot buckets: fingerprint
//! width, bits per item against the paper's `(log2(1/ε) + 3) / 0.95`
//! (`+ 2` semi-sorted), and the false-positive rate measured over up to
//! 10,000,000 probes against `expected_fpr()` and the 95% binomial interval
//! of the count it predicts.
//!
//! ```text
//! cargo run --release -p bloomlab-cuckoo --example sizing_table [N EPS PROBES]
//! ```
//!
//! With arguments, one row: `N` items at rate `EPS` with `PROBES` probes.

use bloomlab_cuckoo::CuckooFilter;
use bloomlab_testkit::keys::{members, probes};
use bloomlab_testkit::stats::binomial_interval;

fn row(n: usize, eps: f64, semi: Option<bool>, max_probes: u64) {
    let mut builder = CuckooFilter::<u64>::builder(n, eps).seed(n as u64 ^ eps.to_bits());
    if let Some(semi) = semi {
        builder = builder.semi_sorted(semi);
    }
    let mut cf = builder.build().expect("buildable");
    for (c, start) in (0..n).step_by(1_000_000).enumerate() {
        let chunk = members(7_000 + c as u64, (n - start).min(1_000_000));
        cf.insert_batch(&chunk).expect("no Full at n items");
    }
    let expected = cf.expected_fpr();
    let trials = ((2_000.0 / expected).ceil() as u64).clamp(1_000_000, max_probes);
    let hits = probes(n as u64, trials as usize)
        .filter(|p| cf.contains(p))
        .count() as u64;
    // The 95% interval of the count theory predicts (a Clopper–Pearson
    // interval of the measured rate costs statrs minutes at 10^7 trials).
    let (lo, hi) = binomial_interval(trials, expected, 0.95);
    let semi = cf.is_semi_sorted();
    let paper = (-eps.log2() + if semi { 2.0 } else { 3.0 }) / 0.95;
    let bits = cf.bits_per_item().unwrap_or(f64::NAN);
    println!(
        "| {n} | {eps:e} | {} | {} | {:.1}% | {bits:.2} | {:.3} | {:.3e} | {expected:.3e} | {hits} of {trials} | {lo}..={hi} |",
        cf.fingerprint_bits(),
        if semi { "semi-sorted" } else { "plain" },
        cf.fill_ratio() * 100.0,
        bits / paper,
        hits as f64 / trials as f64,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!(
        "| n | ε | f | layout | load | bits/item | ÷ paper | measured rate | expected_fpr | false positives | 95% interval |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    if let [n, eps, max] = args.as_slice() {
        let n = n.parse().expect("N");
        let eps = eps.parse().expect("EPS");
        let max = max.parse().expect("PROBES");
        row(n, eps, None, max);
        row(n, eps, Some(true), max);
        row(n, eps, Some(false), max);
        return;
    }
    for n in [1_000, 100_000, 10_000_000] {
        for eps in [0.03, 0.01, 1e-3, 1e-4, 1e-5, 1e-6] {
            row(n, eps, Some(false), 10_000_000);
            row(n, eps, Some(true), 10_000_000);
        }
    }
}
