//! ICM (Teleporter) messages ([`crate::rows::icm`]): one `icm_messages` row per message ID,
//! filled by the EVM commit of whichever chain shows a part of it (the send and the fee on the
//! source chain, the delivery and the execution on the destination, the receipt back at the
//! source), cleared part by part by a rollback of that chain, and read joined
//! ([`crate::IcmReader`]).
//!
//! A part is only taken from the chain it belongs to: a delivery updates a message whose
//! destination is the delivering chain, a receipt one whose source is the chain that received
//! it. So one chain cannot mark another's messages delivered.

use std::collections::HashMap;

use firn_core::ids::Id;
use sqlx::AnyConnection;

use crate::codec::{RowExt, int, u256};
use crate::error::Result;
use crate::page::{CreatedCursor, Page, PageRequest};
use crate::row::{Row, corrupt};
use crate::rows::evm::{EvmBlockRows, EvmTx};
use crate::rows::icm::{
    FeeInfo, IcmCount, IcmDestinationTx, IcmFee, IcmFilter, IcmMessageRecord, IcmSide, IcmSourceTx,
    IcmTxMessage, Receipt, TeleporterEvent, TeleporterMessage,
};
use crate::sql::Sql;
use crate::store::Store;
use crate::traits::IcmReader;
use crate::types::{Address, B256, U256};

/// Payload bytes one page of messages holds at most (the first message whatever its size): a
/// chain with a large block gas limit can carry messages of megabytes, and a page of a hundred
/// of those must not be read at once. A page cut short has a next page, as any other.
pub const MAX_PAGE_PAYLOAD: u64 = 4 * 1024 * 1024;

/// One committed block's messenger events, with its chain.
pub(crate) struct IcmBlock<'a> {
    pub(crate) chain_id: i64,
    pub(crate) blockchain_id: Id,
    pub(crate) rows: &'a EvmBlockRows,
}

/// Where an event was seen: the chain, block and tx.
struct Seen<'a> {
    chain: i64,
    blockchain_id: Id,
    block: i64,
    timestamp: i64,
    tx: &'a EvmTx,
}

/// Applies the blocks' messenger events, in order.
pub(crate) async fn write(conn: &mut AnyConnection, blocks: &[IcmBlock<'_>]) -> Result<()> {
    for b in blocks {
        for log in &b.rows.icm {
            let Some(tx) = b.rows.txs.iter().find(|t| t.index == log.tx_index) else {
                continue;
            };
            let seen = Seen {
                chain: b.chain_id,
                blockchain_id: b.blockchain_id,
                block: int("block number", b.rows.block.number)?,
                timestamp: int("time", b.rows.block.timestamp)?,
                tx,
            };
            apply(conn, &seen, log.contract, &log.event).await?;
        }
    }
    Ok(())
}

async fn apply(
    conn: &mut AnyConnection,
    seen: &Seen<'_>,
    contract: Address,
    event: &TeleporterEvent,
) -> Result<()> {
    let gas = int("gas used", seen.tx.gas_used)?;
    let hash = seen.tx.hash.0.to_vec();
    let q = match event {
        TeleporterEvent::Sent {
            message_id,
            message,
            fee,
        } => {
            let mut q = insert_message(
                *message_id,
                contract,
                seen.blockchain_id,
                message,
                "fee_token, fee_amount, sent_fee_amount, src_chain, src_block, src_tx_hash, \
                 src_ts, src_gas",
            );
            q.arg(seen.timestamp)
                .arg(fee.token.0.to_vec())
                .arg(u256(&fee.amount))
                .arg(u256(&fee.amount))
                .arg(seen.chain)
                .arg(seen.block)
                .arg(hash)
                .arg(seen.timestamp)
                .arg(gas);
            q.push(
                ") ON CONFLICT (message_id) DO UPDATE SET sort_ts = excluded.sort_ts, \
                 fee_token = excluded.fee_token, sent_fee_amount = excluded.sent_fee_amount, \
                 fee_amount = CASE WHEN icm_messages.fee_block IS NULL \
                 THEN excluded.fee_amount ELSE icm_messages.fee_amount END, \
                 src_chain = excluded.src_chain, src_block = excluded.src_block, \
                 src_tx_hash = excluded.src_tx_hash, src_ts = excluded.src_ts, \
                 src_gas = excluded.src_gas \
                 WHERE icm_messages.source_blockchain_id = excluded.source_blockchain_id \
                 AND icm_messages.destination_blockchain_id = excluded.destination_blockchain_id",
            );
            q
        }
        TeleporterEvent::Received {
            message_id,
            source_blockchain_id,
            deliverer,
            reward_redeemer,
            message,
        } => {
            if message.destination_blockchain_id != seen.blockchain_id {
                return Ok(());
            }
            let mut q = insert_message(
                *message_id,
                contract,
                *source_blockchain_id,
                message,
                "dst_chain, dst_block, dst_tx_hash, dst_ts, dst_gas, deliverer, reward_redeemer",
            );
            q.arg(seen.timestamp)
                .arg(seen.chain)
                .arg(seen.block)
                .arg(hash)
                .arg(seen.timestamp)
                .arg(gas)
                .arg(deliverer.0.to_vec())
                .arg(reward_redeemer.0.to_vec());
            q.push(
                ") ON CONFLICT (message_id) DO UPDATE SET dst_chain = excluded.dst_chain, \
                 dst_block = excluded.dst_block, dst_tx_hash = excluded.dst_tx_hash, \
                 dst_ts = excluded.dst_ts, dst_gas = excluded.dst_gas, \
                 deliverer = excluded.deliverer, reward_redeemer = excluded.reward_redeemer \
                 WHERE icm_messages.source_blockchain_id = excluded.source_blockchain_id \
                 AND icm_messages.destination_blockchain_id = excluded.destination_blockchain_id",
            );
            q
        }
        TeleporterEvent::Executed { message_id, .. } => {
            mark(message_id, "executed_block", "dst_chain", seen)
        }
        TeleporterEvent::ExecutionFailed { message_id, .. } => {
            mark(message_id, "failed_block", "dst_chain", seen)
        }
        TeleporterEvent::ReceiptReceived { message_id, .. } => {
            mark(message_id, "receipt_block", "src_chain", seen)
        }
        TeleporterEvent::FeeAdded { message_id, fee } => {
            // Kept per block, so a rollback goes back to the fee below it.
            let mut addition = Sql::new(
                "INSERT INTO icm_fee_additions (message_id, src_chain, fee_block, fee_amount) \
                 SELECT message_id, src_chain, ",
            );
            addition
                .bind(seen.block)
                .push(", ")
                .bind(u256(&fee.amount))
                .push(" FROM icm_messages WHERE message_id = ")
                .bind(message_id.0.to_vec())
                .push(" AND src_chain = ")
                .bind(seen.chain)
                .push(
                    " ON CONFLICT (message_id, fee_block) \
                     DO UPDATE SET fee_amount = excluded.fee_amount",
                );
            addition.execute(conn).await?;
            let mut q = Sql::new("UPDATE icm_messages SET fee_token = ");
            q.bind(fee.token.0.to_vec())
                .push(", fee_amount = ")
                .bind(u256(&fee.amount))
                .push(", fee_block = ")
                .bind(seen.block)
                .push(" WHERE message_id = ")
                .bind(message_id.0.to_vec())
                .push(" AND src_chain = ")
                .bind(seen.chain);
            q
        }
    };
    q.execute(conn).await?;
    Ok(())
}

/// `INSERT INTO icm_messages (…, sort_ts, side_columns) VALUES (…` with the message's own
/// columns bound, for the caller to bind `sort_ts` and `side_columns` and close.
fn insert_message(
    message_id: Id,
    contract: Address,
    source: Id,
    message: &TeleporterMessage,
    side_columns: &str,
) -> Sql {
    let mut receipts = Vec::with_capacity(message.receipts.len() * 52);
    for r in &message.receipts {
        receipts.extend(r.received_message_nonce.to_be_bytes::<32>());
        receipts.extend(r.relayer_reward_address.0);
    }
    let mut q = Sql::new(&format!(
        "INSERT INTO icm_messages (message_id, contract, source_blockchain_id, \
         destination_blockchain_id, nonce, sender, recipient, required_gas_limit, payload, \
         receipts, sort_ts, {side_columns}) VALUES ("
    ));
    q.arg(message_id.0.to_vec())
        .arg(contract.0.to_vec())
        .arg(source.0.to_vec())
        .arg(message.destination_blockchain_id.0.to_vec())
        .arg(u256(&message.nonce))
        .arg(message.origin_sender.0.to_vec())
        .arg(message.destination_address.0.to_vec())
        .arg(u256(&message.required_gas_limit))
        .arg(message.message.clone())
        .arg(receipts);
    q
}

/// Sets `column` (a block number) of message `id` to the block `seen` is at, where the
/// message's `side` (`src_chain` or `dst_chain`) is the chain that emitted the event; a later
/// block does not move it.
fn mark(id: &Id, column: &str, side: &str, seen: &Seen<'_>) -> Sql {
    let mut q = Sql::new(&format!("UPDATE icm_messages SET {column} = "));
    q.bind(seen.block)
        .push(" WHERE message_id = ")
        .bind(id.0.to_vec())
        .push(&format!(" AND {side} = "))
        .bind(seen.chain)
        .push(&format!(" AND {column} IS NULL"));
    q
}

/// Clears what chain `chain`'s blocks above `keep` showed of each message, and deletes the
/// messages nothing indexed is left of.
pub(crate) async fn remove_above(conn: &mut AnyConnection, chain: i64, keep: i64) -> Result<()> {
    let statements = [
        // Parts seen on the destination chain.
        "UPDATE icm_messages SET executed_block = NULL \
         WHERE dst_chain = $1 AND executed_block > $2",
        "UPDATE icm_messages SET failed_block = NULL WHERE dst_chain = $1 AND failed_block > $2",
        // Parts seen on the source chain.
        "UPDATE icm_messages SET receipt_block = NULL \
         WHERE src_chain = $1 AND receipt_block > $2",
        "DELETE FROM icm_fee_additions WHERE src_chain = $1 AND fee_block > $2",
        "UPDATE icm_messages SET \
         fee_amount = COALESCE((SELECT a.fee_amount FROM icm_fee_additions a \
         WHERE a.message_id = icm_messages.message_id ORDER BY a.fee_block DESC LIMIT 1), \
         sent_fee_amount), \
         fee_block = (SELECT MAX(a.fee_block) FROM icm_fee_additions a \
         WHERE a.message_id = icm_messages.message_id) \
         WHERE src_chain = $1 AND fee_block > $2",
        // The delivery, then the send.
        "DELETE FROM icm_messages WHERE dst_chain = $1 AND dst_block > $2 AND src_chain IS NULL",
        "UPDATE icm_messages SET dst_chain = NULL, dst_block = NULL, dst_tx_hash = NULL, \
         dst_ts = NULL, dst_gas = NULL, deliverer = NULL, reward_redeemer = NULL, \
         executed_block = NULL, failed_block = NULL WHERE dst_chain = $1 AND dst_block > $2",
        "DELETE FROM icm_messages WHERE src_chain = $1 AND src_block > $2 AND dst_chain IS NULL",
        "UPDATE icm_messages SET src_chain = NULL, src_block = NULL, src_tx_hash = NULL, \
         src_ts = NULL, src_gas = NULL, fee_token = NULL, fee_amount = NULL, \
         sent_fee_amount = NULL, fee_block = NULL, receipt_block = NULL, \
         sort_ts = COALESCE(dst_ts, sort_ts) WHERE src_chain = $1 AND src_block > $2",
    ];
    for statement in statements {
        sqlx::query(statement)
            .bind(chain)
            .bind(keep)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// The columns a message is read with, its payload aside: its row, the chains' EVM IDs where
/// the store knows them (the chain indexed, else the P-Chain's record of it), and the fee
/// token's metadata.
const COLUMNS: &str = "m.message_id, m.contract, m.source_blockchain_id, \
    m.destination_blockchain_id, m.nonce, m.sender, m.recipient, m.receipts, \
    m.sort_ts, m.fee_token, m.fee_amount, m.src_chain, m.src_tx_hash, m.src_ts, m.src_gas, \
    m.dst_chain, m.dst_tx_hash, m.dst_ts, m.dst_gas, m.deliverer, m.reward_redeemer, \
    m.executed_block, m.receipt_block, \
    COALESCE(m.src_chain, (SELECT c.chain_id FROM evm_chains c \
      WHERE c.blockchain_id = m.source_blockchain_id), (SELECT b.evm_chain_id FROM blockchains b \
      WHERE b.blockchain_id = m.source_blockchain_id)) AS source_evm, \
    COALESCE(m.dst_chain, (SELECT c.chain_id FROM evm_chains c \
      WHERE c.blockchain_id = m.destination_blockchain_id), (SELECT b.evm_chain_id \
      FROM blockchains b WHERE b.blockchain_id = m.destination_blockchain_id)) AS destination_evm, \
    t.name AS fee_name, t.symbol AS fee_symbol, t.decimals AS fee_decimals";

const FROM: &str = " FROM icm_messages m LEFT JOIN evm_tokens t ON t.chain_id = m.src_chain AND t.address = m.fee_token";

/// The peer chain's EVM ID, for [`IcmReader::list_icm_tx_messages`].
const PEER_EVM: &str = "COALESCE((SELECT c.chain_id FROM evm_chains c \
    WHERE c.blockchain_id = {peer}), (SELECT b.evm_chain_id FROM blockchains b \
    WHERE b.blockchain_id = {peer})) AS peer_evm";

impl IcmReader for Store {
    async fn find_icm_message(&self, message_id: Id) -> Result<Option<IcmMessageRecord>> {
        let mut q = Sql::new(&format!(
            "SELECT {COLUMNS}, m.payload{FROM} WHERE m.message_id = "
        ));
        q.bind(message_id.0.to_vec());
        self.fetch_optional(q, decode).await
    }

    async fn list_icm_messages(
        &self,
        filter: &IcmFilter,
        page: &PageRequest<CreatedCursor>,
    ) -> Result<Page<IcmMessageRecord, CreatedCursor>> {
        let limit = page.checked_limit()?;
        // An either-or condition is one walk per alternative on its own index, merged.
        let mut walks: Vec<Vec<(&str, Vec<u8>)>> = vec![Vec::new()];
        let mut both = |a: &'static str, b: &'static str, value: Vec<u8>| {
            walks = walks
                .iter()
                .flat_map(|w| {
                    [a, b].map(|column| {
                        let mut w = w.clone();
                        w.push((column, value.clone()));
                        w
                    })
                })
                .collect();
        };
        if let Some(id) = filter.either_chain {
            both(
                "source_blockchain_id",
                "destination_blockchain_id",
                id.0.to_vec(),
            );
        }
        if let Some(a) = filter.party {
            both("sender", "recipient", a.0.to_vec());
        }
        let mut fixed: Vec<(&str, Vec<u8>)> = Vec::new();
        if let Some(id) = filter.source {
            fixed.push(("source_blockchain_id", id.0.to_vec()));
        }
        if let Some(id) = filter.destination {
            fixed.push(("destination_blockchain_id", id.0.to_vec()));
        }
        if let Some(a) = filter.sender {
            fixed.push(("sender", a.0.to_vec()));
        }
        if let Some(a) = filter.recipient {
            fixed.push(("recipient", a.0.to_vec()));
        }
        let mut q = Sql::new(&format!(
            "SELECT {COLUMNS}, LENGTH(m.payload) AS payload_len{FROM} JOIN (SELECT DISTINCT k.message_id FROM ("
        ));
        for (i, walk) in walks.iter().enumerate() {
            if i > 0 {
                q.push(" UNION ALL ");
            }
            q.push("SELECT * FROM (SELECT w.message_id, w.sort_ts FROM icm_messages w WHERE 1 = 1");
            for (column, value) in fixed.iter().chain(walk) {
                q.push(&format!(" AND w.{column} = ")).bind(value.clone());
            }
            if let Some(c) = page.after {
                q.push(" AND (w.sort_ts, w.message_id) < (")
                    .bind(int("cursor time", c.height)?)
                    .push(", ")
                    .bind(c.id.0.to_vec())
                    .push(")");
            }
            q.push(" ORDER BY w.sort_ts DESC, w.message_id DESC")
                .limit(limit + 1)
                .push(&format!(") w{i}"));
        }
        q.push(") k) p ON m.message_id = p.message_id ORDER BY m.sort_ts DESC, m.message_id DESC")
            .limit(limit + 1);
        let rows = self.fetch(q, decode_listed).await?;
        // Rows up to the limit and the payload budget (the first row whatever its size).
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let mut more = rows.len() > limit;
        let mut items = Vec::with_capacity(rows.len().min(limit));
        let mut bytes = 0u64;
        for (m, len) in rows.into_iter().take(limit) {
            if !items.is_empty() && bytes.saturating_add(len) > MAX_PAGE_PAYLOAD {
                more = true;
                break;
            }
            bytes = bytes.saturating_add(len);
            items.push(m);
        }
        if !items.is_empty() {
            let mut q =
                Sql::new("SELECT message_id, payload FROM icm_messages WHERE message_id IN (");
            q.bind_list(items.iter().map(|m| m.message_id.0.to_vec()))
                .push(")");
            let mut payloads: HashMap<Id, Vec<u8>> = self
                .fetch(q, |r| Ok((r.id("message_id")?, r.bytes("payload")?)))
                .await?
                .into_iter()
                .collect();
            for m in &mut items {
                m.payload = payloads.remove(&m.message_id).unwrap_or_default();
            }
        }
        let next = items.last().filter(|_| more).map(|m| CreatedCursor {
            height: m.sort_ts,
            id: m.message_id,
        });
        Ok(Page { items, next })
    }

    async fn list_icm_tx_messages(
        &self,
        chain_id: u64,
        tx_hash: B256,
    ) -> Result<Vec<IcmTxMessage>> {
        let chain = int("chain id", chain_id)?;
        let mut q = Sql::new(&format!(
            "SELECT m.message_id, 0 AS side, m.destination_blockchain_id AS peer, {} \
             FROM icm_messages m WHERE m.src_tx_hash = ",
            PEER_EVM.replace("{peer}", "m.destination_blockchain_id")
        ));
        q.bind(tx_hash.0.to_vec())
            .push(" AND m.src_chain = ")
            .bind(chain)
            .push(&format!(
                " UNION ALL SELECT m.message_id, 1 AS side, m.source_blockchain_id AS peer, {} \
                 FROM icm_messages m WHERE m.dst_tx_hash = ",
                PEER_EVM.replace("{peer}", "m.source_blockchain_id")
            ))
            .bind(tx_hash.0.to_vec())
            .push(" AND m.dst_chain = ")
            .bind(chain)
            .push(" ORDER BY side, message_id")
            .limit(crate::evm::MAX_ROWS_PER_TX as i64);
        self.fetch(q, |r| {
            Ok(IcmTxMessage {
                message_id: r.id("message_id")?,
                side: if r.i64("side")? == 0 {
                    IcmSide::Source
                } else {
                    IcmSide::Destination
                },
                peer_blockchain_id: r.id("peer")?,
                peer_evm_chain_id: r.opt_u64("peer_evm")?,
            })
        })
        .await
    }

    async fn find_icm_time_range(
        &self,
        source: Option<Id>,
        destination: Option<Id>,
    ) -> Result<Option<(u64, u64)>> {
        let mut q = Sql::new(
            "SELECT MIN(sort_ts) AS oldest, MAX(sort_ts) AS newest FROM icm_messages WHERE 1 = 1",
        );
        push_pair(&mut q, source, destination);
        let found = self
            .fetch(q, |r| Ok((r.opt_u64("oldest")?, r.opt_u64("newest")?)))
            .await?;
        Ok(match found.first() {
            Some((Some(oldest), Some(newest))) => Some((*oldest, *newest)),
            _ => None,
        })
    }

    async fn count_icm_messages(
        &self,
        source: Option<Id>,
        destination: Option<Id>,
        from: u64,
        to: u64,
        period: u64,
    ) -> Result<Vec<IcmCount>> {
        // The period is a whole number of seconds the caller picks from a fixed set; written
        // into the text so that both backends group by the same expression.
        let period = int("period", period.max(1))?;
        let mut q = Sql::new(&format!(
            "SELECT source_blockchain_id, destination_blockchain_id, \
             (sort_ts / {period}) * {period} AS start_ts, COUNT(*) AS n FROM icm_messages \
             WHERE sort_ts >= "
        ));
        q.bind(int("start time", from)?)
            .push(" AND sort_ts <= ")
            .bind(int("end time", to)?);
        push_pair(&mut q, source, destination);
        q.push(" GROUP BY 1, 2, 3 ORDER BY 3 DESC, 1, 2");
        self.fetch(q, |r| {
            Ok(IcmCount {
                start_ts: r.u64("start_ts")?,
                source: r.id("source_blockchain_id")?,
                destination: r.id("destination_blockchain_id")?,
                count: r.u64("n")?,
            })
        })
        .await
    }
}

/// Appends the source and destination conditions of a count.
fn push_pair(q: &mut Sql, source: Option<Id>, destination: Option<Id>) {
    if let Some(id) = source {
        q.push(" AND source_blockchain_id = ").bind(id.0.to_vec());
    }
    if let Some(id) = destination {
        q.push(" AND destination_blockchain_id = ")
            .bind(id.0.to_vec());
    }
}

/// A message with its payload.
fn decode(r: &dyn Row) -> Result<IcmMessageRecord> {
    let mut m = decode_fields(r)?;
    m.payload = r.bytes("payload")?;
    Ok(m)
}

/// A listed message without its payload, and the payload's length.
fn decode_listed(r: &dyn Row) -> Result<(IcmMessageRecord, u64)> {
    Ok((decode_fields(r)?, r.u64("payload_len")?))
}

/// Everything of a message but its payload (left empty).
fn decode_fields(r: &dyn Row) -> Result<IcmMessageRecord> {
    let receipts = r.blob("receipts")?;
    if !receipts.len().is_multiple_of(52) {
        return Err(corrupt("receipts", "not 52 bytes per receipt"));
    }
    let source = match (r.opt_u64("src_chain")?, r.opt_bytes("src_tx_hash")?) {
        (Some(chain_id), Some(_)) => Some(IcmSourceTx {
            chain_id,
            tx_hash: r.b256("src_tx_hash")?,
            timestamp: r.u64("src_ts")?,
            gas_used: r.u64("src_gas")?,
        }),
        _ => None,
    };
    let destination = match r.opt_u64("dst_chain")? {
        Some(chain_id) => Some(IcmDestinationTx {
            chain_id,
            tx_hash: r.b256("dst_tx_hash")?,
            timestamp: r.u64("dst_ts")?,
            gas_used: r.u64("dst_gas")?,
            deliverer: r.address("deliverer")?,
            reward_redeemer: r.address("reward_redeemer")?,
        }),
        None => None,
    };
    let fee = match (r.opt_address("fee_token")?, r.opt_u256("fee_amount")?) {
        (Some(token), Some(amount)) => Some(IcmFee {
            fee: FeeInfo { token, amount },
            name: r.opt_text("fee_name")?,
            symbol: r.opt_text("fee_symbol")?,
            decimals: r
                .opt_u64("fee_decimals")?
                .and_then(|d| u8::try_from(d).ok()),
        }),
        _ => None,
    };
    Ok(IcmMessageRecord {
        message_id: r.id("message_id")?,
        contract: r.address("contract")?,
        source_blockchain_id: r.id("source_blockchain_id")?,
        destination_blockchain_id: r.id("destination_blockchain_id")?,
        source_evm_chain_id: r.opt_u64("source_evm")?,
        destination_evm_chain_id: r.opt_u64("destination_evm")?,
        nonce: r.u256("nonce")?,
        sender: r.address("sender")?,
        recipient: r.address("recipient")?,
        payload: Vec::new(),
        receipts: receipts
            .chunks_exact(52)
            .map(|c| Receipt {
                received_message_nonce: U256::from_be_slice(&c[..32]),
                relayer_reward_address: Address::from_slice(&c[32..]),
            })
            .collect(),
        fee,
        source,
        destination,
        executed: r.opt_u64("executed_block")?.is_some(),
        receipt_delivered: r.opt_u64("receipt_block")?.is_some(),
        sort_ts: r.u64("sort_ts")?,
    })
}
