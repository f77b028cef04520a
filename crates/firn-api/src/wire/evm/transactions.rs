//! EVM transactions: as lists show them (`NativeTransaction`), and one with its transfers and
//! internal calls (`GetTransactionResponse`).

use firn_store::rows::evm::{EvmInternalTx, EvmTxRecord, TokenStandard, TransferRecord};
use firn_store::types::{Address, U256};
use serde::Serialize;
use utoipa::ToSchema;

use super::RichAddress;
use super::chains::NetworkTokenDetails;
use super::tokens::{Erc20Token, Erc721Token, Erc1155Token, erc721_token, erc1155_token};
use crate::wire::TokenExtras;

/// `Method`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Method {
    /// `NATIVE_TRANSFER`, `CONTRACT_CALL` or `CONTRACT_CREATION`.
    pub call_type: String,
    /// First four bytes of the input, hex (empty for transfers).
    pub method_hash: String,
    /// The called function's signature (`transfer(address,uint256)`) when firn's ABIs or the
    /// signature directory know one that fits the input; `Native Transfer` and
    /// `Contract Created` for the other call types.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method_name: Option<String>,
}

impl Method {
    /// The method of a transaction to `to` (`None`: a creation) with `input`.
    pub fn of(to: Option<&Address>, input: &[u8]) -> Self {
        let (call_type, method_name) = match to {
            None => ("CONTRACT_CREATION", Some("Contract Created")),
            Some(_) if input.is_empty() => ("NATIVE_TRANSFER", Some("Native Transfer")),
            Some(_) => ("CONTRACT_CALL", firn_selectors::method_name(input)),
        };
        let method_hash = match (to, input.get(..4)) {
            (Some(_), Some(selector)) => format!("0x{}", hex::encode(selector)),
            _ => String::new(),
        };
        Self {
            call_type: call_type.to_owned(),
            method_hash,
            method_name: method_name.map(str::to_owned),
        }
    }
}

/// A transaction as lists show it (`NativeTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NativeTransaction {
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
}

impl From<&EvmTxRecord> for NativeTransaction {
    fn from(r: &EvmTxRecord) -> Self {
        let t = &r.tx;
        let to = t.to.or(t.contract_address).unwrap_or(Address::ZERO);
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
            method: Method::of(t.to.as_ref(), &t.input),
            value: t.value.to_string(),
        }
    }
}

/// A page of transactions (`ListNativeTransactionsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListNativeTransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The transactions.
    pub transactions: Vec<NativeTransaction>,
}

impl ListNativeTransactionsResponse {
    /// One page of stored transactions.
    pub fn new(txs: &[EvmTxRecord], next_page_token: Option<String>) -> Self {
        Self {
            next_page_token,
            transactions: txs.iter().map(NativeTransaction::from).collect(),
        }
    }
}

/// `FullNativeTransactionDetails`: a [`NativeTransaction`] with its input and fees.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FullNativeTransactionDetails {
    /// What lists show.
    #[serde(flatten)]
    pub native: NativeTransaction,
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
        Self {
            native: r.into(),
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
    /// The ICM message it sent or delivered, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teleporter_message_info: Option<crate::wire::icm::TeleporterMessageInfo>,
}

impl GetTransactionResponse {
    /// Splits `transfers` by standard next to the transaction and its internal calls.
    pub fn new(
        native_transaction: FullNativeTransactionDetails,
        network_token_details: NetworkTokenDetails,
        transfers: &[TransferRecord],
        internal: &[EvmInternalTx],
        erc20_extras: impl Fn(&Address) -> TokenExtras,
    ) -> Self {
        let split = TransferDetails::split(transfers, erc20_extras);
        Self {
            erc20_transfers: split.erc20,
            erc721_transfers: split.erc721,
            erc1155_transfers: split.erc1155,
            internal_transactions: internal.iter().map(Into::into).collect(),
            network_token_details,
            native_transaction,
            teleporter_message_info: None,
        }
    }
}

/// A transaction's transfers by standard, as its detail views show them.
pub(super) struct TransferDetails {
    pub(super) erc20: Vec<Erc20TransferDetails>,
    pub(super) erc721: Vec<Erc721TransferDetails>,
    pub(super) erc1155: Vec<Erc1155TransferDetails>,
}

impl TransferDetails {
    pub(super) fn split(
        transfers: &[TransferRecord],
        erc20_extras: impl Fn(&Address) -> TokenExtras,
    ) -> Self {
        let mut out = Self {
            erc20: Vec::new(),
            erc721: Vec::new(),
            erc1155: Vec::new(),
        };
        for t in transfers {
            let x = &t.transfer;
            match x.standard {
                TokenStandard::Erc20 => out.erc20.push(Erc20TransferDetails {
                    from: (&x.from).into(),
                    to: (&x.to).into(),
                    log_index: x.log_index,
                    value: x.value.to_string(),
                    erc20_token: Erc20Token::new(
                        &x.token,
                        t.token.as_ref(),
                        erc20_extras(&x.token),
                    ),
                }),
                TokenStandard::Erc721 => out.erc721.push(Erc721TransferDetails {
                    from: (&x.from).into(),
                    to: (&x.to).into(),
                    log_index: x.log_index,
                    erc721_token: erc721_token(t),
                }),
                TokenStandard::Erc1155 => out.erc1155.push(Erc1155TransferDetails {
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
