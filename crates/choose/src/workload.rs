//! The workload an engineer describes, checked, and the parsers of its numbers.

use serde::Serialize;

use super::ChooseArgs;
use super::decimal::{Decimal, Malformed};
use super::numbers::{bytes, grouped};

/// How the number of items evolves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Growth {
    /// The set holds `items` and no more.
    Fixed,
    /// The set starts at `items` and grows to `to`, a known upper bound.
    GrowsTo {
        /// The most items it will ever hold.
        to: u64,
    },
    /// The set starts at `items` and no upper bound is known.
    Unknown,
}

/// A checked workload: what `bloomlab choose` evaluates every filter against.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Workload {
    /// Items the filter holds at the start (all of them for a fixed set).
    pub items: u64,
    /// The false-positive rate tolerated, in (0, 1).
    pub fpr: f64,
    /// Items are removed as well as added.
    pub deletes: bool,
    /// How the set grows.
    pub growth: Growth,
    /// Several threads of one process insert at the same time.
    pub concurrent: bool,
    /// The set is built at once from all its items and rebuilt when it
    /// changes: no item is added to a built filter.
    pub rebuilt: bool,
    /// The most bytes the filter may take, if limited.
    pub max_memory: Option<u64>,
}

impl Workload {
    /// A fixed set of `items` at rate `fpr`, with no other requirement.
    pub fn fixed(items: u64, fpr: f64) -> Self {
        Self {
            items,
            fpr,
            deletes: false,
            growth: Growth::Fixed,
            concurrent: false,
            rebuilt: false,
            max_memory: None,
        }
    }

    /// A set of `items` at rate `fpr` built at once and rebuilt when it
    /// changes (`--static`).
    pub fn rebuilt(items: u64, fpr: f64) -> Self {
        Self {
            rebuilt: true,
            ..Self::fixed(items, fpr)
        }
    }

    /// Checks the command line.
    ///
    /// # Errors
    ///
    /// A message for a rate outside (0, 1), zero items, a growth bound below
    /// the starting size, a memory limit of zero bytes, or `--static` with
    /// a change made to a live filter (`--deletes`, `--grows-to`,
    /// `--unknown-size`, `--concurrent`).
    pub fn from_args(args: &ChooseArgs) -> Result<Self, String> {
        if !(args.fpr > 0.0 && args.fpr < 1.0) {
            return Err(format!(
                "--fpr must be a rate strictly between 0 and 1 (e.g. 0.001 or 1/1000), not {}",
                args.fpr
            ));
        }
        if args.items == 0 {
            return Err("--items must be at least 1".to_owned());
        }
        let growth = match (args.grows_to, args.unknown_size) {
            (Some(_), true) => {
                return Err("--grows-to and --unknown-size contradict each other".to_owned());
            }
            (Some(to), false) if to < args.items => {
                return Err(format!(
                    "--grows-to {to} is below --items {}: the set would shrink",
                    args.items
                ));
            }
            (Some(to), false) if to == args.items => Growth::Fixed,
            (Some(to), false) => Growth::GrowsTo { to },
            (None, true) => Growth::Unknown,
            (None, false) => Growth::Fixed,
        };
        if args.static_set {
            let live = [
                (args.deletes, "--deletes"),
                (args.grows_to.is_some(), "--grows-to"),
                (args.unknown_size, "--unknown-size"),
                (args.concurrent, "--concurrent"),
            ];
            if let Some((_, flag)) = live.iter().find(|(given, _)| *given) {
                return Err(format!(
                    "--static and {flag} contradict each other: --static says the filter is \
                     rebuilt from the whole set whenever it changes, {flag} describes changes \
                     made to a live filter"
                ));
            }
        }
        if args.max_memory == Some(0) {
            return Err("--max-memory must be at least 1 byte".to_owned());
        }
        Ok(Self {
            items: args.items,
            fpr: args.fpr,
            deletes: args.deletes,
            growth,
            concurrent: args.concurrent,
            rebuilt: args.static_set,
            max_memory: args.max_memory,
        })
    }

    /// The items a filter must hold at its fullest: the growth bound if one
    /// is given, else the starting size (an unknown growth has no such number).
    pub fn peak_items(&self) -> u64 {
        match self.growth {
            Growth::GrowsTo { to } => to,
            Growth::Fixed | Growth::Unknown => self.items,
        }
    }
}

/// Parses a count of items: digits, optionally grouped by `_` or by `,`
/// between groups of three (`100_000_000`, `100,000,000`), or a decimal
/// with a power of ten (`1e8`, `2.5e6`), read exactly: the value must be a
/// whole number of items (`1.5` and `1e-3` are refused, not rounded).
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if let Some(groups) = t.split(['.', 'e', 'E']).next()
        && groups.contains(',')
    {
        let mut parts = groups.split(',').map(|g| g.replace('_', ""));
        let first_ok = parts.next().is_some_and(|g| (1..=3).contains(&g.len()));
        if !first_ok || !parts.all(|g| g.len() == 3) || t[groups.len()..].contains(',') {
            return Err(format!(
                "'{s}' has a misplaced comma: commas only separate groups of three digits \
                 (100,000,000)"
            ));
        }
    }
    let digits: String = t.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    let count = match Decimal::parse(&digits, true) {
        Ok(d) => d.times(1),
        Err(Malformed::Negative) => {
            return Err(format!("'{s}': a number of items must not be negative"));
        }
        Err(Malformed::NotANumber) => {
            return Err(format!(
                "'{s}' is not a number of items (write 100000000, 100_000_000, 100,000,000 or 1e8)"
            ));
        }
    };
    let too_many = || {
        format!(
            "'{s}' is more items than a 64-bit count holds (at most {})",
            grouped(u64::MAX)
        )
    };
    match count {
        Some(p) if !p.is_whole() => Err(format!("'{s}' is not a whole number of items")),
        Some(p) => u64::try_from(p.whole).map_err(|_| too_many()),
        None => Err(too_many()),
    }
}

/// Parses a rate: a decimal (`0.001`, `1e-3`), a fraction `1/1000`, or a
/// percentage (`1%`, `0.1%`).
/// The range is checked by [`Workload::from_args`], with the other rules;
/// a rate is a float wherever it is used, so it is read as one, but a
/// non-zero rate too small for a float is refused rather than read as 0.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    if let Some(percent) = t.strip_suffix('%') {
        if percent.contains(['/', '%']) {
            return Err(bad_rate(s));
        }
        return parse_rate(percent.trim_end()).map(|p| p / 100.0);
    }
    let (num, den) = t.split_once('/').unwrap_or((t, "1"));
    let parse = |x: &str| x.trim().parse::<f64>().map_err(|_| bad_rate(s));
    let value = parse(num)? / parse(den)?;
    // The numerator's digits before any exponent: not all zeros means the
    // rate written is not zero, whatever the float makes of it.
    let mantissa = num.split(['e', 'E']).next().unwrap_or_default();
    let written_non_zero = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
    if value.is_nan() {
        return Err(bad_rate(s));
    }
    if value == 0.0 && written_non_zero {
        return Err(format!(
            "'{s}' is too close to 0 for a 64-bit float (the smallest is {:e})",
            f64::from_bits(1)
        ));
    }
    Ok(value)
}

fn bad_rate(s: &str) -> String {
    format!("'{s}' is not a rate (write 0.001, 1e-3, 1/1000 or 0.1%)")
}

/// Units of [`parse_bytes`] and their sizes, in the order its messages list them.
const BYTE_UNITS: [(&str, u64); 9] = [
    ("B", 1),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];

/// Where the number at the start of `t` ends: digits, `_` and `.`, then an
/// exponent (`e3`, `E-2`) if digits follow its `e`, as in a count.
fn number_end(t: &str) -> usize {
    let mantissa = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let rest = &t[mantissa..];
    let Some(power) = rest.strip_prefix(['e', 'E']) else {
        return mantissa;
    };
    let signed = power.strip_prefix(['-', '+']).unwrap_or(power);
    let digits = signed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(signed.len());
    if digits == 0 {
        return mantissa;
    }
    t.len() - (signed.len() - digits)
}

/// Parses a size in bytes: a decimal number (`1.5`, `2e9`) with an optional unit, decimal
/// (`kB`, `MB`, `GB`, `TB`: powers of 1000; `k`, `M`, `G`, `T` for short)
/// or binary (`KiB`, `MiB`, `GiB`, `TiB`: powers of 1024),
/// case-insensitive, e.g. `64MiB`, `1.5GB`, `200000`.
///
/// The number is read digit by digit and multiplied exactly (`4.1GB` is
/// 4,100,000,000 bytes): a size that is not a whole number of bytes
/// (`1.0000000000000000001GB`, `0.3B`) is refused, never rounded.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if let Some(rest) = t.strip_prefix('-') {
        return Err(
            if rest.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                format!("'{s}': a size must not be negative")
            } else {
                format!("'{s}' is not a size in bytes (e.g. 200000000, 64MiB, 1.5GB)")
            },
        );
    }
    let split = number_end(t);
    let (number, unit) = t.split_at(split);
    let number: String = number.chars().filter(|&c| c != '_').collect();
    let unit = unit.trim();
    let short = |u: &str| u.len() == 2 && u.ends_with('B') && u != "B";
    let scale = BYTE_UNITS
        .iter()
        .find(|(name, _)| {
            name.eq_ignore_ascii_case(unit) || (short(name) && name[..1].eq_ignore_ascii_case(unit))
        })
        .map(|&(_, scale)| scale)
        .or(unit.is_empty().then_some(1));
    let Some(scale) = scale else {
        let names: Vec<&str> = BYTE_UNITS.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "'{s}': unknown unit '{unit}' (use {} or {})",
            names[..names.len() - 1].join(", "),
            names[names.len() - 1]
        ));
    };
    let product = Decimal::parse(&number, true)
        .map_err(|_| format!("'{s}' is not a size in bytes (e.g. 200000000, 64MiB, 1.5GB)"))?;
    let too_large = || {
        format!(
            "'{s}' is more bytes than a 64-bit count holds (at most {} bytes, about {})",
            grouped(u64::MAX),
            bytes(u64::MAX)
        )
    };
    match product.times(scale) {
        Some(p) if !p.is_whole() => Err(format!(
            "'{s}' is not a whole number of bytes: it is {} bytes",
            p.written()
        )),
        Some(p) => u64::try_from(p.whole).map_err(|_| too_large()),
        None => Err(too_large()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(items: u64, fpr: f64) -> ChooseArgs {
        ChooseArgs {
            items,
            fpr,
            deletes: false,
            grows_to: None,
            unknown_size: false,
            concurrent: false,
            static_set: false,
            max_memory: None,
            shared: false,
            java: false,
            json: false,
        }
    }

    #[test]
    fn static_refuses_changes_to_a_live_filter() {
        let w = Workload::from_args(&ChooseArgs {
            static_set: true,
            ..args(1_000, 0.01)
        })
        .unwrap();
        assert_eq!(w, Workload::rebuilt(1_000, 0.01));
        type Set = fn(&mut ChooseArgs);
        let live: [(&str, Set); 4] = [
            ("--deletes", |a| a.deletes = true),
            ("--grows-to", |a| a.grows_to = Some(2_000)),
            ("--unknown-size", |a| a.unknown_size = true),
            ("--concurrent", |a| a.concurrent = true),
        ];
        for (flag, set) in live {
            let mut a = ChooseArgs {
                static_set: true,
                ..args(1_000, 0.01)
            };
            set(&mut a);
            let err = Workload::from_args(&a).unwrap_err();
            assert!(
                err.starts_with(&format!("--static and {flag} contradict")),
                "{err}"
            );
        }
    }

    /// Checks that `parse` reads each input of `cases` as its value.
    fn reads<T: PartialEq + std::fmt::Debug>(
        parse: fn(&str) -> Result<T, String>,
        cases: &[(&str, T)],
    ) {
        for (text, value) in cases {
            assert_eq!(parse(text).as_ref(), Ok(value), "{text}");
        }
    }

    /// Checks that `parse` refuses every input of `cases` with an error
    /// that contains its message.
    fn refuses<T: std::fmt::Debug>(
        parse: fn(&str) -> Result<T, String>,
        cases: &[(&str, &[&str])],
    ) {
        for (message, inputs) in cases {
            for bad in *inputs {
                let e = parse(bad).unwrap_err();
                assert!(e.contains(message), "{bad}: {e}");
            }
        }
    }

    #[test]
    fn counts() {
        reads(
            parse_count,
            &[
                ("1000", 1_000),
                ("100_000_000", 100_000_000),
                ("100,000,000", 100_000_000),
                ("1e8", 100_000_000),
                ("3e2", 300),
                ("1e12", 1_000_000_000_000),
                ("1e19", 10_000_000_000_000_000_000),
                ("2.5e6", 2_500_000),
                ("2000e-3", 2),
                (&u64::MAX.to_string(), u64::MAX),
                ("0", 0), // refused later, with the other rules
            ],
        );
        for bad in ["1.5", "1e-3", "2.25e1", "0.5", "1500e-3"] {
            let e = parse_count(bad).unwrap_err();
            assert!(e.ends_with("is not a whole number of items"), "{bad}: {e}");
        }
        refuses(
            parse_count,
            &[
                (
                    "is not a number of items",
                    &["", "ten", "1e", "e5", "1.2.3", "1e3.5"],
                ),
                (
                    "more items than a 64-bit count holds",
                    &["1e30", "99999999999999999999", "18446744073709551616"],
                ),
                ("must not be negative", &["-5", "-1e3", "-0"]),
                (
                    "misplaced comma",
                    &["1,5", "1,0000", ",100", "1000,000", "1,000.5,0"],
                ),
            ],
        );
    }

    #[test]
    fn rates() {
        reads(
            parse_rate,
            &[
                ("0.001", 0.001),
                ("1e-4", 1e-4),
                ("1/10000", 1e-4),
                ("1.5", 1.5), // out of range, refused by from_args
                ("0", 0.0),   // likewise
                ("5e-324", f64::from_bits(1)),
                ("1%", 0.01),
                ("0.1 %", 0.001),
                ("1e-2%", 1e-4),
            ],
        );
        for bad in ["", "abc", "1/x", "NaN", "0/0", "%", "1%%", "1/2%", "1%0"] {
            assert!(parse_rate(bad).unwrap_err().contains("not a rate"), "{bad}");
        }
        // Below the smallest float: refused for what it is, not read as 0.
        let tiny: &[&str] = &["1e-400", "0.00001e-320", "1/1e400"];
        refuses(parse_rate, &[("too close to 0", tiny)]);
    }

    #[test]
    fn byte_sizes() {
        reads(
            parse_bytes,
            &[
                ("200000000", 200_000_000),
                ("64MiB", 64 << 20),
                ("64 mib", 64 << 20),
                ("1GB", 1_000_000_000),
                ("1g", 1_000_000_000),
                ("1.5GB", 1_500_000_000),
                ("2KiB", 2_048),
                ("2KB", 2_000),
                ("10B", 10),
                ("1_000", 1_000),
                (".5KiB", 512),
                ("3.TB", 3_000_000_000_000),
                ("1e3", 1_000),
                ("1e9", 1_000_000_000),
                ("1.5e3kB", 1_500_000),
                ("2E+2 MiB", 200 << 20),
            ],
        );
        for bad in [
            "", "MB", "1.2.3MB", ".", "1e", "+1", "--json", "1 000", "e9",
        ] {
            let e = parse_bytes(bad).unwrap_err();
            assert!(
                e.contains("is not a size in bytes") || e.contains("unknown unit"),
                "{bad}: {e}"
            );
        }
        let e = parse_bytes("12XB").unwrap_err();
        assert!(
            e.contains("unknown unit 'XB' (use B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)"),
            "{e}"
        );
        refuses(
            parse_bytes,
            &[
                ("must not be negative", &["-1", "-64MiB", "-0.5GB", "-.5"]),
                (
                    "more bytes than a 64-bit count holds",
                    &["20000000000TB", "16777216TiB", "18446744073709551616"],
                ),
            ],
        );
        assert_eq!(parse_bytes("18446744073709551615"), Ok(u64::MAX));
    }

    /// The sizes a float multiplication refused (4.1 × 10^9 is
    /// 4099999999.9999995 as a double) or rounded.
    #[test]
    fn byte_sizes_are_exact() {
        reads(
            parse_bytes,
            &[
                ("4.1GB", 4_100_000_000),
                ("8.2GB", 8_200_000_000),
                ("1.005kB", 1_005),
            ],
        );
        assert_eq!(
            parse_bytes("0.1TiB"),
            Err("'0.1TiB' is not a whole number of bytes: it is 109951162777.6 bytes".to_owned())
        );
        assert_eq!(
            parse_bytes("1.0000000000000000001GB"),
            Err("'1.0000000000000000001GB' is not a whole number of bytes: \
                 it is 1000000000.0000000001 bytes"
                .to_owned())
        );
        let fractions: &[&str] = &["1.5", "0.3B", "1.0001kB", "0.0000000001GB"];
        refuses(
            parse_bytes,
            &[("is not a whole number of bytes", fractions)],
        );
        // 2^-40 TiB is one byte.
        assert_eq!(
            parse_bytes("0.0000000000009094947017729282379150390625TiB"),
            Ok(1)
        );
        // Every two-decimal size from 0.01GB to 9.99GB, in exact integers.
        for hundredths in 1u64..=999 {
            let text = format!("{}.{:02}GB", hundredths / 100, hundredths % 100);
            assert_eq!(parse_bytes(&text), Ok(hundredths * 10_000_000), "{text}");
        }
        // Thousandths of a GiB: whole exactly when 1000 divides n · 2^30.
        for n in 1u64..=4096 {
            let text = format!("{}.{:03}GiB", n / 1000, n % 1000);
            let bytes = n << 30;
            let expected = if bytes % 1000 == 0 {
                Ok(bytes / 1000)
            } else {
                Err(format!(
                    "'{text}' is not a whole number of bytes: it is {}.{} bytes",
                    bytes / 1000,
                    format!("{:03}", bytes % 1000).trim_end_matches('0')
                ))
            };
            assert_eq!(parse_bytes(&text), expected);
        }
    }

    #[test]
    fn rate_outside_the_open_interval_is_refused() {
        for p in [0.0, 1.0, -0.1, 1.5, f64::INFINITY, f64::NAN] {
            let e = Workload::from_args(&args(10, p)).unwrap_err();
            assert!(e.contains("--fpr"), "{e}");
        }
    }

    #[test]
    fn zero_items_is_refused() {
        let e = Workload::from_args(&args(0, 0.01)).unwrap_err();
        assert!(e.contains("--items"), "{e}");
    }

    #[test]
    fn growth_rules() {
        let mut a = args(1_000, 0.01);
        a.grows_to = Some(999);
        assert!(Workload::from_args(&a).unwrap_err().contains("below"));
        a.grows_to = Some(1_000);
        assert_eq!(Workload::from_args(&a).unwrap().growth, Growth::Fixed);
        a.grows_to = Some(5_000);
        let w = Workload::from_args(&a).unwrap();
        assert_eq!(w.growth, Growth::GrowsTo { to: 5_000 });
        assert_eq!(w.peak_items(), 5_000);
        a.unknown_size = true;
        assert!(Workload::from_args(&a).unwrap_err().contains("contradict"));
        a.grows_to = None;
        assert_eq!(Workload::from_args(&a).unwrap().growth, Growth::Unknown);
    }

    #[test]
    fn zero_memory_is_refused() {
        let mut a = args(1_000, 0.01);
        a.max_memory = Some(0);
        assert!(
            Workload::from_args(&a)
                .unwrap_err()
                .contains("--max-memory")
        );
    }
}
