//! firn's EVM values are alloy's: [`U256`] amounts, [`B256`] hashes and 20-byte [`Address`]es,
//! re-exported so that the store, the indexer and the APIs name one type each.
//!
//! All three are stored as big-endian bytes (`BLOB` / `BYTEA`, 32 or 20 of them), which compare
//! bytewise in both backends, so a `U256` column sorts numerically.
//!
//! What is firn's own is their text ([`firn_core::text`]). [`ParseText`] reads exactly the forms firn takes from a
//! node or a client — a decimal or `0x`-hex amount, `0x` and 64 or 40 hex digits — where
//! alloy's `FromStr` also takes hashes without `0x`, `_` separators and empty text as zero:
//! from outside, those are errors, not values; `firn_core::text` also reads them from JSON
//! strings in place. Addresses print with `{:#x}` (lowercase, as the Data API and the nodes
//! write them): alloy's `Display` writes the EIP-55 checksum.

pub use firn_core::text::{Address, B256, ParseText, ParseValueError, U256};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u256_stored_bytes_are_32_big_endian_and_sort_numerically() {
        let a = U256::from(u128::MAX);
        let b = a.checked_add(U256::ONE).unwrap();
        assert!(b > a);
        assert!(a.to_be_bytes::<32>() < b.to_be_bytes::<32>());
        let mut one = [0u8; 32];
        one[31] = 1;
        assert_eq!(U256::ONE.to_be_bytes::<32>(), one);
        assert_eq!(
            U256::from_be_bytes(U256::MAX.to_be_bytes::<32>()),
            U256::MAX
        );
    }
}
