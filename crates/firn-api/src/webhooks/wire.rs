//! The webhook routes' bodies and the events they deliver, as the official OpenAPI file names
//! them (`EVMAddressActivityRequest`, `EVMAddressActivityResponse`,
//! `WebhookAddressActivityResponse`, …). Declared once: the server writes them, tests and
//! receivers read them.

use serde::{Deserialize, Serialize};

/// `address_activity`: EVM transactions to or from the watched addresses.
pub const ADDRESS_ACTIVITY: &str = "address_activity";

/// `POST /v1/webhooks`, as far as firn reads it (`EVMAddressActivityRequest` and its
/// primary-network siblings share these fields). Unknown fields are refused by the handler's
/// checks, not here, so the error can name them all.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateWebhookRequest {
    /// `address_activity`, `primary_network_address_activity` or `validator_activity`.
    pub event_type: Option<String>,
    /// Where events are posted.
    pub url: Option<String>,
    /// Name.
    pub name: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// EVM chain ID, as a string.
    pub chain_id: Option<String>,
    /// Primary-network webhooks' network.
    pub network: Option<String>,
    /// What to watch: `AddressActivityMetadata`, `PrimaryNetworkAddressActivityMetadata` or
    /// `ValidatorActivityMetadata` by event type.
    pub metadata: Option<serde_json::Value>,
    /// Include internal transactions.
    pub include_internal_txs: Option<bool>,
    /// Include logs.
    pub include_logs: Option<bool>,
}

/// `AddressActivityMetadata`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddressActivityMetadata {
    /// Topic-0 values: only transactions that emitted one of these events are sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub event_signatures: Vec<String>,
    /// The watched addresses.
    #[serde(default)]
    pub addresses: Vec<String>,
}

/// `UpdateWebhookRequest`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateWebhookRequest {
    /// New name.
    pub name: Option<String>,
    /// New description.
    pub description: Option<String>,
    /// New URL.
    pub url: Option<String>,
    /// `active` or `inactive`.
    pub status: Option<String>,
    /// Include internal transactions.
    pub include_internal_txs: Option<bool>,
    /// Include logs.
    pub include_logs: Option<bool>,
}

/// `AddressesChangeRequest`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AddressesChangeRequest {
    /// Addresses to add or remove.
    pub addresses: Vec<String>,
}

/// A webhook: `EVMAddressActivityResponse`, `PrimaryNetworkAddressActivityResponse` or
/// `ValidatorActivityResponse` by event type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookResponse {
    /// ID.
    pub id: String,
    /// Target URL.
    pub url: String,
    /// EVM chain ID.
    pub chain_id: String,
    /// `active` or `inactive`.
    pub status: String,
    /// Creation time, Unix seconds.
    pub created_at: u64,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// `address_activity`, `primary_network_address_activity` or `validator_activity`.
    pub event_type: String,
    /// What it watches.
    pub metadata: serde_json::Value,
    /// Include internal transactions (EVM webhooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_internal_txs: Option<bool>,
    /// Include logs (EVM webhooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_logs: Option<bool>,
    /// Why firn stopped delivering, when it did (a firn extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inactive_reason: Option<String>,
}

/// `ListWebhooksResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListWebhooksResponse {
    /// Token of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The webhooks.
    pub webhooks: Vec<WebhookResponse>,
}

/// `ListWebhookAddressesResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListWebhookAddressesResponse {
    /// Token of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// This page's addresses.
    pub addresses: Vec<String>,
    /// How many the webhook watches.
    pub total_addresses: u64,
}

/// `SharedSecretsResponse`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SharedSecretsResponse {
    /// The secret deliveries are signed with (HMAC-SHA256 keyed with its UTF-8 bytes).
    pub secret: String,
}

/// `WebhookAddressActivityResponse`: the body of one delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookEvent {
    /// The webhook.
    pub webhook_id: String,
    /// `address_activity`.
    pub event_type: String,
    /// Receivers de-duplicate on it: a redelivery carries the same one.
    pub message_id: String,
    /// The transaction and its logs.
    pub event: TransactionEvent,
}

/// `TransactionEvent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct TransactionEvent {
    /// The transaction.
    pub transaction: EventTransaction,
    /// Its logs (with `includeLogs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logs: Option<Vec<EventLog>>,
}

/// `Transaction` (the webhook schema's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventTransaction {
    /// Block hash.
    pub block_hash: String,
    /// Block number, decimal.
    pub block_number: String,
    /// Sender.
    pub from: String,
    /// Gas limit.
    pub gas: String,
    /// Effective gas price, wei.
    pub gas_price: String,
    /// EIP-1559 fee cap (the gas price for older types).
    pub max_fee_per_gas: String,
    /// EIP-1559 tip cap (the gas price for older types).
    pub max_priority_fee_per_gas: String,
    /// Hash.
    pub tx_hash: String,
    /// `1` success, `0` failure.
    pub tx_status: String,
    /// Input data.
    pub input: String,
    /// Nonce.
    pub nonce: String,
    /// Recipient; the zero address for a contract creation.
    pub to: String,
    /// Index in the block.
    pub transaction_index: u32,
    /// Value, wei.
    pub value: String,
    /// Transaction type.
    #[serde(rename = "type")]
    pub tx_type: u8,
    /// EVM chain ID.
    pub chain_id: String,
    /// Gas used by the block up to and including this transaction.
    pub receipt_cumulative_gas_used: String,
    /// Gas used.
    pub receipt_gas_used: String,
    /// Effective gas price.
    pub receipt_effective_gas_price: String,
    /// The block's receipts root.
    pub receipt_root: String,
    /// Block time, Unix seconds.
    pub block_timestamp: u64,
    /// The created contract, or the zero address.
    pub contract_address: String,
    /// ERC-20 transfers.
    pub erc20_transfers: Vec<EventTransfer>,
    /// ERC-721 transfers.
    pub erc721_transfers: Vec<EventTransfer>,
    /// ERC-1155 transfers.
    pub erc1155_transfers: Vec<EventTransfer>,
    /// Internal transactions (with `includeInternalTxs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub internal_transactions: Option<Vec<EventInternalTx>>,
    /// The chain's native token and the value in its units.
    pub network_token: NetworkTokenInfo,
}

/// `ERCTransfer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventTransfer {
    /// Transaction hash.
    pub transaction_hash: String,
    /// `ERC20`, `ERC721` or `ERC1155`.
    #[serde(rename = "type")]
    pub standard: String,
    /// Sender.
    pub from: String,
    /// Recipient.
    pub to: String,
    /// Amount (1 for ERC-721).
    pub value: String,
    /// Token ID (NFTs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_id: Option<String>,
    /// Block time.
    pub block_timestamp: u64,
    /// Log index in the block.
    pub log_index: u32,
    /// The token (under `erc20Token`, `erc721Token` or `erc1155Token` by standard).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erc20_token: Option<ErcToken>,
    /// An ERC-721 token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erc721_token: Option<ErcToken>,
    /// An ERC-1155 token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub erc1155_token: Option<ErcToken>,
}

/// `ERCToken`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErcToken {
    /// Contract.
    pub address: String,
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// `decimals()` (0 for NFTs).
    pub decimals: u8,
    /// The transfer's value in the token's units.
    pub value_with_decimals: String,
}

/// `WebhookInternalTransaction`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventInternalTx {
    /// Caller.
    pub from: String,
    /// Callee or created contract.
    pub to: String,
    /// `call`, `create`, `delegatecall`, …
    pub internal_tx_type: String,
    /// Value, wei.
    pub value: String,
    /// Gas used.
    pub gas_used: String,
    /// Gas limit.
    pub gas_limit: String,
    /// The enclosing transaction.
    pub transaction_hash: String,
}

/// `Log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventLog {
    /// Emitting contract.
    pub address: String,
    /// Topic 0 (empty for an anonymous event without topics).
    pub topic0: String,
    /// Topic 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic1: Option<String>,
    /// Topic 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic2: Option<String>,
    /// Topic 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic3: Option<String>,
    /// Data.
    pub data: String,
    /// Index of the transaction.
    pub transaction_index: u32,
    /// Index in the block.
    pub log_index: u32,
    /// Always false: accepted blocks are final.
    pub removed: bool,
}

/// `NetworkTokenInfo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkTokenInfo {
    /// Name.
    pub token_name: String,
    /// Symbol.
    pub token_symbol: String,
    /// Decimals.
    pub token_decimals: u8,
    /// The transaction's value in the token's units.
    pub value_with_decimals: String,
}
