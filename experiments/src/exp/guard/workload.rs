//! Request streams and the scripts they become: requests, deletes and inserts.

use super::*;

/// A request stream.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Stream {
    /// Present ids uniform or Zipf-skewed over the rows; each absent id a
    /// fresh one, never asked before.
    Mixed { absent: f64, zipf: bool },
    /// Fresh absent ids only: a flood of made-up ids.
    Attack,
    /// Rows deleted (and asked for right after), rows re-added, and
    /// requests for present rows in between.
    Churn,
    /// New rows inserted ([`INSERT_SHARE`] of the requests), and reads of
    /// the rows inserted so far, of the rows loaded at start and of fresh
    /// absent ids. Not in [`Stream::all`]: only the guards of
    /// `guard_rebuilt.csv` run it.
    Inserts,
}

/// A uniform stream with `absent` of its ids absent.
pub(super) fn uniform(absent: f64) -> Stream {
    Stream::Mixed {
        absent,
        zipf: false,
    }
}

impl Stream {
    /// Every stream, in run order: churn last, as the only one that
    /// changes the rows and the guard.
    pub(super) fn all() -> Vec<Stream> {
        let mut out = Vec::new();
        for zipf in [false, true] {
            for absent in ABSENT_SHARES {
                out.push(Stream::Mixed { absent, zipf });
            }
        }
        out.extend([Stream::Attack, Stream::Churn]);
        out
    }

    pub(super) fn name(self) -> String {
        match self {
            Stream::Mixed { absent, zipf } => format!(
                "{} {} absent",
                if zipf { "zipf" } else { "uniform" },
                short_percent(absent)
            ),
            Stream::Attack => "attack".into(),
            Stream::Churn => "churn".into(),
            Stream::Inserts => "inserts".into(),
        }
    }

    pub(super) fn skew(self) -> &'static str {
        match self {
            Stream::Mixed { zipf: true, .. } => "zipf",
            _ => "uniform",
        }
    }

    /// The share of requests for ids without a row.
    pub(super) fn absent_share(self) -> f64 {
        match self {
            Stream::Mixed { absent, .. } => absent,
            Stream::Attack => 1.0,
            Stream::Churn => 0.5,
            Stream::Inserts => INSERTS_ABSENT,
        }
    }
}

/// One step of a script: a request, or a change to the rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    /// A request for `id`, which has a row or not.
    Get { id: u64, exists: bool },
    /// The row is deleted: database, cache entry, and the guard where it can.
    Delete(u64),
    /// A deleted row comes back: database and guard.
    Readd(u64),
    /// A new row, never in the database before: database and guard.
    Insert(u64),
}

impl Op {
    /// A request for `id`, which has a row or not.
    pub(super) fn get(id: u64, exists: bool) -> Op {
        Op::Get { id, exists }
    }
}

/// The share of the inserts stream's requests that insert a new row.
pub(super) const INSERT_SHARE: f64 = 0.05;

/// The share of the inserts stream's reads that ask for a fresh absent id.
pub(super) const INSERTS_ABSENT: f64 = 0.5;

/// The share of the inserts stream's reads that ask for a row inserted
/// earlier in the stream (uniform over those); the rest ask for a loaded row.
pub(super) const INSERTS_NEW: f64 = 0.2;

/// The operations of `stream`: the same for every guard. For
/// [`Stream::Inserts`], `requests` counts the inserts as well as the reads.
pub(super) fn script(
    stream: Stream,
    rows: u64,
    requests: usize,
    seed: u64,
) -> Result<Vec<Op>, Error> {
    let mut r = rng(sub_seed(seed, &format!("guard/{}", stream.name())));
    let mut fresh = probes(
        sub_seed(seed, &format!("guard/{}/absent", stream.name())),
        requests,
    );
    let mut absent = || {
        fresh
            .next()
            .ok_or_else(|| Error::Invariant("guard: ran out of absent ids".into()))
    };
    let mut ops = Vec::with_capacity(requests + requests / 2);
    match stream {
        Stream::Mixed {
            absent: share,
            zipf,
        } => {
            let skew = Zipf::new(rows as f64, ZIPF_EXPONENT)
                .map_err(Error::size("guard: Zipf distribution"))?;
            for _ in 0..requests {
                let op = if r.random::<f64>() < share {
                    Op::get(absent()?, false)
                } else if zipf {
                    // Rank 1 is id 0; the keyed hash makes the order irrelevant.
                    Op::get((skew.sample(&mut r) as u64).clamp(1, rows) - 1, true)
                } else {
                    Op::get(r.random_range(0..rows), true)
                };
                ops.push(op);
            }
        }
        Stream::Attack => {
            for _ in 0..requests {
                ops.push(Op::get(absent()?, false));
            }
        }
        Stream::Churn => {
            // At most `held` rows are deleted at a time; then each deletion
            // brings back the row deleted longest ago.
            let held = (requests / 20).max(1);
            let mut present: Vec<u64> = (0..rows).collect();
            let mut deleted = VecDeque::new();
            for _ in 0..requests / 2 {
                let gone = present.swap_remove(r.random_range(0..present.len()));
                ops.push(Op::Delete(gone));
                deleted.push_back(gone);
                ops.push(Op::get(gone, false));
                if deleted.len() > held
                    && let Some(back) = deleted.pop_front()
                {
                    ops.push(Op::Readd(back));
                    present.push(back);
                }
                ops.push(Op::get(present[r.random_range(0..present.len())], true));
            }
        }
        Stream::Inserts => {
            // New ids have the top bit clear and absent ones set (`probes`):
            // never the same. Ids of loaded rows (below `rows`) and repeats
            // are skipped, so that each insert is a row the database lacks.
            let mut new_ids = members(sub_seed(seed, "guard/inserts/new"), requests)
                .into_iter()
                .filter(|&id| id >= rows);
            let mut inserted: Vec<u64> = Vec::new();
            let mut seen = HashSet::new();
            for _ in 0..requests {
                let u = r.random::<f64>();
                let op = if u < INSERT_SHARE {
                    let id = new_ids
                        .by_ref()
                        .find(|&id| seen.insert(id))
                        .ok_or_else(|| Error::Invariant("guard: ran out of new ids".into()))?;
                    inserted.push(id);
                    Op::Insert(id)
                } else if u < INSERT_SHARE + (1.0 - INSERT_SHARE) * INSERTS_ABSENT {
                    Op::get(absent()?, false)
                } else if u < INSERT_SHARE + (1.0 - INSERT_SHARE) * (INSERTS_ABSENT + INSERTS_NEW)
                    && !inserted.is_empty()
                {
                    Op::get(inserted[r.random_range(0..inserted.len())], true)
                } else {
                    Op::get(r.random_range(0..rows), true)
                };
                ops.push(op);
            }
        }
    }
    Ok(ops)
}

/// The new rows a script inserts, to delete before the next guard runs it.
pub(super) fn inserted(ops: &[Op]) -> Vec<u64> {
    ops.iter()
        .filter_map(|op| match *op {
            Op::Insert(id) => Some(id),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_seeded_and_churn_asks_for_each_row_right_after_deleting_it() {
        let churn = Stream::Churn;
        let a = script(churn, 1_000, 400, 7).unwrap();
        assert_eq!(a, script(churn, 1_000, 400, 7).unwrap());
        let gets = a.iter().filter(|o| matches!(o, Op::Get { .. })).count();
        assert_eq!(gets, 400);
        // Each request for a missing row comes right after that row's deletion.
        for pair in a.windows(2) {
            if let Op::Get { id, exists: false } = pair[1] {
                assert_eq!(pair[0], Op::Delete(id));
            }
        }
        // 200 deletions, at most 20 held: 180 re-added.
        assert_eq!(left_deleted(&a).len(), 20);
    }

    #[test]
    fn mixed_streams_have_their_share_of_fresh_absent_ids() {
        let w = Stream::Mixed {
            absent: 0.9,
            zipf: true,
        };
        let ops = script(w, 1_000, 10_000, 1).unwrap();
        let absent: Vec<u64> = ops
            .iter()
            .filter_map(|o| match o {
                Op::Get { id, exists: false } => Some(*id),
                _ => None,
            })
            .collect();
        assert!((8_800..9_200).contains(&absent.len()), "{}", absent.len());
        assert!(absent.iter().all(|&id| id >= 1_000));
        assert_eq!(absent.iter().collect::<HashSet<_>>().len(), absent.len());
    }

    #[test]
    fn the_inserts_stream_inserts_new_rows_and_asks_for_them_afterwards() {
        let ops = script(Stream::Inserts, 1_000, 10_000, 3).unwrap();
        assert_eq!(ops, script(Stream::Inserts, 1_000, 10_000, 3).unwrap());
        assert_eq!(ops.len(), 10_000);
        let new = inserted(&ops);
        // 5% of 10,000: 500 expected, 428 to 572 in 99.9% of seeds (binomial).
        assert!((428..=572).contains(&new.len()), "{}", new.len());
        assert_eq!(new.iter().collect::<HashSet<_>>().len(), new.len());
        assert!(new.iter().all(|&id| (1_000..1 << 63).contains(&id)));
        let mut so_far = HashSet::new();
        let (mut asked_new, mut absent) = (0, 0);
        for op in &ops {
            match *op {
                Op::Insert(id) => {
                    so_far.insert(id);
                }
                Op::Get { id, exists: true } if id >= 1_000 => {
                    // A new row is asked for only once it was inserted.
                    assert!(so_far.contains(&id), "{id} asked before its insert");
                    asked_new += 1;
                }
                Op::Get { id, exists: false } => {
                    assert!(id >> 63 == 1 && !new.contains(&id));
                    absent += 1;
                }
                _ => {}
            }
        }
        // Of 10,000 requests, 0.95 · 20% ask for new rows (1,900, σ = 39)
        // and 0.95 · 50% for absent ids (4,750, σ = 50): ±5 σ and ±4 σ.
        assert!((1_700..2_100).contains(&asked_new), "{asked_new}");
        assert!((4_550..4_950).contains(&absent), "{absent}");
    }
}
