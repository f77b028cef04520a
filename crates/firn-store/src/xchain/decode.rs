//! Row → record decoding for the X-Chain reads.

use crate::codec::RowExt;
use crate::error::{Result, StoreError};
use crate::row::Row;
use crate::rows::xchain::{
    AssetKind, XAsset, XAssetRecord, XBlockRecord, XConsumption, XOutputKind, XTxRecord, XUtxo,
    XUtxoRecord, XVertexRecord,
};

pub(super) fn decode_block(r: &dyn Row) -> Result<XBlockRecord> {
    Ok(XBlockRecord {
        height: r.u64("height")?,
        block_id: r.id("block_id")?,
        parent_id: r.id("parent_id")?,
        timestamp: r.u64("timestamp")?,
        tx_count: r.u64("tx_count")?,
        size_bytes: r.u64("size_bytes")?,
    })
}

pub(super) fn decode_vertex(r: &dyn Row) -> Result<XVertexRecord> {
    Ok(XVertexRecord {
        index: r.u64("vertex_index")?,
        vertex_id: r.id("vertex_id")?,
        height: r.u64("height")?,
        parent_ids: r.hashes("parent_ids")?,
        timestamp: r.u64("timestamp")?,
        tx_count: r.u64("tx_count")?,
        size_bytes: r.u64("size_bytes")?,
        tx_ids: r.hashes("tx_ids")?,
    })
}

/// A tx without its UTXOs and vertices (the reads add them).
pub(super) fn decode_tx(r: &dyn Row) -> Result<XTxRecord> {
    Ok(XTxRecord {
        tx_id: r.id("tx_id")?,
        height: r.u64("height")?,
        index: r.u32("tx_index")?,
        timestamp: r.u64("timestamp")?,
        tx_type: r.text("tx_type")?,
        memo: r.bytes("memo")?,
        source_chain: r.opt_id("source_chain")?,
        destination_chain: r.opt_id("destination_chain")?,
        bytes: r.bytes("bytes")?,
        genesis: r.bool("genesis")?,
        block_id: r.opt_id("block_id")?,
        consumed: Vec::new(),
        produced: Vec::new(),
        vertices: Vec::new(),
    })
}

pub(super) fn decode_utxo(r: &dyn Row) -> Result<XUtxoRecord> {
    let group_id = match r.opt_i64("group_id")? {
        Some(g) => Some(u32::try_from(g).map_err(|_| StoreError::Corrupt {
            column: "group_id",
            reason: format!("{g} is not a group"),
        })?),
        None => None,
    };
    let consumed = match r.opt_id("consumed_tx_id")? {
        Some(tx_id) => Some(XConsumption {
            tx_id,
            height: r.u64("consumed_height")?,
            timestamp: r.u64("consumed_timestamp")?,
        }),
        None => None,
    };
    Ok(XUtxoRecord {
        utxo: XUtxo {
            utxo_id: r.id("utxo_id")?,
            tx_id: r.id("tx_id")?,
            output_index: r.u32("output_index")?,
            asset_id: r.id("asset_id")?,
            kind: XOutputKind::decode("output_kind", &r.text("output_kind")?)?,
            amount: r.opt_bits("amount")?,
            group_id,
            payload: r.opt_bytes("payload")?,
            threshold: r.u32("threshold")?,
            locktime: r.bits("locktime")?,
            addresses: r.short_ids("addresses")?,
        },
        height: r.u64("height")?,
        timestamp: r.u64("timestamp")?,
        consumed,
    })
}

pub(super) fn decode_asset(r: &dyn Row) -> Result<XAssetRecord> {
    let denomination = r.u64("denomination")?;
    Ok(XAssetRecord {
        asset: XAsset {
            asset_id: r.id("asset_id")?,
            name: r.text("name")?,
            symbol: r.text("symbol")?,
            denomination: u8::try_from(denomination).map_err(|_| StoreError::Corrupt {
                column: "denomination",
                reason: format!("{denomination} is above 255"),
            })?,
            kind: AssetKind::decode("asset_kind", &r.text("asset_kind")?)?,
        },
        tx_id: r.id("tx_id")?,
        height: r.u64("height")?,
        timestamp: r.u64("timestamp")?,
    })
}
