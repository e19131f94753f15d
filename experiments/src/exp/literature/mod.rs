//! Experiment `literature`: each paper bloomlab builds on, its headline
//! figure, bloomlab's measurement of the same quantity in this run, and a
//! verdict. Rates are measured over keyed instances, with the Student-t
//! interval of the `fpr` experiment; sizes are read off the built filters.

use bloomlab::classic::BlockLayout;
use bloomlab::{
    BinaryFuseFilter, BlockedBloomFilter, BloomFilter, CountingBloomFilter, CuckooFilter,
    QuotientFilter, ScalableBloomFilter,
};
use bloomlab_core::theory::{blocked, classic, counting, fuse};
use bloomlab_core::{InsertError, Membership};
use bloomlab_lab::keys::{members, probes};
use bloomlab_lab::stats::clopper_pearson;

use super::fpr::parallel;
use super::{Ctx, Error, Output, sub_seed};
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{Table, rate};

/// The load Fan et al. (2014) report for 4 slots a bucket.
const PAPER_CUCKOO_LOAD: f64 = 0.955;

/// Keyed instances of every measured filter.
const INSTANCES: usize = 20;

/// The rate every filter here is built for.
const TARGET: f64 = 0.01;

/// The papers, in the order of the section, as the references list gives
/// each: a Markdown list.
const REFERENCES: &str = "\
    - Bloom 1970: B. H. Bloom. Space/time trade-offs in hash coding with allowable errors. \
    Communications of the ACM 13(7), 1970.\n\
    - Fan et al. 2000: L. Fan, P. Cao, J. Almeida, A. Z. Broder. Summary cache: a scalable \
    wide-area web cache sharing protocol. IEEE/ACM Transactions on Networking 8(3), 2000.\n\
    - Putze et al. 2007: F. Putze, P. Sanders, J. Singler. Cache-, hash- and space-efficient \
    Bloom filters. WEA 2007; ACM Journal of Experimental Algorithmics 14, 2009.\n\
    - Almeida et al. 2007: P. S. Almeida, C. Baquero, N. Preguiça, D. Hutchison. Scalable \
    Bloom filters. Information Processing Letters 101(6), 2007.\n\
    - Fan et al. 2014: B. Fan, D. G. Andersen, M. Kaminsky, M. Mitzenmacher. Cuckoo filter: \
    practically better than Bloom. CoNEXT 2014.\n\
    - Pandey et al. 2017: P. Pandey, M. A. Bender, R. Johnson, R. Patro. A general-purpose \
    counting filter: making every bit count. SIGMOD 2017.\n\
    - Graf and Lemire 2022: T. M. Graf, D. Lemire. Binary fuse filters: fast and smaller \
    than xor filters. ACM Journal of Experimental Algorithmics 27, 2022.";

/// One paper's figure against this run's measurement.
#[derive(Debug, Clone)]
struct Anchor {
    paper: &'static str,
    quantity: &'static str,
    /// The filter and its parameters, as measured.
    setup: String,
    /// The paper's figure (its formula at `setup` where it gives one).
    claimed: f64,
    measured: f64,
    /// A 95% interval of `measured`, where it is a sample.
    interval: Option<(f64, f64)>,
    verdict: String,
}

/// Items per filter at each scale, and probes per instance.
fn sizes(scale: Scale) -> (usize, usize) {
    match scale {
        Scale::Quick => (20_000, 20_000),
        Scale::Default => (200_000, 100_000),
        Scale::Full => (1_000_000, 400_000),
    }
}

/// Runs the experiment: `literature.csv` and its section.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
    let (n, p) = sizes(ctx.scale);
    let mut anchors = vec![
        bloom(ctx.seed, n, p)?,
        counting_overflow(ctx.seed, n)?,
        putze(ctx.seed, n, p)?,
        almeida(ctx.seed, n, p)?,
    ];
    anchors.extend(cuckoo(ctx.seed, n)?);
    anchors.extend([
        pandey(ctx.seed, n)?,
        graf_lemire(ctx.seed, n, 3)?,
        graf_lemire(ctx.seed, n, 4)?,
    ]);
    let table = Table::from_records(anchors.iter().map(|a| {
        let (lo, hi) = a
            .interval
            .map_or(("n/a".into(), "n/a".into()), |(l, h)| (rate(l), rate(h)));
        vec![
            ("paper", a.paper.to_owned()),
            ("quantity", a.quantity.to_owned()),
            ("setup", a.setup.clone()),
            ("paper_value", rate(a.claimed)),
            ("measured", rate(a.measured)),
            ("ci95_low", lo),
            ("ci95_high", hi),
            ("verdict", a.verdict().to_owned()),
            ("note", a.note().to_owned()),
        ]
    }));
    let rows = anchors.iter().map(|a| {
        let measured = match a.interval {
            Some((lo, hi)) => format!("{} ({}–{})", short(a.measured), short(lo), short(hi)),
            None => short(a.measured),
        };
        [
            a.paper.to_owned(),
            a.quantity.to_owned(),
            short(a.claimed),
            measured,
            a.verdict().to_owned(),
        ]
    });
    let mut body = format!(
        "Each paper's figure against this run's measurement ({INSTANCES} keyed instances of \
         {n} items, 95% t interval). Set-ups, reasons, references: \
         [APPENDIX.md](APPENDIX.md#the-papers-reproduced) and [`literature.csv`](literature.csv).\n\n"
    );
    body += &crate::table::markdown(
        &[
            "paper",
            "quantity",
            "paper's figure",
            "measured (95%)",
            "verdict",
        ],
        rows,
    );
    let notes = anchors.iter().map(|a| {
        [
            a.paper.to_owned(),
            a.quantity.to_owned(),
            a.setup.clone(),
            a.verdict.clone(),
        ]
    });
    let appendix = format!(
        "{}\nReferences:\n\n{}\n",
        crate::table::markdown(&["paper", "quantity", "set-up", "verdict"], notes),
        REFERENCES
    );
    let section = Section::new("The papers, reproduced", body);
    Ok(Output::new(section)
        .appendix(appendix)
        .table("literature.csv", table))
}

impl Anchor {
    /// The verdict's first word or words, before its reason.
    fn verdict(&self) -> &str {
        self.verdict
            .split_once(": ")
            .map_or(&self.verdict, |(v, _)| v)
    }

    /// The verdict's reason.
    fn note(&self) -> &str {
        self.verdict.split_once(": ").map_or("", |(_, n)| n)
    }
}

/// Four significant digits.
fn short(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e5) {
        format!("{x:.3e}")
    } else {
        format!("{:.4}", x)
    }
}

/// "inside" or "outside" of `interval`, with the word for each.
fn judge(claimed: f64, interval: (f64, f64)) -> String {
    if (interval.0..=interval.1).contains(&claimed) {
        "reproduced: inside the interval".into()
    } else if claimed < interval.0 {
        "not reproduced: measured above".into()
    } else {
        "not reproduced: measured below".into()
    }
}

/// The keys of instance `i` of `part`.
fn keys(seed: u64, part: &str, i: usize, n: usize) -> Vec<u64> {
    members(sub_seed(seed, &format!("literature/{part}/{i}/members")), n)
}

/// The rate of `contains` on `p` fresh probes of instance `i`.
fn fp_rate(seed: u64, part: &str, i: usize, p: usize, contains: impl Fn(&u64) -> bool) -> f64 {
    let probe_seed = sub_seed(seed, &format!("literature/{part}/{i}/probes"));
    probes(probe_seed, p).filter(|x| contains(x)).count() as f64 / p as f64
}

/// A mean over instances and its 95% interval.
type Mean = (f64, (f64, f64));

/// The mean of `values` over instances and its interval.
fn mean_of(values: &[f64]) -> Result<Mean, Error> {
    let interval = crate::table::t_interval(values)
        .ok_or_else(|| Error::Invariant("literature: fewer than two instances".into()))?;
    Ok((values.iter().sum::<f64>() / values.len() as f64, interval))
}

/// [`INSTANCES`] filters of `part`, each built by `build` from its own seed
/// and filled with its `n` keys: what `facts` reads of instance `i`.
fn instances<F: Membership<u64>, T: Send>(
    seed: u64,
    part: &str,
    n: usize,
    build: impl Fn(u64) -> Result<F, Error> + Sync,
    facts: impl Fn(usize, &F) -> T + Sync,
) -> Result<Vec<T>, Error> {
    parallel(INSTANCES, |i| {
        let mut f = build(sub_seed(seed, &format!("literature/{part}/{i}")))?;
        for key in keys(seed, part, i, n) {
            f.insert(&key)
                .map_err(Error::filter(format!("literature: {part}")))?;
        }
        Ok(facts(i, &f))
    })
}

/// [`instances`] probed `p` times each: what `facts` reads of each, and
/// their mean rate with its interval.
fn filled<F: Membership<u64>, T: Send>(
    seed: u64,
    part: &str,
    (n, p): (usize, usize),
    build: impl Fn(u64) -> Result<F, Error> + Sync,
    facts: impl Fn(&F) -> T + Sync,
) -> Result<(Vec<T>, Mean), Error> {
    let runs = instances(seed, part, n, build, |i, f| {
        (facts(f), fp_rate(seed, part, i, p, |x| f.contains(x)))
    })?;
    let (facts, rates): (Vec<T>, Vec<f64>) = runs.into_iter().unzip();
    Ok((facts, mean_of(&rates)?))
}

/// Bloom (1970): the rate of `m` bits and `k` hashes after `n` items,
/// `(1 − e^{−kn/m})^k` as it is usually written.
fn bloom(seed: u64, n: usize, p: usize) -> Result<Anchor, Error> {
    let build = |seed| {
        (BloomFilter::<u64>::builder(n, TARGET).seed(seed).build())
            .map_err(Error::filter("literature: classic"))
    };
    let (facts, (mean, interval)) = filled(seed, "bloom", (n, p), build, |f| {
        (f.num_bits(), f.num_hashes())
    })?;
    let (m, k) = facts[0];
    let claimed = classic::fpr(m as f64, n as f64, f64::from(k));
    Ok(Anchor {
        paper: "Bloom 1970",
        quantity: "rate of the classic filter",
        setup: format!("m={m} k={k} n={n}"),
        claimed,
        measured: mean,
        interval: Some(interval),
        verdict: judge(claimed, interval),
    })
}

/// Fan et al. (2000): with the optimal `k`, a 4-bit counter overflows with
/// probability at most `1.37e-15 × m` over the whole table.
fn counting_overflow(seed: u64, n: usize) -> Result<Anchor, Error> {
    let build = |seed| {
        (CountingBloomFilter::<u64>::builder(n, TARGET)
            .seed(seed)
            .build())
        .map_err(Error::filter("literature: counting"))
    };
    let runs = instances(seed, "counting", n, build, |_, f| {
        let largest = (0..f.num_counters())
            .filter_map(|c| f.counter(c))
            .max()
            .unwrap_or(0);
        (f.num_counters(), f.num_hashes(), f.counter_width(), largest)
    })?;
    let (m, k, width) = (runs[0].0, runs[0].1, runs[0].2);
    let largest = runs.iter().map(|r| r.3).max().unwrap_or(0);
    // A bloomlab counter stops at 2^width − 1: a table that reached it is
    // counted as one that would have overflowed.
    let overflowed = runs
        .iter()
        .filter(|r| u64::from(r.3) + 1 >= 1 << width)
        .count() as u64;
    // The whole table overflows with at most this probability (the paper's bound).
    let claimed = counting::fan_bound(m as f64, (1u64 << width) as f64);
    // The paper's event, a counter reaching 2^width: at most m times the
    // tail of one counter (a union bound, as the paper's).
    let exact = m as f64 * counting::counter_tail(m, n as u64, k, 1 << width);
    let (_, hi) = clopper_pearson(overflowed, runs.len() as u64, 0.95);
    let verdict = if exact <= claimed && overflowed == 0 {
        format!(
            "holds: no table of {} reached its counters' limit (largest counter {largest}); \
             the exact chance {} is under the bound",
            runs.len(),
            short(exact)
        )
    } else {
        format!(
            "does not hold: {overflowed} tables overflowed; exact chance {}",
            short(exact)
        )
    };
    Ok(Anchor {
        paper: "Fan et al. 2000",
        quantity: "chance any 4-bit counter overflows",
        setup: format!("m={m} k={k} n={n} width={width}"),
        claimed,
        measured: overflowed as f64 / runs.len() as f64,
        interval: Some((0.0, hi)),
        verdict,
    })
}

/// Putze, Sanders and Singler (2007): a filter whose `k` bits fall in one
/// 512-bit block has the Poisson-mixture rate, above the classic rate of
/// the same bits. The quantity is that penalty: blocked over classic rate.
fn putze(seed: u64, n: usize, p: usize) -> Result<Anchor, Error> {
    let build = |seed| {
        (BlockedBloomFilter::<u64>::builder(n, TARGET).layout(BlockLayout::Positions))
            .seed(seed)
            .build()
            .map_err(Error::filter("literature: blocked"))
    };
    let (facts, (mean, (lo, hi))) = filled(seed, "blocked", (n, p), build, |f| {
        (f.num_bits(), f.num_hashes())
    })?;
    let (m, k) = facts[0];
    let plain = classic::fpr(m as f64, n as f64, f64::from(k));
    let c = m as f64 / n as f64;
    let claimed = blocked::fpr_poisson(512.0, c, f64::from(k)) / plain;
    let interval = (lo / plain, hi / plain);
    // The model gives a block of i items its mean fill to the k-th power;
    // the exact rate averages (X/B)^k over the block's occupancy X, which
    // is larger (Jensen), as is a query's chance to repeat a position.
    let exact = blocked::fpr_exact(512, m / 512, n as u64, k) / plain;
    let verdict = format!(
        "{}; the exact block rate (`blocked::fpr_exact`) gives {} ({})",
        judge(claimed, interval),
        short(exact),
        if (interval.0..=interval.1).contains(&exact) {
            "inside"
        } else {
            "outside"
        }
    );
    Ok(Anchor {
        paper: "Putze et al. 2007",
        quantity: "blocked / classic rate",
        setup: format!("B=512 m={m} k={k} n={n} ({c:.2} bits/item)"),
        claimed,
        measured: mean / plain,
        interval: Some(interval),
        verdict,
    })
}

/// Almeida et al. (2007): a scalable filter whose layers tighten by `r`
/// stays under `P0/(1 − r)` however far it grows; grown a hundredfold here.
fn almeida(seed: u64, n: usize, p: usize) -> Result<Anchor, Error> {
    let build = |seed| {
        (ScalableBloomFilter::<u64>::builder((n / 100).max(1), TARGET).seed(seed))
            .build()
            .map_err(Error::filter("literature: scalable"))
    };
    let (facts, (mean, interval)) = filled(seed, "scalable", (n, p), build, |f| {
        let r = f.tightening_ratio();
        (f.layer_fpr(0) / (1.0 - r), r, f.layers().len())
    })?;
    let (claimed, r, layers) = facts[0];
    let verdict = if interval.1 <= claimed {
        "holds: the interval is under the bound".to_owned()
    } else if interval.0 > claimed {
        "does not hold: the interval is above the bound".to_owned()
    } else {
        "holds within chance: the bound is inside the interval".to_owned()
    };
    Ok(Anchor {
        paper: "Almeida et al. 2007",
        quantity: "grown rate ≤ P0/(1 − r)",
        setup: format!(
            "grown from {} to {n} items; r={r}; {layers} layers",
            (n / 100).max(1)
        ),
        claimed,
        measured: mean,
        interval: Some(interval),
        verdict,
    })
}

/// Fan et al. (2014), on cuckoo filters of 4 slots a bucket filled until
/// their first `Full`: the table fills to 95.5% before an insert fails, and
/// then holds `f/α` bits an item (`f·b` bits a bucket over `b·α` items),
/// against the load and the table's bytes over its items there.
fn cuckoo(seed: u64, n: usize) -> Result<[Anchor; 2], Error> {
    let part = "cuckoo";
    let runs = parallel(INSTANCES, |i| {
        let mut f = CuckooFilter::<u64>::builder(n, TARGET)
            .bucket_size(4)
            .seed(sub_seed(seed, &format!("literature/{part}/{i}")))
            .build()
            .map_err(Error::filter("literature: cuckoo"))?;
        // Twice the slots, so the first `Full` comes before the keys run out.
        let slots = usize::try_from(f.capacity()).map_err(Error::size("literature: cuckoo"))?;
        for key in keys(seed, part, i, 2 * slots) {
            match f.insert(&key) {
                Ok(_) => {}
                Err(InsertError::Full) => break,
                Err(e) => return Err(Error::filter("literature: cuckoo")(e)),
            }
        }
        let bits = f.memory_bytes() as f64 * 8.0 / f.len().max(1) as f64;
        Ok((
            f.fill_ratio(),
            bits,
            f.fingerprint_bits(),
            f.max_relocations(),
        ))
    })?;
    let (fp, kicks) = (runs[0].2, runs[0].3);
    let loads: Vec<f64> = runs.iter().map(|r| r.0).collect();
    let bits: Vec<f64> = runs.iter().map(|r| r.1).collect();
    let (load, load_interval) = mean_of(&loads)?;
    let (per_item, bits_interval) = mean_of(&bits)?;
    let claimed_bits = f64::from(fp) / PAPER_CUCKOO_LOAD;
    Ok([
        Anchor {
            paper: "Fan et al. 2014",
            quantity: "load at first failure (b = 4)",
            setup: format!("f={fp} b=4; built for {n} items"),
            claimed: PAPER_CUCKOO_LOAD,
            measured: load,
            interval: Some(load_interval),
            verdict: format!(
                "{}; bloomlab relocates up to {kicks} times an insert (the paper: 500)",
                judge(PAPER_CUCKOO_LOAD, load_interval)
            ),
        },
        Anchor {
            paper: "Fan et al. 2014",
            quantity: "bits per item there: f/α",
            setup: format!("f={fp} b=4; built for {n} items"),
            claimed: claimed_bits,
            measured: per_item,
            interval: Some(bits_interval),
            verdict: format!(
                "{}; at the load measured f/α gives {}",
                judge(claimed_bits, bits_interval),
                short(f64::from(fp) / load)
            ),
        },
    ])
}

/// Pandey et al. (2017): a rank-and-select quotient filter stores `r`
/// remainder bits and 2.125 bits of metadata a slot, `(r + 2.125)/α` bits
/// an item at load α. Read off a filter filled to its build size.
fn pandey(seed: u64, n: usize) -> Result<Anchor, Error> {
    let part = "quotient";
    let mut f = QuotientFilter::<u64>::builder(n, TARGET)
        .seed(sub_seed(seed, &format!("literature/{part}")))
        .build()
        .map_err(Error::filter("literature: quotient"))?;
    for key in keys(seed, part, 0, n) {
        f.insert(&key)
            .map_err(Error::filter("literature: quotient"))?;
    }
    let (r, alpha) = (f.slot_bits(), f.fill_ratio());
    let claimed = (f64::from(r) + 2.125) / alpha;
    let measured = f.memory_bytes() as f64 * 8.0 / f.len() as f64;
    let canonical = 1u64 << f.quotient_bits();
    // The table in slots of r + 2.125 bits; past the canonical 2^q, the
    // slots that hold the runs spilling over the end. Whole 64-slot blocks
    // if the metadata is 2.125 bits a slot (136 bits a block).
    let slots = f.memory_bytes() as f64 * 8.0 / (f64::from(r) + 2.125);
    let extra = slots - canonical as f64;
    let whole_blocks = extra >= 0.0 && (slots / 64.0).fract() == 0.0;
    Ok(Anchor {
        paper: "Pandey et al. 2017",
        quantity: "bits per item: (r + 2.125)/α",
        setup: format!("r={r} q={} α={alpha:.3}", f.quotient_bits()),
        claimed,
        measured,
        interval: None,
        verdict: match whole_blocks {
            true => format!(
                "reproduced: 2.125 bits of metadata a slot; {:+.2}% for the {extra:.0} slots \
                 past the 2^q canonical ones",
                100.0 * (measured / claimed - 1.0)
            ),
            false => format!(
                "not reproduced: the table is not whole blocks of r + 2.125 bits a slot \
                 ({slots:.2} slots)"
            ),
        },
    })
}

/// Graf and Lemire (2022): a binary fuse filter's array has about 1.125
/// (3-wise) or 1.075 (4-wise) slots a key for large sets, more below
/// 10^6 (3-wise) or 6·10^5 (4-wise) keys; bits per key over `log2(1/ε)`.
fn graf_lemire(seed: u64, n: usize, arity: u32) -> Result<Anchor, Error> {
    let part = format!("fuse{arity}");
    let keys = keys(seed, &part, 0, n);
    let f = BinaryFuseFilter::<u64>::builder(TARGET)
        .arity(arity)
        .seed(sub_seed(seed, &format!("literature/{part}")))
        .build(&keys)
        .map_err(Error::filter("literature: fuse"))?;
    let headline = if arity == 3 { 1.125 } else { 1.075 };
    let at_n = fuse::size_factor(arity, n as u64).unwrap_or(f64::NAN);
    let measured =
        f.memory_bytes() as f64 * 8.0 / (f.len() as f64 * f64::from(f.fingerprint_bits()));
    // The array is rounded up to whole segments: at most `arity` more of
    // them than the rule's size.
    let rounding = f64::from(arity * f.segment_length()) / n as f64;
    let verdict = if (at_n..=at_n + rounding).contains(&measured) {
        format!(
            "reproduced: the paper's size rule at n = {n} gives {}; {:+.2}% for whole segments",
            short(at_n),
            100.0 * (measured / at_n - 1.0)
        )
    } else {
        format!(
            "not reproduced: the paper's size rule at n = {n} gives {}",
            short(at_n)
        )
    };
    Ok(Anchor {
        paper: "Graf and Lemire 2022",
        quantity: if arity == 3 {
            "space / log2(1/ε) (3-wise)"
        } else {
            "space / log2(1/ε) (4-wise)"
        },
        setup: format!("f={} arity={arity} n={n}", f.fingerprint_bits()),
        claimed: headline,
        measured,
        interval: None,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_says_where_the_figure_falls() {
        assert_eq!(judge(1.0, (0.9, 1.1)), "reproduced: inside the interval");
        assert_eq!(judge(0.8, (0.9, 1.1)), "not reproduced: measured above");
        assert_eq!(judge(1.2, (0.9, 1.1)), "not reproduced: measured below");
        let a = Anchor {
            paper: "p",
            quantity: "q",
            setup: String::new(),
            claimed: 1.0,
            measured: 1.0,
            interval: None,
            verdict: judge(1.0, (0.9, 1.1)),
        };
        assert_eq!(
            (a.verdict(), a.note()),
            ("reproduced", "inside the interval")
        );
    }

    #[test]
    fn every_anchor_is_measured_and_judged() {
        let ctx = Ctx {
            scale: Scale::Quick,
            seed: 7,
            catalog: crate::exp::subject::standard(),
        };
        let out = run(&ctx).unwrap();
        let (name, table) = &out.tables[0];
        assert_eq!(name, "literature.csv");
        let rows = table.records();
        assert_eq!(rows.len(), 9);
        for row in &rows {
            assert!(REFERENCES.contains(&format!("- {}: ", row["paper"])));
            let number = |c: &str| row[c].parse::<f64>().unwrap();
            assert!(number("paper_value").is_finite() && number("measured").is_finite());
            assert!(
                [
                    "reproduced",
                    "holds",
                    "holds within chance",
                    "not reproduced",
                    "does not hold"
                ]
                .contains(&row["verdict"].as_str()),
                "{row:?}"
            );
        }
        assert!(out.appendix.contains(REFERENCES));
    }
}
