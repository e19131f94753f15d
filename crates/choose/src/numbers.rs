//! How `choose` writes numbers for people: grouped digits, byte sizes, rates.

pub use bloomlab::catalog::{decimal_bytes as bytes, grouped, sci};

/// `1 item`, `1,000 items`.
pub fn items(n: u64) -> String {
    if n == 1 {
        "1 item".to_owned()
    } else {
        format!("{} items", grouped(n))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping() {
        // Each text is its number, grouped: the number is the text without commas.
        for text in [
            "0",
            "999",
            "1,000",
            "100,000,000",
            "18,446,744,073,709,551,615",
        ] {
            let n: u64 = text.replace(',', "").parse().unwrap();
            assert_eq!(grouped(n), text);
        }
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
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
