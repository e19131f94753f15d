//! Rows of the table: a measured rate with its interval, theory and fit, and
//! the claim it supports.

use super::*;

/// A measured false-positive rate and the theory it is checked against.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rate {
    pub(super) m: u64,
    pub(super) k: u32,
    pub(super) n: u64,
    /// The document's own probe set, where it has one: (probes, false positives).
    pub(super) doc: Option<(u64, u64)>,
    pub(super) probes: u64,
    pub(super) fp: u64,
    /// The average rate over tables of these parameters.
    pub(super) theory: f64,
    /// Bits set in this table, where it is a plain table of `m` bits.
    pub(super) ones: Option<u64>,
    /// This table's rate if the probes' positions were uniform, where the
    /// positions are known.
    pub(super) uniform: Option<Uniform>,
}

/// The rate a table of fill `X/m` gives probes whose positions are uniform
/// but not necessarily distinct: the mean over the probes of `(X/m)^d`, `d`
/// the number of distinct positions of the probe. Double hashing can give an
/// item fewer than `k` distinct positions; such an item passes far more often.
#[derive(Debug, Clone, Copy)]
pub(super) struct Uniform {
    pub(super) rate: f64,
    /// Probes with fewer than `k` distinct positions.
    pub(super) repeats: u64,
}

/// [`Uniform`] over `items`, whose positions `locate` writes.
pub(super) fn uniform<I>(
    fill: f64,
    k: u32,
    items: impl Iterator<Item = I>,
    mut locate: impl FnMut(&I, &mut Vec<u64>),
) -> Uniform {
    let mut pos = Vec::new();
    let (mut sum, mut count, mut repeats) = (0.0, 0u64, 0u64);
    for item in items {
        pos.clear();
        locate(&item, &mut pos);
        pos.sort_unstable();
        pos.dedup();
        let d = pos.len() as i32;
        sum += fill.powi(d);
        count += 1;
        repeats += u64::from((d as u32) < k);
    }
    Uniform {
        rate: if count == 0 {
            f64::NAN
        } else {
            sum / count as f64
        },
        repeats,
    }
}

/// The strings `range` of `keys`.
pub(crate) fn strings(keys: Keys, range: Range<u64>) -> impl Iterator<Item = String> {
    range.map(move |i| {
        let mut s = String::new();
        keys.write(i, &mut s);
        s
    })
}

impl Rate {
    pub(super) fn new(m: u64, k: u32, n: u64, probes: u64, fp: u64) -> Self {
        Self {
            m,
            k,
            n,
            doc: None,
            probes,
            fp,
            theory: theory::classic::fpr(m as f64, n as f64, f64::from(k)),
            ones: None,
            uniform: None,
        }
    }

    pub(super) fn with_doc(mut self, probes: u64, fp: u64) -> Self {
        self.doc = Some((probes, fp));
        self
    }

    pub(super) fn with_ones(mut self, ones: u64) -> Self {
        self.ones = Some(ones);
        self
    }

    /// This table's fill, `X/m`.
    pub(super) fn fill(&self) -> Option<f64> {
        self.ones.map(|x| x as f64 / self.m as f64)
    }

    /// This table's fill and the average table's, `1 − e^{−kn/m}`.
    pub(super) fn fills(&self) -> (f64, f64) {
        let (m, n, k) = (self.m as f64, self.n as f64, f64::from(self.k));
        (
            self.fill().unwrap_or(f64::NAN),
            theory::classic::expected_fill(m, n, k),
        )
    }

    pub(super) fn measured(&self) -> f64 {
        self.fp as f64 / self.probes as f64
    }

    fn hits(&self) -> Hits {
        Hits {
            hits: self.fp,
            trials: self.probes,
        }
    }

    pub(super) fn ci(&self) -> (f64, f64) {
        self.hits().interval()
    }

    pub(super) fn inside(&self) -> bool {
        self.hits().holds(self.theory)
    }

    /// The rate of this very table if its probes' positions are uniform:
    /// the [`Uniform`] rate where the positions are known, else `(X/m)^k`
    /// ([`theory::classic::fpr_from_fill`]).
    pub(super) fn at_fill(&self) -> Option<f64> {
        match self.uniform {
            Some(u) => Some(u.rate),
            None => self
                .fill()
                .map(|f| theory::classic::fpr_from_fill(f, f64::from(self.k))),
        }
    }

    pub(super) fn at_fill_inside(&self) -> Option<bool> {
        self.at_fill().map(|t| self.hits().holds(t))
    }

    /// How far this table's bits set are from the average table's, in
    /// standard deviations of the occupancy distribution.
    pub(super) fn fill_z(&self) -> Option<f64> {
        let (mean, sd) =
            theory::classic::occupancy(self.m as f64, f64::from(self.k) * self.n as f64);
        self.ones.map(|x| (x as f64 - mean) / sd)
    }

    /// Whether the count lies inside the 99.9% binomial range of theory or
    /// of this table's own rate: a miss of the 95% interval that chance
    /// alone explains often enough (one row in twenty misses it by chance).
    pub(super) fn within_chance(&self) -> bool {
        [Some(self.theory), self.at_fill()]
            .into_iter()
            .flatten()
            .filter(|p| *p > 0.0 && *p < 1.0)
            .any(|p| self.hits().within_chance(p))
    }

    pub(super) fn fit(&self) -> Fit {
        if self.inside() {
            Fit::Theory
        } else if self.at_fill_inside() == Some(true) {
            // Bits set outside the 99.9% occupancy range: the members' own
            // positions are not uniform, whatever the probes do.
            if self
                .fill_z()
                .is_none_or(|z| z.abs() <= Normal::standard().inverse_cdf(0.9995))
            {
                Fit::Table
            } else {
                Fit::Fill
            }
        } else if self.within_chance() {
            Fit::Chance
        } else {
            Fit::Off
        }
    }

    /// Theory, or this table's own rate, inside the interval or within chance.
    pub(super) fn consistent(&self) -> bool {
        self.fit() != Fit::Off
    }

    /// "1.02e-3 [9.6e-4; 1.1e-3]".
    pub(super) fn interval(&self) -> String {
        let (lo, hi) = self.ci();
        format!("{} [{}; {}]", sci(self.measured()), sci(lo), sci(hi))
    }

    /// "10000 probes: 1.02e-3 [9.6e-4; 1.1e-3]".
    pub(super) fn probed(&self) -> String {
        format!("{} probes: {}", self.probes, self.interval())
    }

    /// The verdict on the rate: holds, holds within chance, or does not
    /// hold, and by how much.
    pub(super) fn verdict(&self) -> String {
        format!("{}: {}", self.word(), self.against_theory())
    }

    /// The verdict in its words alone: holds, holds within chance, or does
    /// not hold.
    pub(super) fn word(&self) -> &'static str {
        self.fit().word()
    }

    /// "1.01e-2 vs 1.00e-2": measured against theory, for the summary.
    pub(super) fn versus(&self) -> String {
        format!("{} vs {}", sci(self.measured()), sci(self.theory))
    }

    /// How the measurement stands against theory and this table's own rate.
    pub(super) fn against_theory(&self) -> String {
        let dev = format!(
            "measured {:+.1}% against theory",
            (self.measured() / self.theory - 1.0) * 100.0
        );
        let repeats = match self.uniform {
            Some(u) if u.repeats > 0 => {
                format!(
                    "; {} probes with fewer than k distinct positions",
                    u.repeats
                )
            }
            _ => String::new(),
        };
        let why = |z: f64| format!("{z:+.1} sd bits set against the average table{repeats}");
        match (self.fit(), self.at_fill(), self.fill_z()) {
            (Fit::Theory, _, _) => format!("theory {INSIDE}"),
            (Fit::Table, Some(t), Some(z)) => format!(
                "{dev}; this table's own rate {} is inside the 95% interval ({})",
                sci(t),
                why(z)
            ),
            (Fit::Fill, Some(t), Some(z)) => format!(
                "{dev}; the probes pass as this table's own rate {} predicts but the members set {z:+.1} sd bits against the average table: their positions collide",
                sci(t)
            ),
            (Fit::Chance, _, _) => format!("{dev}; {CHANCE} at this many probes"),
            (Fit::Off, Some(t), Some(z)) => format!(
                "{dev}; outside even the 99.9% range and so is this table's own rate {} ({}): the positions are not uniform",
                sci(t),
                why(z)
            ),
            _ => format!("{dev}; {OFF}"),
        }
    }
}

/// How a measured rate stands; worse is larger: holds, holds within
/// chance, does not hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Fit {
    /// Theory inside the 95% interval.
    Theory,
    /// This table's own rate inside the 95% interval.
    Table,
    /// Outside the 95% interval, inside the 99.9% binomial range.
    Chance,
    /// This table's own rate inside the 95% interval, but the table's bits
    /// set outside the 99.9% occupancy range.
    Fill,
    /// Outside the 99.9% range too.
    Off,
}

impl Fit {
    /// The verdict's words.
    pub(super) fn word(self) -> &'static str {
        match self {
            Fit::Theory | Fit::Table => "holds",
            Fit::Chance => "holds within chance",
            Fit::Fill | Fit::Off => "does not hold",
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Fit::Theory => "theory",
            Fit::Table => "this table",
            Fit::Fill => "members collide",
            Fit::Chance => "within chance",
            Fit::Off => "off",
        }
    }
}

/// The weakest verdict of `rates`: one row that does not hold makes the
/// claim not hold.
pub(super) fn weakest(rates: &[Rate]) -> &'static str {
    rates
        .iter()
        .map(Rate::fit)
        .max()
        .map_or("not run", Fit::word)
}

/// The verdicts of rates on several kinds of key, grouped:
/// "holds on random addresses; does not hold on decimal strings".
pub(super) fn by_kind(rows: &[(&str, Rate)]) -> String {
    let mut groups: Vec<(&'static str, Vec<&str>)> = Vec::new();
    for (what, r) in rows {
        match groups.iter_mut().find(|(w, _)| *w == r.word()) {
            Some((_, whats)) => whats.push(what),
            None => groups.push((r.word(), vec![what])),
        }
    }
    if let [(word, _)] = groups.as_slice() {
        return (*word).to_string();
    }
    groups
        .iter()
        .map(|(word, whats)| format!("{word} on {}", whats.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// One row of the table: a claim and what became of it.
#[derive(Debug, Clone)]
pub(super) struct Claim {
    pub(super) id: &'static str,
    pub(super) subject: String,
    pub(super) doc: String,
    pub(super) theory: String,
    pub(super) measured: String,
    pub(super) verdict: String,
    pub(super) rate: Option<Rate>,
    /// A sentence for the notes under the tables.
    pub(super) note: Option<String>,
    /// The claim's line in the summary table, on one row per id.
    pub(super) gist: Option<Gist>,
}

/// A claim's verdict in a few words and its key number, for the summary
/// table of the report: one per claim id, over all of its rows.
#[derive(Debug, Clone)]
pub(super) struct Gist {
    pub(super) verdict: String,
    pub(super) key: String,
}

impl Claim {
    pub(super) fn new(id: &'static str, subject: impl Into<String>) -> Self {
        Self {
            id,
            subject: subject.into(),
            doc: String::new(),
            theory: String::new(),
            measured: String::new(),
            verdict: String::new(),
            rate: None,
            note: None,
            gist: None,
        }
    }
    /// The summary line of this claim id: its verdict and its key number.
    pub(super) fn gist(mut self, verdict: impl Into<String>, key: impl Into<String>) -> Self {
        self.gist = Some(Gist {
            verdict: verdict.into(),
            key: key.into(),
        });
        self
    }
    pub(super) fn note(mut self, s: impl Into<String>) -> Self {
        self.note = Some(s.into());
        self
    }
    pub(super) fn doc(mut self, s: impl Into<String>) -> Self {
        self.doc = s.into();
        self
    }
    pub(super) fn theory(mut self, s: impl Into<String>) -> Self {
        self.theory = s.into();
        self
    }
    pub(super) fn measured(mut self, s: impl Into<String>) -> Self {
        self.measured = s.into();
        self
    }
    pub(super) fn verdict(mut self, s: impl Into<String>) -> Self {
        self.verdict = s.into();
        self
    }
    /// A row on `r` alone: theory at its `m` and `k`, the measured
    /// interval, and the verdict.
    pub(super) fn plain(id: &'static str, subject: impl Into<String>, doc: &str, r: Rate) -> Self {
        Claim::new(id, subject)
            .doc(doc)
            .theory(format!("m={} k={}: {}", r.m, r.k, sci(r.theory)))
            .measured(r.probed())
            .verdict(r.verdict())
            .rate(r)
    }
    pub(super) fn rate(mut self, r: Rate) -> Self {
        self.rate = Some(r);
        self
    }
}

/// Gives the first of `rows` of claim `id` the claim's summary line: its
/// verdict and its key number.
pub(super) fn set_gist(
    rows: &mut [Claim],
    id: &str,
    verdict: impl Into<String>,
    key: impl Into<String>,
) {
    if let Some(first) = rows.iter_mut().find(|c| c.id == id) {
        first.gist = Some(Gist {
            verdict: verdict.into(),
            key: key.into(),
        });
    }
}

/// Three significant digits in scientific notation: `5.73e-4`.
pub(super) fn sci(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.2e}")
    }
}

/// A ratio with two significant decimals: `5.73`.
pub(super) fn ratio(x: f64) -> String {
    format!("{x:.2}")
}

/// A CSV-safe cell: the table forbids commas, quotes and newlines.
pub(super) fn cell(s: &str) -> String {
    s.replace(',', ";").replace(['"', '\n'], " ")
}

pub(super) fn holds(b: bool) -> &'static str {
    if b { "holds" } else { "does not hold" }
}

/// The part of a run that needs a seed of its own.
pub(super) fn seed_of(ctx: &Ctx, part: &str) -> u64 {
    sub_seed(ctx.seed, &format!("seeds/{part}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_verdicts_follow_the_intervals() {
        // 100 of 10,000 at theory 1%: inside.
        let r = Rate::new(959_296, 7, 100_000, 10_000, 100);
        assert_eq!(r.fit(), Fit::Theory);
        // 160 of 10,000 against 1%: 6 sd away, outside the 99.9% range.
        let r = Rate::new(959_296, 7, 100_000, 10_000, 160);
        assert_eq!(r.fit(), Fit::Off);
        assert!(r.verdict().starts_with("does not hold"));
        // 121 of 10,000: outside the 95% interval, inside the 99.9% range.
        let r = Rate::new(959_296, 7, 100_000, 10_000, 121);
        assert!(!r.inside());
        assert_eq!(r.fit(), Fit::Chance);
        // E4's small table (m = 14,400, k = 7, n = 1,500): one with 2 sd more
        // bits set than the average table has a rate 6% higher, which a
        // million probes tell from theory; its own rate explains the count.
        let (m, k, n, probes) = (14_400u64, 7u32, 1_500u64, 1_000_000u64);
        let (mean, sd) = theory::classic::occupancy(m as f64, f64::from(k) * n as f64);
        let at = |ones: f64| (ones / m as f64).powi(k as i32);
        let ones = mean + 2.0 * sd;
        let fp = (at(ones) * probes as f64).round() as u64;
        let r = Rate::new(m, k, n, probes, fp).with_ones(ones as u64);
        assert!(!r.inside());
        assert_eq!(r.fit(), Fit::Table, "{:?}", r.at_fill());
        assert!(r.verdict().starts_with("holds"));
        // 20 sd more bits set: far outside the occupancy range, so the
        // members collide, even though probes pass as the fill predicts.
        let ones = mean + 20.0 * sd;
        let fp = (at(ones) * probes as f64).round() as u64;
        let r = Rate::new(m, k, n, probes, fp).with_ones(ones as u64);
        assert_eq!(r.fit(), Fit::Fill);
        assert!(r.verdict().starts_with("does not hold"));
    }

    #[test]
    fn summaries_keep_the_weakest_verdict_and_name_the_keys() {
        let holds = Rate::new(959_296, 7, 100_000, 10_000, 100);
        let chance = Rate::new(959_296, 7, 100_000, 10_000, 121);
        let off = Rate::new(959_296, 7, 100_000, 10_000, 160);
        assert_eq!(weakest(&[holds, chance]), "holds within chance");
        assert_eq!(weakest(&[holds, off, chance]), "does not hold");
        assert_eq!(weakest(&[]), "not run");
        assert_eq!(by_kind(&[("a", holds), ("b", holds)]), "holds");
        assert_eq!(
            by_kind(&[("a", holds), ("b", off), ("c", holds)]),
            "holds on a, c; does not hold on b"
        );
    }

    #[test]
    fn uniform_rate_counts_repeated_positions() {
        // Two probes at fill 1/2 and k = 3: one with three distinct positions
        // (1/8), one whose positions coincide twice (1/2): mean 5/16.
        let u = uniform(
            0.5,
            3,
            [vec![1, 2, 3], vec![4, 4, 4]].into_iter(),
            |p, out| out.extend(p),
        );
        assert_eq!(u.repeats, 1);
        assert!((u.rate - 5.0 / 16.0).abs() < 1e-12);
    }
}
