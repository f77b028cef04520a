//! The signer bitset of a [`BitSetSignature`](super::BitSetSignature).
//!
//! AvalancheGo encodes the set as the minimal big-endian bytes of a big integer whose bit
//! `i` (least significant bit = index 0) marks canonical validator `i`: `{0, 2}` is `05`,
//! `{8}` is `01 00`, the empty set is no bytes at all. A leading zero byte is not minimal
//! and makes the bitset invalid.

use super::WarpError;

/// The minimal big-endian bitset of `indices` (duplicates are harmless).
///
/// Allocates `max(indices) / 8 + 1` bytes.
pub fn from_indices(indices: &[usize]) -> Vec<u8> {
    let Some(&max) = indices.iter().max() else {
        return Vec::new();
    };
    let len = max / 8 + 1;
    let mut out = vec![0u8; len];
    for &i in indices {
        out[len - 1 - i / 8] |= 1 << (i % 8);
    }
    out
}

/// Fails unless `bits` is minimal (no leading zero byte).
pub fn validate(bits: &[u8]) -> Result<(), WarpError> {
    match bits.first() {
        Some(0) => Err(WarpError::InvalidBitSet),
        _ => Ok(()),
    }
}

/// The indices set in `bits`, ascending. Rejects a leading zero byte.
pub fn to_indices(bits: &[u8]) -> Result<Vec<usize>, WarpError> {
    validate(bits)?;
    let mut out = Vec::with_capacity(count_ones(bits));
    for (k, &byte) in bits.iter().rev().enumerate() {
        for b in 0..8 {
            if byte & (1 << b) != 0 {
                out.push(k * 8 + b);
            }
        }
    }
    Ok(out)
}

/// How many indices `bits` holds. Rejects a leading zero byte.
pub fn count(bits: &[u8]) -> Result<usize, WarpError> {
    validate(bits)?;
    Ok(count_ones(bits))
}

/// One past the highest index set in a valid bitset (0 for the empty set): the smallest
/// validator set size the bitset fits.
pub fn bit_len(bits: &[u8]) -> usize {
    match bits.iter().position(|&b| b != 0) {
        None => 0,
        Some(first) => {
            let top = bits[first];
            (bits.len() - first - 1) * 8 + (8 - top.leading_zeros() as usize)
        }
    }
}

/// True if index `i` is set in `bits`.
pub fn contains(bits: &[u8], i: usize) -> bool {
    let byte = i / 8;
    byte < bits.len() && bits[bits.len() - 1 - byte] & (1 << (i % 8)) != 0
}

fn count_ones(bits: &[u8]) -> usize {
    bits.iter().map(|b| b.count_ones() as usize).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_examples() {
        assert_eq!(from_indices(&[0, 2]), vec![0x05]);
        assert_eq!(from_indices(&[8]), vec![0x01, 0x00]);
        assert_eq!(from_indices(&[]), Vec::<u8>::new());
        assert_eq!(from_indices(&[0, 2, 3, 5, 7]), vec![0xad]);
        assert_eq!(to_indices(&[0x01, 0x00]), Ok(vec![8]));
        assert_eq!(to_indices(&[0xad]), Ok(vec![0, 2, 3, 5, 7]));
        assert_eq!(to_indices(&[]), Ok(vec![]));
    }

    #[test]
    fn leading_zero_bytes_are_invalid() {
        assert_eq!(to_indices(&[0x00]), Err(WarpError::InvalidBitSet));
        assert_eq!(to_indices(&[0x00, 0x05]), Err(WarpError::InvalidBitSet));
        assert_eq!(count(&[0x00, 0x05]), Err(WarpError::InvalidBitSet));
        assert_eq!(count(&[0x80, 0x05]), Ok(3));
    }

    #[test]
    fn bit_len_and_contains() {
        assert_eq!(bit_len(&[]), 0);
        assert_eq!(bit_len(&[0x01]), 1);
        assert_eq!(bit_len(&[0x80]), 8);
        assert_eq!(bit_len(&[0x01, 0x00]), 9);
        assert!(contains(&[0x01, 0x00], 8));
        assert!(!contains(&[0x01, 0x00], 0));
        assert!(!contains(&[0x01, 0x00], 16));
        assert!(contains(&[0xad], 7));
    }

    #[test]
    fn indices_round_trip() {
        for set in [
            vec![0usize],
            vec![1, 9, 17],
            vec![63, 64, 200],
            (0..40).collect(),
        ] {
            let bits = from_indices(&set);
            assert_eq!(to_indices(&bits).unwrap(), set);
            assert_eq!(bit_len(&bits), set.last().unwrap() + 1);
        }
    }
}
