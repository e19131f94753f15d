//! The filters compared and how each is timed: built for the same items at
//! the same target rate, filled with the same keys, and driven through
//! `dyn Membership<u64>` (one virtual call per operation, whoever wrote the
//! filter).

use std::hint::black_box;
use std::time::{Duration, Instant};

use bloomlab::catalog::Build;
use bloomlab::catalog::Descriptor;
use bloomlab_core::{Lookup, Membership};
use bloomlab_lab::peers::cuckoofilter::KeyedSip13;
use bloomlab_lab::peers::growable::{DEFAULT_GROWTH_FACTOR, DEFAULT_TIGHTENING_RATIO, Params};
use bloomlab_lab::peers::{
    Cuckoofilter, Fastbloom, FastbloomRsCounting, Fuse8, Growable, Qfilter, sip_seeded,
};

use super::super::{Error, ns_per_item, subject};

/// Passes per timed operation; the fastest is kept.
pub const PASSES: usize = 3;

/// A filter behind the trait every filter of the comparison is timed through.
pub type Boxed = Box<dyn Lookup<u64>>;

/// A filter that takes inserts.
pub type Inserts = Box<dyn Membership<u64>>;

/// Builds an empty filter, to be filled one insert at a time.
type Empty = Box<dyn Fn() -> Result<Inserts, Error>>;

/// Builds a static filter from all its keys at once.
type FromKeys = Box<dyn Fn(&[u64]) -> Result<Boxed, Error>>;

/// How a contender is built.
pub enum Make {
    /// Empty, then one insert per key: what `insert_ns` times.
    Empty(Empty),
    /// From every key at once (xorf's static filter): `insert_ns` is the
    /// whole construction divided by the keys.
    FromKeys(FromKeys),
    /// A catalog variant for the keys at `fpr`, its hash key from `seed`,
    /// filled or built from the keys as [`subject::holding`] does for every
    /// experiment (a growing filter starts at a tenth of the keys).
    Catalog {
        variant: Descriptor<u64>,
        fpr: f64,
        seed: u64,
    },
}

/// One filter of the comparison at one target rate.
pub struct Contender {
    /// Its name in the table and the chart: `bloomlab classic`, `qfilter`.
    pub name: String,
    /// The crate that defines it.
    pub crate_name: &'static str,
    /// How it is built.
    pub make: Make,
    /// Whether its answers follow from the keys and the run's seed alone;
    /// not for xorf, which fills the slots no key claims from
    /// `rand::thread_rng()` (its default `uniform-random` feature), so that
    /// its false positives vary from run to run.
    pub seeded: bool,
}

impl Contender {
    /// Whether it takes inserts (false for a static filter, built once
    /// from all the keys).
    pub fn takes_inserts(&self) -> bool {
        match &self.make {
            Make::Empty(_) => true,
            Make::FromKeys(_) => false,
            Make::Catalog { variant, .. } => matches!(variant.build, Build::Empty(_)),
        }
    }

    /// A filter built empty by `build` and filled one insert at a time,
    /// its answers seeded.
    fn empty(
        name: impl Into<String>,
        crate_name: &'static str,
        build: impl Fn() -> Result<Inserts, Error> + 'static,
    ) -> Self {
        Self {
            name: name.into(),
            crate_name,
            make: Make::Empty(Box::new(build)),
            seeded: true,
        }
    }
}

/// What one contender measured.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Bytes of its tables, filled.
    pub memory_bytes: usize,
    /// Non-members reported present.
    pub false_positives: u64,
    /// Insert (or, static, construction) ns per key, best of [`PASSES`].
    pub insert_ns: f64,
    /// Look-up ns per member, best of [`PASSES`].
    pub hit_ns: f64,
    /// Look-up ns per non-member, best of [`PASSES`].
    pub miss_ns: f64,
}

/// One timed pass of `op` over `items`, every answer through `black_box`.
pub fn time_pass<T, R>(items: &[T], mut op: impl FnMut(&T) -> R) -> Duration {
    let start = Instant::now();
    for item in items {
        black_box(op(black_box(item)));
    }
    start.elapsed()
}

/// Every catalog variant at `fpr`.
pub fn bloomlab(
    variants: Vec<Descriptor<u64>>,
    fpr: f64,
    seed: impl Fn(&str) -> u64,
) -> Vec<Contender> {
    (variants.into_iter())
        .map(|variant| Contender {
            name: format!("bloomlab {}", variant.id),
            crate_name: variant.crate_name,
            seeded: true,
            make: Make::Catalog {
                seed: seed(variant.id),
                variant,
                fpr,
            },
        })
        .collect()
}

/// The peers the benchmarks build, at `fpr` where the crate takes a rate,
/// each hashing with keyed SipHash-1-3 where the crate takes a hasher
/// ([`sip_seeded`]: a `build_hasher` as cheap as the crates' own, where
/// AES-CMAC's shares its round keys).
pub fn peers(items: usize, fpr: f64, seed: impl Fn(&str) -> u64) -> Vec<Contender> {
    let hasher = |name: &str| sip_seeded(seed(name));
    let (fb, qf, fuse) = (hasher("fastbloom"), hasher("qfilter"), hasher("xorf"));
    let growable = Params {
        // As bloomlab's scalable filter is built: a tenth of the items
        // first, and the total rate bounded by `fpr` (the crate is given
        // its first layer's rate, `fpr · (1 − r)`).
        n0: (items as u64 / 10).max(1),
        fpr: fpr * (1.0 - DEFAULT_TIGHTENING_RATIO),
        growth: DEFAULT_GROWTH_FACTOR,
        ratio: DEFAULT_TIGHTENING_RATIO,
    };
    let n = items as u64;
    vec![
        Contender::empty("fastbloom", "fastbloom", move || {
            Ok(Box::new(Fastbloom::new(items, fpr, fb.clone())))
        }),
        Contender::empty("fastbloom-rs counting", "fastbloom-rs", move || {
            Ok(Box::new(FastbloomRsCounting::new(n, fpr)))
        }),
        Contender::empty(
            "growable-bloom-filter",
            "growable-bloom-filter",
            move || Ok(Box::new(Growable::new(growable))),
        ),
        Contender::empty("cuckoofilter", "cuckoofilter", move || {
            Ok(Box::new(Cuckoofilter::<KeyedSip13>::with_capacity(items)))
        }),
        Contender::empty("qfilter", "qfilter", move || {
            let f = Qfilter::new(n, fpr, qf.clone()).map_err(Error::filter(format_args!(
                "throughput: qfilter for {items} items at {fpr}"
            )))?;
            Ok(Box::new(f))
        }),
        Contender {
            name: "xorf BinaryFuse8".into(),
            crate_name: "xorf",
            make: Make::FromKeys(Box::new(move |keys| {
                let f = Fuse8::new(keys, fuse.clone()).map_err(Error::filter(format_args!(
                    "throughput: BinaryFuse8 of {} keys",
                    keys.len()
                )))?;
                Ok(Box::new(f))
            })),
            seeded: false,
        },
    ]
}

/// Builds and fills every contender with `keys`, then looks up every key
/// and every probe in each, [`PASSES`] rounds of each; a round visits every
/// contender in turn, so that a burst of load from elsewhere on the machine
/// spoils one pass of a few filters, not all passes of one. Each time kept
/// is the fastest of its passes; `step` is called after each pass.
///
/// # Errors
///
/// A constructor's; [`Error::Filter`] if a filter refused an insert;
/// [`Error::Invariant`] if one reported a member absent or answered a probe
/// differently from one round to the next.
pub fn measure(
    contenders: &[Contender],
    keys: &[u64],
    probes: &[u64],
    mut step: impl FnMut(),
) -> Result<Vec<Measured>, Error> {
    let mut filters: Vec<Option<Boxed>> = contenders.iter().map(|_| None).collect();
    let mut insert = vec![Duration::MAX; contenders.len()];
    for _ in 0..PASSES {
        for ((c, slot), best) in contenders.iter().zip(&mut filters).zip(&mut insert) {
            // The last pass's filter is dropped before the next is built.
            *slot = None;
            let (f, took) = fill(c, keys)?;
            *best = (*best).min(took);
            *slot = Some(f);
            step();
        }
    }
    let filters: Vec<Boxed> = filters.into_iter().flatten().collect();
    let mut hit = vec![Duration::MAX; filters.len()];
    let mut miss = vec![Duration::MAX; filters.len()];
    let mut false_positives: Vec<Option<u64>> = vec![None; filters.len()];
    for _ in 0..PASSES {
        for (i, (f, c)) in filters.iter().zip(contenders).enumerate() {
            // One timed pass of look-ups, and how many were answered present.
            let look_up = |items: &[u64]| {
                let mut yes = 0u64;
                let took = time_pass(items, |k| {
                    let found = f.contains(k);
                    yes += u64::from(found);
                    found
                });
                (took, yes)
            };
            let (took, found) = look_up(keys);
            hit[i] = hit[i].min(took);
            if found != keys.len() as u64 {
                return Err(Error::Invariant(format!(
                    "throughput: {} reported {} of {} members absent",
                    c.name,
                    keys.len() as u64 - found,
                    keys.len()
                )));
            }
            let (took, fp) = look_up(probes);
            miss[i] = miss[i].min(took);
            if *false_positives[i].get_or_insert(fp) != fp {
                return Err(Error::Invariant(format!(
                    "throughput: {} answered the same probes differently",
                    c.name
                )));
            }
            step();
        }
    }
    Ok(filters
        .iter()
        .enumerate()
        .map(|(i, f)| Measured {
            memory_bytes: f.memory_bytes(),
            false_positives: false_positives[i].unwrap_or(0),
            insert_ns: ns_per_item(insert[i], keys.len()),
            hit_ns: ns_per_item(hit[i], keys.len()),
            miss_ns: ns_per_item(miss[i], probes.len()),
        })
        .collect())
}

/// `c` built and filled with `keys`, and how long the fill (for a static
/// filter, the construction) took.
fn fill(c: &Contender, keys: &[u64]) -> Result<(Boxed, Duration), Error> {
    match &c.make {
        Make::Empty(build) => {
            let mut f = build()?;
            let start = Instant::now();
            let refused = keys
                .iter()
                .filter(|k| black_box(f.insert(black_box(k))).is_err())
                .count();
            let took = start.elapsed();
            if refused > 0 {
                return Err(Error::filter(format!("throughput: {}", c.name))(format!(
                    "refused {refused} of {} inserts",
                    keys.len()
                )));
            }
            Ok((Box::new(f), took))
        }
        Make::FromKeys(build) => {
            let start = Instant::now();
            let f = build(black_box(keys))?;
            Ok((f, start.elapsed()))
        }
        Make::Catalog { variant, fpr, seed } => {
            let (s, took) = subject::holding(variant, keys, *fpr, *seed)?;
            Ok((s.filter, took))
        }
    }
}
