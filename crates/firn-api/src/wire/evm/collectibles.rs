//! Collectible balances (`Erc721TokenBalance` | `Erc1155TokenBalance`).

use firn_store::rows::evm::{CollectibleRecord, TokenStandard};
use serde::Serialize;
use utoipa::ToSchema;

use super::tokens::TokenMetadata;

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
            address: format!("{:#x}", c.token),
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
            owner_address: erc721.then(|| format!("{:#x}", c.owner)),
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
