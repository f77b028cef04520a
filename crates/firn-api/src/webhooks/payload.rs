//! Building `address_activity` events from the store: one per matched transaction, with its
//! block's receipts root and cumulative gas, its token transfers, and as the webhook asks its
//! logs and internal transactions. An event's `messageId` is derived from the webhook and the
//! transaction, so it is the same however often the event is built.

use std::collections::BTreeMap;

use firn_store::rows::evm::{
    EvmBlockRecord, EvmChainRecord, EvmLog, EvmTxRecord, TokenStandard, TransferRecord,
};
use firn_store::rows::webhooks::{NewEvent, WebhookRecord};
use firn_store::types::{Address, B256, U256};
use firn_store::{EvmReader, Store, StoreError};
use sha2::{Digest, Sha256};

use super::canonical;
use super::wire::{
    ADDRESS_ACTIVITY, ErcToken, EventInternalTx, EventLog, EventTransaction, EventTransfer,
    NetworkTokenInfo, TransactionEvent, WebhookEvent,
};
use crate::wire::evm::checksummed;

/// What a webhook's events carry and which transactions it wants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Only transactions that emitted one of these events (topic 0); empty: all.
    pub signatures: Vec<B256>,
    pub include_logs: bool,
    pub include_internal_txs: bool,
}

impl Selection {
    /// The selection of `webhook` (its signatures from its stored metadata).
    pub(crate) fn of(webhook: &WebhookRecord) -> Self {
        let signatures =
            serde_json::from_str::<super::wire::AddressActivityMetadata>(&webhook.metadata)
                .map(|m| {
                    m.event_signatures
                        .iter()
                        .filter_map(|s| s.parse().ok())
                        .collect()
                })
                .unwrap_or_default();
        Self {
            signatures,
            include_logs: webhook.include_logs,
            include_internal_txs: webhook.include_internal_txs,
        }
    }
}

/// The events of `matches` (`(block, tx index)`, in order) for `webhook` on `chain`: skipped
/// are transactions the store no longer holds and those without a wanted event signature.
pub(crate) async fn build(
    store: &Store,
    chain: &EvmChainRecord,
    webhook: &WebhookRecord,
    matches: &[(u64, u32)],
) -> Result<Vec<NewEvent>, StoreError> {
    let selection = Selection::of(webhook);
    let mut by_block: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    for (block, index) in matches {
        by_block.entry(*block).or_default().push(*index);
    }
    let mut events = Vec::with_capacity(matches.len());
    for (number, indexes) in by_block {
        let Some(block) = store.find_evm_block(chain.chain_id, number).await? else {
            continue;
        };
        let txs = store.list_evm_block_txs(chain.chain_id, number).await?;
        let mut cumulative = 0u64;
        let mut wanted = indexes.iter().peekable();
        for tx in &txs {
            cumulative = cumulative.saturating_add(tx.tx.gas_used);
            if wanted.peek() != Some(&&tx.tx.index) {
                continue;
            }
            wanted.next();
            let hash = tx.tx.hash;
            let logs = if selection.include_logs || !selection.signatures.is_empty() {
                store.list_evm_tx_logs(chain.chain_id, hash).await?
            } else {
                Vec::new()
            };
            let logs: Vec<&EvmLog> = logs
                .iter()
                .filter(|l| {
                    selection.signatures.is_empty()
                        || l.topics
                            .first()
                            .is_some_and(|t| selection.signatures.contains(t))
                })
                .collect();
            if !selection.signatures.is_empty() && logs.is_empty() {
                continue;
            }
            let transfers = store.list_evm_tx_transfers(chain.chain_id, hash).await?;
            let internal = if selection.include_internal_txs {
                store.list_evm_internal_txs(chain.chain_id, hash).await?
            } else {
                Vec::new()
            };
            let mut transaction = transaction(chain, &block, tx, cumulative, &transfers);
            if selection.include_internal_txs {
                transaction.internal_transactions = Some(
                    internal
                        .iter()
                        .map(|i| EventInternalTx {
                            from: checksummed(&i.from),
                            to: checksummed(&i.to),
                            internal_tx_type: i.call_type.to_ascii_lowercase(),
                            value: i.value.to_string(),
                            gas_used: i.gas_used.to_string(),
                            gas_limit: i.gas_limit.to_string(),
                            transaction_hash: hash.to_string(),
                        })
                        .collect(),
                );
            }
            let message_id = message_id(&[webhook.id.as_bytes(), &hash.0]);
            let event = WebhookEvent {
                webhook_id: webhook.id.clone(),
                event_type: ADDRESS_ACTIVITY.to_owned(),
                message_id: message_id.clone(),
                event: TransactionEvent {
                    transaction,
                    logs: selection
                        .include_logs
                        .then(|| logs.iter().map(|l| log(l)).collect()),
                },
            };
            let body = canonical::to_vec(&event).map_err(|e| StoreError::Corrupt {
                column: "webhook event",
                reason: e.to_string(),
            })?;
            events.push(NewEvent { message_id, body });
        }
    }
    Ok(events)
}

/// A UUID-shaped ID that is a digest of `parts` (the webhook, the transaction and, for P-Chain
/// events, what of it the event is about): the same event always gets the same ID.
pub(crate) fn message_id(parts: &[&[u8]]) -> String {
    let digest = parts
        .iter()
        .fold(Sha256::new(), |h, part| h.chain_update(part))
        .finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

fn transaction(
    chain: &EvmChainRecord,
    block: &EvmBlockRecord,
    r: &EvmTxRecord,
    cumulative_gas: u64,
    transfers: &[TransferRecord],
) -> EventTransaction {
    let t = &r.tx;
    let by = |standard| -> Vec<EventTransfer> {
        transfers
            .iter()
            .filter(|x| x.transfer.standard == standard)
            .map(|x| transfer(x, r.timestamp))
            .collect()
    };
    EventTransaction {
        block_hash: r.block_hash.to_string(),
        block_number: r.block_number.to_string(),
        from: checksummed(&t.from),
        gas: t.gas_limit.to_string(),
        gas_price: t.gas_price.to_string(),
        max_fee_per_gas: t.max_fee.unwrap_or(t.gas_price).to_string(),
        max_priority_fee_per_gas: t.max_priority_fee.unwrap_or(t.gas_price).to_string(),
        tx_hash: t.hash.to_string(),
        tx_status: if t.success { "1" } else { "0" }.to_owned(),
        input: format!("0x{}", hex::encode(&t.input)),
        nonce: t.nonce.to_string(),
        to: checksummed(&t.to.unwrap_or(Address::ZERO)),
        transaction_index: t.index,
        value: t.value.to_string(),
        tx_type: t.tx_type,
        chain_id: chain.chain_id.to_string(),
        receipt_cumulative_gas_used: cumulative_gas.to_string(),
        receipt_gas_used: t.gas_used.to_string(),
        receipt_effective_gas_price: t.gas_price.to_string(),
        receipt_root: block.block.receipts_root.unwrap_or_default().to_string(),
        block_timestamp: r.timestamp,
        contract_address: checksummed(&t.contract_address.unwrap_or(Address::ZERO)),
        erc20_transfers: by(TokenStandard::Erc20),
        erc721_transfers: by(TokenStandard::Erc721),
        erc1155_transfers: by(TokenStandard::Erc1155),
        internal_transactions: None,
        network_token: NetworkTokenInfo {
            token_name: chain.token_name.clone(),
            token_symbol: chain.token_symbol.clone(),
            token_decimals: chain.token_decimals,
            value_with_decimals: with_decimals(t.value, chain.token_decimals),
        },
    }
}

fn transfer(x: &TransferRecord, timestamp: u64) -> EventTransfer {
    let t = &x.transfer;
    let (name, symbol, decimals) = match &x.token {
        Some(token) => (
            token.name.clone(),
            token.symbol.clone(),
            token.decimals.unwrap_or(0),
        ),
        None => (String::new(), String::new(), 0),
    };
    let decimals = if t.standard == TokenStandard::Erc20 {
        decimals
    } else {
        0
    };
    let token = ErcToken {
        address: checksummed(&t.token),
        name,
        symbol,
        decimals,
        value_with_decimals: with_decimals(t.value, decimals),
    };
    let (standard, erc20, erc721, erc1155) = match t.standard {
        TokenStandard::Erc20 => ("ERC20", Some(token), None, None),
        TokenStandard::Erc721 => ("ERC721", None, Some(token), None),
        TokenStandard::Erc1155 => ("ERC1155", None, None, Some(token)),
    };
    EventTransfer {
        transaction_hash: x.tx_hash.to_string(),
        standard: standard.to_owned(),
        from: checksummed(&t.from),
        to: checksummed(&t.to),
        value: t.value.to_string(),
        token_id: t.token_id.map(|id| id.to_string()),
        block_timestamp: timestamp,
        log_index: t.log_index,
        erc20_token: erc20,
        erc721_token: erc721,
        erc1155_token: erc1155,
    }
}

fn log(l: &EvmLog) -> EventLog {
    let topic = |i: usize| l.topics.get(i).map(ToString::to_string);
    EventLog {
        address: checksummed(&l.address),
        topic0: topic(0).unwrap_or_default(),
        topic1: topic(1),
        topic2: topic(2),
        topic3: topic(3),
        data: format!("0x{}", hex::encode(&l.data)),
        transaction_index: l.tx_index,
        log_index: l.log_index,
        removed: false,
    }
}

/// `amount / 10^decimals` as exact decimal text without trailing zeros.
pub(crate) fn with_decimals(amount: U256, decimals: u8) -> String {
    let digits = amount.to_string();
    let decimals = usize::from(decimals);
    if decimals == 0 {
        return digits;
    }
    let padded = format!("{digits:0>width$}", width = decimals + 1);
    let (whole, frac) = padded.split_at(padded.len() - decimals);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        whole.to_owned()
    } else {
        format!("{whole}.{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_exact() {
        assert_eq!(with_decimals(U256::from(1_500_000u64), 6), "1.5");
        assert_eq!(with_decimals(U256::from(5u64), 18), "0.000000000000000005");
        assert_eq!(with_decimals(U256::ZERO, 18), "0");
        assert_eq!(with_decimals(U256::from(42u64), 0), "42");
        assert_eq!(with_decimals(U256::MAX, 18).len(), 79);
    }

    #[test]
    fn message_ids_are_uuids_of_webhook_and_transaction() {
        let id = |w: &str, tx: u8| message_id(&[w.as_bytes(), &B256::repeat_byte(tx).0]);
        let a = id("w1", 1);
        assert_eq!(a, id("w1", 1));
        assert_ne!(a, id("w2", 1));
        assert_ne!(a, id("w1", 2));
        assert!(uuid::Uuid::parse_str(&a).is_ok(), "{a}");
    }
}
