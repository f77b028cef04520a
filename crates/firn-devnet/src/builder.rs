//! The mempool and block production.
//!
//! [`Chain::build`] makes one block from the state and the mempool, as AvalancheGo's builder
//! does: the block time is `max(parent time, min(clock, next staker change))`; the mempool's
//! decision txs are packed at that time while their gas fits the capacity; if a staker ends
//! exactly then, the block is a BanffProposalBlock with its RewardValidatorTx (carrying the
//! packed txs), followed by its BanffCommitBlock (or BanffAbortBlock for a validator
//! configured offline); otherwise a BanffStandardBlock with the packed txs, or an empty one
//! when the chain time must move to a staker change. [`Chain::accept`] executes a block (built here or read from disk) into
//! the state, so replay and building share one code path.

use crate::error::{DevnetError, TxError};
use crate::executor::Executor;
use crate::genesis::{DevnetConfig, NetworkIdentity};
use crate::shared_memory::SharedMemory;
use crate::state::validators::ValidatorHistory;
use crate::state::{StakerKind, State};
use crate::store::{AcceptedBlock, BlockStore};
use firn_core::ids::{Id, NodeId};
use firn_core::pchain::block::{Block, BlockKind};
use firn_core::pchain::tx::{RewardValidatorTx, Tx, UnsignedTx};
use std::collections::{HashMap, HashSet, VecDeque};
use tracing::{debug, info};

/// Where an accepted tx lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxLocation {
    /// The block height.
    pub height: u64,
    /// The tx's index in the block's [`Block::txs`].
    pub index: usize,
}

/// Pending decision txs, in arrival order, and the UTXOs they spend.
#[derive(Debug, Default)]
pub struct Mempool {
    order: VecDeque<Tx>,
    ids: HashSet<Id>,
    spent: HashMap<Id, Id>,
}

impl Mempool {
    /// Number of pending txs.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True if nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// True if the tx is pending.
    pub fn contains(&self, id: &Id) -> bool {
        self.ids.contains(id)
    }

    /// The pending tx spending a UTXO.
    pub fn spender(&self, utxo_id: &Id) -> Option<Id> {
        self.spent.get(utxo_id).copied()
    }

    /// Adds a tx (already verified).
    pub fn add(&mut self, tx: Tx) {
        let id = tx.id();
        for utxo in consumed_utxos(tx.unsigned()) {
            self.spent.insert(utxo, id);
        }
        self.ids.insert(id);
        self.order.push_back(tx);
    }

    fn take_all(&mut self) -> Vec<Tx> {
        self.ids.clear();
        self.spent.clear();
        self.order.drain(..).collect()
    }
}

/// The UTXOs a tx consumes: its inputs and, for an ImportTx, the shared-memory UTXOs it
/// imports (AvalancheGo's `InputIDs`), so that two txs spending one conflict in the mempool.
pub fn consumed_utxos(tx: &UnsignedTx) -> Vec<Id> {
    let mut ids: Vec<Id> = tx
        .base()
        .map(|b| b.inputs.iter().map(|i| i.utxo_id()).collect())
        .unwrap_or_default();
    if let UnsignedTx::Import(t) = tx {
        ids.extend(t.imported_inputs.iter().map(|i| i.utxo_id()));
    }
    ids
}

/// A proposal block waiting for its commit or abort.
#[derive(Debug, Clone, Copy)]
struct PendingOption {
    staker_tx: Id,
    time: u64,
}

/// The chain: state, accepted blocks, indexes, mempool and the block file.
#[derive(Debug)]
pub struct Chain {
    /// The devnet configuration.
    pub config: DevnetConfig,
    /// The network identity.
    pub identity: NetworkIdentity,
    /// The state at the last accepted block.
    pub state: State,
    /// Validator sets and their history.
    pub history: ValidatorHistory,
    /// Accepted blocks by height.
    pub blocks: Vec<AcceptedBlock>,
    /// Heights by block ID.
    pub block_index: HashMap<Id, u64>,
    /// Accepted txs.
    pub tx_index: HashMap<Id, TxLocation>,
    /// RewardValidatorTxs whose option block was an abort.
    pub aborted: HashSet<Id>,
    /// Txs dropped from the mempool when building, with the reason.
    pub dropped: HashMap<Id, TxError>,
    /// Pending txs.
    pub mempool: Mempool,
    pending: Option<PendingOption>,
    store: Option<BlockStore>,
    shared: SharedMemory,
    replaying: bool,
}

impl Chain {
    /// A chain with just the genesis state applied (no store yet).
    pub fn new(config: DevnetConfig, identity: NetworkIdentity, shared: SharedMemory) -> Self {
        Self {
            config,
            identity,
            state: State::default(),
            history: ValidatorHistory::default(),
            blocks: Vec::new(),
            block_index: HashMap::new(),
            tx_index: HashMap::new(),
            aborted: HashSet::new(),
            dropped: HashMap::new(),
            mempool: Mempool::default(),
            pending: None,
            store: None,
            shared,
            replaying: false,
        }
    }

    /// Attaches the block file new blocks are appended to.
    pub fn set_store(&mut self, store: BlockStore) {
        self.store = Some(store);
    }

    fn executor(&self) -> Executor<'_> {
        Executor::new(&self.identity, &self.config).with_shared(&self.shared, self.replaying)
    }

    /// The time of the next block at clock time `now` (AvalancheGo's `NextBlockTime`): the
    /// clock, capped by the next staker change, never before the last block; and whether the
    /// cap applied.
    pub fn next_block_time(&self, now: u64) -> (u64, bool) {
        let next_change = self.executor().next_change_time(&self.state);
        let time = self.state.timestamp().max(now.min(next_change));
        (time, time >= next_change)
    }

    /// The proposer of the next block: round-robin over current primary network validators
    /// in node ID order, by height.
    pub fn next_proposer(&self, height: u64) -> NodeId {
        let nodes: Vec<NodeId> = self
            .state
            .validators_of(Id::ZERO)
            .map(|s| s.node_id)
            .collect();
        if nodes.is_empty() {
            return NodeId::EMPTY;
        }
        nodes[(height % nodes.len() as u64) as usize]
    }

    fn tip(&self) -> Result<&AcceptedBlock, DevnetError> {
        self.blocks.last().ok_or(DevnetError::Corrupt {
            height: 0,
            reason: "no genesis block".into(),
        })
    }

    /// Executes a block on the state; on error the state is unchanged.
    fn execute(&mut self, block: &Block) -> Result<Option<PendingOption>, DevnetError> {
        let height = block.height();
        let invalid = |source: TxError| DevnetError::InvalidBlock { height, source };
        let tip = self.tip()?;
        if block.parent_id() != tip.block.id() || height != tip.block.height() + 1 {
            return Err(DevnetError::Corrupt {
                height,
                reason: "block does not extend the last accepted block".into(),
            });
        }
        let mark = self.state.mark();
        let result = (|| -> Result<Option<PendingOption>, DevnetError> {
            match block.kind() {
                BlockKind::BanffStandard { time, txs } => {
                    self.execute_decisions(*time, txs).map_err(invalid)?;
                    Ok(None)
                }
                BlockKind::BanffProposal { time, txs, tx } => {
                    let UnsignedTx::RewardValidator(RewardValidatorTx { tx_id }) = tx.unsigned()
                    else {
                        return Err(invalid(TxError::Syntax("wrong transaction type")));
                    };
                    self.execute_decisions(*time, txs).map_err(invalid)?;
                    // The staker rewarded must be the next to end, exactly at the new time.
                    match self.state.next_staker_to_end() {
                        Some(s) if s.tx_id == *tx_id && s.end_time == *time => {}
                        _ => return Err(invalid(TxError::RemoveWrongStaker)),
                    }
                    Ok(Some(PendingOption {
                        staker_tx: *tx_id,
                        time: *time,
                    }))
                }
                BlockKind::BanffCommit { time } | BlockKind::BanffAbort { time } => {
                    let p = self.pending.ok_or_else(|| {
                        invalid(TxError::Syntax("option block without a proposal"))
                    })?;
                    if *time != p.time {
                        return Err(invalid(TxError::Syntax(
                            "option block proposed timestamp not matching parent block one",
                        )));
                    }
                    let commit = matches!(block.kind(), BlockKind::BanffCommit { .. });
                    let exec = Executor::new(&self.identity, &self.config)
                        .with_shared(&self.shared, self.replaying);
                    exec.reward(&mut self.state, p.staker_tx, commit)
                        .map_err(invalid)?;
                    Ok(None)
                }
                _ => Err(invalid(TxError::Syntax("apricot block issued after fork"))),
            }
        })();
        if result.is_err() {
            self.state.rollback_to(mark);
        }
        result
    }

    /// The decision part of a Banff standard or proposal block (AvalancheGo's
    /// `AdvanceTimeTo` then `processStandardTxs`): checks the time, advances the state to it,
    /// consumes the txs' gas from the capacity and executes them at the price of the state
    /// after the time advanced. The caller rolls back on error.
    fn execute_decisions(&mut self, time: u64, txs: &[Tx]) -> Result<(), TxError> {
        if time < self.state.timestamp() || self.pending.is_some() {
            return Err(TxError::Syntax(
                "proposed timestamp before current chain time",
            ));
        }
        let exec =
            Executor::new(&self.identity, &self.config).with_shared(&self.shared, self.replaying);
        if time > exec.next_change_time(&self.state) {
            return Err(TxError::Syntax(
                "proposed timestamp later than next staker change time",
            ));
        }
        exec.advance_time(&mut self.state, time);
        let price = exec.gas_price(&self.state);
        let mut gas = 0u64;
        for tx in txs {
            gas = gas
                .checked_add(exec.gas(tx.unsigned())?)
                .ok_or_else(|| TxError::Fee("block gas overflow".into()))?;
        }
        let consumed = self.state.fee_state().consume(gas)?;
        self.state.set_fee_state(consumed);
        for tx in txs {
            exec.execute(&mut self.state, tx, price)?;
        }
        Ok(())
    }

    /// Advances the state to `time` and executes mempool txs at that time's gas price while
    /// their gas fits the capacity (AvalancheGo's `packEtnaBlockTxs`). Returns the txs that
    /// passed, with the state holding their effects and their gas consumed; txs that failed
    /// are dropped with their reason, txs that did not fit go back to the mempool.
    fn pack(&mut self, time: u64) -> Vec<Tx> {
        let exec =
            Executor::new(&self.identity, &self.config).with_shared(&self.shared, self.replaying);
        exec.advance_time(&mut self.state, time);
        let price = exec.gas_price(&self.state);
        let capacity = self.state.fee_state().capacity;
        let mut block_gas = 0u64;
        let mut included = Vec::new();
        let mut pending = self.mempool.take_all().into_iter();
        for tx in pending.by_ref() {
            let gas = match exec.gas(tx.unsigned()) {
                Ok(g) => g,
                Err(e) => {
                    debug!(tx_id = %tx.id(), error = %e, "dropped tx from mempool");
                    self.dropped.insert(tx.id(), e);
                    continue;
                }
            };
            let Some(total) = block_gas.checked_add(gas).filter(|t| *t <= capacity) else {
                // The block is full: this tx and the rest wait for the next one.
                self.mempool.add(tx);
                break;
            };
            match exec.execute(&mut self.state, &tx, price) {
                Ok(()) => {
                    block_gas = total;
                    included.push(tx);
                }
                Err(e) => {
                    debug!(tx_id = %tx.id(), error = %e, "dropped tx from mempool");
                    self.dropped.insert(tx.id(), e);
                }
            }
        }
        for tx in pending {
            self.mempool.add(tx);
        }
        if let Ok(consumed) = self.state.fee_state().consume(block_gas) {
            self.state.set_fee_state(consumed);
        }
        included
    }

    /// Records an executed block: persists it (unless replaying), commits the state, updates
    /// the validator history and the indexes.
    fn finish(
        &mut self,
        accepted: AcceptedBlock,
        pending: Option<PendingOption>,
        persist: bool,
    ) -> Result<(), DevnetError> {
        if persist
            && let Some(store) = self.store.as_mut()
            && let Err(e) = store.append(&accepted)
        {
            self.state.rollback_to(0);
            return Err(e);
        }
        let height = accepted.block.height();
        let requests = self.state.take_atomic();
        self.shared.apply(&self.identity.p_chain_id, &requests);
        let touched = self.state.commit();
        self.history.record(&self.state, height, &touched);
        for (index, tx) in accepted.block.txs().enumerate() {
            self.tx_index.insert(tx.id(), TxLocation { height, index });
        }
        if let BlockKind::BanffAbort { .. } = accepted.block.kind()
            && let Some(p) = self.blocks.last().and_then(|b| match b.block.kind() {
                BlockKind::BanffProposal { tx, .. } => Some(tx.id()),
                _ => None,
            })
        {
            self.aborted.insert(p);
        }
        self.pending = pending;
        self.block_index.insert(accepted.block.id(), height);
        self.blocks.push(accepted);
        Ok(())
    }

    /// Applies genesis as block 0.
    pub fn accept_genesis(
        &mut self,
        genesis: &crate::genesis::Genesis,
        persist: bool,
    ) -> Result<(), DevnetError> {
        Executor::new(&self.identity, &self.config)
            .with_shared(&self.shared, self.replaying)
            .apply_genesis(&mut self.state, genesis);
        let accepted = AcceptedBlock {
            block: genesis.block.clone(),
            proposer: NodeId::EMPTY,
        };
        if persist && let Some(store) = self.store.as_mut() {
            store.append(&accepted)?;
        }
        let touched = self.state.commit();
        self.history.record(&self.state, 0, &touched);
        for (index, tx) in genesis.block.txs().enumerate() {
            self.tx_index
                .insert(tx.id(), TxLocation { height: 0, index });
        }
        self.block_index.insert(genesis.block.id(), 0);
        self.blocks.push(accepted);
        Ok(())
    }

    /// Executes and records a stored block during replay.
    pub fn replay(&mut self, accepted: AcceptedBlock) -> Result<(), DevnetError> {
        self.replaying = true;
        let pending = self.execute(&accepted.block);
        self.replaying = false;
        self.finish(accepted, pending?, false)
    }

    /// Verifies a tx against the state at the next block's time (`now`, capped by the next
    /// staker change) without keeping its effects.
    pub fn verify_tx(&mut self, tx: &Tx, now: u64) -> Result<(), TxError> {
        let mark = self.state.mark();
        let exec =
            Executor::new(&self.identity, &self.config).with_shared(&self.shared, self.replaying);
        // At the next block's time, as AvalancheGo's `VerifyTx` advances a diff of the
        // preferred state to `NextBlockTime` first: a tx is judged by the block it would join.
        let (time, _) = self.next_block_time(now);
        exec.advance_time(&mut self.state, time);
        let price = exec.gas_price(&self.state);
        let r = exec.execute(&mut self.state, tx, price);
        self.state.rollback_to(mark);
        r
    }

    /// Builds, persists and accepts the next block, if there is anything to do at `now`.
    pub fn build(&mut self, now: u64) -> Result<Option<AcceptedBlock>, DevnetError> {
        let tip = self.tip()?;
        let parent_id = tip.block.id();
        let height = tip.block.height() + 1;
        let proposer = self.next_proposer(height);

        // The option block of an accepted proposal.
        if let Some(p) = self.pending {
            let offline = self
                .state
                .staker(&p.staker_tx)
                .is_some_and(|s| self.config.offline_validators.contains(&s.node_id));
            let kind = if offline {
                BlockKind::BanffAbort { time: p.time }
            } else {
                BlockKind::BanffCommit { time: p.time }
            };
            return self
                .accept_built(Block::new(parent_id, height, kind), proposer)
                .map(Some);
        }

        let (time, time_was_capped) = self.next_block_time(now);
        if self.mempool.is_empty() && !time_was_capped {
            return Ok(None);
        }

        // Pack the mempool at the new time (AvalancheGo packs before deciding the kind).
        let mark = self.state.mark();
        let included = self.pack(time);

        // A staker ending exactly at the new time: propose its reward, carrying the packed
        // txs (AvalancheGo's `buildBlock` with `getNextStakerToReward`).
        let reward = self
            .state
            .next_staker_to_end()
            .filter(|s| s.end_time == time && s.kind != StakerKind::SubnetValidator)
            .map(|s| s.tx_id);
        let (kind, pending) = match reward {
            Some(staker_tx) => (
                BlockKind::BanffProposal {
                    time,
                    txs: included,
                    tx: Tx::new(
                        UnsignedTx::RewardValidator(RewardValidatorTx { tx_id: staker_tx }),
                        Vec::new(),
                    ),
                },
                Some(PendingOption { staker_tx, time }),
            ),
            None if included.is_empty() && !time_was_capped => {
                self.state.rollback_to(mark);
                return Ok(None);
            }
            None => (
                BlockKind::BanffStandard {
                    time,
                    txs: included,
                },
                None,
            ),
        };
        let block = Block::new(parent_id, height, kind);
        let accepted = AcceptedBlock { block, proposer };
        if let Err(e) = self.finish(accepted.clone(), pending, true) {
            // Not persisted: the state was rolled back; give the txs back to the mempool.
            for tx in accepted.block.txs() {
                if !matches!(tx.unsigned(), UnsignedTx::RewardValidator(_)) {
                    self.mempool.add(tx.clone());
                }
            }
            return Err(e);
        }
        info!(
            height,
            time,
            kind = accepted.block.type_name(),
            txs = accepted.block.txs().count(),
            "built block"
        );
        Ok(Some(accepted))
    }

    fn accept_built(
        &mut self,
        block: Block,
        proposer: NodeId,
    ) -> Result<AcceptedBlock, DevnetError> {
        let pending = self.execute(&block)?;
        let accepted = AcceptedBlock { block, proposer };
        self.finish(accepted.clone(), pending, true)?;
        info!(
            height = accepted.block.height(),
            kind = accepted.block.type_name(),
            "built block"
        );
        Ok(accepted)
    }
}
