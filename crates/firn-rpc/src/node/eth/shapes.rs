//! go-ethereum's JSON for blocks, transactions, receipts and logs (`ethapi.RPCMarshalBlock`,
//! `RPCTransaction`, `MarshalReceipt`, `types.Log`). Headers and receipts are Go maps, so
//! their keys come out sorted; transactions and logs are structs, in field order.

use std::collections::BTreeMap;

use alloy_consensus::{Transaction, TxEnvelope};
use alloy_primitives::{Address, B256, Bytes, U256};
use firn_evm::{Block, LogEntry, SignedTx};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// `0x`-hex quantity.
pub fn q(v: impl Into<u128>) -> Value {
    Value::String(format!("{:#x}", v.into()))
}

/// `0x`-hex quantity of a U256.
pub fn q256(v: U256) -> Value {
    Value::String(format!("{v:#x}"))
}

/// `0x`-hex bytes.
pub fn data(b: &[u8]) -> Value {
    // const-hex: far faster than `hex`'s char-at-a-time encoding on blooms and calldata.
    Value::String(alloy_primitives::hex::encode_prefixed(b))
}

fn hash(h: &B256) -> Value {
    Value::String(format!("{h:#x}"))
}

fn addr(a: &Address) -> Value {
    // geth prints addresses lower-case in JSON (`common.Address.MarshalText`).
    Value::String(format!("{a:#x}"))
}

/// A header as `eth_getBlockBy*` shows it, without `transactions` and `uncles`.
pub fn header_json(b: &Block) -> BTreeMap<&'static str, Value> {
    let h = &b.header;
    let mut m = BTreeMap::new();
    if let Some(f) = h.base_fee {
        m.insert("baseFeePerGas", q(f));
    }
    if let Some(c) = h.block_gas_cost {
        m.insert("blockGasCost", q(c));
    }
    if let Some(g) = h.blob_gas_used {
        m.insert("blobGasUsed", q(g));
    }
    if let Some(g) = h.excess_blob_gas {
        m.insert("excessBlobGas", q(g));
    }
    if let Some(r) = &h.parent_beacon_block_root {
        m.insert("parentBeaconBlockRoot", hash(r));
    }
    m.insert("difficulty", q256(h.difficulty));
    m.insert("extraData", data(&h.extra_data));
    m.insert("gasLimit", q(h.gas_limit));
    m.insert("gasUsed", q(h.gas_used));
    m.insert("hash", hash(&b.hash));
    m.insert("logsBloom", data(h.logs_bloom.as_slice()));
    m.insert("miner", addr(&h.beneficiary));
    m.insert("mixHash", hash(&h.mix_hash));
    m.insert("nonce", data(h.nonce.as_slice()));
    m.insert("number", q(h.number));
    m.insert("parentHash", hash(&h.parent_hash));
    m.insert("receiptsRoot", hash(&h.receipts_root));
    m.insert("sha3Uncles", hash(&h.ommers_hash));
    m.insert("size", q(b.size));
    m.insert("stateRoot", hash(&h.state_root));
    m.insert("timestamp", q(h.timestamp));
    m.insert("transactionsRoot", hash(&h.transactions_root));
    m
}

/// A block; `full` gives transaction objects, else their hashes.
pub fn block_json(b: &Block, full: bool) -> Value {
    let mut m = header_json(b);
    let txs: Vec<Value> = if full {
        b.txs
            .iter()
            .enumerate()
            .map(|(i, t)| tx_json(t, Some((b, i))))
            .collect()
    } else {
        b.txs.iter().map(|t| hash(&t.hash)).collect()
    };
    m.insert("transactions", Value::Array(txs));
    m.insert("uncles", json!([]));
    Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

/// A transaction; `at` is its block and index once mined.
pub fn tx_json(t: &SignedTx, at: Option<(&Block, usize)>) -> Value {
    let e = &t.envelope;
    let mut m = Map::new();
    let (block_hash, number, index) = match at {
        Some((b, i)) => (hash(&b.hash), q(b.header.number), q(i as u64)),
        None => (Value::Null, Value::Null, Value::Null),
    };
    m.insert("blockHash".into(), block_hash);
    m.insert("blockNumber".into(), number);
    m.insert("from".into(), addr(&t.sender));
    m.insert("gas".into(), q(e.gas_limit()));
    let base_fee = at.and_then(|(b, _)| b.header.base_fee);
    match e {
        TxEnvelope::Eip1559(_) => {
            let price = match base_fee {
                Some(f) => e.effective_gas_price(Some(f)),
                None => e.max_fee_per_gas(),
            };
            m.insert("gasPrice".into(), q(price));
            m.insert("maxFeePerGas".into(), q(e.max_fee_per_gas()));
            m.insert(
                "maxPriorityFeePerGas".into(),
                q(e.max_priority_fee_per_gas().unwrap_or_default()),
            );
        }
        _ => {
            m.insert("gasPrice".into(), q(e.gas_price().unwrap_or_default()));
        }
    }
    m.insert("hash".into(), hash(&t.hash));
    m.insert("input".into(), data(e.input()));
    m.insert("nonce".into(), q(e.nonce()));
    m.insert("to".into(), e.to().map_or(Value::Null, |a| addr(&a)));
    m.insert("transactionIndex".into(), index);
    m.insert("value".into(), q256(e.value()));
    m.insert("type".into(), q(e.tx_type() as u8));
    if let Some(list) = e.access_list() {
        let items: Vec<Value> = list
            .iter()
            .map(|item| {
                json!({
                    "address": addr(&item.address),
                    "storageKeys": item.storage_keys.iter().map(hash).collect::<Vec<_>>(),
                })
            })
            .collect();
        m.insert("accessList".into(), Value::Array(items));
    }
    if let Some(id) = e.chain_id() {
        m.insert("chainId".into(), q(id));
    }
    let sig = e.signature();
    let v = match e {
        TxEnvelope::Legacy(_) => {
            let parity = sig.v() as u64;
            match e.chain_id() {
                Some(id) => parity + 35 + 2 * id,
                None => parity + 27,
            }
        }
        _ => sig.v() as u64,
    };
    m.insert("v".into(), q(v));
    m.insert("r".into(), q256(sig.r()));
    m.insert("s".into(), q256(sig.s()));
    if !matches!(e, TxEnvelope::Legacy(_)) {
        m.insert("yParity".into(), q(sig.v() as u64));
    }
    Value::Object(m)
}

fn hex_q(v: impl Into<u128>) -> String {
    format!("{:#x}", v.into())
}

/// `types.Log`'s JSON, fields in struct order. Typed rather than a `Value` map so that
/// whole-block receipts serialize without building and hashing a map per object.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogJson {
    address: String,
    topics: Vec<String>,
    data: String,
    block_number: String,
    transaction_hash: String,
    transaction_index: String,
    block_hash: String,
    log_index: String,
    removed: bool,
}

impl LogJson {
    fn new(l: &LogEntry) -> Self {
        Self {
            address: format!("{:#x}", l.log.address),
            topics: l
                .log
                .data
                .topics()
                .iter()
                .map(|t| format!("{t:#x}"))
                .collect(),
            data: alloy_primitives::hex::encode_prefixed(&l.log.data.data),
            block_number: hex_q(l.block_number),
            transaction_hash: format!("{:#x}", l.tx_hash),
            transaction_index: hex_q(l.tx_index as u64),
            block_hash: format!("{:#x}", l.block_hash),
            log_index: hex_q(l.log_index as u64),
            removed: false,
        }
    }
}

/// A log with its position.
pub fn log_json(l: &LogEntry) -> Value {
    serde_json::to_value(LogJson::new(l)).unwrap_or(Value::Null)
}

/// `MarshalReceipt`'s JSON: a Go map, so keys in sorted order (the field order here).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReceiptJson {
    block_hash: String,
    block_number: String,
    contract_address: Option<String>,
    cumulative_gas_used: String,
    effective_gas_price: String,
    from: String,
    gas_used: String,
    logs: Vec<LogJson>,
    logs_bloom: String,
    status: String,
    to: Option<String>,
    transaction_hash: String,
    transaction_index: String,
    #[serde(rename = "type")]
    tx_type: String,
}

impl ReceiptJson {
    fn new(b: &Block, index: usize, logs: &[LogEntry]) -> Self {
        let t = &b.txs[index];
        let r = &b.receipts[index];
        // geth prints addresses lower-case in JSON (`common.Address.MarshalText`).
        let addr = |a: Address| format!("{a:#x}");
        Self {
            block_hash: format!("{:#x}", b.hash),
            block_number: hex_q(b.header.number),
            contract_address: r.contract_address.map(addr),
            cumulative_gas_used: hex_q(r.cumulative_gas_used),
            effective_gas_price: hex_q(r.effective_gas_price),
            from: addr(t.sender),
            gas_used: hex_q(r.gas_used),
            logs: logs.iter().map(LogJson::new).collect(),
            logs_bloom: alloy_primitives::hex::encode_prefixed(r.bloom.as_slice()),
            status: hex_q(u64::from(r.success)),
            to: t.envelope.to().map(addr),
            transaction_hash: format!("{:#x}", t.hash),
            transaction_index: hex_q(index as u64),
            tx_type: hex_q(r.tx_type),
        }
    }
}

/// The receipt of the `index`-th transaction of `b`; `logs` are that tx's entries.
pub fn receipt_json(b: &Block, index: usize, logs: &[LogEntry]) -> Value {
    serde_json::to_value(ReceiptJson::new(b, index, logs)).unwrap_or(Value::Null)
}

/// Every receipt of `b`, logs grouped by transaction in one pass.
pub fn block_receipts_json(b: &Block) -> Vec<ReceiptJson> {
    let mut by_tx: Vec<Vec<LogEntry>> = vec![Vec::new(); b.txs.len()];
    for l in firn_evm::block_logs(b, None) {
        if let Some(mine) = by_tx.get_mut(l.tx_index) {
            mine.push(l);
        }
    }
    by_tx
        .iter()
        .enumerate()
        .map(|(i, mine)| ReceiptJson::new(b, i, mine))
        .collect()
}

/// Raw bytes as `hexutil.Bytes`.
pub fn bytes_json(b: &Bytes) -> Value {
    data(b)
}
