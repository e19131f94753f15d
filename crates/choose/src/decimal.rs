//! Decimal numbers read exactly, digit by digit: `4.1GB` is 4,100,000,000
//! bytes and `1.0000000000000000001GB` is not a whole number of bytes, where
//! a float would refuse the first (4.1 × 10^9 is 4099999999.9999995 in
//! binary) and round the second.

/// A non-negative decimal number as written: the digits before and after
/// its point, each a value 0–9.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    /// Digits before the point, without leading zeros (empty for zero).
    int: Vec<u8>,
    /// Digits after the point, without trailing zeros (empty for a whole number).
    frac: Vec<u8>,
}

/// Why a text is not a decimal number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Malformed {
    /// It starts with a minus sign.
    Negative,
    /// Anything else: no digits, a stray character, two points, …
    NotANumber,
}

/// A decimal multiplied by a whole number: its whole part, and the digits
/// after the point that are left (none if the product is whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Product {
    /// The whole part of the product.
    pub whole: u128,
    /// The digits after the point, without trailing zeros.
    pub frac: Vec<u8>,
}

impl Product {
    /// The product is a whole number.
    pub fn is_whole(&self) -> bool {
        self.frac.is_empty()
    }

    /// The product as written: `1000000000.0000000001`.
    pub fn written(&self) -> String {
        let mut s = self.whole.to_string();
        if !self.frac.is_empty() {
            s.push('.');
            s.extend(self.frac.iter().map(|&d| char::from(b'0' + d)));
        }
        s
    }
}

impl Decimal {
    /// Reads `digits[.digits]`, with a power of ten `e<n>` after it if
    /// `exponent` allows one (`1e8`, `2.5E-3`). Either side of the point
    /// may be empty (`.5`, `5.`), not both; no sign, no separators.
    ///
    /// # Errors
    ///
    /// [`Malformed::Negative`] for a leading minus, [`Malformed::NotANumber`]
    /// for anything else that is not such a number.
    pub fn parse(s: &str, exponent: bool) -> Result<Self, Malformed> {
        if s.starts_with('-') {
            return Err(Malformed::Negative);
        }
        let (mantissa, power) = match s.split_once(['e', 'E']) {
            Some((m, p)) if exponent => (m, Some(p)),
            Some(_) => return Err(Malformed::NotANumber),
            None => (s, None),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
            return Err(Malformed::NotANumber);
        }
        let mut int: Vec<u8> = int.bytes().map(|b| b - b'0').collect();
        let mut frac: Vec<u8> = frac.bytes().map(|b| b - b'0').collect();
        if let Some(p) = power {
            let (negative, magnitude) = match p.as_bytes().first() {
                Some(b'-') => (true, &p[1..]),
                Some(b'+') => (false, &p[1..]),
                _ => (false, p),
            };
            if magnitude.is_empty() || !all_digits(magnitude) {
                return Err(Malformed::NotANumber);
            }
            // A shift longer than the text itself plus 64 places cannot change
            // whether a non-zero value fits in 128 bits (it is at least
            // 10^64 then) or is whole (it is below 10^-64): cap it there, so
            // that `1e99999999999` costs no memory.
            let cap = s.len() + 64;
            let significant = magnitude.trim_start_matches('0');
            let places = if significant.is_empty() {
                0
            } else {
                significant.parse::<usize>().map_or(cap, |n| n.min(cap))
            };
            if negative {
                // Move `places` digits from the whole part to the fraction.
                let mut moved = vec![0; places.saturating_sub(int.len())];
                moved.extend(int.drain(int.len().saturating_sub(places)..));
                moved.append(&mut frac);
                frac = moved;
            } else {
                // Move `places` digits from the fraction to the whole part.
                let take = places.min(frac.len());
                int.extend(frac.drain(..take));
                int.resize(int.len() + (places - take), 0);
            }
        }
        let leading = int.iter().take_while(|&&d| d == 0).count();
        int.drain(..leading);
        while frac.last() == Some(&0) {
            frac.pop();
        }
        Ok(Self { int, frac })
    }

    /// `self × factor`, exactly; `None` if its whole part exceeds `u128`.
    pub fn times(&self, factor: u64) -> Option<Product> {
        let factor = u128::from(factor);
        // Schoolbook multiplication of the fraction, last digit first: what
        // carries out of its first digit is the fraction's whole part.
        let mut frac = self.frac.clone();
        let mut carry: u128 = 0;
        for d in frac.iter_mut().rev() {
            let v = u128::from(*d) * factor + carry;
            *d = (v % 10) as u8;
            carry = v / 10;
        }
        while frac.last() == Some(&0) {
            frac.pop();
        }
        let mut int: u128 = 0;
        for &d in &self.int {
            int = int.checked_mul(10)?.checked_add(u128::from(d))?;
        }
        let whole = int.checked_mul(factor)?.checked_add(carry)?;
        Some(Product { whole, frac })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(s: &str, exponent: bool, factor: u64) -> Option<Product> {
        Decimal::parse(s, exponent).unwrap().times(factor)
    }

    #[test]
    fn whole_products() {
        assert_eq!(
            product("4.1", false, 1_000_000_000).unwrap().whole,
            4_100_000_000
        );
        assert_eq!(
            product("8.2", false, 1_000_000_000).unwrap().whole,
            8_200_000_000
        );
        assert_eq!(product("1.005", false, 1_000).unwrap().whole, 1_005);
        assert_eq!(product(".5", false, 1 << 10).unwrap().whole, 512);
        assert_eq!(product("5.", false, 3).unwrap().whole, 15);
        assert_eq!(product("007.500", false, 2).unwrap().whole, 15);
        // 2^-40 TiB is one byte: 40 digits after the point.
        let one = "0.0000000000009094947017729282379150390625";
        assert_eq!(
            product(one, false, 1 << 40).unwrap(),
            Product {
                whole: 1,
                frac: vec![]
            }
        );
        assert_eq!(product("0", false, u64::MAX).unwrap().whole, 0);
    }

    #[test]
    fn fractions_are_kept_not_rounded() {
        let p = product("1.0000000000000000001", false, 1_000_000_000).unwrap();
        assert!(!p.is_whole());
        assert_eq!(p.written(), "1000000000.0000000001");
        assert_eq!(product("0.3", false, 1).unwrap().written(), "0.3");
        assert_eq!(product("1.5", false, 1).unwrap().written(), "1.5");
    }

    #[test]
    fn exponents_move_the_point() {
        assert_eq!(product("1e12", true, 1).unwrap().whole, 1_000_000_000_000);
        assert_eq!(product("1.5e3", true, 1).unwrap().whole, 1_500);
        assert_eq!(product("2.5E+1", true, 1).unwrap().whole, 25);
        assert_eq!(product("7e000", true, 1).unwrap().whole, 7);
        assert_eq!(product("1500e-3", true, 1).unwrap().written(), "1.5");
        assert_eq!(product("1e-3", true, 1).unwrap().written(), "0.001");
        assert_eq!(product("0e99999999999999999999", true, 1).unwrap().whole, 0);
        assert_eq!(product("1e99999999999999999999", true, 1), None);
        assert!(
            !product("1e-99999999999999999999", true, 1)
                .unwrap()
                .is_whole()
        );
        assert_eq!(product("1e38", true, 1).unwrap().whole, 10u128.pow(38));
        assert_eq!(product("1e39", true, 1), None);
    }

    #[test]
    fn malformed() {
        assert_eq!(Decimal::parse("-1", false), Err(Malformed::Negative));
        assert_eq!(Decimal::parse("-1e3", true), Err(Malformed::Negative));
        for bad in ["", ".", "1.2.3", "1e3", "1x", "+1", " 1", "1,000"] {
            assert_eq!(
                Decimal::parse(bad, false),
                Err(Malformed::NotANumber),
                "{bad}"
            );
        }
        for bad in ["e3", "1e", "1e+", "1e1.5", "1e3e4", ".e1"] {
            assert_eq!(
                Decimal::parse(bad, true),
                Err(Malformed::NotANumber),
                "{bad}"
            );
        }
    }
}
