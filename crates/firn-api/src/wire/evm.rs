//! EVM shapes: blocks, ERC transfers, collectible balances, the deployment transaction and the
//! chains list.

use firn_store::rows::evm::{
    CollectibleRecord, EvmBlockRecord, EvmChain, EvmInternalTx, EvmTxRecord, NftMetadata, Token,
    TokenStandard, TransferRecord,
};
use firn_store::types::{Address, U256};
use serde::Serialize;
use utoipa::ToSchema;

use super::Money;

/// An EVM block (`EvmBlock`, also `GetEvmBlockResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvmBlock {
    /// EVM chain ID.
    pub chain_id: String,
    /// Number.
    pub block_number: String,
    /// Time.
    pub block_timestamp: u64,
    /// Hash.
    pub block_hash: String,
    /// Number of transactions.
    pub tx_count: u64,
    /// Base fee, wei.
    pub base_fee: String,
    /// Gas used.
    pub gas_used: String,
    /// Gas limit.
    pub gas_limit: String,
    /// Block gas cost.
    pub gas_cost: String,
    /// Parent hash.
    pub parent_hash: String,
    /// Fees paid, wei.
    pub fees_spent: String,
    /// Transactions up to and including this block.
    pub cumulative_transactions: String,
}

impl From<&EvmBlockRecord> for EvmBlock {
    fn from(r: &EvmBlockRecord) -> Self {
        let b = &r.block;
        Self {
            chain_id: r.chain_id.to_string(),
            block_number: b.number.to_string(),
            block_timestamp: b.timestamp,
            block_hash: b.hash.to_string(),
            tx_count: r.tx_count,
            base_fee: b.base_fee.unwrap_or(U256::ZERO).to_string(),
            gas_used: b.gas_used.to_string(),
            gas_limit: b.gas_limit.to_string(),
            gas_cost: b.block_gas_cost.unwrap_or(U256::ZERO).to_string(),
            parent_hash: b.parent_hash.to_string(),
            fees_spent: r.fees_spent.to_string(),
            cumulative_transactions: r.cumulative_txs.to_string(),
        }
    }
}

/// A page of EVM blocks (`ListEvmBlocksResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListEvmBlocksResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Blocks, newest first.
    pub blocks: Vec<EvmBlock>,
}

/// An address with what is known about it (`RichAddress`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RichAddress {
    /// `0x` address.
    pub address: String,
}

impl From<&Address> for RichAddress {
    fn from(a: &Address) -> Self {
        Self {
            address: a.to_string(),
        }
    }
}

/// An ERC-20 token (`Erc20Token`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20Token {
    /// Contract.
    pub address: String,
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// `decimals()`.
    pub decimals: u8,
    /// `ERC-20`.
    pub erc_type: String,
    /// Price from the configured table; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<Money>,
}

impl Erc20Token {
    fn new(address: &Address, token: Option<&Token>, price: Option<Money>) -> Self {
        Self {
            address: address.to_string(),
            name: token.map(|t| t.name.clone()).unwrap_or_default(),
            symbol: token.map(|t| t.symbol.clone()).unwrap_or_default(),
            decimals: token.and_then(|t| t.decimals).unwrap_or(0),
            erc_type: "ERC-20".to_owned(),
            price,
        }
    }
}

/// NFT metadata (`Erc721TokenMetadata` / `Erc1155TokenMetadata`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TokenMetadata {
    /// `INDEXED`, `UNINDEXED`, … (`NftTokenMetadataStatus`).
    pub index_status: String,
    /// When the metadata was fetched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata_last_updated_timestamp: Option<u64>,
    /// Name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_uri: Option<String>,
    /// Description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Animation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animation_uri: Option<String>,
    /// External URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_url: Option<String>,
    /// Background colour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<String>,
    /// ERC-721 attributes, JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<String>,
    /// ERC-1155 decimals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u8>,
    /// ERC-1155 properties, JSON text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<String>,
}

/// The statuses the official enum knows; anything else is reported as `UNKNOWN`.
const INDEX_STATUSES: [&str; 11] = [
    "UNKNOWN",
    "MISSING_TOKEN",
    "INVALID_TOKEN_URI",
    "INVALID_TOKEN_URI_SCHEME",
    "UNREACHABLE_TOKEN_URI",
    "THROTTLED_TOKEN_URI",
    "METADATA_CONTENT_TOO_LARGE",
    "INVALID_METADATA",
    "INVALID_METADATA_JSON",
    "INDEXED",
    "UNINDEXED",
];

impl TokenMetadata {
    fn new(m: Option<&NftMetadata>, standard: TokenStandard) -> Self {
        let Some(m) = m else {
            return Self::unindexed();
        };
        let erc1155 = standard == TokenStandard::Erc1155;
        let status = if INDEX_STATUSES.contains(&m.index_status.as_str()) {
            m.index_status.clone()
        } else {
            "UNKNOWN".to_owned()
        };
        Self {
            index_status: status,
            metadata_last_updated_timestamp: m.updated_at,
            name: m.name.clone(),
            symbol: m.symbol.clone(),
            image_uri: m.image_uri.clone(),
            description: m.description.clone(),
            animation_uri: m.animation_uri.clone(),
            external_url: m.external_url.clone(),
            background: m.background.clone(),
            attributes: if erc1155 { None } else { m.attributes.clone() },
            decimals: if erc1155 { m.decimals } else { None },
            properties: if erc1155 { m.properties.clone() } else { None },
        }
    }

    fn unindexed() -> Self {
        Self {
            index_status: "UNINDEXED".to_owned(),
            metadata_last_updated_timestamp: None,
            name: None,
            symbol: None,
            image_uri: None,
            description: None,
            animation_uri: None,
            external_url: None,
            background: None,
            attributes: None,
            decimals: None,
            properties: None,
        }
    }
}

/// An ERC-721 token (`Erc721Token`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc721Token {
    /// Contract.
    pub address: String,
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// `ERC-721`.
    pub erc_type: String,
    /// Token ID.
    pub token_id: String,
    /// `tokenURI`, empty when not fetched.
    pub token_uri: String,
    /// Metadata.
    pub metadata: TokenMetadata,
}

/// An ERC-1155 token (`Erc1155Token`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc1155Token {
    /// Contract.
    pub address: String,
    /// `ERC-1155`.
    pub erc_type: String,
    /// Token ID.
    pub token_id: String,
    /// `uri`, empty when not fetched.
    pub token_uri: String,
    /// Metadata.
    pub metadata: TokenMetadata,
}

fn erc721_token(t: &TransferRecord) -> Erc721Token {
    let x = &t.transfer;
    Erc721Token {
        address: x.token.to_string(),
        name: t.token.as_ref().map(|k| k.name.clone()).unwrap_or_default(),
        symbol: t
            .token
            .as_ref()
            .map(|k| k.symbol.clone())
            .unwrap_or_default(),
        erc_type: "ERC-721".to_owned(),
        token_id: x.token_id.unwrap_or(U256::ZERO).to_string(),
        token_uri: String::new(),
        metadata: TokenMetadata::unindexed(),
    }
}

fn erc1155_token(t: &TransferRecord) -> Erc1155Token {
    let x = &t.transfer;
    Erc1155Token {
        address: x.token.to_string(),
        erc_type: "ERC-1155".to_owned(),
        token_id: x.token_id.unwrap_or(U256::ZERO).to_string(),
        token_uri: String::new(),
        metadata: TokenMetadata::unindexed(),
    }
}

/// An ERC-20 transfer (`Erc20Transfer`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20Transfer {
    /// Block number.
    pub block_number: String,
    /// Block time.
    pub block_timestamp: u64,
    /// Block hash.
    pub block_hash: String,
    /// Transaction hash.
    pub tx_hash: String,
    /// Sender.
    pub from: RichAddress,
    /// Recipient.
    pub to: RichAddress,
    /// Log index.
    pub log_index: u32,
    /// Amount.
    pub value: String,
    /// Token.
    pub erc20_token: Erc20Token,
}

impl Erc20Transfer {
    /// From a stored transfer, with an optional price of the token.
    pub fn from_record(t: &TransferRecord, price: Option<Money>) -> Self {
        let x = &t.transfer;
        Self {
            block_number: t.block_number.to_string(),
            block_timestamp: t.timestamp,
            block_hash: t.block_hash.to_string(),
            tx_hash: t.tx_hash.to_string(),
            from: (&x.from).into(),
            to: (&x.to).into(),
            log_index: x.log_index,
            value: x.value.to_string(),
            erc20_token: Erc20Token::new(&x.token, t.token.as_ref(), price),
        }
    }
}

/// An ERC-721 transfer (`Erc721Transfer`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc721Transfer {
    /// Block number.
    pub block_number: String,
    /// Block time.
    pub block_timestamp: u64,
    /// Block hash.
    pub block_hash: String,
    /// Transaction hash.
    pub tx_hash: String,
    /// Sender.
    pub from: RichAddress,
    /// Recipient.
    pub to: RichAddress,
    /// Log index.
    pub log_index: u32,
    /// Token.
    pub erc721_token: Erc721Token,
}

impl From<&TransferRecord> for Erc721Transfer {
    fn from(t: &TransferRecord) -> Self {
        let x = &t.transfer;
        Self {
            block_number: t.block_number.to_string(),
            block_timestamp: t.timestamp,
            block_hash: t.block_hash.to_string(),
            tx_hash: t.tx_hash.to_string(),
            from: (&x.from).into(),
            to: (&x.to).into(),
            log_index: x.log_index,
            erc721_token: erc721_token(t),
        }
    }
}

/// A page of ERC-20 transfers (`ListErc20TransactionsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListErc20TransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Transfers, newest first.
    pub transactions: Vec<Erc20Transfer>,
}

/// A page of ERC-721 transfers (`ListErc721TransactionsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListErc721TransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Transfers, newest first.
    pub transactions: Vec<Erc721Transfer>,
}

/// A collectible holding: `Erc721TokenBalance` (no `balance`) or `Erc1155TokenBalance` (with
/// `balance`, no name/symbol).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectibleBalance {
    /// Contract.
    pub address: String,
    /// Contract `name()` (ERC-721).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Contract `symbol()` (ERC-721).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// `ERC-721` or `ERC-1155`.
    pub erc_type: String,
    /// Token ID.
    pub token_id: String,
    /// Token URI, empty when not fetched.
    pub token_uri: String,
    /// Metadata.
    pub metadata: TokenMetadata,
    /// Holder (ERC-721).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner_address: Option<String>,
    /// EVM chain ID.
    pub chain_id: String,
    /// Balance (ERC-1155).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance: Option<String>,
}

impl From<&CollectibleRecord> for CollectibleBalance {
    fn from(c: &CollectibleRecord) -> Self {
        let erc721 = c.standard == TokenStandard::Erc721;
        let info = c.token_info.as_ref();
        Self {
            address: c.token.to_string(),
            name: erc721.then(|| info.map(|t| t.name.clone()).unwrap_or_default()),
            symbol: erc721.then(|| info.map(|t| t.symbol.clone()).unwrap_or_default()),
            erc_type: c.standard.as_str().to_owned(),
            token_id: c.token_id.to_string(),
            token_uri: c
                .metadata
                .as_ref()
                .map(|m| m.token_uri.clone())
                .unwrap_or_default(),
            metadata: TokenMetadata::new(c.metadata.as_ref(), c.standard),
            owner_address: erc721.then(|| c.owner.to_string()),
            chain_id: c.chain_id.to_string(),
            balance: (!erc721).then(|| c.balance.to_string()),
        }
    }
}

/// A page of collectibles (`ListCollectibleBalancesResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListCollectibleBalancesResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Holdings, by contract then token ID.
    pub collectible_balances: Vec<CollectibleBalance>,
}

/// The native token of a chain (`NetworkToken`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkToken {
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Decimals.
    pub decimals: u8,
    /// Description.
    pub description: String,
}

impl From<&EvmChain> for NetworkToken {
    fn from(c: &EvmChain) -> Self {
        Self {
            name: c.token_name.clone(),
            symbol: c.token_symbol.clone(),
            decimals: c.token_decimals,
            description: format!("The native token of {}", c.name),
        }
    }
}

/// `NetworkTokenDetails`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NetworkTokenDetails {
    /// The token.
    pub network_token: NetworkToken,
    /// Price from the configured table; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_price: Option<Money>,
    /// Price from the configured table; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub historical_price: Option<Money>,
}

/// `Method`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Method {
    /// `NATIVE_TRANSFER`, `CONTRACT_CALL` or `CONTRACT_CREATION`.
    pub call_type: String,
    /// First four bytes of the input, hex (empty for transfers).
    pub method_hash: String,
}

/// `FullNativeTransactionDetails`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FullNativeTransactionDetails {
    /// Block number.
    pub block_number: String,
    /// Block time.
    pub block_timestamp: u64,
    /// Block hash.
    pub block_hash: String,
    /// EVM chain ID.
    pub chain_id: String,
    /// Index in the block.
    pub block_index: u32,
    /// Hash.
    pub tx_hash: String,
    /// `1` success, `0` failure (receipt status).
    pub tx_status: String,
    /// Transaction type.
    pub tx_type: u8,
    /// Gas limit.
    pub gas_limit: String,
    /// Gas used.
    pub gas_used: String,
    /// Effective gas price.
    pub gas_price: String,
    /// Nonce.
    pub nonce: String,
    /// Sender.
    pub from: RichAddress,
    /// Recipient, or the created contract.
    pub to: RichAddress,
    /// Call type and method.
    pub method: Method,
    /// Value, wei.
    pub value: String,
    /// Input, hex.
    pub input: String,
    /// Block base fee.
    pub base_fee_per_gas: String,
    /// EIP-1559 max fee.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_fee_per_gas: Option<String>,
    /// EIP-1559 max priority fee.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_priority_fee_per_gas: Option<String>,
}

impl FullNativeTransactionDetails {
    /// From a stored transaction and its block's base fee.
    pub fn new(r: &EvmTxRecord, base_fee: Option<U256>) -> Self {
        let t = &r.tx;
        let to = t.to.or(t.contract_address).unwrap_or(Address::ZERO);
        let call_type = if t.to.is_none() {
            "CONTRACT_CREATION"
        } else if t.input.is_empty() {
            "NATIVE_TRANSFER"
        } else {
            "CONTRACT_CALL"
        };
        let method_hash = if t.to.is_some() && t.input.len() >= 4 {
            format!("0x{}", hex::encode(&t.input[..4]))
        } else {
            String::new()
        };
        Self {
            block_number: r.block_number.to_string(),
            block_timestamp: r.timestamp,
            block_hash: r.block_hash.to_string(),
            chain_id: r.chain_id.to_string(),
            block_index: t.index,
            tx_hash: t.hash.to_string(),
            tx_status: if t.success { "1" } else { "0" }.to_owned(),
            tx_type: t.tx_type,
            gas_limit: t.gas_limit.to_string(),
            gas_used: t.gas_used.to_string(),
            gas_price: t.gas_price.to_string(),
            nonce: t.nonce.to_string(),
            from: (&t.from).into(),
            to: (&to).into(),
            method: Method {
                call_type: call_type.to_owned(),
                method_hash,
            },
            value: t.value.to_string(),
            input: format!("0x{}", hex::encode(&t.input)),
            base_fee_per_gas: base_fee.unwrap_or(U256::ZERO).to_string(),
            max_fee_per_gas: t.max_fee.map(|v| v.to_string()),
            max_priority_fee_per_gas: t.max_priority_fee.map(|v| v.to_string()),
        }
    }
}

/// `Erc20TransferDetails`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20TransferDetails {
    /// Sender.
    pub from: RichAddress,
    /// Recipient.
    pub to: RichAddress,
    /// Log index.
    pub log_index: u32,
    /// Amount.
    pub value: String,
    /// Token.
    pub erc20_token: Erc20Token,
}

/// `Erc721TransferDetails`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc721TransferDetails {
    /// Sender.
    pub from: RichAddress,
    /// Recipient.
    pub to: RichAddress,
    /// Log index.
    pub log_index: u32,
    /// Token.
    pub erc721_token: Erc721Token,
}

/// `Erc1155TransferDetails`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc1155TransferDetails {
    /// Sender.
    pub from: RichAddress,
    /// Recipient.
    pub to: RichAddress,
    /// Log index.
    pub log_index: u32,
    /// Amount.
    pub value: String,
    /// Token.
    pub erc1155_token: Erc1155Token,
}

/// `InternalTransactionDetails`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InternalTransactionDetails {
    /// Caller.
    pub from: RichAddress,
    /// Callee or created contract.
    pub to: RichAddress,
    /// `CALL`, `CREATE`, … (`InternalTransactionOpCall`).
    pub internal_tx_type: String,
    /// Value, wei.
    pub value: String,
    /// Whether the call reverted.
    pub is_reverted: bool,
    /// Gas used.
    pub gas_used: String,
    /// Gas limit.
    pub gas_limit: String,
}

const OP_CALLS: [&str; 8] = [
    "UNKNOWN",
    "CALL",
    "CREATE",
    "CREATE2",
    "CREATE3",
    "CALLCODE",
    "DELEGATECALL",
    "STATICCALL",
];

impl From<&EvmInternalTx> for InternalTransactionDetails {
    fn from(i: &EvmInternalTx) -> Self {
        let kind = i.call_type.to_ascii_uppercase();
        Self {
            from: (&i.from).into(),
            to: (&i.to).into(),
            internal_tx_type: if OP_CALLS.contains(&kind.as_str()) {
                kind
            } else {
                "UNKNOWN".to_owned()
            },
            value: i.value.to_string(),
            is_reverted: i.reverted,
            gas_used: i.gas_used.to_string(),
            gas_limit: i.gas_limit.to_string(),
        }
    }
}

/// A transaction with its transfers and internal calls (`GetTransactionResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetTransactionResponse {
    /// ERC-20 transfers.
    pub erc20_transfers: Vec<Erc20TransferDetails>,
    /// ERC-721 transfers.
    pub erc721_transfers: Vec<Erc721TransferDetails>,
    /// ERC-1155 transfers.
    pub erc1155_transfers: Vec<Erc1155TransferDetails>,
    /// Internal calls.
    pub internal_transactions: Vec<InternalTransactionDetails>,
    /// The chain's native token.
    pub network_token_details: NetworkTokenDetails,
    /// The transaction.
    pub native_transaction: FullNativeTransactionDetails,
}

impl GetTransactionResponse {
    /// Splits `transfers` by standard next to the transaction and its internal calls.
    pub fn new(
        native_transaction: FullNativeTransactionDetails,
        network_token_details: NetworkTokenDetails,
        transfers: &[TransferRecord],
        internal: &[EvmInternalTx],
        erc20_price: impl Fn(&Address) -> Option<Money>,
    ) -> Self {
        let mut out = Self {
            erc20_transfers: Vec::new(),
            erc721_transfers: Vec::new(),
            erc1155_transfers: Vec::new(),
            internal_transactions: internal.iter().map(Into::into).collect(),
            network_token_details,
            native_transaction,
        };
        for t in transfers {
            let x = &t.transfer;
            match x.standard {
                TokenStandard::Erc20 => out.erc20_transfers.push(Erc20TransferDetails {
                    from: (&x.from).into(),
                    to: (&x.to).into(),
                    log_index: x.log_index,
                    value: x.value.to_string(),
                    erc20_token: Erc20Token::new(&x.token, t.token.as_ref(), erc20_price(&x.token)),
                }),
                TokenStandard::Erc721 => out.erc721_transfers.push(Erc721TransferDetails {
                    from: (&x.from).into(),
                    to: (&x.to).into(),
                    log_index: x.log_index,
                    erc721_token: erc721_token(t),
                }),
                TokenStandard::Erc1155 => out.erc1155_transfers.push(Erc1155TransferDetails {
                    from: (&x.from).into(),
                    to: (&x.to).into(),
                    log_index: x.log_index,
                    value: x.value.to_string(),
                    erc1155_token: erc1155_token(t),
                }),
            }
        }
        out
    }
}

/// An indexed EVM chain (`ChainInfo`, also `GetChainResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainInfo {
    /// EVM chain ID.
    pub chain_id: String,
    /// `OK`.
    pub status: String,
    /// Name.
    pub chain_name: String,
    /// Description.
    pub description: String,
    /// Avalanche blockchain ID.
    pub platform_chain_id: String,
    /// Subnet.
    pub subnet_id: String,
    /// `EVM`.
    pub vm_name: String,
    /// RPC URL.
    pub rpc_url: String,
    /// Whether it belongs to a test network.
    pub is_testnet: bool,
    /// Native token.
    pub network_token: NetworkToken,
    /// Whether it is private.
    pub private: bool,
    /// Features served for it (`nftIndexing`).
    pub enabled_features: Vec<String>,
}

impl From<&EvmChain> for ChainInfo {
    fn from(c: &EvmChain) -> Self {
        Self {
            chain_id: c.chain_id.to_string(),
            status: "OK".to_owned(),
            chain_name: c.name.clone(),
            description: c.description.clone(),
            platform_chain_id: c.blockchain_id.to_string(),
            subnet_id: c.subnet_id.to_string(),
            vm_name: "EVM".to_owned(),
            rpc_url: c.rpc_url.clone(),
            is_testnet: c.is_testnet,
            network_token: c.into(),
            private: false,
            enabled_features: vec!["nftIndexing".to_owned()],
        }
    }
}

/// `ListChainsResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListChainsResponse {
    /// The indexed chains.
    pub chains: Vec<ChainInfo>,
}
