//! The strict text forms of EVM values (alloy's [`U256`], [`B256`], [`Address`] and
//! [`Bytes`]), for reading what nodes and clients send, and serde helpers that read them from
//! JSON strings in place.
//!
//! [`ParseText`] reads exactly the forms firn takes from outside — a decimal or `0x`-hex amount,
//! `0x` and 64 or 40 hex digits, `0x`-hex bytes — where alloy's `FromStr` also takes hashes
//! without `0x`, `_` separators and empty text as zero: from outside, those are errors, not
//! values. [`value`], [`option`] and [`list`] are `deserialize_with` functions over
//! [`FromText`], which parses a string where it lies in the input (the indexer decodes millions
//! of hashes, addresses and amounts; a `String` each was a measurable share of its time).
//!
//! ```
//! use alloy_primitives::B256;
//! use firn_core::text::ParseText;
//!
//! assert!(B256::parse_text(&format!("0x{}", "ab".repeat(32))).is_ok());
//! assert!(B256::parse_text(&"ab".repeat(32)).is_err());
//! ```

use std::fmt;

pub use alloy_primitives::{Address, B256, Bytes, U256};
use serde::{Deserialize, Deserializer};

/// An error parsing one of the fixed-width values from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseValueError {
    /// Not a decimal or `0x` hex number, or too large for 256 bits.
    #[error("invalid uint256 {0:?}")]
    Uint(String),
    /// Not `0x` followed by the right number of hex digits.
    #[error("invalid hex value {0:?}: expected 0x and {1} hex digits")]
    Hex(String, usize),
    /// Not `0x` followed by an even number of hex digits.
    #[error("invalid hex bytes {0:?}: expected 0x and an even number of hex digits")]
    Bytes(String),
}

/// A value with one strict text form.
pub trait ParseText: Sized {
    /// What the text must look like (a deserialiser's "expected …").
    const EXPECTING: &'static str;

    /// Parses exactly the text form, nothing looser.
    fn parse_text(s: &str) -> Result<Self, ParseValueError>;
}

impl ParseText for U256 {
    const EXPECTING: &'static str = "a decimal or 0x-hex uint256 string";

    /// Decimal, or hex after `0x`; at least one digit, and only digits.
    fn parse_text(s: &str) -> Result<Self, ParseValueError> {
        let err = || ParseValueError::Uint(s.to_owned());
        let (digits, radix) = match s.strip_prefix("0x") {
            Some(hex) => (hex, 16),
            None => (s, 10),
        };
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return Err(err());
        }
        U256::from_str_radix(digits, u64::from(radix)).map_err(|_| err())
    }
}

/// `0x` and exactly `2 * N` hex digits (either case).
fn fixed_hex<const N: usize>(s: &str) -> Result<[u8; N], ParseValueError> {
    let err = || ParseValueError::Hex(s.to_owned(), 2 * N);
    let digits = s.strip_prefix("0x").ok_or_else(err)?;
    let mut out = [0u8; N];
    hex::decode_to_slice(digits, &mut out).map_err(|_| err())?;
    Ok(out)
}

impl ParseText for B256 {
    const EXPECTING: &'static str = "a 0x-hex string of 32 bytes";

    fn parse_text(s: &str) -> Result<Self, ParseValueError> {
        fixed_hex(s).map(B256::new)
    }
}

impl ParseText for Address {
    const EXPECTING: &'static str = "a 0x-hex string of 20 bytes";

    fn parse_text(s: &str) -> Result<Self, ParseValueError> {
        fixed_hex(s).map(Address::new)
    }
}

/// A serde visitor that parses a string with `parse` where it lies in the input: the indexer
/// decodes millions of hashes, addresses and amounts, and a `String` each was a measurable
/// share of its time.
#[derive(Debug)]
pub struct FromText<T, E> {
    expecting: &'static str,
    parse: fn(&str) -> Result<T, E>,
}

impl<T, E> FromText<T, E> {
    /// A visitor parsing with `parse`, whose error for a non-string says it expected
    /// `expecting`.
    pub const fn new(expecting: &'static str, parse: fn(&str) -> Result<T, E>) -> Self {
        Self { expecting, parse }
    }
}

impl<T, E: fmt::Display> serde::de::Visitor<'_> for FromText<T, E> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<Er: serde::de::Error>(self, s: &str) -> Result<T, Er> {
        (self.parse)(s).map_err(Er::custom)
    }
}

impl ParseText for Bytes {
    const EXPECTING: &'static str = "a 0x-hex string";

    fn parse_text(s: &str) -> Result<Self, ParseValueError> {
        let err = || ParseValueError::Bytes(s.to_owned());
        let digits = s.strip_prefix("0x").ok_or_else(err)?;
        hex::decode(digits).map(Bytes::from).map_err(|_| err())
    }
}

/// One value from its text.
pub fn value<'de, D: Deserializer<'de>, T: ParseText>(d: D) -> Result<T, D::Error> {
    Text::deserialize(d).map(|t| t.0)
}

/// A value or `null`.
pub fn option<'de, D: Deserializer<'de>, T: ParseText>(d: D) -> Result<Option<T>, D::Error> {
    Ok(Option::<Text<T>>::deserialize(d)?.map(|t| t.0))
}

/// An array of values.
pub fn list<'de, D: Deserializer<'de>, T: ParseText>(d: D) -> Result<Vec<T>, D::Error> {
    Ok(Vec::<Text<T>>::deserialize(d)?
        .into_iter()
        .map(|t| t.0)
        .collect())
}

/// A value read from its text, so that `Option` and `Vec` of it deserialise too.
struct Text<T>(T);

impl<'de, T: ParseText> Deserialize<'de> for Text<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(FromText::new(T::EXPECTING, T::parse_text))
            .map(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u256_text_is_decimal_or_prefixed_hex_and_nothing_looser() {
        let max = "115792089237316195423570985008687907853269984665640564039457584007913129639935";
        assert_eq!(U256::MAX.to_string(), max);
        assert_eq!(U256::parse_text(max), Ok(U256::MAX));
        assert_eq!(U256::from(u64::MAX).to_string(), u64::MAX.to_string());
        assert_eq!(U256::from(u128::MAX).to_string(), u128::MAX.to_string());
        assert_eq!(U256::parse_text("0x1f"), Ok(U256::from(31u64)));
        assert_eq!(U256::parse_text("0x1F"), Ok(U256::from(31u64)));
        let too_big =
            "115792089237316195423570985008687907853269984665640564039457584007913129639936";
        for bad in [too_big, "", "0x", "12a", "1_000", "0b1", "0X1f", " 1", "-1"] {
            assert!(U256::parse_text(bad).is_err(), "{bad:?}");
        }
    }

    #[derive(Debug, Deserialize)]
    struct Fields {
        #[serde(deserialize_with = "value")]
        hash: B256,
        #[serde(default, deserialize_with = "option")]
        to: Option<Address>,
        #[serde(deserialize_with = "list")]
        amounts: Vec<U256>,
    }

    #[test]
    fn json_strings_decode_in_place_and_other_json_is_refused_by_name() {
        let hash = format!("0x{}", "ab".repeat(32));
        let json = format!(r#"{{"hash": "{hash}", "to": null, "amounts": ["0x10", "16"]}}"#);
        let from_text: Fields = serde_json::from_str(&json).unwrap();
        let from_value: Fields =
            serde_json::from_value(serde_json::from_str(&json).unwrap()).unwrap();
        for f in [from_text, from_value] {
            assert_eq!(f.hash, B256::new([0xab; 32]));
            assert_eq!(f.to, None);
            assert_eq!(f.amounts, vec![U256::from(16u64); 2]);
        }
        // An escaped string is handed over unescaped, not refused.
        let escaped: Fields = serde_json::from_str(&format!(
            r#"{{"hash": "{hash}", "to": "\u0030x{}", "amounts": []}}"#,
            "01".repeat(20)
        ))
        .unwrap();
        assert_eq!(escaped.to, Some(Address::new([1; 20])));
        let not_a_string = serde_json::from_str::<Fields>(r#"{"hash": 42, "amounts": []}"#)
            .unwrap_err()
            .to_string();
        assert!(
            not_a_string.contains("expected a 0x-hex string of 32 bytes"),
            "{not_a_string}"
        );
        let short = serde_json::from_str::<Fields>(&format!(
            r#"{{"hash": "{hash}", "to": "0x12", "amounts": []}}"#
        ))
        .unwrap_err()
        .to_string();
        assert!(short.contains("expected 0x and 40 hex digits"), "{short}");
    }

    #[test]
    fn hex_values_need_the_prefix_and_print_lowercase() {
        let text = "0x00000000000000000000000000000000000000ff";
        let a = Address::parse_text(text).unwrap();
        assert_eq!(a.0[19], 0xff);
        assert_eq!(format!("{a:#x}"), text);
        let mixed = "0x52908400098527886E0F7030069857D2E4169EE7";
        assert_eq!(
            format!("{:#x}", Address::parse_text(mixed).unwrap()),
            mixed.to_ascii_lowercase()
        );
        assert!(Address::parse_text("0x00ff").is_err());
        assert!(Address::parse_text(&text[2..]).is_err());
        let h = B256::new([0xcd; 32]);
        assert_eq!(h.to_string(), format!("0x{}", "cd".repeat(32)));
        assert_eq!(B256::parse_text(&h.to_string()), Ok(h));
        assert!(B256::parse_text(&"cd".repeat(32)).is_err());
    }

    #[test]
    fn bytes_need_the_prefix_and_whole_bytes() {
        assert_eq!(Bytes::parse_text("0x"), Ok(Bytes::new()));
        assert_eq!(
            Bytes::parse_text("0xdeAD"),
            Ok(Bytes::from(vec![0xde, 0xad]))
        );
        for bad in ["", "dead", "0xdea", "0xzz"] {
            assert!(Bytes::parse_text(bad).is_err(), "{bad:?}");
        }
    }
}
