//! Teleporter (ICM) messages and events as the TeleporterMessenger v1 contract emits them:
//! `abi.encode(TeleporterMessage)` (the Warp payload it sends) and the events the indexer
//! follows, decoded from a log's topics and data.
//!
//! The decoders take anyone's bytes: every offset and count is checked against the input
//! before it is used, so a crafted log costs at most its own length. Encodings must be strict
//! (addresses with zero high bytes, offsets inside the data); anything else is `None`, which
//! the indexer logs and skips.

use std::sync::LazyLock;

use crate::evm::{event_topic, keccak256};
use crate::ids::Id;
use crate::text::{Address, B256, U256};

/// TeleporterMessenger v1's address on every chain of every network (deployed by Nick's
/// method, so the same everywhere).
pub const MESSENGER_V1: Address = Address::new([
    0x25, 0x3b, 0x27, 0x84, 0xc7, 0x5e, 0x51, 0x0d, 0xd0, 0xff, 0x1d, 0xa8, 0x44, 0x68, 0x4a, 0x1a,
    0xc0, 0xaa, 0x5f, 0xcf,
]);

/// Canonical event signatures of the messenger.
pub mod signatures {
    /// `SendCrossChainMessage(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, TeleporterMessage message, TeleporterFeeInfo feeInfo)`.
    pub const SEND: &str = "SendCrossChainMessage(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes),(address,uint256))";
    /// `ReceiveCrossChainMessage(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, address indexed deliverer, address rewardRedeemer, TeleporterMessage message)`.
    pub const RECEIVE: &str = "ReceiveCrossChainMessage(bytes32,bytes32,address,address,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))";
    /// `MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID)`.
    pub const EXECUTED: &str = "MessageExecuted(bytes32,bytes32)";
    /// `MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message)`.
    pub const EXECUTION_FAILED: &str = "MessageExecutionFailed(bytes32,bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))";
    /// `AddFeeAmount(bytes32 indexed messageID, TeleporterFeeInfo updatedFeeInfo)`.
    pub const ADD_FEE: &str = "AddFeeAmount(bytes32,(address,uint256))";
    /// `ReceiptReceived(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, address indexed relayerRewardAddress, TeleporterFeeInfo feeInfo)`.
    pub const RECEIPT: &str = "ReceiptReceived(bytes32,bytes32,address,(address,uint256))";
}

struct Topics {
    send: B256,
    receive: B256,
    executed: B256,
    execution_failed: B256,
    add_fee: B256,
    receipt: B256,
}

static TOPICS: LazyLock<Topics> = LazyLock::new(|| {
    let t = |s: &str| B256::new(event_topic(s));
    Topics {
        send: t(signatures::SEND),
        receive: t(signatures::RECEIVE),
        executed: t(signatures::EXECUTED),
        execution_failed: t(signatures::EXECUTION_FAILED),
        add_fee: t(signatures::ADD_FEE),
        receipt: t(signatures::RECEIPT),
    }
});

/// `TeleporterMessageReceipt`: a message the sender's chain received, and who relayed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Receipt {
    /// The received message's nonce.
    pub received_message_nonce: U256,
    /// Where the relayer wants its reward.
    pub relayer_reward_address: Address,
}

/// `TeleporterFeeInfo`: the ERC-20 a message pays its relayer, and how much.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeInfo {
    /// The fee token (zero: no fee).
    pub token: Address,
    /// The amount.
    pub amount: U256,
}

/// `TeleporterMessage`, as the messenger encodes it into a Warp payload and its events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeleporterMessage {
    /// The messenger's global nonce (the first message is 1).
    pub nonce: U256,
    /// Who called `sendCrossChainMessage`.
    pub origin_sender: Address,
    /// Where it goes.
    pub destination_blockchain_id: Id,
    /// The contract that receives it there.
    pub destination_address: Address,
    /// Gas its execution must be given.
    pub required_gas_limit: U256,
    /// Relayers allowed to deliver it (empty: anyone).
    pub allowed_relayers: Vec<Address>,
    /// Receipts it carries back.
    pub receipts: Vec<Receipt>,
    /// The payload for the receiver.
    pub message: Vec<u8>,
}

impl TeleporterMessage {
    /// Decodes `abi.encode(TeleporterMessage)` (a Warp payload's bytes). Only the canonical
    /// encoding, the one the messenger writes, is accepted.
    pub fn decode(abi: &[u8]) -> Option<Self> {
        let r = Reader(abi);
        let message = r.message(r.offset(0, 0)?)?;
        (message.encode() == abi).then_some(message)
    }

    /// `abi.encode(TeleporterMessage)`.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = word(32).to_vec();
        self.append_tuple(&mut out);
        out
    }

    /// The tuple's head and tail, as it sits inside a larger encoding.
    fn append_tuple(&self, out: &mut Vec<u8>) {
        let mut tail = Vec::new();
        let head_len = 8 * 32;
        let mut offsets = [0usize; 3];
        offsets[0] = head_len;
        tail.extend(word(self.allowed_relayers.len()));
        for a in &self.allowed_relayers {
            tail.extend(address_word(*a));
        }
        offsets[1] = head_len + tail.len();
        tail.extend(word(self.receipts.len()));
        for r in &self.receipts {
            tail.extend(r.received_message_nonce.to_be_bytes::<32>());
            tail.extend(address_word(r.relayer_reward_address));
        }
        offsets[2] = head_len + tail.len();
        tail.extend(word(self.message.len()));
        tail.extend(&self.message);
        tail.resize(tail.len().next_multiple_of(32), 0);
        out.extend(self.nonce.to_be_bytes::<32>());
        out.extend(address_word(self.origin_sender));
        out.extend(self.destination_blockchain_id.0);
        out.extend(address_word(self.destination_address));
        out.extend(self.required_gas_limit.to_be_bytes::<32>());
        for o in offsets {
            out.extend(word(o));
        }
        out.extend(tail);
    }

    /// The message's ID: `keccak256(abi.encode(messenger, source, destination, nonce))`.
    pub fn id(&self, messenger: Address, source: Id) -> Id {
        message_id(
            messenger,
            source,
            self.destination_blockchain_id,
            self.nonce,
        )
    }
}

/// A message's ID as the messenger at `messenger` computes it.
pub fn message_id(messenger: Address, source: Id, destination: Id, nonce: U256) -> Id {
    let mut buf = [0u8; 128];
    buf[12..32].copy_from_slice(messenger.as_slice());
    buf[32..64].copy_from_slice(&source.0);
    buf[64..96].copy_from_slice(&destination.0);
    buf[96..].copy_from_slice(&nonce.to_be_bytes::<32>());
    Id(keccak256(&buf))
}

/// One event of the messenger that concerns a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeleporterEvent {
    /// `SendCrossChainMessage`, on the source chain.
    Sent {
        /// The message's ID.
        message_id: Id,
        /// The message.
        message: TeleporterMessage,
        /// Its fee.
        fee: FeeInfo,
    },
    /// `ReceiveCrossChainMessage`, on the destination chain.
    Received {
        /// The message's ID.
        message_id: Id,
        /// The chain it came from.
        source_blockchain_id: Id,
        /// Who delivered it.
        deliverer: Address,
        /// Who the deliverer named for the reward.
        reward_redeemer: Address,
        /// The message.
        message: TeleporterMessage,
    },
    /// `MessageExecuted`, on the destination chain (at delivery, or at a retry).
    Executed {
        /// The message's ID.
        message_id: Id,
        /// The chain it came from.
        source_blockchain_id: Id,
    },
    /// `MessageExecutionFailed`, on the destination chain: kept for a retry.
    ExecutionFailed {
        /// The message's ID.
        message_id: Id,
        /// The chain it came from.
        source_blockchain_id: Id,
        /// The message.
        message: TeleporterMessage,
    },
    /// `AddFeeAmount`, on the source chain: the fee as it now stands.
    FeeAdded {
        /// The message's ID.
        message_id: Id,
        /// The updated fee.
        fee: FeeInfo,
    },
    /// `ReceiptReceived`, on the source chain: the destination acknowledged the message.
    ReceiptReceived {
        /// The message's ID.
        message_id: Id,
        /// The chain that received it.
        destination_blockchain_id: Id,
        /// The relayer the reward went to.
        relayer_reward_address: Address,
        /// The fee paid to it.
        fee: FeeInfo,
    },
}

impl TeleporterEvent {
    /// The message the event concerns.
    pub fn message_id(&self) -> Id {
        match self {
            Self::Sent { message_id, .. }
            | Self::Received { message_id, .. }
            | Self::Executed { message_id, .. }
            | Self::ExecutionFailed { message_id, .. }
            | Self::FeeAdded { message_id, .. }
            | Self::ReceiptReceived { message_id, .. } => *message_id,
        }
    }

    /// Decodes a log of the messenger; `None` for other events and for malformed or
    /// non-canonical ones.
    pub fn decode(topics: &[B256], data: &[u8]) -> Option<Self> {
        let event = Self::decode_fields(topics, data)?;
        (event.data() == data && event.topics() == topics).then_some(event)
    }

    /// The log's topics, as the messenger emits them.
    pub fn topics(&self) -> Vec<B256> {
        let t = &*TOPICS;
        let id = |i: &Id| B256::new(i.0);
        let addr = |a: &Address| B256::new(address_word(*a));
        match self {
            Self::Sent {
                message_id,
                message,
                ..
            } => vec![
                t.send,
                id(message_id),
                id(&message.destination_blockchain_id),
            ],
            Self::Received {
                message_id,
                source_blockchain_id,
                deliverer,
                ..
            } => vec![
                t.receive,
                id(message_id),
                id(source_blockchain_id),
                addr(deliverer),
            ],
            Self::Executed {
                message_id,
                source_blockchain_id,
            } => vec![t.executed, id(message_id), id(source_blockchain_id)],
            Self::ExecutionFailed {
                message_id,
                source_blockchain_id,
                ..
            } => vec![t.execution_failed, id(message_id), id(source_blockchain_id)],
            Self::FeeAdded { message_id, .. } => vec![t.add_fee, id(message_id)],
            Self::ReceiptReceived {
                message_id,
                destination_blockchain_id,
                relayer_reward_address,
                ..
            } => vec![
                t.receipt,
                id(message_id),
                id(destination_blockchain_id),
                addr(relayer_reward_address),
            ],
        }
    }

    /// The log's data, as the messenger emits it.
    pub fn data(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Self::Sent { message, fee, .. } => {
                out.extend(word(3 * 32));
                append_fee(&mut out, fee);
                message.append_tuple(&mut out);
            }
            Self::Received {
                reward_redeemer,
                message,
                ..
            } => {
                out.extend(address_word(*reward_redeemer));
                out.extend(word(2 * 32));
                message.append_tuple(&mut out);
            }
            Self::Executed { .. } => {}
            Self::ExecutionFailed { message, .. } => {
                out.extend(word(32));
                message.append_tuple(&mut out);
            }
            Self::FeeAdded { fee, .. } | Self::ReceiptReceived { fee, .. } => {
                append_fee(&mut out, fee)
            }
        }
        out
    }

    fn decode_fields(topics: &[B256], data: &[u8]) -> Option<Self> {
        let t = &*TOPICS;
        let topic0 = *topics.first()?;
        let id = |i: usize| topics.get(i).map(|w| Id(w.0));
        let r = Reader(data);
        let event = if topic0 == t.send && topics.len() == 3 {
            let message = r.message(r.offset(0, 0)?)?;
            // The indexed destination is the message's: a log that disagrees is not the messenger's.
            if Some(message.destination_blockchain_id) != id(2) {
                return None;
            }
            Self::Sent {
                message_id: id(1)?,
                message,
                fee: r.fee(32)?,
            }
        } else if topic0 == t.receive && topics.len() == 4 {
            Self::Received {
                message_id: id(1)?,
                source_blockchain_id: id(2)?,
                deliverer: topic_address(topics[3])?,
                reward_redeemer: r.address(0)?,
                message: r.message(r.offset(32, 0)?)?,
            }
        } else if topic0 == t.executed && topics.len() == 3 && data.is_empty() {
            Self::Executed {
                message_id: id(1)?,
                source_blockchain_id: id(2)?,
            }
        } else if topic0 == t.execution_failed && topics.len() == 3 {
            Self::ExecutionFailed {
                message_id: id(1)?,
                source_blockchain_id: id(2)?,
                message: r.message(r.offset(0, 0)?)?,
            }
        } else if topic0 == t.add_fee && topics.len() == 2 && data.len() == 64 {
            Self::FeeAdded {
                message_id: id(1)?,
                fee: r.fee(0)?,
            }
        } else if topic0 == t.receipt && topics.len() == 4 && data.len() == 64 {
            Self::ReceiptReceived {
                message_id: id(1)?,
                destination_blockchain_id: id(2)?,
                relayer_reward_address: topic_address(topics[3])?,
                fee: r.fee(0)?,
            }
        } else {
            return None;
        };
        Some(event)
    }
}

fn word(v: usize) -> [u8; 32] {
    U256::from(v).to_be_bytes()
}

fn address_word(a: Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

fn append_fee(out: &mut Vec<u8>, fee: &FeeInfo) {
    out.extend(address_word(fee.token));
    out.extend(fee.amount.to_be_bytes::<32>());
}

fn topic_address(w: B256) -> Option<Address> {
    w.0[..12]
        .iter()
        .all(|b| *b == 0)
        .then(|| Address::from_slice(&w.0[12..]))
}

/// Strict reads of ABI words, every position checked against the data.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn word(&self, at: usize) -> Option<[u8; 32]> {
        self.0.get(at..at.checked_add(32)?)?.try_into().ok()
    }

    fn uint(&self, at: usize) -> Option<U256> {
        Some(U256::from_be_bytes(self.word(at)?))
    }

    /// A length or offset: a word that fits the data.
    fn small(&self, at: usize) -> Option<usize> {
        let v = usize::try_from(self.uint(at)?).ok()?;
        (v <= self.0.len()).then_some(v)
    }

    /// The position an offset word at `at` points to, relative to `base`.
    fn offset(&self, at: usize, base: usize) -> Option<usize> {
        base.checked_add(self.small(at)?)
    }

    fn address(&self, at: usize) -> Option<Address> {
        topic_address(B256::new(self.word(at)?))
    }

    fn fee(&self, at: usize) -> Option<FeeInfo> {
        Some(FeeInfo {
            token: self.address(at)?,
            amount: self.uint(at + 32)?,
        })
    }

    /// An array's items at `at` (its length word), each `words` words read by `item`; a
    /// count the data cannot hold is refused before anything is allocated.
    fn array<T>(
        &self,
        at: usize,
        words: usize,
        item: impl Fn(&Self, usize) -> Option<T>,
    ) -> Option<Vec<T>> {
        let count = self.small(at)?;
        let start = at.checked_add(32)?;
        let bytes = count.checked_mul(words * 32)?;
        if start.checked_add(bytes)? > self.0.len() {
            return None;
        }
        (0..count)
            .map(|i| item(self, start + i * words * 32))
            .collect()
    }

    fn bytes(&self, at: usize) -> Option<Vec<u8>> {
        let len = self.small(at)?;
        let start = at.checked_add(32)?;
        Some(self.0.get(start..start.checked_add(len)?)?.to_vec())
    }

    /// A `TeleporterMessage` tuple starting at `base`.
    fn message(&self, base: usize) -> Option<TeleporterMessage> {
        let field = |i: usize| base.checked_add(i * 32);
        Some(TeleporterMessage {
            nonce: self.uint(field(0)?)?,
            origin_sender: self.address(field(1)?)?,
            destination_blockchain_id: Id(self.word(field(2)?)?),
            destination_address: self.address(field(3)?)?,
            required_gas_limit: self.uint(field(4)?)?,
            allowed_relayers: self
                .array(self.offset(field(5)?, base)?, 1, |r, at| r.address(at))?,
            receipts: self.array(self.offset(field(6)?, base)?, 2, |r, at| {
                Some(Receipt {
                    received_message_nonce: r.uint(at)?,
                    relayer_reward_address: r.address(at + 32)?,
                })
            })?,
            message: self.bytes(self.offset(field(7)?, base)?)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: u64) -> [u8; 32] {
        U256::from(v).to_be_bytes()
    }

    fn addr_word(a: u8) -> [u8; 32] {
        let mut w = [0u8; 32];
        w[12..].fill(a);
        w
    }

    /// `abi.encode(TeleporterMessage)` fields after the head offset, relative to the tuple.
    fn message_tuple(relayers: &[u8], receipts: &[(u64, u8)], payload: &[u8]) -> Vec<u8> {
        let mut head = Vec::new();
        let mut tail = Vec::new();
        head.extend(w(7));
        head.extend(addr_word(0xaa));
        head.extend([0xdd; 32]);
        head.extend(addr_word(0xbb));
        head.extend(w(100_000));
        let tail_start = 8 * 32;
        head.extend(w(tail_start as u64));
        tail.extend(w(relayers.len() as u64));
        for r in relayers {
            tail.extend(addr_word(*r));
        }
        head.extend(w((tail_start + tail.len()) as u64));
        tail.extend(w(receipts.len() as u64));
        for (n, a) in receipts {
            tail.extend(w(*n));
            tail.extend(addr_word(*a));
        }
        head.extend(w((tail_start + tail.len()) as u64));
        tail.extend(w(payload.len() as u64));
        let mut padded = payload.to_vec();
        padded.resize(payload.len().div_ceil(32) * 32, 0);
        tail.extend(padded);
        head.extend(tail);
        head
    }

    fn expected(relayers: &[u8], receipts: &[(u64, u8)], payload: &[u8]) -> TeleporterMessage {
        TeleporterMessage {
            nonce: U256::from(7),
            origin_sender: Address::new([0xaa; 20]),
            destination_blockchain_id: Id([0xdd; 32]),
            destination_address: Address::new([0xbb; 20]),
            required_gas_limit: U256::from(100_000),
            allowed_relayers: relayers.iter().map(|r| Address::new([*r; 20])).collect(),
            receipts: receipts
                .iter()
                .map(|(n, a)| Receipt {
                    received_message_nonce: U256::from(*n),
                    relayer_reward_address: Address::new([*a; 20]),
                })
                .collect(),
            message: payload.to_vec(),
        }
    }

    #[test]
    fn topics_are_teleporters() {
        let t = &*TOPICS;
        assert_eq!(
            hex::encode(t.send),
            "2a211ad4a59ab9d003852404f9c57c690704ee755f3c79d2c2812ad32da99df8"
        );
        assert_eq!(
            hex::encode(t.receive),
            "292ee90bbaf70b5d4936025e09d56ba08f3e421156b6a568cf3c2840d9343e34"
        );
        assert_eq!(
            hex::encode(t.executed),
            "34795cc6b122b9a0ae684946319f1e14a577b4e8f9b3dda9ac94c21a54d3188c"
        );
        assert_eq!(
            hex::encode(t.execution_failed),
            "4619adc1017b82e02eaefac01a43d50d6d8de4460774bc370c3ff0210d40c985"
        );
        assert_eq!(
            hex::encode(t.add_fee),
            "c1bfd1f1208927dfbd414041dcb5256e6c9ad90dd61aec3249facbd34ff7b3e1"
        );
        assert_eq!(
            hex::encode(t.receipt),
            "d13a7935f29af029349bed0a2097455b91fd06190a30478c575db3f31e00bf57"
        );
    }

    #[test]
    fn a_warp_payload_decodes_with_every_field() {
        let mut abi = w(32).to_vec();
        abi.extend(message_tuple(&[1, 2], &[(3, 4)], b"hello, L1"));
        let message = expected(&[1, 2], &[(3, 4)], b"hello, L1");
        assert_eq!(TeleporterMessage::decode(&abi), Some(message.clone()));
        assert_eq!(message.encode(), abi);
        // A non-canonical encoding (a byte of dirty padding) is not the messenger's.
        let mut dirty = abi.clone();
        *dirty.last_mut().unwrap() = 1;
        assert_eq!(TeleporterMessage::decode(&dirty), None);
    }

    #[test]
    fn a_send_event_decodes_and_must_agree_with_its_topic() {
        let mut data = w(96).to_vec();
        data.extend(addr_word(0xfe));
        data.extend(w(500));
        data.extend(message_tuple(&[], &[], &[]));
        let topics = [TOPICS.send, B256::new([1; 32]), B256::new([0xdd; 32])];
        let event = TeleporterEvent::decode(&topics, &data).expect("decodes");
        assert_eq!(
            event,
            TeleporterEvent::Sent {
                message_id: Id([1; 32]),
                message: expected(&[], &[], &[]),
                fee: FeeInfo {
                    token: Address::new([0xfe; 20]),
                    amount: U256::from(500)
                },
            }
        );
        assert_eq!(event.data(), data);
        assert_eq!(event.topics(), topics);
        let other = [TOPICS.send, B256::new([1; 32]), B256::new([0xde; 32])];
        assert_eq!(TeleporterEvent::decode(&other, &data), None);
    }

    #[test]
    fn crafted_counts_and_offsets_are_refused_without_allocating() {
        let mut abi = w(32).to_vec();
        abi.extend(message_tuple(&[1], &[], b"x"));
        // The relayer count claims 2^60 addresses.
        let count_at = 32 + 8 * 32;
        abi[count_at..count_at + 32].copy_from_slice(&w(1 << 60));
        assert_eq!(TeleporterMessage::decode(&abi), None);
        // An offset past the end.
        let mut abi = w(u64::MAX).to_vec();
        abi.extend(message_tuple(&[], &[], b""));
        assert_eq!(TeleporterMessage::decode(&abi), None);
        // An address with dirty high bytes.
        let mut abi = w(32).to_vec();
        abi.extend(message_tuple(&[], &[], b""));
        abi[32 + 32] = 1;
        assert_eq!(TeleporterMessage::decode(&abi), None);
    }
}
