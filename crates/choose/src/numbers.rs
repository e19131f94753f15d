//! How `choose` writes numbers for people: grouped digits, byte sizes, rates.

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 item`, `1,000 items`.
pub fn items(n: u64) -> String {
    if n == 1 {
        "1 item".to_owned()
    } else {
        format!("{} items", grouped(n))
    }
}

/// A byte count in decimal units, as the documents count them (200 MB is
/// 200,000,000 bytes): `1.8 kB`, `239.6 MB`; exact below 1,000.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 6] = ["kB", "MB", "GB", "TB", "PB", "EB"];
    if n < 1_000 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1_000.0;
    let mut unit = 0;
    while value >= 999.95 && unit + 1 < UNITS.len() {
        value /= 1_000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// A rate with three significant digits and, for rates below 1%, its
/// "one in N" reading: `1.00e-4 (1 in 10,000)`.
pub fn rate(p: f64) -> String {
    if !p.is_finite() {
        return format!("{p}");
    }
    if p > 0.0 && p <= 0.01 {
        let one_in = (1.0 / p).round();
        if one_in < u64::MAX as f64 {
            return format!("{} (1 in {})", sci(p), grouped(one_in as u64));
        }
    }
    sci(p)
}

/// Three significant digits: `0.0123` as `1.23e-2`, `0.5` as `0.500`.
pub fn sci(p: f64) -> String {
    if p == 0.0 || !p.is_finite() {
        return format!("{p}");
    }
    if (0.01..1000.0).contains(&p.abs()) {
        let decimals = (2 - p.abs().log10().floor() as i32).max(0) as usize;
        return format!("{p:.decimals$}");
    }
    format!("{p:.2e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1_000, "1,000"),
            (100_000_000, "100,000,000"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ] {
            assert_eq!(grouped(n), text);
        }
        assert_eq!(items(1), "1 item");
        assert_eq!(items(1_000), "1,000 items");
    }

    #[test]
    fn byte_units() {
        for (n, text) in [
            (999, "999 B"),
            (1_800, "1.8 kB"),
            (200_000_000, "200.0 MB"),
            (239_627_520, "239.6 MB"),
            (999_990_000, "1.0 GB"),
            (u64::MAX, "18.4 EB"),
        ] {
            assert_eq!(bytes(n), text);
        }
    }

    #[test]
    fn rates() {
        for (p, text) in [
            (1e-4, "1.00e-4 (1 in 10,000)"),
            (0.5, "0.500"),
            (0.0123, "0.0123"),
            (0.01, "0.0100 (1 in 100)"),
            (0.001, "1.00e-3 (1 in 1,000)"),
        ] {
            assert_eq!(rate(p), text);
        }
        assert_eq!(sci(0.000_574), "5.74e-4");
        assert_eq!(sci(0.0), "0");
    }
}
