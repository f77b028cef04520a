//! Indexed EVM chains (`ChainInfo`), the chains of an address, and their native token and its
//! balances.

use firn_store::rows::evm::EvmChainRecord;
use firn_store::types::U256;
use serde::Serialize;
use utoipa::ToSchema;

use crate::wire::{Money, worth};

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

impl From<&EvmChainRecord> for NetworkToken {
    fn from(c: &EvmChainRecord) -> Self {
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

impl From<&EvmChainRecord> for ChainInfo {
    fn from(c: &EvmChainRecord) -> Self {
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
            enabled_features: vec!["nftIndexing".to_owned(), "teleporter".to_owned()],
        }
    }
}

/// `ListChainsResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ListChainsResponse {
    /// The indexed chains.
    pub chains: Vec<ChainInfo>,
}

/// The chains an address took part on (`ListAddressChainsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListAddressChainsResponse {
    /// Indexed chains with a transaction or token transfer of the address.
    pub indexed_chains: Vec<ChainInfo>,
    /// Chains this server does not index, which it cannot tell about: always empty.
    pub unindexed_chains: Vec<String>,
}

/// A chain's native token held by an address (`NativeTokenBalance`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NativeTokenBalance {
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Decimals.
    pub decimals: u8,
    /// EVM chain ID.
    pub chain_id: String,
    /// Price from the configured table; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<Money>,
    /// Balance, in the smallest unit (wei).
    pub balance: String,
    /// The balance's worth at `price`; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance_value: Option<Money>,
}

impl NativeTokenBalance {
    /// `balance` of `chain`'s native token, priced with `price` (per whole token).
    pub fn new(chain: &EvmChainRecord, balance: U256, price: Option<Money>) -> Self {
        let balance_value = worth(balance, chain.token_decimals, price.as_ref());
        Self {
            name: chain.token_name.clone(),
            symbol: chain.token_symbol.clone(),
            decimals: chain.token_decimals,
            chain_id: chain.chain_id.to_string(),
            price,
            balance: balance.to_string(),
            balance_value,
        }
    }
}

/// `GetNativeBalanceResponse`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetNativeBalanceResponse {
    /// The balance.
    pub native_token_balance: NativeTokenBalance,
}
