//! Serde helpers for AvalancheGo's JSON number and byte forms (`utils/json`, `types`), for use
//! with `#[serde(with = "…")]` on params and replies.
//!
//! | helper | serializes | deserializes |
//! |---|---|---|
//! | [`u64_string`], [`Uint64`] | `"12345"` | `12345` or `"12345"` |
//! | [`u32_string`] | `"7"` | `7` or `"7"` |
//! | [`u8_string`] | `"9"` | `9` or `"9"` |
//! | [`float32_4dp`] | `"10.0000"` | `10`, `10.5` or `"10.5"` |
//! | [`hex_bytes`] | `"0x0102"` | `"0x0102"` (or `""`) |
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize)]
//! struct Reply {
//!     #[serde(with = "firn_rpc::avajson::u64_string")]
//!     height: u64,
//!     #[serde(with = "firn_rpc::avajson::float32_4dp")]
//!     delegation_fee: f32,
//! }
//! let r: Reply = serde_json::from_str(r#"{"height":7,"delegation_fee":"2.5"}"#).unwrap();
//! assert_eq!(
//!     serde_json::to_string(&r).unwrap(),
//!     r#"{"height":"7","delegation_fee":"2.5000"}"#
//! );
//! ```

use std::fmt;

use serde::Serializer;
use serde::de::{self, Deserializer, Visitor};

/// Parses an unsigned decimal as Go's `strconv.ParseUint(s, 10, bits)` does: ASCII digits only,
/// no sign, no spaces.
fn parse_uint(s: &str, max: u64) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<u64>().ok().filter(|v| *v <= max)
}

struct UintVisitor {
    max: u64,
    what: &'static str,
}

impl Visitor<'_> for UintVisitor {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a {} as a JSON number or decimal string", self.what)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        if v <= self.max {
            Ok(v)
        } else {
            Err(E::custom(format!("{v} is out of range for {}", self.what)))
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v)
            .map_err(|_| E::custom(format!("{v} is out of range for {}", self.what)))
            .and_then(|v| self.visit_u64(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        parse_uint(v, self.max).ok_or_else(|| E::custom(format!("invalid {} {v:?}", self.what)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<u64, E> {
        Ok(0)
    }
}

/// Reads an unsigned integer narrower than `u64` (at most `max`), as a number or a decimal string.
fn deserialize_narrow<'de, D, T>(d: D, max: u64, what: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: TryFrom<u64>,
    T::Error: fmt::Display,
{
    let v = d.deserialize_any(UintVisitor { max, what })?;
    T::try_from(v).map_err(de::Error::custom)
}

/// `u64` as AvalancheGo's `json.Uint64`: written as a decimal string, read from a number or a
/// decimal string (`null` reads as 0).
pub mod u64_string {
    use super::*;

    /// Writes `"<decimal>"`.
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    /// Reads a JSON number or a decimal string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(UintVisitor {
            max: u64::MAX,
            what: "uint64",
        })
    }
}

/// A `u64` that is AvalancheGo's `json.Uint64` wherever it stands (in a list, as a map value):
/// written as a decimal string, read as [`u64_string`] reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uint64(pub u64);

impl serde::Serialize for Uint64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        u64_string::serialize(&self.0, s)
    }
}

impl<'de> serde::Deserialize<'de> for Uint64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        u64_string::deserialize(d).map(Uint64)
    }
}

impl From<u64> for Uint64 {
    fn from(v: u64) -> Self {
        Self(v)
    }
}

/// `u8` as AvalancheGo's `json.Uint8` (an asset's denomination): written as a decimal string,
/// read from a number or a decimal string (`null` reads as 0).
pub mod u8_string {
    use super::*;

    /// Writes `"<decimal>"`.
    pub fn serialize<S: Serializer>(v: &u8, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    /// Reads a JSON number or a decimal string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
        deserialize_narrow(d, u64::from(u8::MAX), "uint8")
    }
}

/// `u32` as AvalancheGo's `json.Uint32`: written as a decimal string, read from a number or a
/// decimal string (`null` reads as 0).
pub mod u32_string {
    use super::*;

    /// Writes `"<decimal>"`.
    pub fn serialize<S: Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    /// Reads a JSON number or a decimal string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        deserialize_narrow(d, u64::from(u32::MAX), "uint32")
    }
}

/// Formats an `f32` as Go's `strconv.FormatFloat(f, 'f', 4, 32)`.
pub fn format_f32_4dp(v: f32) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        format!("{v:.4}")
    }
}

/// `f32` as AvalancheGo's `json.Float32`: written as a string with four decimals (`"10.0000"`),
/// read from a number or a numeric string.
pub mod float32_4dp {
    use super::*;

    /// Writes `"<value with 4 decimals>"`.
    pub fn serialize<S: Serializer>(v: &f32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_f32_4dp(*v))
    }

    struct F32Visitor;

    impl Visitor<'_> for F32Visitor {
        type Value = f32;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a float32 as a JSON number or numeric string")
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<f32, E> {
            Ok(v as f32)
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<f32, E> {
            Ok(v as f32)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<f32, E> {
            Ok(v as f32)
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<f32, E> {
            v.parse::<f32>()
                .map_err(|_| E::custom(format!("invalid float32 {v:?}")))
        }

        fn visit_unit<E: de::Error>(self) -> Result<f32, E> {
            Ok(0.0)
        }
    }

    /// Reads a JSON number or a numeric string.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        d.deserialize_any(F32Visitor)
    }
}

/// Bytes as AvalancheGo's `types.JSONByteSlice`: `0x` + lowercase hex, no checksum. Reading
/// requires the `0x` prefix (either case of hex digits); the empty string reads as no bytes.
pub mod hex_bytes {
    use super::*;

    /// Writes `"0x<hex>"`.
    pub fn serialize<S: Serializer, T: AsRef<[u8]>>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("0x{}", hex::encode(v.as_ref())))
    }

    struct HexVisitor;

    impl Visitor<'_> for HexVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a 0x-prefixed hex string")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
            if v.is_empty() {
                return Ok(Vec::new());
            }
            let digits = v
                .strip_prefix("0x")
                .ok_or_else(|| E::custom("missing 0x prefix to hex encoding"))?;
            hex::decode(digits).map_err(|e| E::custom(format!("invalid hex {v:?}: {e}")))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Vec<u8>, E> {
            Ok(Vec::new())
        }
    }

    /// Reads `"0x<hex>"`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_any(HexVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, PartialEq, Default)]
    #[serde(default)]
    struct T {
        #[serde(with = "u64_string")]
        a: u64,
        #[serde(with = "u32_string")]
        b: u32,
        #[serde(with = "float32_4dp")]
        c: f32,
        #[serde(with = "hex_bytes")]
        d: Vec<u8>,
    }

    #[test]
    fn numbers_and_strings_both_read() {
        let t: T =
            serde_json::from_str(r#"{"a":18446744073709551615,"b":"7","c":"1.5","d":"0xAbCd"}"#)
                .unwrap();
        assert_eq!(
            t,
            T {
                a: u64::MAX,
                b: 7,
                c: 1.5,
                d: vec![0xab, 0xcd]
            }
        );
        let t: T = serde_json::from_str(r#"{"a":"12345","b":7,"c":2}"#).unwrap();
        assert_eq!((t.a, t.b, t.c), (12345, 7, 2.0));
    }

    #[test]
    fn writes_go_forms() {
        let t = T {
            a: 12345,
            b: 0,
            c: 10.0,
            d: vec![1, 2],
        };
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"a":"12345","b":"0","c":"10.0000","d":"0x0102"}"#
        );
        assert_eq!(format_f32_4dp(99.8712), "99.8712");
        assert_eq!(format_f32_4dp(0.03125), "0.0312");
        assert_eq!(format_f32_4dp(f32::INFINITY), "+Inf");
    }

    #[test]
    fn rejects_what_go_rejects() {
        for bad in [
            r#"{"a":"+1"}"#,
            r#"{"a":"-1"}"#,
            r#"{"a":-1}"#,
            r#"{"a":1.5}"#,
            r#"{"a":" 1"}"#,
            r#"{"a":"18446744073709551616"}"#,
            r#"{"b":"4294967296"}"#,
            r#"{"b":4294967296}"#,
            r#"{"d":"0102"}"#,
            r#"{"d":"0xzz"}"#,
        ] {
            assert!(
                serde_json::from_str::<T>(bad).is_err(),
                "{bad} was accepted"
            );
        }
    }
}
