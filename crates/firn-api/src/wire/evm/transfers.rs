//! ERC-20 and ERC-721 transfers of an address (`Erc20Transfer`, `Erc721Transfer`).

use firn_store::rows::evm::TransferRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::RichAddress;
use super::tokens::{Erc20Token, Erc721Token, erc721_token};
use crate::wire::Money;

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
