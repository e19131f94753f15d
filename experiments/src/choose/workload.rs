//! The workload an engineer describes, checked, and the parsers of its numbers.

use serde::Serialize;

use super::ChooseArgs;

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
            max_memory: None,
        }
    }

    /// Checks the command line.
    ///
    /// # Errors
    ///
    /// A message for a rate outside (0, 1), zero items, a growth bound below
    /// the starting size, or a memory limit of zero bytes.
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
        if args.max_memory == Some(0) {
            return Err("--max-memory must be at least 1 byte".to_owned());
        }
        Ok(Self {
            items: args.items,
            fpr: args.fpr,
            deletes: args.deletes,
            growth,
            concurrent: args.concurrent,
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

/// Parses a count of items: digits, optionally grouped by `_` or `,`
/// (`100_000_000`, `100,000,000`), or a power of ten written `1e8`.
pub fn parse_count(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if let Some((mantissa, exponent)) = t.split_once(['e', 'E']) {
        let m: u64 = mantissa
            .parse()
            .map_err(|_| format!("'{s}' is not a whole number of items"))?;
        let e: u32 = exponent
            .parse()
            .map_err(|_| format!("'{s}' is not a whole number of items"))?;
        return 10u64
            .checked_pow(e)
            .and_then(|p| p.checked_mul(m))
            .ok_or_else(|| format!("'{s}' is more items than a 64-bit count holds"));
    }
    let digits: String = t.chars().filter(|c| !matches!(c, '_' | ',')).collect();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{s}' is not a whole number of items"));
    }
    digits
        .parse()
        .map_err(|_| format!("'{s}' is more items than a 64-bit count holds"))
}

/// Parses a rate: a decimal (`0.001`, `1e-3`) or a fraction `1/1000`.
/// The range is checked by [`Workload::from_args`], with the other rules.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let value = match t.split_once('/') {
        Some((num, den)) => {
            let num: f64 = num.trim().parse().map_err(|_| bad_rate(s))?;
            let den: f64 = den.trim().parse().map_err(|_| bad_rate(s))?;
            num / den
        }
        None => t.parse().map_err(|_| bad_rate(s))?,
    };
    if value.is_nan() {
        return Err(bad_rate(s));
    }
    Ok(value)
}

fn bad_rate(s: &str) -> String {
    format!("'{s}' is not a rate (write 0.001, 1e-3 or 1/1000)")
}

/// Parses a size in bytes: a whole number with an optional unit, decimal
/// (`kB`, `MB`, `GB`, `TB`: powers of 1000) or binary (`KiB`, `MiB`, `GiB`,
/// `TiB`: powers of 1024), case-insensitive, e.g. `64MiB`, `1.5GB`, `200000`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: String = number.chars().filter(|&c| c != '_').collect();
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "t" | "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        other => {
            return Err(format!(
                "'{s}': unknown unit '{other}' (use B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)"
            ));
        }
    };
    let bad = || format!("'{s}' is not a size in bytes (e.g. 200000000, 64MiB, 1.5GB)");
    if number.is_empty() {
        return Err(bad());
    }
    if let Some((whole, frac)) = number.split_once('.') {
        if frac.contains('.') || (whole.is_empty() && frac.is_empty()) {
            return Err(bad());
        }
        let value: f64 = number.parse().map_err(|_| bad())?;
        let bytes = value * scale as f64;
        if bytes.fract() != 0.0 {
            return Err(format!("'{s}' is not a whole number of bytes"));
        }
        if bytes >= u64::MAX as f64 {
            return Err(format!("'{s}' is more bytes than a 64-bit count holds"));
        }
        return Ok(bytes as u64);
    }
    let value: u64 = number.parse().map_err(|_| bad())?;
    value
        .checked_mul(scale)
        .ok_or_else(|| format!("'{s}' is more bytes than a 64-bit count holds"))
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
            max_memory: None,
            json: false,
        }
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("1000"), Ok(1_000));
        assert_eq!(parse_count("100_000_000"), Ok(100_000_000));
        assert_eq!(parse_count("100,000,000"), Ok(100_000_000));
        assert_eq!(parse_count("1e8"), Ok(100_000_000));
        assert_eq!(parse_count("3e2"), Ok(300));
        assert_eq!(parse_count("0"), Ok(0)); // refused later, with the other rules
        for bad in [
            "",
            "-5",
            "1.5",
            "ten",
            "1e",
            "1e-3",
            "1e30",
            "99999999999999999999",
        ] {
            assert!(parse_count(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate("0.001"), Ok(0.001));
        assert_eq!(parse_rate("1e-4"), Ok(1e-4));
        assert_eq!(parse_rate("1/10000"), Ok(1e-4));
        assert_eq!(parse_rate("1.5"), Ok(1.5)); // out of range, refused by from_args
        for bad in ["", "abc", "1/x", "NaN", "0/0"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn byte_sizes() {
        assert_eq!(parse_bytes("200000000"), Ok(200_000_000));
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("64 mib"), Ok(64 << 20));
        assert_eq!(parse_bytes("1GB"), Ok(1_000_000_000));
        assert_eq!(parse_bytes("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_bytes("2KiB"), Ok(2_048));
        assert_eq!(parse_bytes("10B"), Ok(10));
        assert_eq!(parse_bytes("1_000"), Ok(1_000));
        for bad in [
            "",
            "MB",
            "12XB",
            "-1",
            "1.5",
            "0.3B",
            "1.2.3MB",
            "20000000000TB",
            ".",
        ] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
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
