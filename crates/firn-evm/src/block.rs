//! Blocks as subnet-EVM and coreth shape them: the header (go-ethereum's fields plus
//! `blockGasCost`, the Cancun fields from Etna on, and on the C-Chain coreth's `extDataHash`
//! and `extDataGasUsed`), its RLP and hash, transactions with their senders, receipts with
//! logs and blooms, and the C-Chain's atomic txs.

use alloy_consensus::{
    Eip658Value, Receipt as ConsensusReceipt, ReceiptEnvelope, ReceiptWithBloom, TxEnvelope, TxType,
};
use alloy_primitives::{Address, B64, B256, Bloom, Bytes, Log, U256};
use alloy_rlp::{BufMut, Encodable, Header as RlpHeader};

/// A subnet-EVM block header. Field order is the RLP order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Parent hash.
    pub parent_hash: B256,
    /// Ommers hash (always the empty list's).
    pub ommers_hash: B256,
    /// Fee recipient (the blackhole address unless fee recipients are allowed).
    pub beneficiary: Address,
    /// State root after the block.
    pub state_root: B256,
    /// Transactions trie root.
    pub transactions_root: B256,
    /// Receipts trie root.
    pub receipts_root: B256,
    /// Bloom of every log.
    pub logs_bloom: Bloom,
    /// Difficulty (1 after genesis).
    pub difficulty: U256,
    /// Height.
    pub number: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// Gas used.
    pub gas_used: u64,
    /// Seconds since the epoch.
    pub timestamp: u64,
    /// Extra data: the fee window (subnet-EVM) or the ACP-176 state (C-Chain).
    pub extra_data: Bytes,
    /// Mix digest.
    pub mix_hash: B256,
    /// Nonce.
    pub nonce: B64,
    /// coreth (the C-Chain): the hash of the block's atomic txs ([`crate::atomic::ext_data_hash`]).
    pub ext_data_hash: Option<B256>,
    /// Base fee.
    pub base_fee: Option<u64>,
    /// coreth: the gas the block's atomic txs used.
    pub ext_data_gas_used: Option<u64>,
    /// subnet-EVM's block gas cost.
    pub block_gas_cost: Option<u64>,
    /// Cancun: blob gas used (0).
    pub blob_gas_used: Option<u64>,
    /// Cancun: excess blob gas (0).
    pub excess_blob_gas: Option<u64>,
    /// Cancun: parent beacon block root (zero).
    pub parent_beacon_block_root: Option<B256>,
}

impl Header {
    fn payload_length(&self) -> usize {
        let mut len = self.parent_hash.length()
            + self.ommers_hash.length()
            + self.beneficiary.length()
            + self.state_root.length()
            + self.transactions_root.length()
            + self.receipts_root.length()
            + self.logs_bloom.length()
            + self.difficulty.length()
            + self.number.length()
            + self.gas_limit.length()
            + self.gas_used.length()
            + self.timestamp.length()
            + self.extra_data.length()
            + self.mix_hash.length()
            + self.nonce.length()
            + self.ext_data_hash.map_or(0, |h| h.length());
        // Optional fields are written while present, in order (geth's `rlp:"optional"`).
        for f in self.optional_u64s() {
            len += f.length();
        }
        if let Some(r) = &self.parent_beacon_block_root {
            len += r.length();
        }
        len
    }

    fn optional_u64s(&self) -> Vec<u64> {
        // coreth's `extDataGasUsed` follows the base fee; subnet-EVM has no such field.
        let coreth = self.ext_data_hash.map(|_| self.ext_data_gas_used);
        [self.base_fee]
            .into_iter()
            .chain(coreth)
            .chain([
                self.block_gas_cost,
                self.blob_gas_used,
                self.excess_blob_gas,
            ])
            .map_while(|f| f)
            .collect()
    }

    /// The header's RLP (`debug_getRawHeader`).
    pub fn rlp(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(600);
        self.encode(&mut buf);
        buf
    }

    /// The block hash: keccak of the header's RLP.
    pub fn hash(&self) -> B256 {
        alloy_primitives::keccak256(self.rlp())
    }
}

impl Encodable for Header {
    fn encode(&self, out: &mut dyn BufMut) {
        RlpHeader {
            list: true,
            payload_length: self.payload_length(),
        }
        .encode(out);
        self.parent_hash.encode(out);
        self.ommers_hash.encode(out);
        self.beneficiary.encode(out);
        self.state_root.encode(out);
        self.transactions_root.encode(out);
        self.receipts_root.encode(out);
        self.logs_bloom.encode(out);
        self.difficulty.encode(out);
        self.number.encode(out);
        self.gas_limit.encode(out);
        self.gas_used.encode(out);
        self.timestamp.encode(out);
        self.extra_data.encode(out);
        self.mix_hash.encode(out);
        self.nonce.encode(out);
        if let Some(h) = &self.ext_data_hash {
            h.encode(out);
        }
        for f in self.optional_u64s() {
            f.encode(out);
        }
        if let Some(r) = &self.parent_beacon_block_root {
            r.encode(out);
        }
    }

    fn length(&self) -> usize {
        let p = self.payload_length();
        p + alloy_rlp::length_of_length(p)
    }
}

/// A transaction in a block (or the pool), decoded once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedTx {
    /// The transaction.
    pub envelope: TxEnvelope,
    /// Its hash.
    pub hash: B256,
    /// Its recovered sender.
    pub sender: Address,
    /// Its EIP-2718 bytes.
    pub raw: Bytes,
    /// Sent for an impersonated account (`anvil_impersonateAccount`): `sender` did not sign.
    pub impersonated: bool,
}

/// The outcome of one transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxReceipt {
    /// Tx type (0, 1, 2).
    pub tx_type: u8,
    /// Whether it succeeded.
    pub success: bool,
    /// Gas used by this tx.
    pub gas_used: u64,
    /// Gas used by the block up to and including this tx.
    pub cumulative_gas_used: u64,
    /// What the sender paid per gas.
    pub effective_gas_price: u128,
    /// The created contract, for a creation.
    pub contract_address: Option<Address>,
    /// Logs emitted.
    pub logs: Vec<Log>,
    /// Bloom of the logs.
    pub bloom: Bloom,
}

impl TxReceipt {
    /// The consensus form, as hashed into the receipts root.
    pub fn envelope(&self) -> ReceiptEnvelope {
        let receipt = ReceiptWithBloom {
            receipt: ConsensusReceipt {
                status: Eip658Value::Eip658(self.success),
                cumulative_gas_used: self.cumulative_gas_used,
                logs: self.logs.clone(),
            },
            logs_bloom: self.bloom,
        };
        match TxType::try_from(self.tx_type).unwrap_or(TxType::Legacy) {
            TxType::Eip2930 => ReceiptEnvelope::Eip2930(receipt),
            TxType::Eip1559 => ReceiptEnvelope::Eip1559(receipt),
            _ => ReceiptEnvelope::Legacy(receipt),
        }
    }
}

/// An accepted block with its transactions and receipts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The header.
    pub header: Header,
    /// Its hash.
    pub hash: B256,
    /// Transactions, in order.
    pub txs: Vec<SignedTx>,
    /// Receipts, one per tx.
    pub receipts: Vec<TxReceipt>,
    /// `callTracer` call trees, one per tx.
    pub traces: Vec<crate::trace::CallFrame>,
    /// RLP size of the whole block, as `size` reports it.
    pub size: u64,
    /// Dev-loop changes applied before the transactions (none on a real chain).
    pub dev_changes: Vec<crate::dev::DevChange>,
    /// coreth (the C-Chain): the atomic txs' bytes after the uncles (empty when there are
    /// none); `None` on subnet-EVM chains.
    pub ext_data: Option<Bytes>,
    /// The atomic txs `ext_data` holds, in order.
    pub atomic_txs: Vec<firn_core::atomic::Tx>,
    /// Which Warp predicates of its txs did not verify when it was built.
    pub predicate_results: firn_core::warp::predicate::BlockResults,
}

impl Block {
    /// The block's RLP as `debug_getRawBlock` gives it: `[header, transactions, uncles]`, typed
    /// transactions as strings of their EIP-2718 bytes, no uncles; on the C-Chain followed by
    /// coreth's version (0) and extra data.
    pub fn rlp(&self) -> Vec<u8> {
        let mut txs = Vec::new();
        for t in &self.txs {
            match &t.envelope {
                TxEnvelope::Legacy(_) => txs.extend_from_slice(&t.raw),
                _ => t.raw.as_ref().encode(&mut txs),
            }
        }
        let mut body = Vec::with_capacity(self.size as usize);
        self.header.encode(&mut body);
        RlpHeader {
            list: true,
            payload_length: txs.len(),
        }
        .encode(&mut body);
        body.extend_from_slice(&txs);
        body.push(alloy_rlp::EMPTY_LIST_CODE);
        if let Some(ext) = &self.ext_data {
            0u32.encode(&mut body);
            ext.as_ref().encode(&mut body);
        }
        let mut out = Vec::with_capacity(body.len() + 9);
        RlpHeader {
            list: true,
            payload_length: body.len(),
        }
        .encode(&mut out);
        out.extend_from_slice(&body);
        out
    }

    /// The hash of the block whose RLP is `bytes` (its header's keccak), read without decoding
    /// the rest: enough to find a block a client sends back (`debug_traceBlock`).
    pub fn hash_of_rlp(bytes: &[u8]) -> Result<B256, alloy_rlp::Error> {
        let mut rest = bytes;
        let outer = RlpHeader::decode(&mut rest)?;
        if !outer.list {
            return Err(alloy_rlp::Error::UnexpectedString);
        }
        let start = rest;
        let header = RlpHeader::decode(&mut rest)?;
        if !header.list {
            return Err(alloy_rlp::Error::UnexpectedString);
        }
        let encoded = (start.len() - rest.len())
            .checked_add(header.payload_length)
            .and_then(|len| start.get(..len))
            .ok_or(alloy_rlp::Error::InputTooShort)?;
        Ok(alloy_primitives::keccak256(encoded))
    }

    /// The header's RLP length plus the transactions' (with an empty uncle list), and on the
    /// C-Chain the version and `ext_data`'s.
    pub(crate) fn rlp_size(header: &Header, txs: &[SignedTx], ext_data: Option<&[u8]>) -> u64 {
        let txs_len: usize = txs
            .iter()
            .map(|t| match &t.envelope {
                TxEnvelope::Legacy(_) => t.raw.len(),
                // Typed txs sit in the block body as RLP strings.
                _ => t.raw.len() + alloy_rlp::length_of_length(t.raw.len()),
            })
            .sum();
        let ext = ext_data.map_or(0, |e| 1 + e.length());
        let body = header.length() + txs_len + alloy_rlp::length_of_length(txs_len) + 1 + ext;
        (body + alloy_rlp::length_of_length(body)) as u64
    }
}

/// The bloom of a set of logs.
pub fn logs_bloom<'a>(logs: impl IntoIterator<Item = &'a Log>) -> Bloom {
    let mut bloom = Bloom::ZERO;
    for log in logs {
        bloom.accrue_log(log);
    }
    bloom
}
