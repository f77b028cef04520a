//! ICM (Teleporter) messages: the messenger's events an EVM block carries ([`IcmLog`], written
//! with the block), and a message joined from both chains as the APIs read it
//! ([`IcmMessageRecord`]).

use firn_core::ids::Id;
pub use firn_core::teleporter::{FeeInfo, Receipt, TeleporterEvent, TeleporterMessage};

use crate::types::{Address, B256, U256};

/// A messenger event in a block: the tx (by position) that emitted it and the contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmLog {
    /// Position of the tx in its block.
    pub tx_index: u32,
    /// The messenger that emitted it.
    pub contract: Address,
    /// The event.
    pub event: TeleporterEvent,
}

/// Where a message stands, as the Data API names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IcmStatus {
    /// Sent; no delivery indexed.
    Pending,
    /// Both sides indexed.
    Delivered,
    /// Delivered; the send was not indexed (a chain firn does not follow, or before its start).
    DeliveredSourceNotIndexed,
}

/// The tx that sent a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmSourceTx {
    /// EVM chain ID of the source chain.
    pub chain_id: u64,
    /// The tx.
    pub tx_hash: B256,
    /// Its block's time, Unix seconds.
    pub timestamp: u64,
    /// Gas it used.
    pub gas_used: u64,
}

/// The tx that delivered a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmDestinationTx {
    /// EVM chain ID of the destination chain.
    pub chain_id: u64,
    /// The tx.
    pub tx_hash: B256,
    /// Its block's time, Unix seconds.
    pub timestamp: u64,
    /// Gas it used.
    pub gas_used: u64,
    /// Who delivered it.
    pub deliverer: Address,
    /// Who the deliverer named for the reward.
    pub reward_redeemer: Address,
}

/// A message's fee, with its token's metadata where the source chain's index has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmFee {
    /// The fee as it stands (after any `addFeeAmount`).
    pub fee: FeeInfo,
    /// Token name.
    pub name: Option<String>,
    /// Token symbol.
    pub symbol: Option<String>,
    /// Token decimals.
    pub decimals: Option<u8>,
}

/// A message, joined from its source and destination chains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmMessageRecord {
    /// The message's ID.
    pub message_id: Id,
    /// The messenger.
    pub contract: Address,
    /// The chain it was sent from.
    pub source_blockchain_id: Id,
    /// The chain it goes to.
    pub destination_blockchain_id: Id,
    /// EVM chain ID of the source chain, where known.
    pub source_evm_chain_id: Option<u64>,
    /// EVM chain ID of the destination chain, where known.
    pub destination_evm_chain_id: Option<u64>,
    /// The messenger's nonce.
    pub nonce: U256,
    /// Who sent it.
    pub sender: Address,
    /// The receiving contract.
    pub recipient: Address,
    /// The payload.
    pub payload: Vec<u8>,
    /// Receipts it carries.
    pub receipts: Vec<Receipt>,
    /// Its fee (known from the send).
    pub fee: Option<IcmFee>,
    /// The send, where indexed.
    pub source: Option<IcmSourceTx>,
    /// The delivery, where indexed.
    pub destination: Option<IcmDestinationTx>,
    /// Whether its execution succeeded (at delivery or at a retry).
    pub executed: bool,
    /// Whether its receipt came back to the source chain.
    pub receipt_delivered: bool,
    /// The time lists sort it by: the send's, else the delivery's.
    pub sort_ts: u64,
}

impl IcmMessageRecord {
    /// The message's status.
    pub fn status(&self) -> IcmStatus {
        match (&self.source, &self.destination) {
            (_, None) => IcmStatus::Pending,
            (Some(_), Some(_)) => IcmStatus::Delivered,
            (None, Some(_)) => IcmStatus::DeliveredSourceNotIndexed,
        }
    }
}

/// Which messages a list shows; every condition given must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IcmFilter {
    /// Sent from this chain.
    pub source: Option<Id>,
    /// Sent to this chain.
    pub destination: Option<Id>,
    /// Sent from or to this chain.
    pub either_chain: Option<Id>,
    /// Sent by this address.
    pub sender: Option<Address>,
    /// Sent to this contract.
    pub recipient: Option<Address>,
    /// Sent by or to this address.
    pub party: Option<Address>,
}

/// Which side of a message a tx is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IcmSide {
    /// It sent the message.
    Source,
    /// It delivered the message.
    Destination,
}

/// A message a tx sent or delivered (`teleporterMessageInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmTxMessage {
    /// The message's ID.
    pub message_id: Id,
    /// The tx's side.
    pub side: IcmSide,
    /// The other chain: the destination of a send, the source of a delivery.
    pub peer_blockchain_id: Id,
    /// Its EVM chain ID, where known.
    pub peer_evm_chain_id: Option<u64>,
}

/// Messages sent in one period between two chains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcmCount {
    /// Start of the period (a multiple of its length), Unix seconds.
    pub start_ts: u64,
    /// Source chain.
    pub source: Id,
    /// Destination chain.
    pub destination: Id,
    /// Messages.
    pub count: u64,
}
