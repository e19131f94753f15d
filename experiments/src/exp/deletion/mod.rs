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

use bloomlab::theory;
use bloomlab_lab::keys::{self, members, probes};
use rand::Rng;

use super::{Ctx, Error, Output, sub_seed};
use crate::plot as chart;
use crate::progress;
use crate::report::Section;
use crate::scale::Scale;
use crate::table::{Hits, Table, fixed, markdown, markdown_records, or_empty, rate, yes_no};

mod churn;
mod overfill;
mod peer;
mod report;
mod rows;
mod saturation;
mod wrongful;

use churn::*;
use overfill::*;
use peer::{Insert, Kind, Size, Subject, param, params};
use report::*;
use rows::*;
use saturation::*;
use wrongful::*;

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

/// The seed of `path` in this experiment (`deletion/{path}`).
fn seed(ctx: &Ctx, path: &str) -> u64 {
    sub_seed(ctx.seed, &format!("deletion/{path}"))
}

/// A chart's label for `kind`, saying what is `unseeded` about the crate's.
fn label(kind: Kind, unseeded: &str) -> String {
    if kind.seeded() {
        kind.name()
    } else {
        format!("{} ({unseeded})", kind.name())
    }
}

/// Runs the experiment: `deletion.csv`, `deletion_wrongful.svg`,
/// `deletion_overfill.svg`.
pub fn run(ctx: &Ctx) -> Result<Output, Error> {
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

    let table = Table::from_records(rows.iter().map(Row::cells));
    let paired = Kind::paired(ctx.catalog)?;
    let body = body(paired, &rows, ctx.scale, capacity, slots);
    let section = Section::new("Deletion: what the counting and cuckoo filters lose", body);
    let appendix = appendix(&rows, &crate_runs, slots);
    let wrongful_svg = chart::draw_panels("deletion_wrongful.svg", &wrongful_chart)?;
    let overfill_svg = chart::draw("deletion_overfill.svg", &overfill_chart)?;
    Ok(Output::new(section)
        .appendix(appendix)
        .table("deletion.csv", table)
        .chart("deletion_wrongful.svg", wrongful_svg)
        .chart("deletion_overfill.svg", overfill_svg))
}
