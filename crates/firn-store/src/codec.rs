//! Column codecs: how Rust values are stored (the functions here, bound with `Sql::bind`) and
//! read back ([`RowExt`] on any [`Row`]). The two directions of each encoding sit together:
//! heights and counts in signed 64-bit columns, u64 amounts as their bit pattern, uint256 as
//! 32 big-endian bytes, IDs and lists of IDs as raw bytes.

use firn_core::ids::{Id, NodeId, ShortId};

use crate::error::{Result, StoreError};
use crate::row::{Row, corrupt};
use crate::rows::pchain::AssetAmount;
use crate::types::{Address, B256, U256};

// Rust values to stored columns ----------------------------------------------------------------

/// A height, timestamp or count: must fit a signed 64-bit column.
pub(crate) fn int(field: &'static str, v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| StoreError::OutOfRange {
        field,
        value: v.to_string(),
    })
}

/// A u64 amount stored as its bit pattern (exact; never compared or summed in SQL).
pub(crate) fn bits(v: u64) -> i64 {
    v as i64
}

pub(crate) fn u256(v: &U256) -> Vec<u8> {
    v.to_be_bytes::<32>().to_vec()
}

pub(crate) fn u128_bytes(v: u128) -> Vec<u8> {
    v.to_be_bytes().to_vec()
}

pub(crate) fn short_ids(ids: &[ShortId]) -> Vec<u8> {
    ids.iter().flat_map(|a| a.0).collect()
}

pub(crate) fn amounts(list: &[AssetAmount]) -> Vec<u8> {
    let mut out = Vec::with_capacity(list.len() * 40);
    for a in list {
        out.extend_from_slice(&a.asset_id.0);
        out.extend_from_slice(&a.amount.to_be_bytes());
    }
    out
}

pub(crate) fn hashes(ids: &[Id]) -> Vec<u8> {
    ids.iter().flat_map(|a| a.0).collect()
}

pub(crate) fn b256s(list: &[B256]) -> Vec<u8> {
    list.iter().flat_map(|a| a.0).collect()
}

/// An `f64` serialized as its bit pattern, so it comes back exactly (a decimal form may not).
pub(crate) mod f64_bits {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(v.to_bits())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        u64::deserialize(d).map(f64::from_bits)
    }
}

// Stored columns to Rust values ----------------------------------------------------------------

/// Typed access to the columns of a result row.
pub(crate) trait RowExt: Row {
    fn opt_i64(&self, col: &'static str) -> Result<Option<i64>> {
        self.get_i64(col)
    }
    fn opt_bytes(&self, col: &'static str) -> Result<Option<Vec<u8>>> {
        Ok(self.get_blob(col)?.map(<[u8]>::to_vec))
    }
    fn opt_text(&self, col: &'static str) -> Result<Option<String>> {
        Ok(self.get_str(col)?.map(str::to_owned))
    }
    fn f64(&self, col: &'static str) -> Result<f64> {
        self.get_f64(col)?.ok_or_else(|| corrupt(col, "null"))
    }

    fn i64(&self, col: &'static str) -> Result<i64> {
        self.opt_i64(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn bytes(&self, col: &'static str) -> Result<Vec<u8>> {
        self.opt_bytes(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn text(&self, col: &'static str) -> Result<String> {
        self.opt_text(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    /// A non-negative integer column.
    fn u64(&self, col: &'static str) -> Result<u64> {
        let v = self.i64(col)?;
        u64::try_from(v).map_err(|_| corrupt(col, format!("negative value {v}")))
    }
    fn opt_u64(&self, col: &'static str) -> Result<Option<u64>> {
        self.opt_i64(col)?
            .map(|v| u64::try_from(v).map_err(|_| corrupt(col, format!("negative value {v}"))))
            .transpose()
    }
    fn u32(&self, col: &'static str) -> Result<u32> {
        let v = self.i64(col)?;
        u32::try_from(v).map_err(|_| corrupt(col, format!("value {v} out of range")))
    }
    /// A u64 stored as its bit pattern.
    fn bits(&self, col: &'static str) -> Result<u64> {
        Ok(self.i64(col)? as u64)
    }
    fn opt_bits(&self, col: &'static str) -> Result<Option<u64>> {
        Ok(self.opt_i64(col)?.map(|v| v as u64))
    }
    fn bool(&self, col: &'static str) -> Result<bool> {
        Ok(self.i64(col)? != 0)
    }
    fn fixed<const N: usize>(&self, col: &'static str) -> Result<[u8; N]> {
        self.opt_fixed(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn opt_fixed<const N: usize>(&self, col: &'static str) -> Result<Option<[u8; N]>> {
        match self.get_blob(col)? {
            None => Ok(None),
            Some(b) => b
                .try_into()
                .map(Some)
                .map_err(|_| corrupt(col, format!("{} bytes, expected {N}", b.len()))),
        }
    }
    /// A non-null blob, borrowed.
    fn blob(&self, col: &'static str) -> Result<&[u8]> {
        self.get_blob(col)?.ok_or_else(|| corrupt(col, "null"))
    }
    fn id(&self, col: &'static str) -> Result<Id> {
        Ok(Id(self.fixed(col)?))
    }
    fn opt_id(&self, col: &'static str) -> Result<Option<Id>> {
        Ok(self.opt_fixed(col)?.map(Id))
    }
    fn node_id(&self, col: &'static str) -> Result<NodeId> {
        Ok(NodeId(self.fixed(col)?))
    }
    fn opt_node_id(&self, col: &'static str) -> Result<Option<NodeId>> {
        Ok(self.opt_fixed(col)?.map(NodeId))
    }
    fn address(&self, col: &'static str) -> Result<Address> {
        Ok(Address::new(self.fixed(col)?))
    }
    fn opt_address(&self, col: &'static str) -> Result<Option<Address>> {
        Ok(self.opt_fixed(col)?.map(Address::new))
    }
    fn b256(&self, col: &'static str) -> Result<B256> {
        Ok(B256::new(self.fixed(col)?))
    }
    fn u256(&self, col: &'static str) -> Result<U256> {
        Ok(U256::from_be_bytes::<32>(self.fixed(col)?))
    }
    fn opt_u256(&self, col: &'static str) -> Result<Option<U256>> {
        Ok(self.opt_fixed(col)?.map(U256::from_be_bytes::<32>))
    }
    fn u128(&self, col: &'static str) -> Result<u128> {
        Ok(u128::from_be_bytes(self.fixed(col)?))
    }
    /// A list of `N`-byte items stored back to back (`what` names them in errors).
    fn items<const N: usize>(&self, col: &'static str, what: &str) -> Result<Vec<[u8; N]>> {
        let b = self.blob(col)?;
        if b.len() % N != 0 {
            return Err(corrupt(
                col,
                format!("{what} list length not a multiple of {N}"),
            ));
        }
        Ok(b.chunks_exact(N)
            .map(|c| {
                let mut item = [0u8; N];
                item.copy_from_slice(c);
                item
            })
            .collect())
    }
    fn short_ids(&self, col: &'static str) -> Result<Vec<ShortId>> {
        Ok(self
            .items(col, "address")?
            .into_iter()
            .map(ShortId)
            .collect())
    }
    fn hashes(&self, col: &'static str) -> Result<Vec<Id>> {
        Ok(self.items(col, "hash")?.into_iter().map(Id).collect())
    }
    fn b256s(&self, col: &'static str) -> Result<Vec<B256>> {
        Ok(self
            .items(col, "hash")?
            .into_iter()
            .map(B256::new)
            .collect())
    }
    fn amounts(&self, col: &'static str) -> Result<Vec<AssetAmount>> {
        let items: Vec<[u8; 40]> = self.items(col, "amount")?;
        Ok(items
            .iter()
            .map(|c| {
                let (asset, amount) = c.split_at(32);
                let mut asset_id = [0u8; 32];
                asset_id.copy_from_slice(asset);
                let mut be = [0u8; 8];
                be.copy_from_slice(amount);
                AssetAmount {
                    asset_id: Id(asset_id),
                    amount: u64::from_be_bytes(be),
                }
            })
            .collect())
    }
}

impl<R: Row + ?Sized> RowExt for R {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heights_must_fit_signed_columns() {
        assert_eq!(int("height", 5).unwrap(), 5);
        assert!(matches!(
            int("height", u64::MAX),
            Err(StoreError::OutOfRange {
                field: "height",
                ..
            })
        ));
        assert_eq!(bits(u64::MAX) as u64, u64::MAX);
    }
}
