//! Keys: the documents' member and probe addresses and phone numbers, generated
//! deterministically from a seed.

use super::*;

/// Domains of the member addresses.
pub(crate) const MEMBER_DOMAINS: [&str; 6] = [
    "qq.com",
    "163.com",
    "126.com",
    "gmail.com",
    "sina.com",
    "outlook.com",
];

/// Domains of the probe addresses: none is a member domain, so no probe
/// address is ever a member.
pub(crate) const PROBE_DOMAINS: [&str; 6] = [
    "yahoo.cn",
    "foxmail.com",
    "hotmail.com",
    "sohu.com",
    "aliyun.com",
    "139.com",
];

/// String keys computed from their index alone, so members and probes need
/// no storage and are the same in every run.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Keys {
    /// The decimal string of `offset + i`, as Java's `String.valueOf`.
    Decimal(u64),
    /// `prefix` followed by the decimal `i` (document 002's `"YuShiwen" + i`).
    Prefixed(&'static str),
    /// Eleven-digit numbers like mobile phone numbers, `10^10 + 2·π(i) + odd`
    /// for a bijection π of 32-bit integers keyed by `key`: all distinct,
    /// members even (`odd = false`) and probes odd, so never equal.
    Phones {
        /// Key of the bijection.
        key: u32,
        /// Whether the numbers are odd (probes) or even (members).
        odd: bool,
    },
    /// Address-like keys `local@domain`: a local part of 10 to 14 characters
    /// of `[a-z0-9]` and a domain from `domains`, drawn from `seed` and `i`.
    Emails {
        /// Seed of the draw.
        seed: u64,
        /// Domains to draw from.
        domains: &'static [&'static str],
    },
}

impl Keys {
    /// Address-like member keys from `seed`.
    pub(crate) fn member_emails(seed: u64) -> Self {
        Keys::Emails {
            seed,
            domains: &MEMBER_DOMAINS,
        }
    }

    /// Address-like probe keys from `seed`: never equal to a member address.
    pub(crate) fn probe_emails(seed: u64) -> Self {
        Keys::Emails {
            seed,
            domains: &PROBE_DOMAINS,
        }
    }

    /// Writes key `i` into `out` (cleared first).
    pub(crate) fn write(self, i: u64, out: &mut String) {
        const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";
        out.clear();
        match self {
            Keys::Decimal(offset) => {
                let _ = write!(out, "{}", offset + i);
            }
            Keys::Prefixed(prefix) => {
                let _ = write!(out, "{prefix}{i}");
            }
            Keys::Phones { key, odd } => {
                let v = 10_000_000_000 + 2 * u64::from(permute32(i as u32, key)) + u64::from(odd);
                let _ = write!(out, "{v}");
            }
            Keys::Emails { seed, domains } => {
                let mut w = mix64(seed ^ mix64(i.wrapping_add(0x9e37_79b9_7f4a_7c15)));
                let len = 10 + (w % 5) as usize;
                let domain = domains[((w >> 32) % domains.len() as u64) as usize];
                // 36^12 < 2^64: twelve characters per mixed word.
                for j in 0..len {
                    if j % 12 == 0 {
                        w = mix64(w ^ j as u64);
                    }
                    out.push(char::from(ALPHABET[(w % 36) as usize]));
                    w /= 36;
                }
                out.push('@');
                out.push_str(domain);
            }
        }
    }

    /// What the keys look like, for the report.
    pub(super) fn describe(self) -> String {
        match self {
            Keys::Decimal(offset) => format!("decimal strings from {offset}"),
            Keys::Prefixed(prefix) => format!("\"{prefix}\" + i"),
            Keys::Phones { .. } => "random 11-digit numbers".into(),
            Keys::Emails { .. } => "random addresses".into(),
        }
    }
}

/// Address-like member and probe keys, each from its part of `seed`.
pub(super) fn email_keys(seed: u64) -> (Keys, Keys) {
    (
        Keys::member_emails(sub_seed(seed, "members")),
        Keys::probe_emails(sub_seed(seed, "probes")),
    )
}

/// Member and probe keys that look like mobile numbers (distinct bijection
/// keys, so a probe is no neighbour of a member).
pub(super) fn phone_keys(seed: u64) -> (Keys, Keys) {
    let key = mix64(seed);
    (
        Keys::Phones {
            key: key as u32,
            odd: false,
        },
        Keys::Phones {
            key: (key >> 32) as u32,
            odd: true,
        },
    )
}

/// A keyed bijection of `u32` (each step is invertible): distinct inputs give
/// distinct, well-scattered outputs.
pub(super) fn permute32(x: u32, key: u32) -> u32 {
    let mut x = x ^ key;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stable_and_disjoint() {
        let mut a = String::new();
        let mut b = String::new();
        let (mk, pk) = (Keys::member_emails(1), Keys::probe_emails(1));
        mk.write(7, &mut a);
        mk.write(7, &mut b);
        assert_eq!(a, b);
        assert!(a.len() >= 10 + 1 + 6 && a.contains('@'));
        pk.write(7, &mut b);
        let domain = |s: &str| s.split('@').nth(1).unwrap_or_default().to_string();
        assert!(MEMBER_DOMAINS.contains(&domain(&a).as_str()));
        assert!(PROBE_DOMAINS.contains(&domain(&b).as_str()));
        Keys::Decimal(5).write(3, &mut a);
        assert_eq!(a, "8");
        Keys::Prefixed("YuShiwen").write(9_999, &mut a);
        assert_eq!(a, "YuShiwen9999");
    }
}
