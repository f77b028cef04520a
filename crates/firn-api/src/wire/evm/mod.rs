//! EVM shapes, one module per resource: `blocks`, `transactions` (one transaction with its
//! transfers and internal calls), `transfers` (ERC-20 and ERC-721 lists), `collectibles`
//! (balances), `tokens` (the token and metadata shapes they embed) and `chains` (with their
//! native token). Here: the address shape they all share.

mod blocks;
mod chains;
mod collectibles;
mod tokens;
mod transactions;
mod transfers;

use firn_store::types::Address;
use serde::Serialize;
use utoipa::ToSchema;

pub use blocks::{EvmBlock, ListEvmBlocksResponse};
pub use chains::{ChainInfo, ListChainsResponse, NetworkToken, NetworkTokenDetails};
pub use collectibles::{CollectibleBalance, ListCollectibleBalancesResponse};
pub use tokens::{Erc20Token, Erc721Token, Erc1155Token, TokenMetadata};
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
