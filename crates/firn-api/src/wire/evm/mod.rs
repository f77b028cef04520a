//! EVM shapes, one module per resource: `activity` (an address's transactions with what it
//! did in them, its internal calls, a token's transfers), `contracts`, `blocks`, `transactions` (one transaction with its
//! transfers and internal calls), `transfers` (ERC-20 and ERC-721 lists), `collectibles`
//! (token balances), `tokens` (the token and metadata shapes they embed) and `chains` (with their
//! native token). Here: the address shape they all share.

mod activity;
mod blocks;
mod chains;
mod collectibles;
mod contracts;
mod rich;
mod tokens;
mod transactions;
mod transfers;

use firn_store::rows::evm::Token;
use firn_store::types::Address;
use serde::Serialize;
use utoipa::ToSchema;

pub use activity::{
    AnyTransfer, Erc20TokenV2, Erc20TransferDetailsV2, InternalTransaction,
    ListInternalTransactionsResponse, ListTransactionDetailsResponse,
    ListTransactionDetailsResponseV2, ListTransfersResponse, TransactionDetails,
    TransactionDetailsV2,
};
pub use blocks::{EvmBlock, ListEvmBlocksResponse};
pub use chains::{
    ChainInfo, GetNativeBalanceResponse, ListAddressChainsResponse, ListChainsResponse,
    NativeTokenBalance, NetworkToken, NetworkTokenDetails,
};
pub use collectibles::{
    CollectibleBalance, Erc20TokenBalance, ListCollectibleBalancesResponse,
    ListErc20BalancesResponse, ListErc721BalancesResponse, ListErc1155BalancesResponse,
};
pub use contracts::{
    Contract, ContractCommon, ContractDeploymentDetails, Erc20Contract, ListContractsResponse,
    NftContract,
};
pub use tokens::{Erc20Token, Erc721Token, Erc1155Token, ListNftTokens, NftToken, TokenMetadata};
pub use transactions::{
    Erc20TransferDetails, Erc721TransferDetails, Erc1155TransferDetails,
    FullNativeTransactionDetails, GetTransactionResponse, InternalTransactionDetails,
    ListNativeTransactionsResponse, Method, NativeTransaction,
};
pub use transfers::{
    Erc20Transfer, Erc721Transfer, Erc1155Transfer, ListErc20TransactionsResponse,
    ListErc721TransactionsResponse, ListErc1155TransactionsResponse, TransferEvent,
};

/// An address with what is known about it (`RichAddress`): a token contract's name, symbol
/// and decimals, filled in by [`RichAddresses::name_with`] after the response is built.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RichAddress {
    /// The contract's name, when it is a token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The token's symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The token's decimals (ERC-20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decimals: Option<u8>,
    /// The token's logo, from the operator's token list.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logo_uri: Option<String>,
    /// `0x` address, EIP-55 checksummed.
    pub address: String,
    #[serde(skip)]
    raw: Address,
}

/// `a` in EIP-55 mixed-case checksum encoding, as the official API writes every EVM address.
pub fn checksummed(a: &Address) -> String {
    a.to_checksum(None)
}

impl From<&Address> for RichAddress {
    fn from(a: &Address) -> Self {
        Self {
            name: None,
            symbol: None,
            decimals: None,
            logo_uri: None,
            address: checksummed(a),
            raw: *a,
        }
    }
}

/// A response whose senders and recipients are [`RichAddress`]es.
pub trait RichAddresses {
    /// Every rich address in the response.
    fn rich_addresses(&mut self) -> Vec<&mut RichAddress>;

    /// The addresses to look up: every rich address, once each.
    fn raw_addresses(&mut self) -> Vec<Address> {
        let set: std::collections::BTreeSet<Address> =
            self.rich_addresses().iter().map(|r| r.raw).collect();
        set.into_iter().collect()
    }

    /// Names every rich address that is one of `tokens`.
    fn name_with(&mut self, tokens: &[Token]) {
        let by_address: std::collections::HashMap<&Address, &Token> =
            tokens.iter().map(|t| (&t.address, t)).collect();
        for slot in self.rich_addresses() {
            if let Some(token) = by_address.get(&slot.raw) {
                slot.name = Some(token.name.clone());
                slot.symbol = Some(token.symbol.clone());
                slot.decimals = token.decimals;
            }
        }
    }

    /// Gives every named rich address (a token) on chain `chain_id` its logo from `logos`.
    fn add_logos(&mut self, logos: &crate::TokenLogos, chain_id: u64) {
        if logos.is_empty() {
            return;
        }
        for slot in self.rich_addresses() {
            if slot.name.is_some() {
                slot.logo_uri = logos.logo(chain_id, &slot.raw);
            }
        }
    }
}
