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
mod tokens;
mod transactions;
mod transfers;

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
            address: format!("{a:#x}"),
        }
    }
}
