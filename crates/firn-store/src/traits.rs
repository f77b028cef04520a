//! The narrow storage traits, one concern each. [`crate::Store`] implements all of them; code
//! that only reads EVM data takes `impl EvmReader`, and so on.
//!
//! Naming: `get_` fails with [`crate::StoreError::NotFound`] when the row is missing, `find_`
//! returns `Option`, `list_` returns a [`Page`] and the cursor of the next one.

use std::future::Future;

use firn_core::ids::{Id, NodeId, ShortId};

use crate::error::Result;
use crate::page::{
    CollectibleCursor, CreatedCursor, DeploymentCursor, EventCursor, HeightCursor, LogCursor, Page,
    PageRequest, RankCursor, SortOrder, TokenCursor, TxCursor, UtxoCursor, WebhookCursor,
};
use crate::rows::atomic::{
    AtomicBalance, AtomicExportRecord, AtomicUtxoRecord, CAtomicTxFilter, CAtomicTxRecord,
};
use crate::rows::evm::{
    BalanceMismatch, ChainRef, CollectibleRecord, ContractDeployment, ContractRecord,
    Erc20BalanceRecord, EvmBlockRecord, EvmBlockRows, EvmChainRecord, EvmInternalTx, EvmLog,
    EvmTxRecord, InternalTxRecord, MetadataQueue, NftMetadata, ReindexRequest, Token,
    TokenStandard, TransferRecord,
};
use crate::rows::exports::{ExportChunk, ExportJobRecord, ExportOutcome, NewExportJob};
use crate::rows::icm::{IcmCount, IcmFilter, IcmMessageRecord, IcmTxMessage};
use crate::rows::l1_fees::{
    L1FeeActive, L1FeeDayTotal, L1FeeLedgerRecord, L1FeeScope, LedgerState,
};
use crate::rows::metrics::{
    AddressRole, ChainMetrics, Granularity, NetMint, StakingMetrics, TokenMove, TransferKey,
};
use crate::rows::pchain::{
    BlockchainRecord, DelegationTotals, L1Observation, L1ValidatorRecord, PBlockRecord,
    PChainBlockRows, PTxRecord, PUtxoRecord, RewardRecord, StakerRecord, StakerStatus,
    StakingTotals, SubnetRecord, SupplyReading, SupplyTotals, ValidatorObservation,
};
use crate::rows::usage::{RequestLogFilter, RequestLogRecord, UsageGroup, UsageSample};
use crate::rows::utxos::{BalanceSum, UtxoActivity};
use crate::rows::webhooks::{
    MatchedStep, NewWebhook, OutboxEvent, Retry, WebhookRecord, WebhookUpdate,
};
use crate::rows::xchain::{
    XAssetRecord, XBalance, XBlockRecord, XChainBlockRows, XChainVertexRows, XTx, XTxRecord,
    XUtxoRecord, XVertexRecord,
};
use crate::rows::{ChainKey, CommitOutcome};
use crate::types::{Address, B256, U256};

/// The indexer's position per chain.
pub trait CursorStore {
    /// Height of the last block committed for `chain`, if any.
    fn find_cursor(&self, chain: ChainKey) -> impl Future<Output = Result<Option<u64>>> + Send;
}

/// Writes accepted P-Chain blocks.
pub trait PChainWriter {
    /// Commits blocks in order in one database transaction, each with its derived state and
    /// the cursor. Blocks at or below the cursor are skipped (already stored); the first new
    /// block must follow the cursor. On error nothing of the batch is stored.
    fn commit_pchain_blocks(
        &self,
        blocks: &[PChainBlockRows],
    ) -> impl Future<Output = Result<CommitOutcome>> + Send;
    /// Keeps what the followed node says of current validators, replacing its older word.
    fn record_validator_observations(
        &self,
        observed: &[ValidatorObservation],
    ) -> impl Future<Output = Result<()>> + Send;
    /// Keeps the current supply the followed node reported, replacing the older reading.
    fn record_supply(&self, reading: &SupplyReading) -> impl Future<Output = Result<()>> + Send;
    /// Keeps what the followed node says of L1 validators' remaining balances, replacing its
    /// older word.
    fn record_l1_observations(
        &self,
        observed: &[L1Observation],
    ) -> impl Future<Output = Result<()>> + Send;
}

/// Filter of P-Chain transaction lists. Empty lists and `None` do not filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PTxFilter {
    /// Transactions touching any of these addresses.
    pub addresses: Vec<ShortId>,
    /// Transactions concerning this L1 validation.
    pub l1_validation_id: Option<Id>,
    /// Transactions of these types.
    pub tx_types: Vec<String>,
    /// Block time at or after.
    pub start_ts: Option<u64>,
    /// Block time at or before.
    pub end_ts: Option<u64>,
}

/// Filter of P-Chain block lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PBlockFilter {
    /// Blocks proposed by this node.
    pub proposer: Option<NodeId>,
    /// Block time at or after.
    pub start_ts: Option<u64>,
    /// Block time at or before.
    pub end_ts: Option<u64>,
}

/// Filter of staker lists (validators and delegators).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StakerFilter {
    /// `Some(true)` for delegators only, `Some(false)` for validators only.
    pub delegators: Option<bool>,
    /// Stakers of these nodes.
    pub node_ids: Vec<NodeId>,
    /// Stakers with any of these reward addresses.
    pub reward_addresses: Vec<ShortId>,
    /// Stakers of this subnet.
    pub subnet_id: Option<Id>,
    /// Stakers with this status at `now`.
    pub status: Option<StakerStatus>,
    /// Only stakers no transaction has ended yet (whose rewards are still to come).
    pub unended: bool,
    /// The moment `status` is judged at, Unix seconds.
    pub now: u64,
}

/// Filter of reward lists; at least one list is expected. Both lists filter together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RewardFilter {
    /// Rewards paid to any of these addresses.
    pub addresses: Vec<ShortId>,
    /// Rewards for stakes on any of these nodes.
    pub node_ids: Vec<NodeId>,
}

/// Filter of L1 validator lists. `None` does not filter.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct L1ValidatorFilter {
    /// Validators of this L1.
    pub subnet_id: Option<Id>,
    /// Validators on this node.
    pub node_id: Option<NodeId>,
    /// This validation.
    pub validation_id: Option<Id>,
    /// Disabled and removed validators too (active ones only by default).
    pub include_inactive: bool,
}

/// What UTXO lists are sorted by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UtxoSort {
    /// Creation (block height; block times never decrease with height).
    #[default]
    Created,
    /// Amount.
    Amount,
}

/// Filter of UTXO lists: the UTXOs any of `addresses` owns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UtxoFilter {
    /// Owners (at least one; a UTXO owned by several is listed once).
    pub addresses: Vec<ShortId>,
    /// Only UTXOs of this asset.
    pub asset_id: Option<Id>,
    /// Only UTXOs of at least this amount.
    pub min_amount: Option<u64>,
    /// Spent UTXOs too (unspent only by default).
    pub include_spent: bool,
    /// Sort key.
    pub sort: UtxoSort,
}

/// Reads P-Chain data.
pub trait PChainReader {
    /// The block at `height`.
    fn find_pchain_block(
        &self,
        height: u64,
    ) -> impl Future<Output = Result<Option<PBlockRecord>>> + Send;
    /// The block with ID `hash`.
    fn find_pchain_block_by_hash(
        &self,
        hash: Id,
    ) -> impl Future<Output = Result<Option<PBlockRecord>>> + Send;
    /// Blocks by height.
    fn list_pchain_blocks(
        &self,
        filter: &PBlockFilter,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<PBlockRecord, HeightCursor>>> + Send;
    /// The transaction `hash`, or `None`.
    fn find_pchain_tx(&self, hash: Id) -> impl Future<Output = Result<Option<PTxRecord>>> + Send;
    /// The transaction `hash`, or [`crate::StoreError::NotFound`].
    fn get_pchain_tx(&self, hash: Id) -> impl Future<Output = Result<PTxRecord>> + Send;
    /// Transactions by position (height, index), which is also block-time order.
    fn list_pchain_txs(
        &self,
        filter: &PTxFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> impl Future<Output = Result<Page<PTxRecord, TxCursor>>> + Send;
    /// Staking transactions whose stake has not ended and whose end time is after `now`.
    fn list_active_staking_txs(
        &self,
        filter: &PTxFilter,
        now: u64,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> impl Future<Output = Result<Page<PTxRecord, TxCursor>>> + Send;
    /// For each address, the blockchains it has touched (sorted by ID); addresses never seen
    /// map to an empty list.
    fn list_address_chains(
        &self,
        addresses: &[ShortId],
    ) -> impl Future<Output = Result<Vec<(ShortId, Vec<Id>)>>> + Send;
    /// Staking rewards paid.
    fn list_rewards(
        &self,
        filter: &RewardFilter,
        order: SortOrder,
        page: &PageRequest<EventCursor>,
    ) -> impl Future<Output = Result<Page<RewardRecord, EventCursor>>> + Send;
    /// The staker added by transaction `tx_hash`.
    fn find_staker(&self, tx_hash: Id)
    -> impl Future<Output = Result<Option<StakerRecord>>> + Send;
    /// The totals of the validators and delegators of `subnet_id` active at `now` (started,
    /// not ended, not removed).
    fn find_staking_totals(
        &self,
        subnet_id: Id,
        now: u64,
    ) -> impl Future<Output = Result<StakingTotals>> + Send;
    /// The current supply of `subnet_id` the followed node last reported.
    fn find_supply(
        &self,
        subnet_id: Id,
    ) -> impl Future<Output = Result<Option<SupplyReading>>> + Send;
    /// What the index holds of `asset_id`'s supply: burned and rewarded since the first
    /// indexed block, locked at `now`, and the genesis outputs still locked at `now`.
    fn find_supply_totals(
        &self,
        asset_id: Id,
        now: u64,
    ) -> impl Future<Output = Result<SupplyTotals>> + Send;
    /// What the followed node last said of each of `nodes` as primary-network validators;
    /// nodes it never described have no entry.
    fn list_validator_observations(
        &self,
        nodes: &[NodeId],
    ) -> impl Future<Output = Result<Vec<ValidatorObservation>>> + Send;
    /// The delegations each of `validators` (staking transactions) received, one entry per
    /// validator in the order given.
    fn list_delegation_totals(
        &self,
        validators: &[Id],
    ) -> impl Future<Output = Result<Vec<DelegationTotals>>> + Send;
    /// Validators and delegators by position of their staking transaction.
    fn list_stakers(
        &self,
        filter: &StakerFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> impl Future<Output = Result<Page<StakerRecord, TxCursor>>> + Send;
    /// Validators (not delegators) of `subnet_id` whose period shares a moment with
    /// `[from, to]`, by start time. Periods longer than [`crate::MAX_STAKING_PERIOD`] that
    /// began more than that before `from` are not found.
    fn list_validators_overlapping(
        &self,
        subnet_id: Id,
        from: u64,
        to: u64,
        page: &PageRequest<RankCursor>,
    ) -> impl Future<Output = Result<Page<StakerRecord, RankCursor>>> + Send;
    /// The subnet `subnet_id`.
    fn find_subnet(
        &self,
        subnet_id: Id,
    ) -> impl Future<Output = Result<Option<SubnetRecord>>> + Send;
    /// Subnets by creation.
    fn list_subnets(
        &self,
        order: SortOrder,
        page: &PageRequest<CreatedCursor>,
    ) -> impl Future<Output = Result<Page<SubnetRecord, CreatedCursor>>> + Send;
    /// The chain `blockchain_id`.
    fn find_blockchain(
        &self,
        blockchain_id: Id,
    ) -> impl Future<Output = Result<Option<BlockchainRecord>>> + Send;
    /// Chains by creation, optionally of one subnet.
    fn list_blockchains(
        &self,
        subnet_id: Option<Id>,
        order: SortOrder,
        page: &PageRequest<CreatedCursor>,
    ) -> impl Future<Output = Result<Page<BlockchainRecord, CreatedCursor>>> + Send;
    /// The L1 validator `validation_id`.
    fn find_l1_validator(
        &self,
        validation_id: Id,
    ) -> impl Future<Output = Result<Option<L1ValidatorRecord>>> + Send;
    /// UTXOs of some owners, by creation or amount (ties by UTXO ID).
    fn list_utxos(
        &self,
        filter: &UtxoFilter,
        order: SortOrder,
        page: &PageRequest<UtxoCursor>,
    ) -> impl Future<Output = Result<Page<PUtxoRecord, UtxoCursor>>> + Send;
    /// What the P-Chain UTXOs any of `addresses` owns held at time `at` (created at or before
    /// it, not spent by then) add up to, per asset and kind; a UTXO owned by several counts
    /// once. UTXOs exported to another chain are left out.
    fn list_balances(
        &self,
        addresses: &[ShortId],
        at: u64,
    ) -> impl Future<Output = Result<Vec<BalanceSum>>> + Send;
    /// The newest creation or spending of a UTXO any of `addresses` owns.
    fn find_last_activity(
        &self,
        addresses: &[ShortId],
    ) -> impl Future<Output = Result<Option<UtxoActivity>>> + Send;
    /// L1 validators by creation.
    fn list_l1_validators(
        &self,
        filter: &L1ValidatorFilter,
        order: SortOrder,
        page: &PageRequest<CreatedCursor>,
    ) -> impl Future<Output = Result<Page<L1ValidatorRecord, CreatedCursor>>> + Send;
    /// What the followed node last said of each of `validations`' remaining balance; those
    /// it never described have no entry.
    fn list_l1_observations(
        &self,
        validations: &[Id],
    ) -> impl Future<Output = Result<Vec<L1Observation>>> + Send;
    /// The L1 validator fee ledger as last committed with a block (`None`: never written).
    fn find_l1_fee_ledger(&self) -> impl Future<Output = Result<Option<L1FeeLedgerRecord>>> + Send;
    /// The fee ledger's state as last committed, and that block's height.
    fn find_l1_fee_state(&self) -> impl Future<Output = Result<Option<(u64, LedgerState)>>> + Send;
    /// Those of `validations` the fee ledger charges, with the total their balance runs out at.
    fn list_l1_fee_active(
        &self,
        validations: &[Id],
    ) -> impl Future<Output = Result<Vec<L1FeeActive>>> + Send;
}

/// Writes accepted X-Chain blocks.
pub trait XChainWriter {
    /// Commits blocks in order in one database transaction, each with its txs, the UTXOs they
    /// produce and consume, the assets they create, and the cursor. Blocks at or below the
    /// cursor are skipped (already stored, same ID); the first new block must follow the
    /// cursor. On error nothing of the batch is stored.
    fn commit_xchain_blocks(
        &self,
        blocks: &[XChainBlockRows],
    ) -> impl Future<Output = Result<CommitOutcome>> + Send;
    /// Commits vertices of the DAG (before Cortina) in order of their acceptance index in one
    /// database transaction, each with its txs (stored as [`crate::rows::xchain`] says), their
    /// UTXOs and assets, and the vertex cursor ([`crate::rows::ChainKey::XChainVertices`]).
    /// A vertex at or below the cursor is skipped when it is the stored one, else
    /// [`crate::StoreError::ConflictingVertex`]; a vertex above it is new, gaps allowed (the
    /// indexer skips vertices that do not decode); a vertex already stored at another index
    /// is passed over (counted as skipped); a new vertex after linear blocks is
    /// [`crate::StoreError::VertexAfterBlocks`]. On error nothing of the batch is stored.
    fn commit_xchain_vertices(
        &self,
        vertices: &[XChainVertexRows],
    ) -> impl Future<Output = Result<CommitOutcome>> + Send;
    /// Stores the genesis txs (in no block or vertex) at height 0 with `timestamp`, before
    /// the DAG's txs need their UTXOs; those already stored are left alone (block 0's commit
    /// skips them in turn). Returns how many were written.
    fn commit_xchain_genesis(
        &self,
        txs: &[XTx],
        timestamp: u64,
    ) -> impl Future<Output = Result<usize>> + Send;
}

/// Reads the X-Chain's DAG (before Cortina): vertices by acceptance index, newest first with
/// [`SortOrder::Desc`]; a page's cursor `height` is the last vertex's acceptance index. The
/// vertices of a tx come with it ([`XTxRecord::vertices`]).
pub trait XVertexReader {
    /// The vertex `vertex_id`, or [`crate::StoreError::NotFound`].
    fn get_xchain_vertex_by_id(
        &self,
        vertex_id: Id,
    ) -> impl Future<Output = Result<XVertexRecord>> + Send;
    /// Vertices by acceptance index.
    fn list_xchain_vertices(
        &self,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<XVertexRecord, HeightCursor>>> + Send;
    /// The vertices at DAG height `height`, by acceptance index.
    fn list_xchain_vertices_by_height(
        &self,
        height: u64,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<XVertexRecord, HeightCursor>>> + Send;
}

/// Filter of X-Chain transaction lists. Empty lists and `None` do not filter; both filter
/// together (the txs in which one of the addresses consumed or produced a UTXO of the asset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XTxFilter {
    /// Txs that consumed or produced a UTXO any of these addresses owns.
    pub addresses: Vec<ShortId>,
    /// Txs that created this asset, or consumed or produced a UTXO of it.
    pub asset_id: Option<Id>,
    /// Txs of these types ([`crate::rows::xchain::XTx::tx_type`] names); empty: all.
    pub tx_types: Vec<String>,
    /// Txs at or after this time (Unix seconds).
    pub start_ts: Option<u64>,
    /// Txs at or before this time (Unix seconds).
    pub end_ts: Option<u64>,
}

/// Filter of X-Chain block lists: a time window (Unix seconds, both ends included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XBlockFilter {
    /// Blocks at or after this time.
    pub start_ts: Option<u64>,
    /// Blocks at or before this time.
    pub end_ts: Option<u64>,
}

/// Filter of X-Chain UTXO lists: the UTXOs any of `addresses` owns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XUtxoFilter {
    /// Owners (a UTXO owned by several is listed once; none: an empty page).
    pub addresses: Vec<ShortId>,
    /// Only UTXOs of this asset.
    pub asset_id: Option<Id>,
    /// Only UTXOs holding at least this amount (which leaves out outputs without one).
    pub min_amount: Option<u64>,
    /// Spent UTXOs too.
    pub include_spent: bool,
}

/// Reads X-Chain data. Lists are keyset-paged newest first with [`SortOrder::Desc`] (the
/// API's default) or oldest first with [`SortOrder::Asc`].
pub trait XChainReader {
    /// The block at `height`, or [`crate::StoreError::NotFound`].
    fn get_xchain_block_by_height(
        &self,
        height: u64,
    ) -> impl Future<Output = Result<XBlockRecord>> + Send;
    /// The block `block_id`, or [`crate::StoreError::NotFound`].
    fn get_xchain_block_by_id(
        &self,
        block_id: Id,
    ) -> impl Future<Output = Result<XBlockRecord>> + Send;
    /// Blocks by height, within the filter's time window.
    fn list_xchain_blocks(
        &self,
        filter: &XBlockFilter,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<XBlockRecord, HeightCursor>>> + Send;
    /// The tx `tx_id` with the UTXOs it consumed and produced, or
    /// [`crate::StoreError::NotFound`]. The genesis CreateAssetTx is found by its asset ID.
    fn get_xchain_tx(&self, tx_id: Id) -> impl Future<Output = Result<XTxRecord>> + Send;
    /// Txs by position (height, index), with the UTXOs each consumed and produced.
    fn list_xchain_txs(
        &self,
        filter: &XTxFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> impl Future<Output = Result<Page<XTxRecord, TxCursor>>> + Send;
    /// The IDs of the txs of the blocks at `heights`, as (height, tx ID) in block order.
    fn list_xchain_block_txs(
        &self,
        heights: &[u64],
    ) -> impl Future<Output = Result<Vec<(u64, Id)>>> + Send;
    /// The asset `asset_id`, or [`crate::StoreError::NotFound`].
    fn get_asset(&self, asset_id: Id) -> impl Future<Output = Result<XAssetRecord>> + Send;
    /// The assets of `asset_ids` that exist, in no particular order.
    fn list_assets_by_id(
        &self,
        asset_ids: &[Id],
    ) -> impl Future<Output = Result<Vec<XAssetRecord>>> + Send;
    /// UTXOs any of the filter's addresses owns (unspent ones unless the filter says), by
    /// creation (height, then UTXO ID; the cursor's `key` is the height).
    fn list_xchain_utxos(
        &self,
        filter: &XUtxoFilter,
        order: SortOrder,
        page: &PageRequest<UtxoCursor>,
    ) -> impl Future<Output = Result<Page<XUtxoRecord, UtxoCursor>>> + Send;
    /// The newest creation or spending of an X-Chain UTXO any of `addresses` owns.
    fn find_xchain_last_activity(
        &self,
        addresses: &[ShortId],
    ) -> impl Future<Output = Result<Option<UtxoActivity>>> + Send;
    /// Those of `addresses` that ever owned an X-Chain UTXO, each once.
    fn list_xchain_holders(
        &self,
        addresses: &[ShortId],
    ) -> impl Future<Output = Result<Vec<ShortId>>> + Send;
    /// Per asset (by asset ID), the unspent secp256k1fx transfer outputs any of `addresses`
    /// owns, as `avm.getAllBalances` counts them at Unix time `now` (a UTXO owned by several
    /// counts once): [`XBalance::spendable`] with `includePartial: false`,
    /// [`XBalance::total`] with `true`; [`XBalance::unlocked`] is what the Data API calls
    /// unlocked (the locktime has passed, however many owners).
    fn list_xchain_balances(
        &self,
        addresses: &[ShortId],
        now: u64,
    ) -> impl Future<Output = Result<Vec<XBalance>>> + Send;
    /// What the X-Chain's txs burned of `asset_id` (their fees), in all; 0 when nothing.
    fn find_xchain_burned(&self, asset_id: Id) -> impl Future<Output = Result<u128>> + Send;
}

/// Reads the primary network's shared memory: what ExportTxs put in a chain's atomic memory
/// and no ImportTx has taken out.
pub trait AtomicMemoryReader {
    /// Per exporting chain, asset, and whether still time-locked at Unix time `now`, what
    /// `destination`'s atomic memory holds for any of `addresses` (a UTXO owned by several
    /// counts once), ordered by exporting chain and asset: as of Unix time `as_of` (exported
    /// by then and not imported by then), or with `None` as far as the store knows.
    fn list_atomic_balances(
        &self,
        destination: Id,
        addresses: &[ShortId],
        as_of: Option<u64>,
        now: u64,
    ) -> impl Future<Output = Result<Vec<AtomicBalance>>> + Send;
    /// The stored exports of those of `utxo_ids` that are stored, in no particular order.
    fn list_atomic_exports(
        &self,
        utxo_ids: &[Id],
    ) -> impl Future<Output = Result<Vec<AtomicExportRecord>>> + Send;
    /// The UTXOs exported to `destination` that any of the filter's addresses owns (those not
    /// imported unless the filter says), by export time then UTXO ID (the cursor's `key` is
    /// the time).
    fn list_atomic_utxos(
        &self,
        destination: Id,
        filter: &XUtxoFilter,
        order: SortOrder,
        page: &PageRequest<UtxoCursor>,
    ) -> impl Future<Output = Result<Page<AtomicUtxoRecord, UtxoCursor>>> + Send;
}

/// Reads ICM (Teleporter) messages, joined from their source and destination chains.
pub trait IcmReader {
    /// Message `message_id`, if any chain showed a part of it.
    fn find_icm_message(
        &self,
        message_id: Id,
    ) -> impl Future<Output = Result<Option<IcmMessageRecord>>> + Send;
    /// A page of the messages that pass `filter`, newest first (by the send's time, else the
    /// delivery's; ties by message ID). A page holds fewer than `page.limit` messages, with a
    /// next page, where their payloads would pass [`crate::MAX_PAGE_PAYLOAD`] bytes.
    fn list_icm_messages(
        &self,
        filter: &IcmFilter,
        page: &PageRequest<CreatedCursor>,
    ) -> impl Future<Output = Result<Page<IcmMessageRecord, CreatedCursor>>> + Send;
    /// The messages tx `tx_hash` of EVM chain `chain_id` sent or delivered: sends first.
    fn list_icm_tx_messages(
        &self,
        chain_id: u64,
        tx_hash: B256,
    ) -> impl Future<Output = Result<Vec<IcmTxMessage>>> + Send;
    /// The times of the oldest and the newest message sent from `source` to `destination`
    /// (each `None`: any chain); `None` when there is none.
    fn find_icm_time_range(
        &self,
        source: Option<Id>,
        destination: Option<Id>,
    ) -> impl Future<Output = Result<Option<(u64, u64)>>> + Send;
    /// Messages per period of `period` seconds (periods start at multiples of it) and per
    /// (source, destination) pair, sent from `from` to `to` (inclusive), newest period first.
    fn count_icm_messages(
        &self,
        source: Option<Id>,
        destination: Option<Id>,
        from: u64,
        to: u64,
        period: u64,
    ) -> impl Future<Output = Result<Vec<IcmCount>>> + Send;
}

/// Reads the C-Chain's atomic txs.
pub trait CAtomicReader {
    /// A page of the C-Chain's atomic txs that pass `filter`, by height and position.
    fn list_c_atomic_txs(
        &self,
        filter: &CAtomicTxFilter,
        order: SortOrder,
        page: &PageRequest<TxCursor>,
    ) -> impl Future<Output = Result<Page<CAtomicTxRecord, TxCursor>>> + Send;
    /// The atomic txs of the C-Chain's blocks at `heights`: (height, tx ID), in block order.
    fn list_c_atomic_block_txs(
        &self,
        heights: &[u64],
    ) -> impl Future<Output = Result<Vec<(u64, Id)>>> + Send;
    /// Those of `addresses` some C-Chain atomic tx names as a UTXO owner.
    fn list_c_atomic_owners(
        &self,
        addresses: &[ShortId],
    ) -> impl Future<Output = Result<Vec<ShortId>>> + Send;
    /// The atomic tx `tx_id`, if the C-Chain's blocks carried it.
    fn find_c_atomic_tx(
        &self,
        tx_id: Id,
    ) -> impl Future<Output = Result<Option<CAtomicTxRecord>>> + Send;
    /// The nAVAX the atomic txs of EVM chain `chain_id` burned (their fees), 0 when none.
    fn find_c_atomic_burned(&self, chain_id: u64) -> impl Future<Output = Result<u128>> + Send;
}

/// Writes EVM chains and their accepted blocks.
pub trait EvmWriter {
    /// Registers (or updates) an EVM chain; blocks can only be committed for registered chains.
    fn upsert_evm_chain(&self, chain: &EvmChainRecord) -> impl Future<Output = Result<()>> + Send;
    /// Commits blocks of one or more chains in one database transaction, each block with its
    /// derived state (balances, deployments, metrics) and its chain's cursor. Blocks at or below
    /// their chain's cursor are skipped; the first new block must follow the cursor. On error
    /// nothing of the batch is stored.
    fn commit_evm_blocks(
        &self,
        blocks: &[EvmBlockRows],
    ) -> impl Future<Output = Result<CommitOutcome>> + Send;
    /// Rolls chain `chain_id` back so that its last stored block is at most `to`, as if the
    /// blocks above had never been committed: their rows go, derived state (metrics, totals,
    /// collectible balances, distinct addresses, deployments) is as it was. Whole commits are
    /// undone, so the new cursor (returned) may be below `to`. Only the last
    /// [`UNDO_BLOCKS`](crate::UNDO_BLOCKS) blocks can be rolled back
    /// ([`StoreError::RollbackTooDeep`](crate::StoreError::RollbackTooDeep) otherwise, and
    /// nothing changes).
    fn rollback_evm_chain(
        &self,
        chain_id: u64,
        to: u64,
    ) -> impl Future<Output = Result<Option<u64>>> + Send;
    /// Stores the fetched metadata of one NFT (replacing what was there).
    fn upsert_nft_metadata(
        &self,
        chain_id: u64,
        metadata: &NftMetadata,
    ) -> impl Future<Output = Result<()>> + Send;
    /// Queues the metadata of NFT `token_id` of `token` to be read again, at time `now` (Unix
    /// seconds), unless it was queued so less than
    /// [`REINDEX_INTERVAL_SECS`](crate::rows::evm::REINDEX_INTERVAL_SECS) ago. One statement
    /// decides, so processes sharing a store queue a token once per interval between them.
    fn request_nft_reindex(
        &self,
        chain_id: u64,
        token: Address,
        token_id: U256,
        now: u64,
    ) -> impl Future<Output = Result<ReindexRequest>> + Send;
    /// Records that `mismatch.token`'s `balanceOf` disagrees with its transfers, unless the
    /// token already has such evidence (the first is kept); returns whether it was new. A
    /// rollback below `mismatch.block_number` forgets it.
    fn add_balance_mismatch(
        &self,
        chain_id: u64,
        mismatch: &BalanceMismatch,
    ) -> impl Future<Output = Result<bool>> + Send;
}

/// Filter of token transfer lists: one address on one chain, one standard, a block range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferFilter {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Sender or recipient.
    pub address: Address,
    /// Standard.
    pub standard: TokenStandard,
    /// First block, inclusive.
    pub start_block: Option<u64>,
    /// Last block, exclusive.
    pub end_block: Option<u64>,
}

/// Filter of a token's transfers, or of an address's internal transactions: one chain, one
/// address, a block range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddressFilter {
    /// EVM chain ID.
    pub chain_id: u64,
    /// The token contract, or the caller or callee.
    pub address: Address,
    /// First block, inclusive.
    pub start_block: Option<u64>,
    /// Last block, exclusive.
    pub end_block: Option<u64>,
}

/// Which transactions of an address a list holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TxParties {
    /// Those it sent, received or created a contract with.
    #[default]
    Direct,
    /// Also those in which it sent or received a token, or was the caller or callee of an
    /// internal transaction that moves value ([`EvmInternalTx::moves_value`]).
    Any,
}

/// Filter of EVM transaction lists: one chain, optionally one party, a block range, a receipt
/// status; and the order of the list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EvmTxFilter {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Sender, recipient or created contract ([`TxParties::Direct`]), or any party
    /// ([`TxParties::Any`]).
    pub address: Option<Address>,
    /// How `address` took part.
    pub parties: TxParties,
    /// First block, inclusive.
    pub start_block: Option<u64>,
    /// Last block, exclusive.
    pub end_block: Option<u64>,
    /// Only successful (`Some(true)`) or only failed (`Some(false)`) transactions. Failed ones
    /// are walked through their own index; successful ones skip the (few) failures on the way.
    pub success: Option<bool>,
    /// Newest first (default) or oldest first.
    pub order: SortOrder,
}

/// What one transaction did besides its own transfer of value, as address lists show it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EvmTxEffects {
    /// Token transfers, in log order.
    pub transfers: Vec<TransferRecord>,
    /// Internal transactions that move value, in trace order.
    pub internal_txs: Vec<EvmInternalTx>,
}

/// Reads EVM data.
pub trait EvmReader {
    /// Every registered chain, by EVM chain ID.
    fn list_evm_chains(&self) -> impl Future<Output = Result<Vec<EvmChainRecord>>> + Send;
    /// The chains on which `address` took part in a transaction (see [`TxParties::Any`]), by
    /// EVM chain ID.
    fn list_address_evm_chains(
        &self,
        address: Address,
    ) -> impl Future<Output = Result<Vec<EvmChainRecord>>> + Send;
    /// The chain named by `chain`.
    fn find_evm_chain(
        &self,
        chain: ChainRef,
    ) -> impl Future<Output = Result<Option<EvmChainRecord>>> + Send;
    /// Block `number`.
    fn find_evm_block(
        &self,
        chain_id: u64,
        number: u64,
    ) -> impl Future<Output = Result<Option<EvmBlockRecord>>> + Send;
    /// Block with hash `hash`.
    fn find_evm_block_by_hash(
        &self,
        chain_id: u64,
        hash: B256,
    ) -> impl Future<Output = Result<Option<EvmBlockRecord>>> + Send;
    /// Blocks, newest first.
    fn list_evm_blocks(
        &self,
        chain_id: u64,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<EvmBlockRecord, HeightCursor>>> + Send;
    /// Blocks made at or after `start_ts` and at or before `end_ts` (Unix seconds), newest
    /// first.
    fn list_evm_blocks_between(
        &self,
        chain_id: u64,
        start_ts: Option<u64>,
        end_ts: Option<u64>,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<EvmBlockRecord, HeightCursor>>> + Send;
    /// Transaction `hash`.
    fn find_evm_tx(
        &self,
        chain_id: u64,
        hash: B256,
    ) -> impl Future<Output = Result<Option<EvmTxRecord>>> + Send;
    /// Transactions of block `number`, in block order (the first [`crate::MAX_ROWS_PER_TX`]).
    fn list_evm_block_txs(
        &self,
        chain_id: u64,
        number: u64,
    ) -> impl Future<Output = Result<Vec<EvmTxRecord>>> + Send;
    /// Transactions in `filter.order` (the chain's, or one address's).
    fn list_evm_txs(
        &self,
        filter: &EvmTxFilter,
        page: &PageRequest<TxCursor>,
    ) -> impl Future<Output = Result<Page<EvmTxRecord, TxCursor>>> + Send;
    /// The token transfers and value-moving internal transactions ([`EvmInternalTx::moves_value`])
    /// of each transaction at `positions`, limited to those `party` sent or received and to
    /// the first [`crate::MAX_ROWS_PER_LISTED_TX`] of each kind; one entry per position, in
    /// order.
    fn list_evm_tx_effects(
        &self,
        chain_id: u64,
        positions: &[TxCursor],
        party: Address,
    ) -> impl Future<Output = Result<Vec<EvmTxEffects>>> + Send;
    /// Internal transactions that move value with `filter.address` as caller or callee,
    /// newest first.
    fn list_address_internal_txs(
        &self,
        filter: &AddressFilter,
        page: &PageRequest<EventCursor>,
    ) -> impl Future<Output = Result<Page<InternalTxRecord, EventCursor>>> + Send;
    /// Number of the last block of `chain_id` whose time is before `timestamp`.
    fn find_last_evm_block_before(
        &self,
        chain_id: u64,
        timestamp: u64,
    ) -> impl Future<Output = Result<Option<u64>>> + Send;
    /// Logs of transaction `tx_hash` (the first [`crate::MAX_ROWS_PER_TX`]).
    fn list_evm_tx_logs(
        &self,
        chain_id: u64,
        tx_hash: B256,
    ) -> impl Future<Output = Result<Vec<EvmLog>>> + Send;
    /// Internal transactions of `tx_hash`, in trace order (the first [`crate::MAX_ROWS_PER_TX`]).
    fn list_evm_internal_txs(
        &self,
        chain_id: u64,
        tx_hash: B256,
    ) -> impl Future<Output = Result<Vec<EvmInternalTx>>> + Send;
    /// Token transfers of `tx_hash`, in log order (the first [`crate::MAX_ROWS_PER_TX`]).
    fn list_evm_tx_transfers(
        &self,
        chain_id: u64,
        tx_hash: B256,
    ) -> impl Future<Output = Result<Vec<TransferRecord>>> + Send;
    /// Token transfers from or to an address, newest first.
    fn list_transfers(
        &self,
        filter: &TransferFilter,
        page: &PageRequest<EventCursor>,
    ) -> impl Future<Output = Result<Page<TransferRecord, EventCursor>>> + Send;
    /// Transfers of the token contract `filter.address`, newest first.
    fn list_token_transfers(
        &self,
        filter: &AddressFilter,
        page: &PageRequest<EventCursor>,
    ) -> impl Future<Output = Result<Page<TransferRecord, EventCursor>>> + Send;
    /// Token contract metadata.
    fn find_token(
        &self,
        chain_id: u64,
        address: Address,
    ) -> impl Future<Output = Result<Option<Token>>> + Send;
    /// The token contracts among `addresses` (at most
    /// [`MAX_TOKEN_LOOKUP`](crate::MAX_TOKEN_LOOKUP)), in no particular order: what
    /// responses name the senders and recipients that are tokens with.
    fn find_tokens(
        &self,
        chain_id: u64,
        addresses: &[Address],
    ) -> impl Future<Output = Result<Vec<Token>>> + Send;
    /// NFT metadata.
    fn find_nft_metadata(
        &self,
        chain_id: u64,
        token: Address,
        token_id: U256,
    ) -> impl Future<Output = Result<Option<NftMetadata>>> + Send;
    /// The NFTs of collection `token` the index has seen minted, by token ID, with their
    /// metadata as far as it is read.
    fn list_nft_tokens(
        &self,
        chain_id: u64,
        token: Address,
        page: &PageRequest<CollectibleCursor>,
    ) -> impl Future<Output = Result<Page<NftMetadata, CollectibleCursor>>> + Send;
    /// NFT metadata rows in `queue` (still to index), by token then ID, after `after`.
    fn list_pending_nft_metadata(
        &self,
        chain_id: u64,
        queue: MetadataQueue,
        after: Option<(Address, U256)>,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<NftMetadata>>> + Send;
    /// Current ERC-721 and ERC-1155 holdings of `owner` (of one `standard` when given), by
    /// contract then token ID.
    fn list_collectibles(
        &self,
        chain_id: u64,
        owner: Address,
        standard: Option<TokenStandard>,
        contract: Option<Address>,
        page: &PageRequest<CollectibleCursor>,
    ) -> impl Future<Output = Result<Page<CollectibleRecord, CollectibleCursor>>> + Send;
    /// Current ERC-20 balances of `owner` (of the `contracts` given, all when empty; at most
    /// [`MAX_LISTED_CONTRACTS`](crate::MAX_LISTED_CONTRACTS)), by token contract.
    fn list_erc20_balances(
        &self,
        chain_id: u64,
        owner: Address,
        contracts: &[Address],
        page: &PageRequest<TokenCursor>,
    ) -> impl Future<Output = Result<Page<Erc20BalanceRecord, TokenCursor>>> + Send;
    /// `owner`'s ERC-20 balances at `block`, earlier than the newest indexed one, as
    /// [`list_erc20_balances`](Self::list_erc20_balances) pages them: the newest balances with
    /// the transfers since undone (at most [`MAX_HELD`](crate::MAX_HELD) holdings and
    /// [`MAX_REPLAYED`](crate::MAX_REPLAYED) transfers, else
    /// [`StoreError::TooMuchToReplay`](crate::StoreError::TooMuchToReplay)).
    fn list_erc20_balances_at(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        contracts: &[Address],
        page: &PageRequest<TokenCursor>,
    ) -> impl Future<Output = Result<Page<Erc20BalanceRecord, TokenCursor>>> + Send;
    /// `owner`'s ERC-1155 balances at an earlier `block`, as
    /// [`list_erc20_balances_at`](Self::list_erc20_balances_at) replays them, by contract then
    /// token ID.
    fn list_erc1155_balances_at(
        &self,
        chain_id: u64,
        owner: Address,
        block: u64,
        contract: Option<Address>,
        page: &PageRequest<CollectibleCursor>,
    ) -> impl Future<Output = Result<Page<CollectibleRecord, CollectibleCursor>>> + Send;
    /// The evidence of a `balanceOf` that disagrees with the transfers, for those of `tokens`
    /// (at most [`MAX_TOKEN_LOOKUP`](crate::MAX_TOKEN_LOOKUP)) that have it, in no particular
    /// order: the tokens whose balances are read from the node.
    fn list_balance_mismatches(
        &self,
        chain_id: u64,
        tokens: &[Address],
    ) -> impl Future<Output = Result<Vec<BalanceMismatch>>> + Send;
    /// Contracts `deployer` created (by transaction or as a factory), newest first.
    fn list_contracts(
        &self,
        chain_id: u64,
        deployer: Address,
        page: &PageRequest<DeploymentCursor>,
    ) -> impl Future<Output = Result<Page<ContractRecord, DeploymentCursor>>> + Send;
    /// Contract `address` with its deployment and token metadata.
    fn find_contract(
        &self,
        chain_id: u64,
        address: Address,
    ) -> impl Future<Output = Result<Option<ContractRecord>>> + Send;
    /// How contract `address` was deployed.
    fn find_contract_deployment(
        &self,
        chain_id: u64,
        address: Address,
    ) -> impl Future<Output = Result<Option<ContractDeployment>>> + Send;
}

/// Reads the metrics the store maintains.
pub trait MetricsReader {
    /// Counters of one chain per period with start in `[start_ts, end_ts]`; periods without
    /// blocks have no row.
    fn list_chain_metrics(
        &self,
        chain_id: u64,
        granularity: Granularity,
        start_ts: Option<u64>,
        end_ts: Option<u64>,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<ChainMetrics, HeightCursor>>> + Send;
    /// The start of one chain's first period of `granularity` holding a transaction (`None`
    /// before its first transaction): where its series begin, however early its genesis.
    fn find_first_tx_period(
        &self,
        chain_id: u64,
        granularity: Granularity,
    ) -> impl Future<Output = Result<Option<u64>>> + Send;
    /// How many distinct addresses played `role` on one chain in the periods of `granularity`
    /// starting at or after `from_ts`: a rolling window's distinct count.
    fn count_distinct_addresses(
        &self,
        chain_id: u64,
        granularity: Granularity,
        role: AddressRole,
        from_ts: u64,
    ) -> impl Future<Output = Result<u64>> + Send;
    /// Staking totals of one subnet, one row per day in `[start_ts, end_ts]` (clipped to the
    /// days since the first change; `end_ts` defaults to the last change), each day carrying the
    /// totals at its end.
    fn list_staking_metrics(
        &self,
        subnet_id: Id,
        start_ts: Option<u64>,
        end_ts: Option<u64>,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> impl Future<Output = Result<Page<StakingMetrics, HeightCursor>>> + Send;
    /// Every address a token was minted to or burned from on one chain (ERC-20 transfers from
    /// or to the zero address), with the sums, by address; `None` when there are more than
    /// `max_transfers` such transfers to add up.
    fn list_net_mints(
        &self,
        chain_id: u64,
        token: Address,
        max_transfers: u64,
    ) -> impl Future<Output = Result<Option<Vec<NetMint>>>> + Send;
    /// Transfers of `token` on one chain up to block `to_block`, oldest first: a replay of its
    /// holders' balances, page by page (a short page is the last).
    fn list_token_moves(
        &self,
        chain_id: u64,
        token: Address,
        to_block: u64,
        page: &PageRequest<TransferKey>,
    ) -> impl Future<Output = Result<Vec<TokenMove>>> + Send;
    /// Distinct addresses active on one chain (senders and recipients of its transactions),
    /// by address (a short page is the last).
    fn list_chain_addresses(
        &self,
        chain_id: u64,
        page: &PageRequest<Address>,
    ) -> impl Future<Output = Result<Vec<Address>>> + Send;
    /// What the L1 validators of `scope` paid per UTC day, for the days in
    /// `[from_day, to_day]` on which any of them paid, oldest first.
    fn list_l1_fee_days(
        &self,
        scope: L1FeeScope,
        from_day: u64,
        to_day: u64,
    ) -> impl Future<Output = Result<Vec<L1FeeDayTotal>>> + Send;
}

/// Webhooks: what the Data API's webhook routes manage, and the outbox their dispatcher
/// drains. A webhook belongs to an owner; every call naming one only sees the owner's.
pub trait WebhookStore {
    /// Creates a webhook and the addresses it watches.
    fn create_webhook(&self, new: &NewWebhook) -> impl Future<Output = Result<()>> + Send;
    /// Webhook `id` of `owner`.
    fn find_webhook(
        &self,
        owner: &str,
        id: &str,
    ) -> impl Future<Output = Result<Option<WebhookRecord>>> + Send;
    /// `owner`'s webhooks, oldest first, only active or inactive ones if `active` says so.
    fn list_webhooks(
        &self,
        owner: &str,
        active: Option<bool>,
        page: &PageRequest<WebhookCursor>,
    ) -> impl Future<Output = Result<Page<WebhookRecord, WebhookCursor>>> + Send;
    /// Applies `update` to webhook `id` of `owner`; the webhook after it, if there is one.
    fn update_webhook(
        &self,
        owner: &str,
        id: &str,
        update: &WebhookUpdate,
    ) -> impl Future<Output = Result<Option<WebhookRecord>>> + Send;
    /// Adds (`add`) or removes addresses of webhook `id` of `owner`; `false` if there is no such
    /// webhook. Refuses with [`crate::StoreError::LimitExceeded`] a webhook that would watch more than
    /// `max`.
    fn change_webhook_addresses(
        &self,
        owner: &str,
        id: &str,
        addresses: &[Address],
        add: bool,
        max: u64,
    ) -> impl Future<Output = Result<bool>> + Send;
    /// Addresses webhook `id` watches, in byte order.
    fn list_webhook_addresses(
        &self,
        id: &str,
        page: &PageRequest<TokenCursor>,
    ) -> impl Future<Output = Result<Page<Address, TokenCursor>>> + Send;
    /// How many addresses webhook `id` watches.
    fn count_webhook_addresses(&self, id: &str) -> impl Future<Output = Result<u64>> + Send;
    /// `owner`'s shared secret.
    fn find_webhook_secret(
        &self,
        owner: &str,
    ) -> impl Future<Output = Result<Option<String>>> + Send;
    /// Sets `owner`'s shared secret to `secret` if `replace` or none is set; the secret in force.
    fn put_webhook_secret(
        &self,
        owner: &str,
        secret: &str,
        replace: bool,
    ) -> impl Future<Output = Result<String>> + Send;
    /// Takes (or keeps) the lease of up to `max` active webhooks for `worker` until `until` (Unix
    /// ms): those nobody holds, `worker`'s own, and those whose lease ran out before `now`.
    /// Returns the webhooks `worker` holds.
    fn lease_webhooks(
        &self,
        worker: &str,
        now: u64,
        until: u64,
        max: u32,
    ) -> impl Future<Output = Result<Vec<WebhookRecord>>> + Send;
    /// Gives up `worker`'s leases (a clean shutdown: others take over at once).
    fn release_webhooks(&self, worker: &str) -> impl Future<Output = Result<()>> + Send;
    /// Blocks in `from..=to` of `chain_id` holding transactions that involve an address webhook
    /// `id` watches, as `(block, tx index)` in order, at most `limit`.
    fn list_webhook_matches(
        &self,
        id: &str,
        chain_id: u64,
        from: u64,
        to: u64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<(u64, u32)>>> + Send;
    /// Appends the step's events to webhook `id`'s outbox and moves its `matched_through` from
    /// `step.from` to `step.through` (and sets its match state, when the step has one), in one
    /// transaction, if `worker` still holds it and nobody moved it; `false` (and nothing
    /// written) otherwise.
    fn enqueue_webhook_events(
        &self,
        id: &str,
        worker: &str,
        step: &MatchedStep<'_>,
        now: u64,
    ) -> impl Future<Output = Result<bool>> + Send;
    /// The first `limit` events in webhook `id`'s outbox, in order; none while the webhook is
    /// inactive, so nothing is posted to a deactivated webhook.
    fn list_webhook_outbox(
        &self,
        id: &str,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<OutboxEvent>>> + Send;
    /// How many events wait in webhook `id`'s outbox.
    fn count_webhook_outbox(&self, id: &str) -> impl Future<Output = Result<u64>> + Send;
    /// Removes webhook `id`'s delivered events (those up to `seq`) and clears its failures.
    fn ack_webhook_events(&self, id: &str, seq: u64) -> impl Future<Output = Result<()>> + Send;
    /// Records a failed attempt at event `seq` of webhook `id`: when to retry, or deactivation.
    fn fail_webhook_event(
        &self,
        id: &str,
        seq: u64,
        retry: &Retry,
    ) -> impl Future<Output = Result<()>> + Send;
}

/// Transaction export jobs: what the Data API's operations routes create and read, and what
/// their worker leases, fills and finishes. A job belongs to an owner; `find_` only sees the
/// owner's. A running job is worked by the process holding its lease; every write the holder
/// makes checks the lease in the same statement, so a process that lost it writes nothing.
pub trait ExportStore {
    /// Creates a running job nobody holds.
    fn create_export_job(&self, new: &NewExportJob) -> impl Future<Output = Result<()>> + Send;
    /// Job `id` of `owner`.
    fn find_export_job(
        &self,
        owner: &str,
        id: &str,
    ) -> impl Future<Output = Result<Option<ExportJobRecord>>> + Send;
    /// Takes the oldest running job that nobody holds, `worker` holds, or whose lease ran out
    /// before `now`, for `worker` until `until` (Unix ms). The job starts over: the pieces of
    /// its file a previous holder wrote are deleted and its progress is 0.
    fn lease_export_job(
        &self,
        worker: &str,
        now: u64,
        until: u64,
    ) -> impl Future<Output = Result<Option<ExportJobRecord>>> + Send;
    /// Appends `chunk` to job `id`'s file, sets its progress to `progress` rows and renews the
    /// lease until `until`, if `worker` still holds it and it is running; `false` (and nothing
    /// written) otherwise.
    fn append_export_chunk(
        &self,
        id: &str,
        worker: &str,
        chunk: &ExportChunk,
        progress: u64,
        until: u64,
    ) -> impl Future<Output = Result<bool>> + Send;
    /// Ends job `id` with `outcome` at `now` and gives up its lease, if `worker` holds it;
    /// `false` otherwise.
    fn finish_export_job(
        &self,
        id: &str,
        worker: &str,
        outcome: &ExportOutcome,
        now: u64,
    ) -> impl Future<Output = Result<bool>> + Send;
    /// Gives up `worker`'s leases (a clean shutdown: others take its jobs over at once).
    fn release_export_jobs(&self, worker: &str) -> impl Future<Output = Result<()>> + Send;
    /// Up to `limit` pieces of job `id`'s file from position `from` on, in order.
    fn list_export_chunks(
        &self,
        id: &str,
        from: u64,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<ExportChunk>>> + Send;
    /// Deletes the jobs that expired before `now` and their files; how many jobs.
    fn delete_expired_exports(&self, now: u64) -> impl Future<Output = Result<u64>> + Send;
}

/// Request logs: written in batches by the usage flusher, read by the usage routes. Not index
/// data: writes leave the store generation (and so the response cache) alone.
pub trait UsageStore {
    /// Stores `logs` (a log ID already stored is skipped).
    fn record_requests(&self, logs: &[RequestLogRecord])
    -> impl Future<Output = Result<()>> + Send;
    /// Logs matching `filter`, newest first.
    fn list_request_logs(
        &self,
        filter: &RequestLogFilter,
        page: &PageRequest<LogCursor>,
    ) -> impl Future<Output = Result<Page<RequestLogRecord, LogCursor>>> + Send;
    /// What metrics need of the logs matching `filter`, grouped by `group`, oldest first, at
    /// most `limit` (a caller asks for one more than it accepts to learn there are more).
    fn list_usage_samples(
        &self,
        filter: &RequestLogFilter,
        group: UsageGroup,
        limit: u32,
    ) -> impl Future<Output = Result<Vec<UsageSample>>> + Send;
    /// Deletes logs older than `before_ms`, then the oldest past the newest `keep`; how many
    /// went.
    fn prune_request_logs(
        &self,
        before_ms: u64,
        keep: u64,
    ) -> impl Future<Output = Result<u64>> + Send;
}
