//! ERC-20, ERC-721 and ERC-1155 transfers of an address (`Erc20Transfer`, `Erc721Transfer`,
//! `Erc1155Transfer`).

use firn_store::rows::evm::TransferRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::RichAddress;
use super::tokens::{Erc20Token, Erc721Token, Erc1155Token, erc721_token, erc1155_token};
use crate::wire::TokenExtras;

/// Where a transfer happened and between whom: the fields every transfer of an address
/// carries, whatever its standard.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransferEvent {
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
}

impl From<&TransferRecord> for TransferEvent {
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
        }
    }
}

/// An ERC-20 transfer (`Erc20Transfer`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20Transfer {
    /// Where and between whom.
    #[serde(flatten)]
    pub event: TransferEvent,
    /// Amount.
    pub value: String,
    /// Token.
    pub erc20_token: Erc20Token,
}

impl Erc20Transfer {
    /// From a stored transfer, with the operator's price and logo of the token.
    pub fn from_record(t: &TransferRecord, extras: TokenExtras) -> Self {
        let x = &t.transfer;
        Self {
            event: t.into(),
            value: x.value.to_string(),
            erc20_token: Erc20Token::new(&x.token, t.token.as_ref(), extras),
        }
    }
}

/// An ERC-721 transfer (`Erc721Transfer`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc721Transfer {
    /// Where and between whom.
    #[serde(flatten)]
    pub event: TransferEvent,
    /// Token.
    pub erc721_token: Erc721Token,
}

impl From<&TransferRecord> for Erc721Transfer {
    fn from(t: &TransferRecord) -> Self {
        Self {
            event: t.into(),
            erc721_token: erc721_token(t),
        }
    }
}

/// An ERC-1155 transfer, one id of a batch (`Erc1155Transfer`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc1155Transfer {
    /// Where and between whom.
    #[serde(flatten)]
    pub event: TransferEvent,
    /// Amount of the token id.
    pub value: String,
    /// Token.
    pub erc1155_token: Erc1155Token,
}

impl From<&TransferRecord> for Erc1155Transfer {
    fn from(t: &TransferRecord) -> Self {
        Self {
            event: t.into(),
            value: t.transfer.value.to_string(),
            erc1155_token: erc1155_token(t),
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

/// A page of ERC-1155 transfers (`ListErc1155TransactionsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListErc1155TransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Transfers, newest first.
    pub transactions: Vec<Erc1155Transfer>,
}
