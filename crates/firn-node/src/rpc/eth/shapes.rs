//! Blocks, transactions, receipts, logs and call frames of a firn-evm chain in go-ethereum's
//! JSON, whose types are declared once in [`firn_rpc::methods::eth`].

use alloy_consensus::{Transaction as _, TxEnvelope};
use alloy_primitives::{B256, U256};
use firn_evm::{Block, LogEntry, SignedTx};
use firn_rpc::methods::eth::{self, AccessListItem, CallFrame, Log, Receipt, Transaction};
use serde::Serialize;

/// A block with full transactions or with their hashes (`eth_getBlockBy*`'s second param).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum BlockJson {
    /// Full transaction objects.
    Full(eth::Block<Transaction>),
    /// Transaction hashes.
    Hashes(eth::Block<B256>),
}

/// The header of `b` with `transactions` as given.
fn block_of<T>(b: &Block, transactions: Vec<T>) -> eth::Block<T> {
    let h = &b.header;
    eth::Block {
        base_fee_per_gas: h.base_fee.map(U256::from),
        blob_gas_used: h.blob_gas_used,
        block_extra_data: None,
        block_gas_cost: h.block_gas_cost.map(U256::from),
        difficulty: h.difficulty,
        excess_blob_gas: h.excess_blob_gas,
        ext_data_gas_used: h.ext_data_gas_used.map(U256::from),
        ext_data_hash: h.ext_data_hash,
        extra_data: h.extra_data.clone(),
        gas_limit: h.gas_limit,
        gas_used: h.gas_used,
        hash: b.hash,
        logs_bloom: h.logs_bloom,
        miner: h.beneficiary,
        mix_hash: h.mix_hash,
        nonce: h.nonce,
        number: h.number,
        parent_beacon_block_root: h.parent_beacon_block_root,
        parent_hash: h.parent_hash,
        receipts_root: h.receipts_root,
        sha3_uncles: h.ommers_hash,
        size: Some(b.size),
        state_root: h.state_root,
        timestamp: h.timestamp,
        transactions,
        transactions_root: h.transactions_root,
        uncles: Vec::new(),
    }
}

/// `block` with coreth's `blockExtraData` (a block's, not a header's field).
fn with_extra_data<T>(b: &Block, mut block: eth::Block<T>) -> eth::Block<T> {
    block.block_extra_data = b.ext_data.clone();
    block
}

/// A block; `full` gives transaction objects, else their hashes.
pub fn block_json(b: &Block, full: bool) -> BlockJson {
    if full {
        let txs = (0..b.txs.len())
            .map(|i| tx_json(&b.txs[i], Some((b, i))))
            .collect();
        BlockJson::Full(with_extra_data(b, block_of(b, txs)))
    } else {
        let hashes = b.txs.iter().map(|t| t.hash).collect();
        BlockJson::Hashes(with_extra_data(b, block_of(b, hashes)))
    }
}

/// The header of `b`.
pub fn header_json(b: &Block) -> eth::Header {
    eth::Header(block_of(b, Vec::new()))
}

/// A transaction; `at` is its block and index once mined.
pub fn tx_json(t: &SignedTx, at: Option<(&Block, usize)>) -> Transaction {
    let e = &t.envelope;
    let base_fee = at.and_then(|(b, _)| b.header.base_fee);
    let (gas_price, max_fee, max_tip) = match e {
        TxEnvelope::Eip1559(_) => {
            let price = match base_fee {
                Some(f) => e.effective_gas_price(Some(f)),
                None => e.max_fee_per_gas(),
            };
            (
                price,
                Some(e.max_fee_per_gas()),
                Some(e.max_priority_fee_per_gas().unwrap_or_default()),
            )
        }
        _ => (e.gas_price().unwrap_or_default(), None, None),
    };
    let sig = e.signature();
    let parity = u64::from(sig.v());
    let legacy = matches!(e, TxEnvelope::Legacy(_));
    let v = match (legacy, e.chain_id()) {
        (true, Some(id)) => parity + 35 + 2 * id,
        (true, None) => parity + 27,
        (false, _) => parity,
    };
    Transaction {
        block_hash: at.map(|(b, _)| b.hash),
        block_number: at.map(|(b, _)| b.header.number),
        from: t.sender,
        gas: e.gas_limit(),
        gas_price: Some(U256::from(gas_price)),
        max_fee_per_gas: max_fee.map(U256::from),
        max_priority_fee_per_gas: max_tip.map(U256::from),
        hash: t.hash,
        input: e.input().clone(),
        nonce: e.nonce(),
        to: e.to(),
        transaction_index: at.map(|(_, i)| i as u64),
        value: e.value(),
        tx_type: Some(u64::from(e.tx_type() as u8)),
        access_list: e.access_list().map(|list| {
            list.iter()
                .map(|item| AccessListItem {
                    address: item.address,
                    storage_keys: item.storage_keys.clone(),
                })
                .collect()
        }),
        chain_id: e.chain_id(),
        v: U256::from(v),
        r: sig.r(),
        s: sig.s(),
        y_parity: (!legacy).then_some(parity),
    }
}

/// A log with its position.
pub fn log_json(l: &LogEntry) -> Log {
    Log {
        address: l.log.address,
        topics: l.log.data.topics().to_vec(),
        data: l.log.data.data.clone(),
        block_number: l.block_number,
        transaction_hash: l.tx_hash,
        transaction_index: l.tx_index as u64,
        block_hash: l.block_hash,
        log_index: l.log_index as u64,
        removed: false,
    }
}

/// The receipt of the `index`-th transaction of `b`; `logs` are that tx's entries.
pub fn receipt_json(b: &Block, index: usize, logs: &[LogEntry]) -> Receipt {
    let t = &b.txs[index];
    let r = &b.receipts[index];
    Receipt {
        block_hash: b.hash,
        block_number: b.header.number,
        contract_address: r.contract_address,
        cumulative_gas_used: r.cumulative_gas_used,
        effective_gas_price: U256::from(r.effective_gas_price),
        from: t.sender,
        gas_used: r.gas_used,
        logs: logs.iter().map(log_json).collect(),
        logs_bloom: r.bloom,
        status: Some(u64::from(r.success)),
        to: t.envelope.to(),
        transaction_hash: t.hash,
        transaction_index: index as u64,
        tx_type: u64::from(r.tx_type),
    }
}

/// Every receipt of `b`, logs grouped by transaction in one pass.
pub fn block_receipts_json(b: &Block) -> Vec<Receipt> {
    let mut by_tx: Vec<Vec<LogEntry>> = vec![Vec::new(); b.txs.len()];
    for l in firn_evm::block_logs(b, None) {
        if let Some(mine) = by_tx.get_mut(l.tx_index) {
            mine.push(l);
        }
    }
    by_tx
        .iter()
        .enumerate()
        .map(|(i, mine)| receipt_json(b, i, mine))
        .collect()
}

/// A `callTracer` frame; `only_top` leaves the nested calls out.
pub fn frame_json(f: &firn_evm::CallFrame, only_top: bool) -> CallFrame {
    CallFrame {
        from: f.from,
        gas: f.gas,
        gas_used: f.gas_used,
        to: f.to,
        input: f.input.clone(),
        output: f.output.clone(),
        error: f.error.clone(),
        revert_reason: f.revert_reason.clone(),
        calls: if only_top {
            Vec::new()
        } else {
            f.calls.iter().map(|c| frame_json(c, false)).collect()
        },
        logs: f
            .logs
            .iter()
            .map(|(l, position)| eth::CallLog {
                address: l.address,
                topics: l.data.topics().to_vec(),
                data: l.data.data.clone(),
                position: eth::Quantity(*position),
            })
            .collect(),
        value: f.value,
        kind: f.kind.to_owned(),
    }
}
