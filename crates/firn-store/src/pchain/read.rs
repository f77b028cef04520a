//! P-Chain reads.

use std::collections::HashMap;

use firn_core::ids::{Id, NodeId, ShortId};

use super::decode::{
    decode_block, decode_blockchain, decode_core, decode_l1, decode_reward, decode_staker,
    decode_subnet, decode_utxo,
};
use crate::codec::{RowExt, int};
use crate::error::{Result, StoreError};
use crate::page::{
    CreatedCursor, EventCursor, HeightCursor, Page, PageRequest, RankCursor, SortOrder, TxCursor,
    UtxoCursor,
};
use crate::row::Row;
use crate::rows::l1_fees::{L1FeeActive, L1FeeLedgerRecord, LedgerState};
use crate::rows::pchain::{
    BlockchainRecord, DelegationTotals, L1Observation, L1ValidatorRecord, PBlockRecord, PTxRecord,
    PUtxoRecord, RewardRecord, SUBNET_VALIDATOR_TX, StakerRecord, StakerStatus, StakingTotals,
    SubnetRecord, SupplyReading, SupplyTotals, ValidatorObservation,
};
use crate::rows::utxos::{BalanceSum, UtxoActivity};
use crate::sql::{Sql, Value};
use crate::store::Store;
use crate::traits::{
    L1ValidatorFilter, PBlockFilter, PChainReader, PTxFilter, RewardFilter, StakerFilter,
    UtxoFilter,
};

/// Keeps `alias`'s rows (with `height` and `timestamp`) inside a block-time window. Block
/// times never decrease with height, so the window is also a height window: bounding the
/// height (from `p_blocks_by_timestamp`) starts a walk at the window instead of walking up
/// to it from genesis.
fn push_time_window(q: &mut Sql, alias: &str, start: Option<u64>, end: Option<u64>) -> Result<()> {
    if let Some(t) = start {
        q.push(&format!(" AND {alias}.timestamp >= "))
            .bind(int("start time", t)?)
            .push(&format!(
                " AND {alias}.height >= COALESCE((SELECT b.height FROM p_blocks b \
                 WHERE b.timestamp >= "
            ))
            .bind(int("start time", t)?)
            .push(" ORDER BY b.timestamp, b.height LIMIT 1), ")
            .bind(i64::MAX)
            .push(")");
    }
    if let Some(t) = end {
        q.push(&format!(" AND {alias}.timestamp <= "))
            .bind(int("end time", t)?)
            .push(&format!(
                " AND {alias}.height <= COALESCE((SELECT b.height FROM p_blocks b \
                 WHERE b.timestamp <= "
            ))
            .bind(int("end time", t)?)
            .push(" ORDER BY b.timestamp DESC, b.height DESC LIMIT 1), -1)");
    }
    Ok(())
}

/// Rows listed by creation: the `SELECT … FROM <table> v …` that reads them (the table
/// aliased `v`) and its key columns.
#[derive(Clone, Copy)]
pub(super) struct CreatedTable {
    pub(super) select: &'static str,
    pub(super) height_col: &'static str,
    pub(super) id_col: &'static str,
}

const SUBNETS: CreatedTable = CreatedTable {
    select: "SELECT v.* FROM subnets v",
    height_col: "height",
    id_col: "subnet_id",
};
const BLOCKCHAINS: CreatedTable = CreatedTable {
    select: "SELECT v.* FROM blockchains v",
    height_col: "height",
    id_col: "blockchain_id",
};

/// One index range of the transaction list, in page order, at most a page plus one.
struct TxScan<'a> {
    filter: &'a PTxFilter,
    active_at: Option<u64>,
    order: SortOrder,
    page: &'a PageRequest<TxCursor>,
    limit: i64,
}

impl TxScan<'_> {
    /// Appends `SELECT x.height, x.tx_index FROM … LIMIT n` over `address`'s rows, the L1
    /// validation's rows, or every tx. A txTypes filter walks each type's range on its own
    /// (`…_by_type` indexes) and merges them: a page costs at most a page per type, however
    /// many rows of other types the source holds.
    fn push(&self, q: &mut Sql, address: Option<&ShortId>) -> Result<()> {
        let mut types: Vec<&str> = Vec::with_capacity(self.filter.tx_types.len());
        for t in &self.filter.tx_types {
            if !types.contains(&t.as_str()) {
                types.push(t);
            }
        }
        match types.as_slice() {
            [] => self.push_walk(q, address, None),
            [one] => self.push_walk(q, address, Some(one)),
            many => {
                q.merged_walks(many, self.order, self.limit + 1, |q, t| {
                    self.push_walk(q, address, Some(t))
                })?;
                Ok(())
            }
        }
    }

    /// One ordered walk of a source, of one tx type or all of them.
    fn push_walk(
        &self,
        q: &mut Sql,
        address: Option<&ShortId>,
        tx_type: Option<&str>,
    ) -> Result<()> {
        let filter = self.filter;
        let source = if address.is_some() {
            "p_tx_addresses"
        } else if filter.l1_validation_id.is_some() {
            "p_tx_l1_validations"
        } else {
            "p_txs"
        };
        // Active stake with no narrower source walks the open stakers (`p_stakers_open`),
        // not every tx since genesis.
        let by_staker = self.active_at.is_some() && source == "p_txs";
        if by_staker {
            q.push(
                "SELECT x.height, x.tx_index FROM p_stakers s \
                 JOIN p_txs x ON x.height = s.height AND x.tx_index = s.tx_index",
            );
        } else {
            q.push(&format!("SELECT x.height, x.tx_index FROM {source} x"));
            if self.active_at.is_some() {
                q.push(" JOIN p_stakers s ON s.height = x.height AND s.tx_index = x.tx_index");
            }
        }
        q.push(" WHERE 1 = 1");
        if let Some(a) = address {
            q.push(" AND x.address = ").bind(a.0.to_vec());
            if let Some(v) = filter.l1_validation_id {
                q.push(
                    " AND EXISTS (SELECT 1 FROM p_tx_l1_validations v WHERE v.height = x.height \
                     AND v.tx_index = x.tx_index AND v.validation_id = ",
                )
                .bind(v.0.to_vec())
                .push(")");
            }
        } else if let Some(v) = filter.l1_validation_id {
            q.push(" AND x.validation_id = ").bind(v.0.to_vec());
        }
        if let Some(now) = self.active_at {
            q.push(" AND s.end_tx_hash IS NULL AND s.end_ts > ")
                .bind(int("now", now)?);
        }
        if let Some(t) = tx_type {
            q.push(" AND x.tx_type = ").bind(t.to_owned());
        }
        push_time_window(q, "x", filter.start_ts, filter.end_ts)?;
        let walk = if by_staker { "s" } else { "x" };
        q.after_tx(walk, self.order, self.page.after)?
            .order_by_tx(walk, self.order)
            .limit(self.limit + 1);
        Ok(())
    }
}

/// A transaction row without its UTXOs.
fn decode_tx(r: &dyn Row) -> Result<PTxRecord> {
    Ok(PTxRecord {
        height: r.u64("height")?,
        tx_index: r.u32("tx_index")?,
        block_hash: r.id("block_hash")?,
        timestamp: r.u64("timestamp")?,
        core: decode_core(r)?,
        consumed: Vec::new(),
        emitted: Vec::new(),
    })
}

/// A row of [`utxos_query`]: whether it is the emitted side, the tx it belongs to, the UTXO.
fn decode_side_utxo(r: &dyn Row) -> Result<(bool, Id, PUtxoRecord)> {
    let emitted = r.get_str("side")? == Some("e");
    let utxo = decode_utxo(r)?;
    let tx = if emitted {
        r.id("emitted_by")?
    } else {
        match &utxo.consumed {
            Some(c) => c.tx_hash,
            None => {
                return Err(StoreError::Corrupt {
                    column: "consuming_tx_hash",
                    reason: "null on the consumed side".to_owned(),
                });
            }
        }
    };
    Ok((emitted, tx, utxo))
}

/// What the transactions of a page emitted and what they consumed, in one query, each row
/// tagged with its side (a UTXO can be both, emitted and spent on the same page).
fn utxos_query(txs: &[PTxRecord]) -> Option<Sql> {
    if txs.is_empty() {
        return None;
    }
    let ids = || txs.iter().map(|t| t.core.tx_hash.0.to_vec());
    let mut q = Sql::new(
        "SELECT p.*, 'e' AS side, p.emit_index AS pos FROM p_utxos p WHERE p.emitted_by IN (",
    );
    q.bind_list(ids()).push(
        ") UNION ALL SELECT p.*, 'c' AS side, p.consume_index AS pos FROM p_utxos p \
         WHERE p.consuming_tx_hash IN (",
    );
    q.bind_list(ids()).push(") ORDER BY pos");
    Some(q)
}

/// Attaches [`utxos_query`]'s rows to their transactions.
fn attach_utxos(mut txs: Vec<PTxRecord>, utxos: Vec<(bool, Id, PUtxoRecord)>) -> Vec<PTxRecord> {
    let mut emitted: HashMap<Id, Vec<PUtxoRecord>> = HashMap::new();
    let mut consumed: HashMap<Id, Vec<PUtxoRecord>> = HashMap::new();
    for (is_emitted, tx, u) in utxos {
        let side = if is_emitted {
            &mut emitted
        } else {
            &mut consumed
        };
        side.entry(tx).or_default().push(u);
    }
    for t in &mut txs {
        t.emitted = emitted.remove(&t.core.tx_hash).unwrap_or_default();
        t.consumed = consumed.remove(&t.core.tx_hash).unwrap_or_default();
    }
    txs
}

impl Store {
    /// Transactions `q` selects, with their consumed and emitted UTXOs.
    async fn txs_with_utxos(&self, q: Sql) -> Result<Vec<PTxRecord>> {
        let (txs, utxos) = self
            .fetch_then((q, decode_tx), (utxos_query, decode_side_utxo))
            .await?;
        Ok(attach_utxos(txs, utxos))
    }

    /// The one transaction list query: filter, optional "active stake at `now`", keyset page.
    ///
    /// Every shape walks one index range in page order and stops after a page: the whole table
    /// by position, one L1 validation ID, or one address. Several addresses take the first
    /// page of each address separately and merge them, so the work grows with the page size
    /// times the number of addresses, never with how many txs the addresses have.
    async fn list_txs(
        &self,
        filter: &PTxFilter,
        active_at: Option<u64>,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> Result<Page<PTxRecord, TxCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT t.* FROM p_txs t JOIN (");
        let scan = TxScan {
            filter,
            active_at,
            order,
            page,
            limit,
        };
        match filter.addresses.as_slice() {
            [] => scan.push(&mut q, None)?,
            [one] => scan.push(&mut q, Some(one))?,
            many => {
                // Each address's page, then the merged page.
                let mut distinct: Vec<&ShortId> = Vec::with_capacity(many.len());
                for a in many {
                    if !distinct.contains(&a) {
                        distinct.push(a);
                    }
                }
                q.merged_walks(&distinct, order, limit + 1, |q, a| scan.push(q, Some(a)))?;
            }
        }
        q.push(") k ON t.height = k.height AND t.tx_index = k.tx_index")
            .order_by_tx("k", order);
        let txs = self.txs_with_utxos(q).await?;
        Ok(Page::from_rows(txs, limit, |t| TxCursor {
            height: t.height,
            index: t.tx_index,
        }))
    }

    async fn find_tx_where(&self, column: &str, key: Vec<u8>) -> Result<Option<PTxRecord>> {
        let mut q = Sql::new(&format!("SELECT * FROM p_txs WHERE {column} = "));
        q.bind(key);
        Ok(self.txs_with_utxos(q).await?.into_iter().next())
    }

    async fn find_block_where(
        &self,
        column: &str,
        key: impl Into<crate::sql::Value>,
    ) -> Result<Option<PBlockRecord>> {
        let mut q = Sql::new(&format!("SELECT * FROM p_blocks WHERE {column} = "));
        q.bind(key);
        self.fetch_optional(q, decode_block).await
    }

    async fn find_one<T: Send + 'static>(
        &self,
        sql: &str,
        key: Vec<u8>,
        decode: fn(&dyn Row) -> Result<T>,
    ) -> Result<Option<T>> {
        let mut q = Sql::new(sql);
        q.bind(key);
        self.fetch_optional(q, decode).await
    }

    /// Lists rows keyed by (creation height, id), each of `filters` a column of `v` equal to
    /// its value.
    pub(super) async fn list_created<T: Send + 'static>(
        &self,
        CreatedTable {
            select,
            height_col,
            id_col,
        }: CreatedTable,
        filters: Vec<(&str, Value)>,
        order: SortOrder,
        page: &PageRequest<CreatedCursor>,
        decode: fn(&dyn Row) -> Result<T>,
        key: fn(&T) -> CreatedCursor,
    ) -> Result<Page<T, CreatedCursor>> {
        let limit = page.checked_limit()?;
        let ord = order.sql();
        let mut q = Sql::new(select);
        q.push(" WHERE 1 = 1");
        for (col, v) in filters {
            q.push(&format!(" AND v.{col} = ")).bind(v);
        }
        if let Some(c) = page.after {
            q.push(&format!(
                " AND (v.{height_col}, v.{id_col}) {} (",
                order.after_op()
            ))
            .bind(int("cursor height", c.height)?)
            .push(", ")
            .bind(c.id.0.to_vec())
            .push(")");
        }
        q.push(&format!(" ORDER BY v.{height_col} {ord}, v.{id_col} {ord}"))
            .limit(limit + 1);
        let items = self.fetch(q, decode).await?;
        Ok(Page::from_rows(items, limit, key))
    }
}

impl PChainReader for Store {
    async fn find_pchain_block(&self, height: u64) -> Result<Option<PBlockRecord>> {
        self.find_block_where("height", int("height", height)?)
            .await
    }

    async fn find_pchain_block_by_hash(&self, hash: Id) -> Result<Option<PBlockRecord>> {
        self.find_block_where("hash", hash.0.to_vec()).await
    }

    async fn list_pchain_blocks(
        &self,
        filter: &PBlockFilter,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<PBlockRecord, HeightCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT * FROM p_blocks k WHERE 1 = 1");
        if let Some(n) = filter.proposer {
            q.push(" AND k.proposer_node_id = ").bind(n.0.to_vec());
        }
        push_time_window(&mut q, "k", filter.start_ts, filter.end_ts)?;
        if let Some(c) = page.after {
            q.push(&format!(" AND k.height {} ", order.after_op()))
                .bind(int("cursor height", c.height)?);
        }
        q.push(&format!(" ORDER BY k.height {}", order.sql()))
            .limit(limit + 1);
        let items = self.fetch(q, decode_block).await?;
        Ok(Page::from_rows(items, limit, |b| HeightCursor {
            height: b.block.height,
        }))
    }

    async fn find_pchain_tx(&self, hash: Id) -> Result<Option<PTxRecord>> {
        self.find_tx_where("tx_hash", hash.0.to_vec()).await
    }

    async fn get_pchain_tx(&self, hash: Id) -> Result<PTxRecord> {
        self.find_pchain_tx(hash)
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "transaction",
                key: hash.to_string(),
            })
    }

    async fn list_pchain_txs(
        &self,
        filter: &PTxFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> Result<Page<PTxRecord, TxCursor>> {
        self.list_txs(filter, None, order, page).await
    }

    async fn list_active_staking_txs(
        &self,
        filter: &PTxFilter,
        now: u64,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> Result<Page<PTxRecord, TxCursor>> {
        self.list_txs(filter, Some(now), order, page).await
    }

    async fn list_address_chains(&self, addresses: &[ShortId]) -> Result<Vec<(ShortId, Vec<Id>)>> {
        let mut out: Vec<(ShortId, Vec<Id>)> = Vec::new();
        for a in addresses {
            if out.iter().any(|(seen, _)| seen == a) {
                continue;
            }
            out.push((*a, Vec::new()));
        }
        if out.is_empty() {
            return Ok(out);
        }
        let mut q =
            Sql::new("SELECT address, blockchain_id FROM address_chains WHERE address IN (");
        q.bind_list(out.iter().map(|(a, _)| a.0.to_vec()))
            .push(") ORDER BY address, blockchain_id");
        let pairs = self
            .fetch(q, |r| {
                Ok((ShortId(r.fixed("address")?), r.id("blockchain_id")?))
            })
            .await?;
        for (a, chain) in pairs {
            if let Some((_, chains)) = out.iter_mut().find(|(x, _)| *x == a) {
                chains.push(chain);
            }
        }
        Ok(out)
    }

    async fn list_rewards(
        &self,
        filter: &RewardFilter,
        order: SortOrder,
        page: &PageRequest<EventCursor>,
    ) -> Result<Page<RewardRecord, EventCursor>> {
        let limit = page.checked_limit()?;
        let ord = order.sql();
        let mut q = Sql::new("SELECT r.* FROM p_rewards r");
        let alias = if filter.addresses.is_empty() {
            q.push(" WHERE 1 = 1");
            "r"
        } else {
            q.push(&format!(
                " JOIN (SELECT {} a.height, a.tx_index, a.seq FROM p_reward_addresses a \
                 WHERE a.address IN (",
                if filter.addresses.len() > 1 {
                    "DISTINCT"
                } else {
                    ""
                }
            ));
            q.bind_list(filter.addresses.iter().map(|a| a.0.to_vec()))
                .push(")");
            "a"
        };
        if let Some(c) = page.after {
            q.push(&format!(
                " AND ({alias}.height, {alias}.tx_index, {alias}.seq) {} (",
                order.after_op()
            ))
            .bind(int("cursor height", c.height)?)
            .push(", ")
            .bind(i64::from(c.index))
            .push(", ")
            .bind(i64::from(c.sub))
            .push(")");
        }
        if !filter.addresses.is_empty() {
            if !filter.node_ids.is_empty() {
                q.push(
                    " AND EXISTS (SELECT 1 FROM p_rewards n WHERE n.height = a.height \
                     AND n.tx_index = a.tx_index AND n.seq = a.seq AND n.node_id IN (",
                )
                .bind_list(filter.node_ids.iter().map(|n| n.0.to_vec()))
                .push("))");
            }
            q.push(&format!(
                " ORDER BY a.height {ord}, a.tx_index {ord}, a.seq {ord}"
            ))
            .limit(limit + 1)
            .push(") k ON r.height = k.height AND r.tx_index = k.tx_index AND r.seq = k.seq");
        } else if !filter.node_ids.is_empty() {
            q.push(" AND r.node_id IN (")
                .bind_list(filter.node_ids.iter().map(|n| n.0.to_vec()))
                .push(")");
        }
        // With the address join, sort by the page keys (see `list_txs`).
        let key = if filter.addresses.is_empty() {
            "r"
        } else {
            "k"
        };
        q.push(&format!(
            " ORDER BY {key}.height {ord}, {key}.tx_index {ord}, {key}.seq {ord}"
        ))
        .limit(limit + 1);
        let items = self.fetch(q, decode_reward).await?;
        Ok(Page::from_rows(items, limit, |r| EventCursor {
            height: r.height,
            index: r.tx_index,
            sub: r.seq,
        }))
    }

    async fn find_staker(&self, tx_hash: Id) -> Result<Option<StakerRecord>> {
        self.find_one(
            "SELECT * FROM p_stakers WHERE tx_hash = ",
            tx_hash.0.to_vec(),
            decode_staker,
        )
        .await
    }

    async fn find_staking_totals(&self, subnet_id: Id, now: u64) -> Result<StakingTotals> {
        super::totals::find(self, subnet_id, now).await
    }

    async fn find_supply(&self, subnet_id: Id) -> Result<Option<SupplyReading>> {
        super::validators::find_supply(self, subnet_id).await
    }

    async fn find_supply_totals(&self, asset_id: Id, now: u64) -> Result<SupplyTotals> {
        super::supply::find(self, asset_id, now).await
    }

    async fn list_validator_observations(
        &self,
        nodes: &[NodeId],
    ) -> Result<Vec<ValidatorObservation>> {
        super::validators::list_observations(self, nodes).await
    }

    async fn list_delegation_totals(&self, validators: &[Id]) -> Result<Vec<DelegationTotals>> {
        super::validators::list_delegation_totals(self, validators).await
    }

    async fn list_utxos(
        &self,
        filter: &UtxoFilter,
        order: SortOrder,
        page: &PageRequest<UtxoCursor>,
    ) -> Result<Page<PUtxoRecord, UtxoCursor>> {
        super::utxos::list(self, filter, order, page).await
    }

    async fn list_balances(&self, addresses: &[ShortId], at: u64) -> Result<Vec<BalanceSum>> {
        super::utxos::list_balances(self, addresses, at).await
    }

    async fn find_last_activity(&self, addresses: &[ShortId]) -> Result<Option<UtxoActivity>> {
        super::utxos::find_last_activity(self, addresses).await
    }

    async fn list_stakers(
        &self,
        filter: &StakerFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> Result<Page<StakerRecord, TxCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT s.* FROM p_stakers s");
        if !filter.reward_addresses.is_empty() {
            q.push(&format!(
                " JOIN (SELECT {} a.height, a.tx_index FROM p_staker_reward_addresses a \
                 WHERE a.address IN (",
                if filter.reward_addresses.len() > 1 {
                    "DISTINCT"
                } else {
                    ""
                }
            ))
            .bind_list(filter.reward_addresses.iter().map(|a| a.0.to_vec()))
            .push(")");
            q.after_tx("a", order, page.after)?;
            q.push(") k ON s.height = k.height AND s.tx_index = k.tx_index");
        }
        q.push(" WHERE 1 = 1");
        if let Some(d) = filter.delegators {
            q.push(" AND s.is_delegator = ").bind(i64::from(d));
        }
        if !filter.node_ids.is_empty() {
            q.push(" AND s.node_id IN (")
                .bind_list(filter.node_ids.iter().map(|n| n.0.to_vec()))
                .push(")");
        }
        if let Some(subnet) = filter.subnet_id {
            q.push(" AND s.subnet_id = ").bind(subnet.0.to_vec());
        }
        if filter.unended {
            q.push(" AND s.end_tx_hash IS NULL");
        }
        // As `StakerRecord::status`: a permissioned subnet's validator ends without a tx at
        // its end time, and its only ending tx is a removal.
        let now = int("now", filter.now)?;
        let subnet_validator = format!("s.tx_type = '{SUBNET_VALIDATOR_TX}'");
        match filter.status {
            None => {}
            Some(StakerStatus::Removed) => {
                q.push(&format!(
                    " AND s.end_tx_hash IS NOT NULL AND {subnet_validator}"
                ));
            }
            Some(StakerStatus::Completed) => {
                q.push(&format!(
                    " AND ((s.end_tx_hash IS NOT NULL AND s.tx_type <> '{SUBNET_VALIDATOR_TX}') \
                     OR (s.end_tx_hash IS NULL AND {subnet_validator} AND s.end_ts <= "
                ))
                .bind(now)
                .push("))");
            }
            Some(StakerStatus::Active) => {
                q.push(" AND s.end_tx_hash IS NULL AND s.start_ts <= ")
                    .bind(now)
                    .push(&format!(" AND NOT ({subnet_validator} AND s.end_ts <= "))
                    .bind(now)
                    .push(")");
            }
            Some(StakerStatus::Pending) => {
                q.push(" AND s.end_tx_hash IS NULL AND s.start_ts > ")
                    .bind(now);
            }
        }
        q.after_tx("s", order, page.after)?
            .order_by_tx("s", order)
            .limit(limit + 1);
        let items = self.fetch(q, decode_staker).await?;
        Ok(Page::from_rows(items, limit, |s| TxCursor {
            height: s.height,
            index: s.tx_index,
        }))
    }

    async fn list_validators_overlapping(
        &self,
        subnet_id: Id,
        from: u64,
        to: u64,
        page: &PageRequest<RankCursor>,
    ) -> Result<Page<StakerRecord, RankCursor>> {
        let limit = page.checked_limit()?;
        // No period is longer than MAX_STAKING_PERIOD: the walk by start time begins that long
        // before `from` instead of at the subnet's first validator.
        let earliest = from.saturating_sub(crate::MAX_STAKING_PERIOD);
        let mut q = Sql::new("SELECT s.* FROM p_stakers s WHERE s.subnet_id = ");
        q.bind(subnet_id.0.to_vec())
            .push(" AND s.is_delegator = 0 AND s.start_ts >= ")
            .bind(int("period start", earliest)?)
            .push(" AND s.start_ts <= ")
            .bind(int("period end", to)?)
            .push(" AND s.end_ts >= ")
            .bind(int("period start", from)?);
        if let Some(c) = page.after {
            q.push(" AND (s.start_ts, s.height, s.tx_index) > (")
                .bind(int("cursor start", c.key)?)
                .push(", ")
                .bind(int("cursor height", c.height)?)
                .push(", ")
                .bind(i64::from(c.index))
                .push(")");
        }
        q.push(" ORDER BY s.start_ts, s.height, s.tx_index")
            .limit(limit + 1);
        let items = self.fetch(q, decode_staker).await?;
        Ok(Page::from_rows(items, limit, |s| RankCursor {
            key: s.staker.start_ts,
            height: s.height,
            index: s.tx_index,
        }))
    }

    async fn find_subnet(&self, subnet_id: Id) -> Result<Option<SubnetRecord>> {
        self.find_one(
            "SELECT * FROM subnets WHERE subnet_id = ",
            subnet_id.0.to_vec(),
            decode_subnet,
        )
        .await
    }

    async fn list_subnets(
        &self,
        order: SortOrder,
        page: &PageRequest<CreatedCursor>,
    ) -> Result<Page<SubnetRecord, CreatedCursor>> {
        self.list_created(SUBNETS, Vec::new(), order, page, decode_subnet, |s| {
            CreatedCursor {
                height: s.height,
                id: s.subnet_id,
            }
        })
        .await
    }

    async fn find_blockchain(&self, blockchain_id: Id) -> Result<Option<BlockchainRecord>> {
        self.find_one(
            "SELECT * FROM blockchains WHERE blockchain_id = ",
            blockchain_id.0.to_vec(),
            decode_blockchain,
        )
        .await
    }

    async fn list_blockchains(
        &self,
        subnet_id: Option<Id>,
        order: SortOrder,
        page: &PageRequest<CreatedCursor>,
    ) -> Result<Page<BlockchainRecord, CreatedCursor>> {
        self.list_created(
            BLOCKCHAINS,
            subnet_id
                .map(|s| ("subnet_id", Value::from(s.0.to_vec())))
                .into_iter()
                .collect(),
            order,
            page,
            decode_blockchain,
            |b| CreatedCursor {
                height: b.height,
                id: b.chain.blockchain_id,
            },
        )
        .await
    }

    async fn find_l1_validator(&self, validation_id: Id) -> Result<Option<L1ValidatorRecord>> {
        self.find_one(
            &format!(
                "{} WHERE v.validation_id = ",
                super::l1::L1_VALIDATORS.select
            ),
            validation_id.0.to_vec(),
            decode_l1,
        )
        .await
    }

    async fn list_l1_validators(
        &self,
        filter: &L1ValidatorFilter,
        order: SortOrder,
        page: &PageRequest<CreatedCursor>,
    ) -> Result<Page<L1ValidatorRecord, CreatedCursor>> {
        super::l1::list(self, filter, order, page).await
    }

    async fn list_l1_observations(&self, validations: &[Id]) -> Result<Vec<L1Observation>> {
        super::l1::list_observations(self, validations).await
    }

    async fn find_l1_fee_ledger(&self) -> Result<Option<L1FeeLedgerRecord>> {
        super::l1_fees::find_ledger(self).await
    }

    async fn find_l1_fee_state(&self) -> Result<Option<(u64, LedgerState)>> {
        super::l1_fees::find_state(self).await
    }

    async fn list_l1_fee_active(&self, validations: &[Id]) -> Result<Vec<L1FeeActive>> {
        super::l1_fees::list_active(self, validations).await
    }
}
