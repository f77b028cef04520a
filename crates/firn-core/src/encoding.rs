//! Text encodings AvalancheGo uses on the wire: cb58, and the `hex` / `hexc` / `hexnc`
//! byte encodings of `utils/formatting`.
//!
//! cb58 is base58 (Bitcoin alphabet) over `bytes ‖ sha256(bytes)[28..32]`. The checksummed
//! hex form is `0x` + hex over the same checksummed bytes; `hexnc` has no checksum.

use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// Length of the checksum appended by cb58 and checksummed hex.
pub const CHECKSUM_LEN: usize = 4;

/// What went wrong decoding a cb58 or hex string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodingError {
    #[error("invalid base58 string: {0}")]
    Base58(String),
    #[error("invalid hex string: {0}")]
    Hex(String),
    #[error("hex string is missing its 0x prefix")]
    MissingHexPrefix,
    #[error("input is {0} bytes, too short to hold a 4-byte checksum")]
    TooShortForChecksum(usize),
    #[error("checksum mismatch: the string is corrupted or not checksummed")]
    BadChecksum,
    #[error("expected {expected} bytes, got {actual}")]
    WrongLength { expected: usize, actual: usize },
    #[error("unknown encoding {0:?}: expected hex, hexc, hexnc or json")]
    UnknownEncoding(String),
    #[error("invalid bech32 address {0:?}: {1}")]
    Bech32(String, String),
    #[error("invalid address {0:?}: {1}")]
    Address(String, &'static str),
}

/// The last four bytes of sha256(bytes).
pub fn checksum(bytes: &[u8]) -> [u8; CHECKSUM_LEN] {
    let digest = Sha256::digest(bytes);
    let mut out = [0u8; CHECKSUM_LEN];
    out.copy_from_slice(&digest[32 - CHECKSUM_LEN..]);
    out
}

fn with_checksum(bytes: &[u8]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(bytes.len() + CHECKSUM_LEN);
    buf.extend_from_slice(bytes);
    buf.extend_from_slice(&checksum(bytes));
    buf
}

fn strip_checksum(mut buf: Vec<u8>) -> Result<Vec<u8>, EncodingError> {
    if buf.len() < CHECKSUM_LEN {
        return Err(EncodingError::TooShortForChecksum(buf.len()));
    }
    let split = buf.len() - CHECKSUM_LEN;
    if checksum(&buf[..split]) != buf[split..] {
        return Err(EncodingError::BadChecksum);
    }
    buf.truncate(split);
    Ok(buf)
}

/// cb58-encodes bytes.
pub fn cb58_encode(bytes: &[u8]) -> String {
    base58_encode(&with_checksum(bytes))
}

const BASE58_ALPHABET: &[u8; 58] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/// 58^5: the base of the limbs below (under 2^30, so a limb times 2^32 plus a carry fits u64).
const LIMB: u64 = 656_356_768;

/// Base58 (Bitcoin alphabet), as `bs58::encode`, several times faster: the number is built
/// in base-58^5 limbs from 32-bit pieces of the input, so each step is a u64 division by a
/// constant instead of one division per output digit per input byte. The Data API prints
/// several cb58 IDs per UTXO, which made base58 the largest cost of a transaction list.
fn base58_encode(input: &[u8]) -> String {
    let zeros = input.iter().take_while(|b| **b == 0).count();
    let rest = &input[zeros..];
    // Little-endian limbs; 4 input bytes add at most 32 bits, a limb holds 29.3.
    let mut limbs: Vec<u64> = Vec::with_capacity(rest.len() * 8 / 29 + 2);
    let head = rest.len() % 4;
    let pieces = (head > 0)
        .then(|| &rest[..head])
        .into_iter()
        .chain(rest[head..].chunks_exact(4));
    for piece in pieces {
        let shift = 8 * piece.len() as u32;
        let mut carry = piece.iter().fold(0u64, |v, b| (v << 8) | u64::from(*b));
        for limb in &mut limbs {
            let x = (*limb << shift) + carry;
            *limb = x % LIMB;
            carry = x / LIMB;
        }
        while carry > 0 {
            limbs.push(carry % LIMB);
            carry /= LIMB;
        }
    }
    let mut digits: Vec<u8> = Vec::with_capacity(zeros + limbs.len() * 5);
    for (i, limb) in limbs.iter().enumerate() {
        let mut v = *limb;
        let last = i + 1 == limbs.len();
        // Every limb but the most significant has exactly five digits (leading zeros kept).
        for _ in 0..5 {
            if last && v == 0 {
                break;
            }
            digits.push(BASE58_ALPHABET[(v % 58) as usize]);
            v /= 58;
        }
    }
    digits.extend(std::iter::repeat_n(b'1', zeros));
    digits.reverse();
    // Every byte comes from the ASCII alphabet.
    digits.into_iter().map(char::from).collect()
}

/// Decodes a cb58 string, checking its checksum.
pub fn cb58_decode(s: &str) -> Result<Vec<u8>, EncodingError> {
    let raw = bs58::decode(s)
        .into_vec()
        .map_err(|e| EncodingError::Base58(e.to_string()))?;
    strip_checksum(raw)
}

/// `0x` + lowercase hex, no checksum (AvalancheGo `hexnc`, and JSON byte slices).
pub fn hex_encode_nc(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("0x");
    s.push_str(&hex::encode(bytes));
    s
}

/// `0x` + hex of bytes and their checksum (AvalancheGo `hex` and `hexc`).
pub fn hex_encode_checksummed(bytes: &[u8]) -> String {
    hex_encode_nc(&with_checksum(bytes))
}

fn strip_0x(s: &str) -> Result<&str, EncodingError> {
    s.strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .ok_or(EncodingError::MissingHexPrefix)
}

/// Decodes `0x`-prefixed hex with no checksum.
pub fn hex_decode_nc(s: &str) -> Result<Vec<u8>, EncodingError> {
    hex::decode(strip_0x(s)?).map_err(|e| EncodingError::Hex(e.to_string()))
}

/// Decodes `0x`-prefixed hex ending in a checksum, and checks it.
pub fn hex_decode_checksummed(s: &str) -> Result<Vec<u8>, EncodingError> {
    strip_checksum(hex_decode_nc(s)?)
}

/// Decodes hex with or without `0x`, no checksum (what REST APIs accept).
pub fn hex_decode_lenient(s: &str) -> Result<Vec<u8>, EncodingError> {
    let body = strip_0x(s).unwrap_or(s);
    hex::decode(body).map_err(|e| EncodingError::Hex(e.to_string()))
}

/// The `encoding` argument of AvalancheGo's APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// `0x` + hex + checksum. The default.
    #[default]
    Hex,
    /// Same bytes as [`Encoding::Hex`]; kept as its own name because replies echo it.
    HexC,
    /// `0x` + hex, no checksum.
    HexNc,
    /// The JSON form of the object.
    Json,
}

impl Encoding {
    /// The lowercase name replies echo.
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::Hex => "hex",
            Encoding::HexC => "hexc",
            Encoding::HexNc => "hexnc",
            Encoding::Json => "json",
        }
    }

    /// Encodes bytes in this encoding. `None` for [`Encoding::Json`], which is not a byte encoding.
    pub fn encode_bytes(self, bytes: &[u8]) -> Option<String> {
        match self {
            Encoding::Hex | Encoding::HexC => Some(hex_encode_checksummed(bytes)),
            Encoding::HexNc => Some(hex_encode_nc(bytes)),
            Encoding::Json => None,
        }
    }

    /// Decodes bytes in this encoding.
    pub fn decode_bytes(self, s: &str) -> Result<Vec<u8>, EncodingError> {
        match self {
            Encoding::Hex | Encoding::HexC => hex_decode_checksummed(s),
            Encoding::HexNc => hex_decode_nc(s),
            Encoding::Json => Err(EncodingError::UnknownEncoding("json".into())),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Encoding {
    type Err = EncodingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "hex" => Ok(Encoding::Hex),
            "hexc" => Ok(Encoding::HexC),
            "hexnc" => Ok(Encoding::HexNc),
            "json" => Ok(Encoding::Json),
            _ => Err(EncodingError::UnknownEncoding(s.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cb58_of_zero_id_is_the_well_known_string() {
        assert_eq!(
            cb58_encode(&[0u8; 32]),
            "11111111111111111111111111111111LpoYY"
        );
        assert_eq!(
            cb58_decode("11111111111111111111111111111111LpoYY").unwrap(),
            vec![0u8; 32]
        );
    }

    #[test]
    fn base58_matches_bs58() {
        let cases: [&[u8]; 7] = [
            &[],
            &[0],
            &[0, 0, 1],
            &[0xff; 36],
            &[0, 0, 0, 0, 0xff, 0, 0, 0],
            &[1, 2, 3, 4, 5],
            &[57],
        ];
        for c in cases {
            assert_eq!(base58_encode(c), bs58::encode(c).into_string(), "{c:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn base58_matches_bs58_on_any_bytes(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80)) {
            proptest::prop_assert_eq!(base58_encode(&bytes), bs58::encode(&bytes).into_string());
        }
    }

    #[test]
    fn cb58_rejects_a_corrupted_string() {
        let good = cb58_encode(&[7u8; 32]);
        let mut chars: Vec<char> = good.chars().collect();
        chars[5] = if chars[5] == 'a' { 'b' } else { 'a' };
        let bad: String = chars.into_iter().collect();
        assert_eq!(cb58_decode(&bad), Err(EncodingError::BadChecksum));
        assert!(matches!(cb58_decode("0OIl"), Err(EncodingError::Base58(_))));
        assert_eq!(cb58_decode("1"), Err(EncodingError::TooShortForChecksum(1)));
    }

    #[test]
    fn checksummed_hex_round_trips_and_checks() {
        let s = hex_encode_checksummed(b"firn");
        assert!(s.starts_with("0x"));
        assert_eq!(hex_decode_checksummed(&s).unwrap(), b"firn");
        assert_eq!(
            hex_decode_checksummed("0x6669726e00000000"),
            Err(EncodingError::BadChecksum)
        );
        assert_eq!(hex_decode_nc("6669"), Err(EncodingError::MissingHexPrefix));
        assert_eq!(hex_decode_lenient("6669").unwrap(), b"fi");
    }

    #[test]
    fn encoding_names_parse_case_insensitively() {
        assert_eq!("HEX".parse::<Encoding>().unwrap(), Encoding::Hex);
        assert_eq!("hexNC".parse::<Encoding>().unwrap(), Encoding::HexNc);
        assert_eq!("Json".parse::<Encoding>().unwrap().as_str(), "json");
        assert!("cb58".parse::<Encoding>().is_err());
    }
}
