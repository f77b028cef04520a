//! go-ethereum's JSON for blocks, transactions, receipts, logs and `callTracer` frames
//! (`ethapi.RPCMarshalBlock`, `RPCTransaction`, `MarshalReceipt`, `types.Log`,
//! `callTracer`'s `callFrame`), declared once: the node serves them and the indexer reads them.
//!
//! Headers and receipts are Go maps, so their keys come out sorted (the field order here);
//! transactions, logs and frames are Go structs, in their field order. Quantities are `0x`-hex
//! without leading zeros ([`quantity`]); hashes, addresses and bytes are alloy's types, whose
//! JSON is geth's (lower-case hex). Reading is lenient where nodes differ: what an older node
//! may leave out reads as `None` or empty.
//!
//! ```
//! use firn_rpc::methods::eth::Log;
//!
//! let text = r#"{"address":"0x1111111111111111111111111111111111111111","topics":[],"data":"0x","blockNumber":"0x1","transactionHash":"0x2222222222222222222222222222222222222222222222222222222222222222","transactionIndex":"0x0","blockHash":"0x3333333333333333333333333333333333333333333333333333333333333333","logIndex":"0x5","removed":false}"#;
//! let log: Log = serde_json::from_str(text).unwrap();
//! assert_eq!(log.log_index, 5);
//! assert_eq!(serde_json::to_string(&log).unwrap(), text);
//! ```

use alloy_primitives::{Address, B64, B256, Bloom, Bytes, U256};
use firn_core::text;
use serde::{Deserialize, Serialize};

/// A block from `eth_getBlockByNumber`/`eth_getBlockByHash`: `T` is [`Transaction`] with
/// full transactions, [`B256`] with hashes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "T: Deserialize<'de>"))]
pub struct Block<T> {
    /// EIP-1559 base fee.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub base_fee_per_gas: Option<U256>,
    /// EIP-4844 blob gas used (Cancun).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_quantity"
    )]
    pub blob_gas_used: Option<u64>,
    /// coreth (the C-Chain): the block's atomic txs, in blocks (not headers).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub block_extra_data: Option<Bytes>,
    /// subnet-evm's and coreth's block gas cost.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub block_gas_cost: Option<U256>,
    /// Always 1 on Avalanche.
    #[serde(default, deserialize_with = "text::value")]
    pub difficulty: U256,
    /// EIP-4844 excess blob gas (Cancun).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_quantity"
    )]
    pub excess_blob_gas: Option<u64>,
    /// coreth: the gas the block's atomic txs used.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub ext_data_gas_used: Option<U256>,
    /// coreth: the hash of the block's atomic txs.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub ext_data_hash: Option<B256>,
    /// Header extra data.
    #[serde(default, deserialize_with = "text::value")]
    pub extra_data: Bytes,
    /// Gas limit.
    #[serde(with = "quantity")]
    pub gas_limit: u64,
    /// Gas used.
    #[serde(with = "quantity")]
    pub gas_used: u64,
    /// The block hash.
    #[serde(deserialize_with = "text::value")]
    pub hash: B256,
    /// The logs bloom.
    #[serde(default)]
    pub logs_bloom: Bloom,
    /// The coinbase.
    #[serde(default, deserialize_with = "text::value")]
    pub miner: Address,
    /// Mix digest.
    #[serde(default, deserialize_with = "text::value")]
    pub mix_hash: B256,
    /// The header nonce (8 bytes).
    #[serde(default)]
    pub nonce: B64,
    /// The height.
    #[serde(with = "quantity")]
    pub number: u64,
    /// EIP-4788 parent beacon root (Cancun).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub parent_beacon_block_root: Option<B256>,
    /// The parent's hash.
    #[serde(deserialize_with = "text::value")]
    pub parent_hash: B256,
    /// Receipts trie root.
    #[serde(default, deserialize_with = "text::value")]
    pub receipts_root: B256,
    /// Ommers hash.
    #[serde(default, deserialize_with = "text::value")]
    pub sha3_uncles: B256,
    /// RLP size in bytes.
    #[serde(
        default,
        with = "opt_quantity",
        skip_serializing_if = "Option::is_none"
    )]
    pub size: Option<u64>,
    /// State root.
    #[serde(default, deserialize_with = "text::value")]
    pub state_root: B256,
    /// Unix seconds.
    #[serde(with = "quantity")]
    pub timestamp: u64,
    /// Transactions or their hashes.
    #[serde(default)]
    pub transactions: Vec<T>,
    /// Transactions trie root.
    #[serde(default, deserialize_with = "text::value")]
    pub transactions_root: B256,
    /// Always empty on Avalanche.
    #[serde(default, deserialize_with = "text::list")]
    pub uncles: Vec<B256>,
}

/// A block header (`eth_getHeaderByNumber`, `eth_getHeaderByHash`, `newHeads` notifications):
/// a block's fields without its transactions, uncles and size, as geth's `RPCMarshalHeader`
/// writes them. Reads back as a [`Block`] with no transactions.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct Header(pub Block<B256>);

impl Serialize for Header {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut v = serde_json::to_value(&self.0).map_err(serde::ser::Error::custom)?;
        if let Some(o) = v.as_object_mut() {
            for body in ["transactions", "uncles", "size"] {
                o.remove(body);
            }
        }
        v.serialize(s)
    }
}

/// An access list entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessListItem {
    /// The account.
    #[serde(deserialize_with = "text::value")]
    pub address: Address,
    /// Its slots.
    #[serde(deserialize_with = "text::list")]
    pub storage_keys: Vec<B256>,
}

/// `RPCTransaction`: a transaction, with its position once mined.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transaction {
    /// Its block (`null` while pending).
    #[serde(default, deserialize_with = "text::option")]
    pub block_hash: Option<B256>,
    /// Its block's height (`null` while pending).
    #[serde(default, with = "opt_quantity")]
    pub block_number: Option<u64>,
    /// The sender.
    #[serde(deserialize_with = "text::value")]
    pub from: Address,
    /// Gas limit.
    #[serde(with = "quantity")]
    pub gas: u64,
    /// Price paid (EIP-1559: the effective price once mined).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub gas_price: Option<U256>,
    /// EIP-1559 fee cap.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub max_fee_per_gas: Option<U256>,
    /// EIP-1559 tip cap.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub max_priority_fee_per_gas: Option<U256>,
    /// The tx hash.
    #[serde(deserialize_with = "text::value")]
    pub hash: B256,
    /// Calldata or init code.
    #[serde(deserialize_with = "text::value")]
    pub input: Bytes,
    /// The sender's nonce.
    #[serde(with = "quantity")]
    pub nonce: u64,
    /// The recipient (`null` for creations).
    #[serde(default, deserialize_with = "text::option")]
    pub to: Option<Address>,
    /// Its index in the block (`null` while pending).
    #[serde(default, with = "opt_quantity")]
    pub transaction_index: Option<u64>,
    /// Wei sent.
    #[serde(deserialize_with = "text::value")]
    pub value: U256,
    /// The EIP-2718 type (absent on very old nodes: legacy).
    #[serde(rename = "type", default, with = "opt_quantity")]
    pub tx_type: Option<u64>,
    /// EIP-2930 access list (typed txs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_list: Option<Vec<AccessListItem>>,
    /// The chain ID it is signed for (pre-EIP-155 legacy txs have none).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_quantity"
    )]
    pub chain_id: Option<u64>,
    /// Signature `v` (legacy: EIP-155 encoded; typed: the parity).
    #[serde(default, deserialize_with = "text::value")]
    pub v: U256,
    /// Signature `r`.
    #[serde(default, deserialize_with = "text::value")]
    pub r: U256,
    /// Signature `s`.
    #[serde(default, deserialize_with = "text::value")]
    pub s: U256,
    /// Signature parity (typed txs).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "opt_quantity"
    )]
    pub y_parity: Option<u64>,
}

/// `eth_getFilterChanges`' answer: block or transaction hashes (block and pending-transaction
/// filters), or logs (log filters).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FilterChanges {
    /// Block hashes or transaction hashes.
    Hashes(Vec<B256>),
    /// Logs.
    Logs(Vec<Log>),
}

/// `types.Log` with its position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Log {
    /// The emitting contract.
    #[serde(deserialize_with = "text::value")]
    pub address: Address,
    /// Topics.
    #[serde(deserialize_with = "text::list")]
    pub topics: Vec<B256>,
    /// Data.
    #[serde(deserialize_with = "text::value")]
    pub data: Bytes,
    /// Its block's height.
    #[serde(with = "quantity")]
    pub block_number: u64,
    /// Its tx.
    #[serde(deserialize_with = "text::value")]
    pub transaction_hash: B256,
    /// Its tx's index.
    #[serde(with = "quantity")]
    pub transaction_index: u64,
    /// Its block.
    #[serde(deserialize_with = "text::value")]
    pub block_hash: B256,
    /// Its index in the block.
    #[serde(with = "quantity")]
    pub log_index: u64,
    /// Removed by a reorg (never, on Avalanche's accepted blocks).
    #[serde(default)]
    pub removed: bool,
}

/// `MarshalReceipt`: a Go map, so keys in sorted order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Receipt {
    /// Its block.
    #[serde(deserialize_with = "text::value")]
    pub block_hash: B256,
    /// Its block's height.
    #[serde(with = "quantity")]
    pub block_number: u64,
    /// The contract a creation made.
    #[serde(default, deserialize_with = "text::option")]
    pub contract_address: Option<Address>,
    /// Gas used in the block up to and including this tx.
    #[serde(with = "quantity")]
    pub cumulative_gas_used: u64,
    /// Price paid per gas.
    #[serde(deserialize_with = "text::value")]
    pub effective_gas_price: U256,
    /// The sender.
    #[serde(deserialize_with = "text::value")]
    pub from: Address,
    /// Gas this tx used.
    #[serde(with = "quantity")]
    pub gas_used: u64,
    /// Its logs.
    #[serde(default)]
    pub logs: Vec<Log>,
    /// Their bloom.
    #[serde(default)]
    pub logs_bloom: Bloom,
    /// `1` success, `0` failure (pre-Byzantium receipts have none).
    #[serde(
        default,
        with = "opt_quantity",
        skip_serializing_if = "Option::is_none"
    )]
    pub status: Option<u64>,
    /// The recipient (`null` for creations).
    #[serde(default, deserialize_with = "text::option")]
    pub to: Option<Address>,
    /// The tx.
    #[serde(deserialize_with = "text::value")]
    pub transaction_hash: B256,
    /// Its index in the block.
    #[serde(with = "quantity")]
    pub transaction_index: u64,
    /// The EIP-2718 type.
    #[serde(rename = "type", default, with = "quantity")]
    pub tx_type: u64,
}

/// A `callTracer` frame, in its struct order with empty fields left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// The caller.
    #[serde(deserialize_with = "text::value")]
    pub from: Address,
    /// Gas given.
    #[serde(default, with = "quantity")]
    pub gas: u64,
    /// Gas used.
    #[serde(default, with = "quantity")]
    pub gas_used: u64,
    /// Callee or created contract (absent when a creation failed).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub to: Option<Address>,
    /// Calldata or init code.
    #[serde(default, deserialize_with = "text::value")]
    pub input: Bytes,
    /// Return data or created code.
    #[serde(
        default,
        skip_serializing_if = "<[u8]>::is_empty",
        deserialize_with = "text::value"
    )]
    pub output: Bytes,
    /// geth's error text, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The `Error(string)` reason of a revert.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revert_reason: Option<String>,
    /// Nested calls (left out with `onlyTopCall`); at most [`MAX_CALL_DEPTH`] levels are read.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nested_calls"
    )]
    pub calls: Vec<CallFrame>,
    /// Logs it emitted, with `withLog`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<CallLog>,
    /// Value moved (`None` for static and delegate calls).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub value: Option<U256>,
    /// `CALL`, `CREATE`, `CREATE2`, `DELEGATECALL`, `STATICCALL`, `CALLCODE`, `SELFDESTRUCT`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// The deepest call tree read: the EVM's own call depth limit (1024) and the top call. A node
/// sending deeper nesting sends something no EVM ran; refusing it bounds the stack every
/// reader and every drop of the tree uses.
pub const MAX_CALL_DEPTH: usize = 1025;

thread_local! {
    /// Call levels being decoded on this thread (deserialisation never leaves it).
    static CALL_DEPTH: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `calls`, one level deeper than the frame around it; an error past [`MAX_CALL_DEPTH`].
fn nested_calls<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<CallFrame>, D::Error> {
    let depth = CALL_DEPTH.with(|c| {
        let depth = c.get() + 1;
        c.set(depth);
        depth
    });
    let calls = if depth >= MAX_CALL_DEPTH {
        Err(serde::de::Error::custom(format!(
            "call tree deeper than {MAX_CALL_DEPTH} levels"
        )))
    } else {
        Vec::<CallFrame>::deserialize(d)
    };
    CALL_DEPTH.with(|c| c.set(c.get() - 1));
    calls
}

/// A log in a `callTracer` frame (`withLog`): `position` is how many of the frame's calls
/// came before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallLog {
    /// The emitting contract.
    #[serde(deserialize_with = "text::value")]
    pub address: Address,
    /// Topics.
    #[serde(deserialize_with = "text::list")]
    pub topics: Vec<B256>,
    /// Data.
    #[serde(deserialize_with = "text::value")]
    pub data: Bytes,
    /// Calls of the frame before it.
    pub position: Quantity,
}

/// One entry of `debug_traceBlockBy*` with `callTracer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TxTrace {
    /// The tx (geth ≥ 1.11; absent on older nodes).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "text::option"
    )]
    pub tx_hash: Option<B256>,
    /// Its call tree.
    pub result: CallFrame,
}

/// A bare `u64` reply as a quantity (`eth_blockNumber`, `eth_chainId`, `eth_estimateGas`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Quantity(#[serde(with = "quantity")] pub u64);

/// `txpool_status`: how many pooled txs can run next (pending) and how many wait behind a
/// nonce gap (queued).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxpoolStatus {
    /// Runnable.
    pub pending: Quantity,
    /// Waiting for an earlier nonce.
    pub queued: Quantity,
}

/// One sender's pooled txs by nonce (decimal text, as geth keys them).
pub type TxsByNonce<T> = std::collections::BTreeMap<String, T>;

/// `txpool_content` (`T` = [`Transaction`]) and `txpool_inspect` (`T` = geth's one-line
/// summary): pooled txs by sender (lower-case hex) and nonce.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct TxpoolContent<T> {
    /// Runnable.
    pub pending: std::collections::BTreeMap<String, TxsByNonce<T>>,
    /// Waiting for an earlier nonce.
    pub queued: std::collections::BTreeMap<String, TxsByNonce<T>>,
}

/// `txpool_contentFrom`: one sender's pooled txs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TxpoolContentFrom {
    /// Runnable.
    pub pending: TxsByNonce<Transaction>,
    /// Waiting for an earlier nonce.
    pub queued: TxsByNonce<Transaction>,
}

/// `eth_feeHistory`'s reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeeHistory {
    /// The first block covered.
    pub oldest_block: Quantity,
    /// Base fees of the blocks, and of the next one.
    #[serde(deserialize_with = "text::list")]
    pub base_fee_per_gas: Vec<U256>,
    /// Gas used over gas limit, per block.
    pub gas_used_ratio: Vec<f64>,
    /// Tips at the asked percentiles, per block (absent when none were asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<Vec<Vec<U256>>>,
}

/// A `u64` as a `0x`-hex quantity (`hexutil.Uint64`): written without leading zeros, read
/// from its text in place (no `String` per value).
pub mod quantity {
    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    /// Writes `0x…`.
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{v:#x}"))
    }

    /// Parses `0x…` into a `u64`.
    pub fn parse(s: &str) -> Result<u64, String> {
        let digits = s
            .strip_prefix("0x")
            .ok_or_else(|| format!("quantity {s:?} has no 0x prefix"))?;
        u64::from_str_radix(digits, 16).map_err(|e| format!("quantity {s:?}: {e}"))
    }

    struct QuantityVisitor;

    impl Visitor<'_> for QuantityVisitor {
        type Value = u64;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a 0x-hex quantity")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
            parse(v).map_err(E::custom)
        }
    }

    /// Reads `0x…`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_str(QuantityVisitor)
    }
}

/// An optional [`quantity`]: `null` or absent is `None`.
pub mod opt_quantity {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `0x…` or `null`.
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => super::quantity::serialize(v, s),
            None => s.serialize_none(),
        }
    }

    /// Reads `0x…` or `null`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        #[derive(Deserialize)]
        struct Q(#[serde(with = "super::quantity")] u64);
        Ok(Option::<Q>::deserialize(d)?.map(|q| q.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_need_the_prefix_and_fit() {
        assert_eq!(quantity::parse("0x1f"), Ok(31));
        assert!(quantity::parse("31").is_err());
        assert!(quantity::parse("0x1ffffffffffffffff").is_err());
    }

    #[test]
    fn hashes_addresses_and_amounts_write_as_geth_does() {
        let frame = CallFrame {
            from: Address::repeat_byte(0xAB),
            gas: 21_000,
            gas_used: 0,
            to: None,
            input: Bytes::new(),
            output: Bytes::new(),
            error: None,
            revert_reason: None,
            calls: Vec::new(),
            logs: Vec::new(),
            value: Some(U256::from(255u64)),
            kind: "CALL".to_owned(),
        };
        let text = serde_json::to_string(&frame).unwrap();
        assert_eq!(
            text,
            r#"{"from":"0xabababababababababababababababababababab","gas":"0x5208","gasUsed":"0x0","input":"0x","value":"0xff","type":"CALL"}"#
        );
        assert_eq!(serde_json::from_str::<CallFrame>(&text).unwrap(), frame);
    }
}

#[cfg(test)]
mod depth_tests {
    use super::*;

    fn nested(depth: usize) -> String {
        let leaf = r#"{"from":"0x0000000000000000000000000000000000000001","type":"CALL""#;
        let mut text = String::new();
        for _ in 0..depth {
            text.push_str(leaf);
            text.push_str(r#","calls":["#);
        }
        text.push_str(leaf);
        text.push('}');
        for _ in 0..depth {
            text.push_str("]}");
        }
        text
    }

    fn read(text: &str) -> Result<CallFrame, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(text);
        de.disable_recursion_limit();
        CallFrame::deserialize(serde_stacker::Deserializer::new(&mut de))
    }

    #[test]
    fn call_trees_as_deep_as_the_evm_allows_read_and_deeper_ones_are_refused() {
        // Deeper than serde_json's default limit allows...
        assert!(serde_json::from_str::<CallFrame>(&nested(100)).is_err());
        // ...read on a growing stack, up to the EVM's depth.
        let mut frame = read(&nested(MAX_CALL_DEPTH - 1)).unwrap();
        let mut depth = 0;
        while let Some(inner) = frame.calls.pop() {
            frame = inner;
            depth += 1;
        }
        assert_eq!(depth, MAX_CALL_DEPTH - 1);
        let err = read(&nested(100_000)).unwrap_err().to_string();
        assert!(err.contains("deeper than 1025"), "{err}");
        // The counter unwound: the next read starts from zero.
        assert!(read(&nested(10)).is_ok());
    }
}
