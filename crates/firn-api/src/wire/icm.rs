//! ICM message shapes (`PendingIcmMessage`, `DeliveredIcmMessage`,
//! `DeliveredSourceNotIndexedIcmMessage`, told apart by `status`) and the
//! `teleporterMessageInfo` of an EVM transaction.

use firn_store::rows::icm::{IcmMessageRecord, IcmSide, IcmStatus, IcmTxMessage};
use serde::Serialize;
use utoipa::ToSchema;

/// A receipt a message carries (`IcmReceipt`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcmReceipt {
    /// Nonce of the message received, decimal.
    pub received_message_nonce: String,
    /// Where its relayer wants the reward.
    pub relayer_reward_address: String,
}

/// The fee a message pays its relayer, with the token's metadata (`IcmRewardDetails`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcmRewardDetails {
    /// Fee token (the zero address when the message pays none).
    pub address: String,
    /// Token name ("" where unknown).
    pub name: String,
    /// Token symbol ("" where unknown).
    pub symbol: String,
    /// Token decimals (0 where unknown).
    pub decimals: u8,
    /// Always `ERC-20`.
    pub erc_type: &'static str,
    /// The amount, in the token's smallest unit.
    pub value: String,
}

/// The tx that sent a message (`IcmSourceTransaction`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcmSourceTransaction {
    /// Its hash.
    pub tx_hash: String,
    /// Its block's time, Unix seconds.
    pub timestamp: u64,
    /// Gas it used.
    pub gas_spent: String,
}

/// The tx that delivered a message (`IcmDestinationTransaction`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcmDestinationTransaction {
    /// Its hash.
    pub tx_hash: String,
    /// Its block's time, Unix seconds.
    pub timestamp: u64,
    /// Gas it used.
    pub gas_spent: String,
    /// Who the deliverer named for the reward.
    pub reward_redeemer: String,
    /// Who delivered it.
    pub deliverer_address: String,
}

/// What an ICM message shows besides its messenger's address, under either name.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcmMessageFields {
    /// The message ID, 64 hex digits.
    pub message_id: String,
    /// Source chain (cb58).
    pub source_blockchain_id: String,
    /// Destination chain (cb58).
    pub destination_blockchain_id: String,
    /// EVM chain ID of the source ("" where the server does not know it).
    pub source_evm_chain_id: String,
    /// EVM chain ID of the destination ("" where the server does not know it).
    pub destination_evm_chain_id: String,
    /// The messenger's nonce, decimal.
    pub message_nonce: String,
    /// The sender.
    pub from: String,
    /// The receiving contract.
    pub to: String,
    /// The payload, `0x` hex.
    pub data: String,
    /// Whether its execution succeeded on the destination.
    pub message_executed: bool,
    /// Receipts it carries.
    pub receipts: Vec<IcmReceipt>,
    /// Whether its receipt reached the source chain.
    pub receipt_delivered: bool,
    /// Its fee.
    pub reward_details: IcmRewardDetails,
    /// The send (absent when not indexed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_transaction: Option<IcmSourceTransaction>,
    /// The delivery (absent while pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_transaction: Option<IcmDestinationTransaction>,
    /// `pending`, `delivered` or `delivered_source_not_indexed`.
    pub status: &'static str,
}

/// An ICM message, in whichever of the three shapes its `status` names.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcmMessage {
    /// The messenger.
    pub icm_contract_address: String,
    /// The rest.
    #[serde(flatten)]
    pub fields: IcmMessageFields,
}

/// The same message under the legacy `/v1/teleporter/…` paths the official SDKs still call
/// (`PendingTeleporterMessage` and its siblings): the messenger is `teleporterContractAddress`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeleporterMessage {
    /// The messenger.
    pub teleporter_contract_address: String,
    /// The rest.
    #[serde(flatten)]
    pub fields: IcmMessageFields,
}

/// A page of messages (`ListIcmMessagesResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListIcmMessagesResponse {
    /// The next page's token; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The messages, newest first.
    pub messages: Vec<IcmMessage>,
}

/// A page of messages under the legacy paths (`ListTeleporterMessagesResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListTeleporterMessagesResponse {
    /// The next page's token; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The messages, newest first.
    pub messages: Vec<TeleporterMessage>,
}

impl From<&IcmMessageRecord> for IcmMessage {
    fn from(m: &IcmMessageRecord) -> Self {
        Self {
            icm_contract_address: m.contract.to_string(),
            fields: m.into(),
        }
    }
}

impl From<&IcmMessageRecord> for TeleporterMessage {
    fn from(m: &IcmMessageRecord) -> Self {
        Self {
            teleporter_contract_address: m.contract.to_string(),
            fields: m.into(),
        }
    }
}

fn evm_chain_id(id: Option<u64>) -> String {
    id.map(|n| n.to_string()).unwrap_or_default()
}

impl From<&IcmMessageRecord> for IcmMessageFields {
    fn from(m: &IcmMessageRecord) -> Self {
        let reward_details = match &m.fee {
            Some(f) => IcmRewardDetails {
                address: f.fee.token.to_string(),
                name: f.name.clone().unwrap_or_default(),
                symbol: f.symbol.clone().unwrap_or_default(),
                decimals: f.decimals.unwrap_or(0),
                erc_type: "ERC-20",
                value: f.fee.amount.to_string(),
            },
            None => IcmRewardDetails {
                address: firn_store::types::Address::ZERO.to_string(),
                name: String::new(),
                symbol: String::new(),
                decimals: 0,
                erc_type: "ERC-20",
                value: "0".to_owned(),
            },
        };
        Self {
            message_id: hex::encode(m.message_id.0),
            source_blockchain_id: m.source_blockchain_id.to_string(),
            destination_blockchain_id: m.destination_blockchain_id.to_string(),
            source_evm_chain_id: evm_chain_id(m.source_evm_chain_id),
            destination_evm_chain_id: evm_chain_id(m.destination_evm_chain_id),
            message_nonce: m.nonce.to_string(),
            from: m.sender.to_string(),
            to: m.recipient.to_string(),
            data: format!("0x{}", hex::encode(&m.payload)),
            message_executed: m.executed,
            receipts: m
                .receipts
                .iter()
                .map(|r| IcmReceipt {
                    received_message_nonce: r.received_message_nonce.to_string(),
                    relayer_reward_address: r.relayer_reward_address.to_string(),
                })
                .collect(),
            receipt_delivered: m.receipt_delivered,
            reward_details,
            source_transaction: m.source.as_ref().map(|s| IcmSourceTransaction {
                tx_hash: s.tx_hash.to_string(),
                timestamp: s.timestamp,
                gas_spent: s.gas_used.to_string(),
            }),
            destination_transaction: m.destination.as_ref().map(|d| IcmDestinationTransaction {
                tx_hash: d.tx_hash.to_string(),
                timestamp: d.timestamp,
                gas_spent: d.gas_used.to_string(),
                reward_redeemer: d.reward_redeemer.to_string(),
                deliverer_address: d.deliverer.to_string(),
            }),
            status: match m.status() {
                IcmStatus::Pending => "pending",
                IcmStatus::Delivered => "delivered",
                IcmStatus::DeliveredSourceNotIndexed => "delivered_source_not_indexed",
            },
        }
    }
}

/// The message an EVM transaction sent or delivered (`TeleporterMessageInfo`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TeleporterMessageInfo {
    /// The message ID, 64 hex digits.
    pub teleporter_message_id: String,
    /// `SOURCE_TRANSACTION` or `DESTINATION_TRANSACTION`.
    pub direction: &'static str,
    /// Where a delivered message came from: its EVM chain ID, else its blockchain ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_chain_id: Option<String>,
    /// Where a sent message goes: its EVM chain ID, else its blockchain ID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_chain_id: Option<String>,
}

impl From<&IcmTxMessage> for TeleporterMessageInfo {
    fn from(m: &IcmTxMessage) -> Self {
        let peer = m
            .peer_evm_chain_id
            .map(|n| n.to_string())
            .unwrap_or_else(|| m.peer_blockchain_id.to_string());
        let (direction, source_chain_id, destination_chain_id) = match m.side {
            IcmSide::Source => ("SOURCE_TRANSACTION", None, Some(peer)),
            IcmSide::Destination => ("DESTINATION_TRANSACTION", Some(peer), None),
        };
        Self {
            teleporter_message_id: hex::encode(m.message_id.0),
            direction,
            source_chain_id,
            destination_chain_id,
        }
    }
}
