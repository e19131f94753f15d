//! The request path through guard, cache and database, and what one run counts.

use std::collections::BTreeSet;

use super::*;

/// What one (guard, stream) run counted.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub(super) requests: u64,
    pub(super) absent_requests: u64,
    /// Absent ids the guard let through: counted at the guard.
    pub(super) false_positives: u64,
    /// Queries that found a row.
    pub(super) db_found: u64,
    /// Queries that found none: counted at the database.
    pub(super) db_not_found: u64,
    pub(super) cache_hits: u64,
    pub(super) wrong_answers: u64,
    pub(super) latencies_ns: Vec<u64>,
    /// New rows inserted (not counted in `requests`, which are the reads).
    pub(super) inserts: u64,
    /// Reads of rows inserted earlier in the run.
    pub(super) new_row_requests: u64,
    /// Reads of existing rows that only a rebuilt guard's insertable part
    /// let through: without it, each would have been answered absent.
    pub(super) found_by_delta: u64,
    /// The guard's rate at each absent read, summed: the false positives
    /// theory expects of a guard whose rate changes during the run. Only
    /// on a stream with inserts, and for the guards that give it without a
    /// round trip ([`Built::rate_now`]).
    pub(super) expected_false_positives: f64,
}

impl Tally {
    /// Adds `run`'s counts to these (its latencies are left out: each run's
    /// are read on their own).
    pub(super) fn add(&mut self, run: Tally) {
        self.requests += run.requests;
        self.absent_requests += run.absent_requests;
        self.false_positives += run.false_positives;
        self.db_found += run.db_found;
        self.db_not_found += run.db_not_found;
        self.cache_hits += run.cache_hits;
        self.wrong_answers += run.wrong_answers;
        self.inserts += run.inserts;
        self.new_row_requests += run.new_row_requests;
        self.found_by_delta += run.found_by_delta;
        self.expected_false_positives += run.expected_false_positives;
    }
}

/// The cache, then the database.
fn read_through(
    cache: &mut Cache,
    db: &Database,
    id: u64,
    tally: &mut Tally,
) -> Result<Option<String>, Error> {
    if let Some(row) = cache.get(id)? {
        tally.cache_hits += 1;
        return Ok(Some(row));
    }
    let row = db.get(id)?;
    match &row {
        Some(row) => {
            tally.db_found += 1;
            cache.set(id, row)?;
        }
        None => tally.db_not_found += 1,
    }
    Ok(row)
}

/// Runs the script `ops`; a rebuilt guard is rebuilt after every op
/// that completes its interval ([`Built::after_op`]), outside the
/// timed requests.
pub(super) fn run_script(
    filter: &mut Built,
    cache: &mut Cache,
    db: &Database,
    ops: &[Op],
) -> Result<Tally, Error> {
    let mut tally = Tally::default();
    let mut inserted = HashSet::new();
    // The other streams' rows take the rate at the build; some rates
    // (the blocked filter's exact one) cost too much to ask per request.
    let track_rate = ops.iter().any(|op| matches!(op, Op::Insert(_)));
    for &op in ops {
        match op {
            Op::Get { id, exists } => {
                let t = Instant::now();
                let passed = filter.contains(id)?;
                let answer = if passed {
                    read_through(cache, db, id, &mut tally)?
                } else {
                    None
                };
                tally.latencies_ns.push(t.elapsed().as_nanos() as u64);
                tally.requests += 1;
                if !exists {
                    tally.absent_requests += 1;
                    tally.false_positives += u64::from(passed);
                    if track_rate && let Some(rate) = filter.rate_now() {
                        tally.expected_false_positives += rate;
                    }
                } else {
                    tally.new_row_requests += u64::from(inserted.contains(&id));
                    tally.found_by_delta += u64::from(passed && filter.passed_by_delta());
                }
                let right = match &answer {
                    Some(row) => exists && *row == value_of(id),
                    None => !exists,
                };
                tally.wrong_answers += u64::from(!right);
            }
            Op::Delete(id) => {
                db.delete(id)?;
                cache.del(id)?;
                filter.remove(id)?;
            }
            Op::Readd(id) => {
                db.insert(id)?;
                filter.insert(id)?;
            }
            Op::Insert(id) => {
                db.insert(id)?;
                filter.insert(id)?;
                tally.inserts += 1;
                inserted.insert(id);
            }
        }
        filter.after_op(db)?;
    }
    Ok(tally)
}

/// The rows a script leaves deleted, to put back for the next guard.
pub(super) fn left_deleted(ops: &[Op]) -> Vec<u64> {
    let mut gone = BTreeSet::new();
    for op in ops {
        match *op {
            Op::Delete(id) => gone.insert(id),
            Op::Readd(id) => gone.remove(&id),
            Op::Get { .. } | Op::Insert(_) => false,
        };
    }
    gone.into_iter().collect()
}

/// The `q` quantile of sorted values (nearest rank).
pub(super) fn quantile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=1000).collect();
        assert_eq!(quantile(&v, 0.5), 500);
        assert_eq!(quantile(&v, 0.99), 990);
        assert_eq!(quantile(&v, 0.999), 999);
        assert_eq!(quantile(&[], 0.5), 0);
    }
}
