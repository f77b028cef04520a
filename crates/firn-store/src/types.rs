//! Fixed-width EVM values: [`U256`] amounts, [`B256`] hashes and 20-byte [`Address`]es.
//!
//! All three are stored as big-endian bytes (`BLOB` / `BYTEA`), which compare bytewise in
//! both backends, so a `U256` column sorts numerically.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// An error parsing one of the fixed-width values from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseValueError {
    /// Not a decimal or `0x` hex number, or too large for 256 bits.
    #[error("invalid uint256 {0:?}")]
    Uint(String),
    /// Not `0x` followed by the right number of hex digits.
    #[error("invalid hex value {0:?}: expected 0x and {1} hex digits")]
    Hex(String, usize),
}

/// An unsigned 256-bit integer (ERC-20 amounts, token IDs, wei values).
///
/// Limbs are little-endian 64-bit words; the text form is decimal, as the Data API prints it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct U256([u64; 4]);

impl U256 {
    /// Zero.
    pub const ZERO: Self = Self([0; 4]);
    /// One.
    pub const ONE: Self = Self([1, 0, 0, 0]);
    /// 2^256 - 1.
    pub const MAX: Self = Self([u64::MAX; 4]);

    /// From 32 big-endian bytes.
    pub fn from_be_bytes(bytes: [u8; 32]) -> Self {
        let mut limbs = [0u64; 4];
        for (i, limb) in limbs.iter_mut().enumerate() {
            let start = 32 - 8 * (i + 1);
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[start..start + 8]);
            *limb = u64::from_be_bytes(word);
        }
        Self(limbs)
    }

    /// To 32 big-endian bytes (the stored form).
    pub fn to_be_bytes(&self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (i, limb) in self.0.iter().enumerate() {
            let start = 32 - 8 * (i + 1);
            out[start..start + 8].copy_from_slice(&limb.to_be_bytes());
        }
        out
    }

    /// True for zero.
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 4]
    }

    /// `self + rhs`, or `None` on overflow.
    pub fn checked_add(self, rhs: Self) -> Option<Self> {
        let mut out = [0u64; 4];
        let mut carry = false;
        for (i, o) in out.iter_mut().enumerate() {
            let (s1, c1) = self.0[i].overflowing_add(rhs.0[i]);
            let (s2, c2) = s1.overflowing_add(u64::from(carry));
            *o = s2;
            carry = c1 || c2;
        }
        (!carry).then_some(Self(out))
    }

    /// `self - rhs`, or `None` when `rhs > self`.
    pub fn checked_sub(self, rhs: Self) -> Option<Self> {
        let mut out = [0u64; 4];
        let mut borrow = false;
        for (i, o) in out.iter_mut().enumerate() {
            let (d1, b1) = self.0[i].overflowing_sub(rhs.0[i]);
            let (d2, b2) = d1.overflowing_sub(u64::from(borrow));
            *o = d2;
            borrow = b1 || b2;
        }
        (!borrow).then_some(Self(out))
    }

    /// `self * rhs`, or `None` on overflow.
    pub fn checked_mul_u64(self, rhs: u64) -> Option<Self> {
        let mut out = [0u64; 4];
        let mut carry: u128 = 0;
        for (i, o) in out.iter_mut().enumerate() {
            let prod = u128::from(self.0[i]) * u128::from(rhs) + carry;
            *o = prod as u64;
            carry = prod >> 64;
        }
        (carry == 0).then_some(Self(out))
    }

    /// Divides by a small number in place, returning the remainder.
    fn div_rem_u64(&mut self, d: u64) -> u64 {
        let mut rem: u128 = 0;
        for limb in self.0.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*limb);
            *limb = (cur / u128::from(d)) as u64;
            rem = cur % u128::from(d);
        }
        rem as u64
    }

    /// The nearest `f64` (for averages such as the average gas price).
    pub fn to_f64(&self) -> f64 {
        self.0.iter().rev().fold(0.0, |acc, limb| {
            acc * 18_446_744_073_709_551_616.0 + *limb as f64
        })
    }

    /// The value as `u128` when it fits.
    pub fn to_u128(&self) -> Option<u128> {
        (self.0[2] == 0 && self.0[3] == 0)
            .then(|| u128::from(self.0[0]) | (u128::from(self.0[1]) << 64))
    }
}

impl From<u64> for U256 {
    fn from(v: u64) -> Self {
        Self([v, 0, 0, 0])
    }
}

impl From<u128> for U256 {
    fn from(v: u128) -> Self {
        Self([v as u64, (v >> 64) as u64, 0, 0])
    }
}

impl Ord for U256 {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl PartialOrd for U256 {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for U256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        // Peel off 19 decimal digits at a time.
        const CHUNK: u64 = 10_000_000_000_000_000_000;
        let mut n = *self;
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.div_rem_u64(CHUNK));
        }
        let mut s = String::new();
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                s.push_str(&c.to_string());
            } else {
                s.push_str(&format!("{c:019}"));
            }
        }
        f.write_str(&s)
    }
}

impl fmt::Debug for U256 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "U256({self})")
    }
}

impl FromStr for U256 {
    type Err = ParseValueError;

    /// Parses decimal, or hex with a `0x` prefix.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || ParseValueError::Uint(s.to_owned());
        let (digits, radix) = match s.strip_prefix("0x") {
            Some(hex) => (hex, 16u64),
            None => (s, 10u64),
        };
        if digits.is_empty() {
            return Err(err());
        }
        let mut n = U256::ZERO;
        for c in digits.chars() {
            let d = c.to_digit(radix as u32).ok_or_else(err)?;
            n = n
                .checked_mul_u64(radix)
                .and_then(|n| n.checked_add(U256::from(u64::from(d))))
                .ok_or_else(err)?;
        }
        Ok(n)
    }
}

impl Serialize for U256 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for U256 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(FromText::<Self>::new("a decimal or 0x-hex uint256 string"))
    }
}

/// A serde visitor that parses a string with `FromStr` where it lies in the input: the
/// indexer decodes millions of hashes, addresses and amounts, and a `String` each was a
/// measurable share of its time.
#[derive(Debug)]
pub struct FromText<T> {
    expecting: &'static str,
    parsed: std::marker::PhantomData<T>,
}

impl<T> FromText<T> {
    /// A visitor whose error for a non-string says it expected `expecting`.
    pub const fn new(expecting: &'static str) -> Self {
        Self {
            expecting,
            parsed: std::marker::PhantomData,
        }
    }
}

impl<T: FromStr> serde::de::Visitor<'_> for FromText<T>
where
    T::Err: fmt::Display,
{
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<T, E> {
        s.parse().map_err(E::custom)
    }
}

macro_rules! hex_bytes {
    ($(#[$doc:meta])* $name:ident, $len:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub [u8; $len]);

        impl $name {
            /// Number of bytes.
            pub const LEN: usize = $len;
            /// The all-zero value.
            pub const ZERO: Self = Self([0u8; $len]);

            /// Builds one from a slice of exactly the right length.
            pub fn from_slice(bytes: &[u8]) -> Option<Self> {
                bytes.try_into().ok().map(Self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "0x{}", hex::encode(self.0))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self)
            }
        }

        impl FromStr for $name {
            type Err = ParseValueError;

            /// Parses `0x` followed by hex digits (either case).
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                let err = || ParseValueError::Hex(s.to_owned(), 2 * $len);
                let digits = s.strip_prefix("0x").ok_or_else(err)?;
                let mut out = [0u8; $len];
                hex::decode_to_slice(digits, &mut out).map_err(|_| err())?;
                Ok(Self(out))
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_str(FromText::<Self>::new(concat!(
                    "a 0x-hex string of ",
                    stringify!($len),
                    " bytes"
                )))
            }
        }
    };
}

hex_bytes!(
    /// A 32-byte EVM hash (block, transaction, log topic).
    B256,
    32
);
hex_bytes!(
    /// A 20-byte EVM address.
    Address,
    20
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u256_decimal_round_trip() {
        let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(U256::MAX.to_string(), max);
        assert_eq!(max.parse::<U256>(), Ok(U256::MAX));
        assert_eq!(U256::from(u64::MAX).to_string(), u64::MAX.to_string());
        assert_eq!(U256::from(u128::MAX).to_string(), u128::MAX.to_string());
        assert_eq!("0x1f".parse::<U256>(), Ok(U256::from(31u64)));
        assert!(
            "115792089237316195423570985008687907853269984665640564039457584007913129639936"
                .parse::<U256>()
                .is_err()
        );
        assert!("".parse::<U256>().is_err());
        assert!("12a".parse::<U256>().is_err());
    }

    #[test]
    fn u256_bytes_and_order() {
        let a = U256::from(u128::MAX);
        let b = a.checked_add(U256::ONE).unwrap();
        assert!(b > a);
        assert!(a.to_be_bytes() < b.to_be_bytes());
        assert_eq!(U256::from_be_bytes(U256::MAX.to_be_bytes()), U256::MAX);
        assert_eq!(b.checked_sub(U256::ONE), Some(a));
        assert_eq!(U256::ZERO.checked_sub(U256::ONE), None);
        assert_eq!(U256::MAX.checked_add(U256::ONE), None);
        assert_eq!(U256::MAX.checked_mul_u64(2), None);
        assert_eq!(U256::from(7u64).checked_mul_u64(6), Some(U256::from(42u64)));
    }

    #[test]
    fn json_strings_decode_in_place_and_other_json_is_refused_by_name() {
        let hash = format!("\"0x{}\"", "ab".repeat(32));
        let from_text: B256 = serde_json::from_str(&hash).unwrap();
        let from_value: B256 =
            serde_json::from_value(serde_json::from_str(&hash).unwrap()).unwrap();
        assert_eq!(
            (from_text, from_value),
            (B256([0xab; 32]), B256([0xab; 32]))
        );
        // An escaped string is handed over unescaped, not refused.
        let escaped: Address =
            serde_json::from_str(&format!("\"\\u0030x{}\"", "01".repeat(20))).unwrap();
        assert_eq!(escaped, Address([1; 20]));
        let amounts: Vec<U256> = serde_json::from_str(r#"["0x10", "16"]"#).unwrap();
        assert_eq!(amounts, vec![U256::from(16u64); 2]);
        let not_a_string = serde_json::from_str::<B256>("42").unwrap_err().to_string();
        assert!(
            not_a_string.contains("expected a 0x-hex string of 32 bytes"),
            "{not_a_string}"
        );
        let short = serde_json::from_str::<Address>(r#""0x12""#)
            .unwrap_err()
            .to_string();
        assert!(short.contains("expected 0x and 40 hex digits"), "{short}");
    }

    #[test]
    fn hex_values_parse() {
        let a: Address = "0x00000000000000000000000000000000000000ff"
            .parse()
            .unwrap();
        assert_eq!(a.0[19], 0xff);
        assert!("0x00ff".parse::<Address>().is_err());
        assert!(
            "00000000000000000000000000000000000000ff"
                .parse::<Address>()
                .is_err()
        );
    }
}
