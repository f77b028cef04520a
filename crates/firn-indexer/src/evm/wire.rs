//! The node's geth-style JSON as the EVM follower reads it: blocks with full transactions,
//! receipts with logs, and `callTracer` frames. Only the fields the indexer stores are read.

use firn_store::types::{Address, B256, FromText, U256};
use serde::{Deserialize, Deserializer};

/// A `0x`-hex quantity that fits in a `u64`.
pub(crate) fn quantity<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    Quantity::deserialize(d).map(|q| q.0)
}

fn opt_quantity<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Option::<Quantity>::deserialize(d)?.map(|q| q.0))
}

/// A `u64` read from its `0x`-hex text in place.
struct Quantity(u64);

impl std::str::FromStr for Quantity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        parse_quantity(s).map(Quantity)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(FromText::new("a 0x-hex quantity"))
    }
}

/// Parses `0x…` hex into a `u64`.
pub(crate) fn parse_quantity(s: &str) -> Result<u64, String> {
    let digits = s
        .strip_prefix("0x")
        .ok_or_else(|| format!("quantity {s:?} has no 0x prefix"))?;
    u64::from_str_radix(digits, 16).map_err(|e| format!("quantity {s:?}: {e}"))
}

/// `0x`-hex bytes.
pub(crate) fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
    d.deserialize_str(FromText::<HexBytes>::new("0x-hex bytes"))
        .map(|b| b.0)
}

/// Bytes read from their `0x`-hex text in place.
struct HexBytes(Vec<u8>);

impl std::str::FromStr for HexBytes {
    type Err = hex::FromHexError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        hex::decode(s.strip_prefix("0x").unwrap_or(s)).map(HexBytes)
    }
}

/// A block from `eth_getBlockByNumber(n, true)`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcBlock {
    /// Number.
    #[serde(deserialize_with = "quantity")]
    pub number: u64,
    /// Hash.
    pub hash: B256,
    /// Parent hash.
    pub parent_hash: B256,
    /// Unix seconds.
    #[serde(deserialize_with = "quantity")]
    pub timestamp: u64,
    /// Gas used.
    #[serde(deserialize_with = "quantity")]
    pub gas_used: u64,
    /// Gas limit.
    #[serde(deserialize_with = "quantity")]
    pub gas_limit: u64,
    /// Base fee, post-London.
    #[serde(default)]
    pub base_fee_per_gas: Option<U256>,
    /// subnet-evm's block gas cost.
    #[serde(default)]
    pub block_gas_cost: Option<U256>,
    /// Encoded size.
    #[serde(default, deserialize_with = "opt_quantity")]
    pub size: Option<u64>,
    /// Full transactions.
    #[serde(default)]
    pub transactions: Vec<RpcTx>,
}

/// A transaction object.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcTx {
    /// Hash.
    pub hash: B256,
    /// Sender.
    pub from: Address,
    /// Recipient (`null` for creations).
    #[serde(default)]
    pub to: Option<Address>,
    /// Value, wei.
    pub value: U256,
    /// Nonce.
    #[serde(deserialize_with = "quantity")]
    pub nonce: u64,
    /// Gas limit.
    #[serde(deserialize_with = "quantity")]
    pub gas: u64,
    /// EIP-1559 max fee.
    #[serde(default)]
    pub max_fee_per_gas: Option<U256>,
    /// EIP-1559 tip cap.
    #[serde(default)]
    pub max_priority_fee_per_gas: Option<U256>,
    /// Type (absent on very old nodes: legacy).
    #[serde(default, rename = "type", deserialize_with = "opt_quantity")]
    pub tx_type: Option<u64>,
    /// Input data.
    #[serde(deserialize_with = "bytes")]
    pub input: Vec<u8>,
}

/// A receipt from `eth_getBlockReceipts`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcReceipt {
    /// Transaction hash.
    pub transaction_hash: B256,
    /// Gas used by this transaction.
    #[serde(deserialize_with = "quantity")]
    pub gas_used: u64,
    /// Price paid per gas.
    pub effective_gas_price: U256,
    /// `0x1` success, `0x0` failure (pre-Byzantium receipts have none: success).
    #[serde(default, deserialize_with = "opt_quantity")]
    pub status: Option<u64>,
    /// Created contract.
    #[serde(default)]
    pub contract_address: Option<Address>,
    /// Logs.
    #[serde(default)]
    pub logs: Vec<RpcLog>,
}

/// A log inside a receipt.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcLog {
    /// Emitting contract.
    pub address: Address,
    /// Topics.
    pub topics: Vec<B256>,
    /// Data.
    #[serde(deserialize_with = "bytes")]
    pub data: Vec<u8>,
    /// Index in the block.
    #[serde(deserialize_with = "quantity")]
    pub log_index: u64,
}

/// One entry of `debug_traceBlockByNumber` with `callTracer`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcTrace {
    /// Transaction hash (geth ≥ 1.11; absent on older nodes).
    #[serde(default)]
    pub tx_hash: Option<B256>,
    /// The call tree.
    pub result: CallFrame,
}

/// A `callTracer` frame.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// `CALL`, `CREATE`, `CREATE2`, `DELEGATECALL`, `STATICCALL`, `CALLCODE`, `SELFDESTRUCT`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Caller.
    pub from: Address,
    /// Callee or created contract (absent when a creation failed).
    #[serde(default)]
    pub to: Option<Address>,
    /// Value moved.
    #[serde(default)]
    pub value: Option<U256>,
    /// Gas given.
    #[serde(default, deserialize_with = "opt_quantity")]
    pub gas: Option<u64>,
    /// Gas used.
    #[serde(default, deserialize_with = "opt_quantity")]
    pub gas_used: Option<u64>,
    /// Why the call failed.
    #[serde(default)]
    pub error: Option<String>,
    /// Nested calls.
    #[serde(default)]
    pub calls: Vec<CallFrame>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_need_the_prefix_and_fit() {
        assert_eq!(parse_quantity("0x1f"), Ok(31));
        assert!(parse_quantity("31").is_err());
        assert!(parse_quantity("0x1ffffffffffffffff").is_err());
    }

    #[test]
    fn quantities_and_bytes_decode_from_json_text() {
        let tx: RpcTx = serde_json::from_str(&format!(
            r#"{{"hash": "0x{}", "from": "0x{}", "value": "0x0", "nonce": "0x2a",
                "gas": "0x5208", "input": "0xdeadbeef", "type": "0x2"}}"#,
            "11".repeat(32),
            "22".repeat(20)
        ))
        .expect("decodes");
        assert_eq!(
            (tx.tx_type, tx.nonce, tx.gas, tx.input),
            (Some(2), 42, 21_000, vec![0xde, 0xad, 0xbe, 0xef])
        );
        let bad = serde_json::from_str::<RpcTx>(&format!(
            r#"{{"hash": "0x{}", "from": "0x{}", "value": "0x0", "nonce": 42,
                "gas": "0x5208", "input": "0x"}}"#,
            "11".repeat(32),
            "22".repeat(20)
        ))
        .unwrap_err()
        .to_string();
        assert!(bad.contains("expected a 0x-hex quantity"), "{bad}");
    }

    #[test]
    fn a_legacy_tx_without_type_reads() {
        let tx: RpcTx = serde_json::from_value(serde_json::json!({
            "hash": format!("0x{}", "11".repeat(32)),
            "from": format!("0x{}", "22".repeat(20)),
            "to": null, "value": "0x0", "nonce": "0x2", "gas": "0x5208", "input": "0x6001",
        }))
        .expect("decodes");
        assert_eq!(
            (tx.tx_type, tx.nonce, tx.input),
            (None, 2, vec![0x60, 0x01])
        );
    }
}
