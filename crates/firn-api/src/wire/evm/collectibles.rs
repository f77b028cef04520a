//! Token balances: ERC-20 (`Erc20TokenBalance`) and collectibles (`Erc721TokenBalance` |
//! `Erc1155TokenBalance`), with the holder's native balance on the per-standard lists.

use firn_store::rows::evm::{CollectibleRecord, Erc20BalanceRecord, TokenStandard};
use serde::Serialize;
use utoipa::ToSchema;

use super::tokens::{Erc20Token, TokenMetadata};
use super::{NativeTokenBalance, checksummed};
use crate::wire::{Money, TokenExtras, worth};

/// An ERC-20 balance (`Erc20TokenBalance`): the token, then the holding.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20TokenBalance {
    /// The token (address, name, symbol, decimals, `ERC-20`, price).
    #[serde(flatten)]
    pub token: Erc20Token,
    /// EVM chain ID.
    pub chain_id: String,
    /// Balance, in the token's smallest unit.
    pub balance: String,
    /// The balance's worth at the token's price; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance_value: Option<Money>,
    /// Reputation from a security analysis: firn makes none (always `null`).
    pub token_reputation: Option<String>,
}

impl Erc20TokenBalance {
    /// `b`, with the token's price (per whole token) and logo when the operator gave them.
    pub fn new(b: &Erc20BalanceRecord, extras: TokenExtras) -> Self {
        let token = Erc20Token::new(&b.token, b.token_info.as_ref(), extras);
        Self {
            balance_value: worth(b.balance, token.decimals, token.price.as_ref()),
            token,
            chain_id: b.chain_id.to_string(),
            balance: b.balance.to_string(),
            token_reputation: None,
        }
    }
}

/// A page of ERC-20 balances (`ListErc20BalancesResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListErc20BalancesResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The holder's native balance.
    pub native_token_balance: NativeTokenBalance,
    /// Balances, by token contract.
    pub erc20_token_balances: Vec<Erc20TokenBalance>,
}

/// A page of ERC-721 holdings (`ListErc721BalancesResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListErc721BalancesResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The holder's native balance.
    pub native_token_balance: NativeTokenBalance,
    /// Holdings, by contract then token ID.
    pub erc721_token_balances: Vec<CollectibleBalance>,
}

/// A page of ERC-1155 holdings (`ListErc1155BalancesResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListErc1155BalancesResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The holder's native balance.
    pub native_token_balance: NativeTokenBalance,
    /// Holdings, by contract then token ID.
    pub erc1155_token_balances: Vec<CollectibleBalance>,
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
            address: checksummed(&c.token),
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
            owner_address: erc721.then(|| checksummed(&c.owner)),
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
