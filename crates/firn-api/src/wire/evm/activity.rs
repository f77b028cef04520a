//! An address's activity: its transactions with the transfers and internal calls it took part
//! in (`TransactionDetails`, v1 and v2), its internal transactions (`InternalTransaction`),
//! and a token's transfers of every standard (`ListTransfersResponse`).

use firn_store::EvmTxEffects;
use firn_store::rows::evm::{EvmTxRecord, InternalTxRecord, TokenStandard, TransferRecord};
use firn_store::types::Address;
use serde::Serialize;
use utoipa::ToSchema;

use super::tokens::Erc20Token;
use super::transactions::{
    Erc20TransferDetails, Erc721TransferDetails, Erc1155TransferDetails,
    InternalTransactionDetails, NativeTransaction, TransferDetails,
};
use super::transfers::{Erc20Transfer, Erc721Transfer, Erc1155Transfer};
use crate::wire::TokenExtras;

/// A transaction of an address's list, with the transfers and value-moving internal calls the
/// address sent or received in it (`TransactionDetails`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransactionDetails {
    /// The transaction.
    pub native_transaction: NativeTransaction,
    /// ERC-20 transfers.
    pub erc20_transfers: Vec<Erc20TransferDetails>,
    /// ERC-721 transfers.
    pub erc721_transfers: Vec<Erc721TransferDetails>,
    /// ERC-1155 transfers.
    pub erc1155_transfers: Vec<Erc1155TransferDetails>,
    /// Internal calls that move value.
    pub internal_transactions: Vec<InternalTransactionDetails>,
}

impl TransactionDetails {
    /// A listed transaction with what it did for the address.
    pub fn new(
        tx: &EvmTxRecord,
        effects: &EvmTxEffects,
        erc20_extras: impl Fn(&Address) -> TokenExtras,
    ) -> Self {
        let split = TransferDetails::split(&effects.transfers, erc20_extras);
        Self {
            native_transaction: tx.into(),
            erc20_transfers: split.erc20,
            erc721_transfers: split.erc721,
            erc1155_transfers: split.erc1155,
            internal_transactions: effects.internal_txs.iter().map(Into::into).collect(),
        }
    }
}

/// A page of an address's transactions (`ListTransactionDetailsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListTransactionDetailsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The transactions.
    pub transactions: Vec<TransactionDetails>,
}

/// An ERC-20 token with its reputation (`Erc20TokenV2`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20TokenV2 {
    /// The token.
    #[serde(flatten)]
    pub token: Erc20Token,
    /// `Malicious` or `Benign` from a security analysis; firn has none, so always `null`.
    pub token_reputation: Option<String>,
}

/// `Erc20TransferDetailsV2`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Erc20TransferDetailsV2 {
    /// Sender.
    pub from: super::RichAddress,
    /// Recipient.
    pub to: super::RichAddress,
    /// Log index.
    pub log_index: u32,
    /// Amount.
    pub value: String,
    /// Token.
    pub erc20_token: Erc20TokenV2,
}

/// [`TransactionDetails`] whose ERC-20 tokens carry their reputation (`TransactionDetailsV2`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransactionDetailsV2 {
    /// The transaction.
    pub native_transaction: NativeTransaction,
    /// ERC-20 transfers.
    pub erc20_transfers: Vec<Erc20TransferDetailsV2>,
    /// ERC-721 transfers.
    pub erc721_transfers: Vec<Erc721TransferDetails>,
    /// ERC-1155 transfers.
    pub erc1155_transfers: Vec<Erc1155TransferDetails>,
    /// Internal calls that move value.
    pub internal_transactions: Vec<InternalTransactionDetails>,
}

impl From<TransactionDetails> for TransactionDetailsV2 {
    fn from(d: TransactionDetails) -> Self {
        Self {
            native_transaction: d.native_transaction,
            erc20_transfers: d
                .erc20_transfers
                .into_iter()
                .map(|t| Erc20TransferDetailsV2 {
                    from: t.from,
                    to: t.to,
                    log_index: t.log_index,
                    value: t.value,
                    erc20_token: Erc20TokenV2 {
                        token: t.erc20_token,
                        token_reputation: None,
                    },
                })
                .collect(),
            erc721_transfers: d.erc721_transfers,
            erc1155_transfers: d.erc1155_transfers,
            internal_transactions: d.internal_transactions,
        }
    }
}

/// A page of an address's transactions, v2 (`ListTransactionDetailsResponseV2`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListTransactionDetailsResponseV2 {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The transactions.
    pub transactions: Vec<TransactionDetailsV2>,
}

/// An internal transaction of an address's list (`InternalTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InternalTransaction {
    /// Block number.
    pub block_number: String,
    /// Block time.
    pub block_timestamp: u64,
    /// Block hash.
    pub block_hash: String,
    /// Hash of the enclosing transaction.
    pub tx_hash: String,
    /// The call.
    #[serde(flatten)]
    pub details: InternalTransactionDetails,
}

impl From<&InternalTxRecord> for InternalTransaction {
    fn from(r: &InternalTxRecord) -> Self {
        Self {
            block_number: r.block_number.to_string(),
            block_timestamp: r.timestamp,
            block_hash: r.block_hash.to_string(),
            tx_hash: r.tx_hash.to_string(),
            details: (&r.internal).into(),
        }
    }
}

/// A page of internal transactions (`ListInternalTransactionsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListInternalTransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Internal transactions, newest first.
    pub transactions: Vec<InternalTransaction>,
}

/// A transfer of any standard.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnyTransfer {
    /// ERC-20.
    Erc20(Erc20Transfer),
    /// ERC-721.
    Erc721(Erc721Transfer),
    /// ERC-1155.
    Erc1155(Erc1155Transfer),
}

impl AnyTransfer {
    /// From a stored transfer, with the price of an ERC-20 token.
    pub fn new(t: &TransferRecord, erc20_extras: impl Fn(&Address) -> TokenExtras) -> Self {
        match t.transfer.standard {
            TokenStandard::Erc20 => AnyTransfer::Erc20(Erc20Transfer::from_record(
                t,
                erc20_extras(&t.transfer.token),
            )),
            TokenStandard::Erc721 => AnyTransfer::Erc721(t.into()),
            TokenStandard::Erc1155 => AnyTransfer::Erc1155(t.into()),
        }
    }
}

/// A page of a token's transfers (`ListTransfersResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListTransfersResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// Transfers, newest first.
    pub transfers: Vec<AnyTransfer>,
}
