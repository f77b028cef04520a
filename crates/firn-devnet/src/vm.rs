//! [`PChain`]: the thread-safe handle the RPC layer, tests and the history generator use.

use crate::builder::{Chain, TxLocation};
use crate::clock::Clock;
use crate::error::{DevnetError, TxError};
use crate::fee::GasState;
use crate::genesis::{DevnetConfig, Genesis, NetworkIdentity};
use crate::shared_memory::SharedMemory;
use crate::state::validators::ValidatorSet;
use crate::state::{Chain as Blockchain, L1Validator, RewardUtxo, Staker, State, Subnet, Utxo};
use crate::store::{AcceptedBlock, BlockStore};
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::pchain::block::Block;
use firn_core::pchain::tx::{Tx, UnsignedTx};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use tracing::info;

/// A tx's status, as `platform.getTxStatus` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum TxStatus {
    /// Accepted in a block (for RewardValidatorTx: its proposal was committed).
    Committed,
    /// A RewardValidatorTx whose proposal was aborted.
    Aborted,
    /// In the mempool or in a proposal block awaiting its option.
    Processing,
    /// Dropped from the mempool when building, with the reason.
    Dropped(String),
    /// Never seen.
    Unknown,
}

/// An accepted tx and where it is.
#[derive(Debug, Clone)]
pub struct TxInfo {
    /// The tx.
    pub tx: Tx,
    /// The block height.
    pub height: u64,
    /// The block ID.
    pub block_id: Id,
    /// Its status.
    pub status: TxStatus,
}

/// A page of UTXOs and where the next page starts.
#[derive(Debug, Clone)]
pub struct UtxoPage {
    /// The UTXOs, by address then UTXO ID.
    pub utxos: Vec<Utxo>,
    /// Pass back as `start` for the next page; `None` when this was the last.
    pub next: Option<(ShortId, Id)>,
}

/// Balances as AvalancheGo's `platform.getBalance` classifies them, in nAVAX.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Balance {
    /// Spendable now.
    pub unlocked: u64,
    /// Stakeable-locked (can be staked, not spent).
    pub locked_stakeable: u64,
    /// Locked by the owners' locktime (neither spent nor staked).
    pub locked_not_stakeable: u64,
    /// The sum.
    pub total: u64,
    /// The UTXOs counted.
    pub utxo_ids: Vec<Id>,
}

/// A current validator and its delegators.
#[derive(Debug, Clone, Serialize)]
pub struct ValidatorInfo {
    /// The validator.
    pub validator: Staker,
    /// Its delegators (primary network).
    pub delegators: Vec<Staker>,
}

/// An L1 validator and its balance now.
#[derive(Debug, Clone)]
pub struct L1ValidatorInfo {
    /// The validator.
    pub validator: L1Validator,
    /// Its remaining balance, nAVAX.
    pub balance: u64,
}

/// The devnet P-Chain VM. `Send + Sync`: share it in an `Arc`; reads take a read lock,
/// issuing and building a write lock, each briefly.
///
/// Where it knowingly differs from AvalancheGo's `platformvm`:
/// - the dynamic fee state starts at genesis with full gas capacity (AvalancheGo starts
///   empty and refills), so a block at the genesis time can carry txs;
/// - stakers start when their tx is accepted (post-Durango rules), so there are never
///   pending validators; the Helicon reward ramp is not applied;
/// - uptime is 100% unless a node is listed in `offline_validators` (its reward is aborted);
/// - Warp signatures are checked against the source subnet's validators at the current
///   height (AvalancheGo uses the proposervm's P-Chain height);
/// - an L1 validator whose balance is below one second's fee is deactivated one second
///   later rather than at the next block;
/// - ImportTx and ExportTx move AVAX through the [`SharedMemory`] this chain opens with,
///   which the X-Chain ([`crate::xchain::XChain::open`]) and the C-Chain share.
#[derive(Debug)]
pub struct PChain {
    chain: RwLock<Chain>,
    clock: Clock,
    keys: Vec<ShortId>,
    shared: SharedMemory,
}

impl PChain {
    /// Opens the chain in `data_dir`: builds genesis from `config`, replays every stored
    /// block (verifying each) and continues from there. A new directory starts at genesis.
    pub fn open(
        config: DevnetConfig,
        data_dir: impl AsRef<Path>,
        clock: Clock,
    ) -> Result<Self, DevnetError> {
        let genesis = Genesis::build(&config)?;
        let (store, stored) = BlockStore::<Block>::open(data_dir.as_ref())?;
        let keys = (0..config.funded_keys)
            .map(|i| config.funded_key(i).public_key().short_id())
            .collect();
        let shared = SharedMemory::new();
        let mut chain = Chain::new(config, genesis.identity.clone(), shared.clone());
        let mut stored = stored.into_iter();
        match stored.next() {
            Some(first) => {
                if first.block.id() != genesis.block.id() {
                    return Err(DevnetError::GenesisMismatch {
                        stored: first.block.id(),
                        configured: genesis.block.id(),
                    });
                }
                chain.accept_genesis(&genesis, false)?;
            }
            None => {
                chain.set_store(store);
                chain.accept_genesis(&genesis, true)?;
                info!(genesis = %genesis.block.id(), "created chain");
                return Ok(Self {
                    chain: RwLock::new(chain),
                    clock,
                    keys,
                    shared,
                });
            }
        }
        for block in stored {
            chain.replay(block)?;
        }
        chain.set_store(store);
        let height = chain.blocks.len() as u64 - 1;
        info!(height, "replayed chain");
        Ok(Self {
            chain: RwLock::new(chain),
            clock,
            keys,
            shared,
        })
    }

    /// The shared memory between this network's chains.
    pub fn shared_memory(&self) -> &SharedMemory {
        &self.shared
    }

    fn read(&self) -> RwLockReadGuard<'_, Chain> {
        self.chain.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Chain> {
        self.chain.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The network identity.
    pub fn network(&self) -> NetworkIdentity {
        self.read().identity.clone()
    }

    /// The configuration.
    pub fn config(&self) -> DevnetConfig {
        self.read().config.clone()
    }

    /// The shared clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The funded keys, in index order.
    pub fn funded_keys(&self) -> Vec<PrivateKey> {
        let c = self.read();
        (0..c.config.funded_keys)
            .map(|i| c.config.funded_key(i))
            .collect()
    }

    /// The funded keys' addresses.
    pub fn funded_addresses(&self) -> &[ShortId] {
        &self.keys
    }

    /// Verifies a tx against the current state and adds it to the mempool.
    pub fn issue_tx(&self, tx: Tx) -> Result<Id, TxError> {
        let id = tx.id();
        let mut c = self.write();
        if c.mempool.contains(&id) || c.tx_index.contains_key(&id) {
            return Err(TxError::Duplicate);
        }
        if crate::builder::consumed_utxos(tx.unsigned())
            .iter()
            .any(|u| c.mempool.spender(u).is_some())
        {
            return Err(TxError::ConflictsWithOtherTx);
        }
        c.verify_tx(&tx, self.clock.now())?;
        c.dropped.remove(&id);
        c.mempool.add(tx);
        Ok(id)
    }

    /// Decodes signed tx bytes (as `platform.issueTx` receives them) and issues the tx.
    pub fn issue_tx_bytes(&self, bytes: &[u8]) -> Result<Id, TxError> {
        let tx: Tx =
            firn_core::codec::from_bytes(bytes).map_err(|e| TxError::Malformed(e.to_string()))?;
        self.issue_tx(tx)
    }

    /// Builds and accepts the next block if there is something to do at the clock's time.
    pub fn build_block(&self) -> Result<Option<AcceptedBlock>, DevnetError> {
        let now = self.clock.now();
        self.write().build(now)
    }

    /// Builds blocks until there is nothing left to do at the clock's time (rewards paid,
    /// mempool drained). Returns them in order.
    pub fn build_until_idle(&self) -> Result<Vec<AcceptedBlock>, DevnetError> {
        let mut out = Vec::new();
        while let Some(b) = self.build_block()? {
            out.push(b);
        }
        Ok(out)
    }

    /// Moves the clock forward by `seconds` and builds until idle: the way to generate
    /// history quickly on a frozen clock.
    pub fn advance(&self, seconds: u64) -> Result<Vec<AcceptedBlock>, DevnetError> {
        self.clock.advance(seconds);
        self.build_until_idle()
    }

    /// Number of pending txs.
    pub fn mempool_len(&self) -> usize {
        self.read().mempool.len()
    }

    /// The last accepted height.
    pub fn height(&self) -> u64 {
        self.read().blocks.len().saturating_sub(1) as u64
    }

    /// The last accepted block.
    pub fn last_accepted(&self) -> Option<AcceptedBlock> {
        self.read().blocks.last().cloned()
    }

    /// The chain time of the last accepted block.
    pub fn timestamp(&self) -> u64 {
        self.read().state.timestamp()
    }

    /// The time the next block will have, which an issued tx is verified at: the clock,
    /// capped by the next staker change (the chain may have built nothing since it moved).
    pub fn next_block_time(&self) -> u64 {
        let now = self.clock.now();
        self.read().next_block_time(now).0
    }

    /// A block by height.
    pub fn block_by_height(&self, height: u64) -> Option<AcceptedBlock> {
        let c = self.read();
        usize::try_from(height)
            .ok()
            .and_then(|h| c.blocks.get(h).cloned())
    }

    /// A block by ID.
    pub fn block_by_id(&self, id: &Id) -> Option<AcceptedBlock> {
        let c = self.read();
        let h = *c.block_index.get(id)?;
        c.blocks.get(h as usize).cloned()
    }

    /// A tx's status.
    pub fn tx_status(&self, id: &Id) -> TxStatus {
        let c = self.read();
        if let Some(loc) = c.tx_index.get(id) {
            return Self::status_of(&c, id, *loc);
        }
        if c.mempool.contains(id) {
            return TxStatus::Processing;
        }
        if let Some(e) = c.dropped.get(id) {
            return TxStatus::Dropped(e.to_string());
        }
        TxStatus::Unknown
    }

    fn status_of(c: &Chain, id: &Id, loc: TxLocation) -> TxStatus {
        if c.aborted.contains(id) {
            return TxStatus::Aborted;
        }
        let is_last = loc.height as usize + 1 == c.blocks.len();
        let is_reward = c
            .blocks
            .get(loc.height as usize)
            .is_some_and(|b| b.block.type_name() == "BanffProposalBlock");
        if is_reward && is_last {
            return TxStatus::Processing;
        }
        TxStatus::Committed
    }

    /// An accepted tx.
    pub fn tx(&self, id: &Id) -> Option<TxInfo> {
        let c = self.read();
        let loc = *c.tx_index.get(id)?;
        let b = c.blocks.get(loc.height as usize)?;
        let tx = b.block.txs().nth(loc.index)?.clone();
        Some(TxInfo {
            tx,
            height: loc.height,
            block_id: b.block.id(),
            status: Self::status_of(&c, id, loc),
        })
    }

    /// UTXOs owned by any of `addresses`, `limit` at most, after `start` (exclusive).
    pub fn utxos(
        &self,
        addresses: &[ShortId],
        start: Option<(ShortId, Id)>,
        limit: usize,
    ) -> UtxoPage {
        let c = self.read();
        let (utxos, next) = crate::paging::page_by_address(
            addresses,
            start,
            limit,
            |address, after| {
                let from = after.map_or(std::ops::Bound::Unbounded, std::ops::Bound::Excluded);
                c.state
                    .utxo_ids_of(&address)
                    .into_iter()
                    .flat_map(move |ids| ids.range((from, std::ops::Bound::Unbounded)).copied())
            },
            |id| c.state.utxo(id).cloned(),
        );
        UtxoPage { utxos, next }
    }

    /// The balance of `addresses`, classified as AvalancheGo does at the chain time.
    pub fn balance(&self, addresses: &[ShortId]) -> Balance {
        let c = self.read();
        let now = c.state.timestamp();
        let mut ids = BTreeSet::new();
        for a in addresses {
            if let Some(set) = c.state.utxo_ids_of(a) {
                ids.extend(set.iter().copied());
            }
        }
        let mut b = Balance::default();
        for id in ids {
            let Some(u) = c.state.utxo(&id) else { continue };
            if u.asset_id != c.identity.avax_asset_id {
                continue;
            }
            let amount = u.output.amount();
            if u.output.stakeable_locktime() > now {
                b.locked_stakeable = b.locked_stakeable.saturating_add(amount);
            } else if u.owners().locktime > now {
                b.locked_not_stakeable = b.locked_not_stakeable.saturating_add(amount);
            } else {
                b.unlocked = b.unlocked.saturating_add(amount);
            }
            b.utxo_ids.push(id);
        }
        b.total = b
            .unlocked
            .saturating_add(b.locked_stakeable)
            .saturating_add(b.locked_not_stakeable);
        b
    }

    /// Current validators of a subnet (all, or only `node_ids`), with their delegators.
    pub fn current_validators(&self, subnet_id: Id, node_ids: &[NodeId]) -> Vec<ValidatorInfo> {
        let c = self.read();
        c.state
            .validators_of(subnet_id)
            .filter(|v| node_ids.is_empty() || node_ids.contains(&v.node_id))
            .map(|v| ValidatorInfo {
                validator: v.clone(),
                delegators: c
                    .state
                    .delegators_of(&subnet_id, &v.node_id)
                    .into_iter()
                    .cloned()
                    .collect(),
            })
            .collect()
    }

    /// Pending validators: always empty, since post-Durango stakers start when accepted.
    pub fn pending_validators(&self, _subnet_id: Id, _node_ids: &[NodeId]) -> Vec<ValidatorInfo> {
        Vec::new()
    }

    /// L1 validators of a subnet, with balances.
    pub fn l1_validators(&self, subnet_id: Id) -> Vec<L1ValidatorInfo> {
        let c = self.read();
        let accrued = c.state.accrued_fees();
        c.state
            .l1_validators_of(subnet_id)
            .map(|v| L1ValidatorInfo {
                validator: v.clone(),
                balance: if v.is_active() { v.balance(accrued) } else { 0 },
            })
            .collect()
    }

    /// One L1 validator by validation ID, with its balance.
    pub fn l1_validator(&self, validation_id: &Id) -> Option<L1ValidatorInfo> {
        let c = self.read();
        let accrued = c.state.accrued_fees();
        c.state
            .l1_validator(validation_id)
            .map(|v| L1ValidatorInfo {
                validator: v.clone(),
                balance: if v.is_active() { v.balance(accrued) } else { 0 },
            })
    }

    /// The current supply of AVAX, nAVAX, as `platform.getCurrentSupply` reports it: genesis
    /// plus every reward minted (potential rewards count from the staker's start and leave
    /// again on abort); burnt fees are not deducted, as in AvalancheGo.
    pub fn current_supply(&self) -> u64 {
        self.read().state.supply()
    }

    /// The tx fees burnt since genesis, nAVAX.
    pub fn burned_fees(&self) -> u64 {
        self.read().state.burned()
    }

    /// The supply net of burnt tx fees: [`current_supply`](Self::current_supply) minus
    /// [`burned_fees`](Self::burned_fees).
    pub fn circulating_supply(&self) -> u64 {
        let c = self.read();
        c.state.supply().saturating_sub(c.state.burned())
    }

    /// Every subnet (the primary network is implicit).
    pub fn subnets(&self) -> Vec<Subnet> {
        self.read().state.subnets().cloned().collect()
    }

    /// Every blockchain created on the P-Chain.
    pub fn blockchains(&self) -> Vec<Blockchain> {
        self.read().state.chains().cloned().collect()
    }

    /// The subnet that validates `chain_id`; the primary network for its own chains.
    pub fn validated_by(&self, chain_id: &Id) -> Option<Id> {
        let c = self.read();
        if let Some(ch) = c.state.chain(chain_id) {
            return Some(ch.subnet_id);
        }
        let idn = &c.identity;
        [idn.p_chain_id, idn.x_chain_id, idn.c_chain_id]
            .contains(chain_id)
            .then_some(Id::ZERO)
    }

    /// The validator set of a subnet after the block at `height`.
    pub fn validators_at(&self, subnet_id: &Id, height: u64) -> Option<ValidatorSet> {
        self.read().history.at(subnet_id, height)
    }

    /// Every subnet's validator set after the block at `height`.
    pub fn all_validators_at(&self, height: u64) -> Option<BTreeMap<Id, ValidatorSet>> {
        self.read().history.all_at(height)
    }

    /// Reward UTXOs minted for a staker tx (`platform.getRewardUTXOs`).
    pub fn reward_utxos(&self, staker_tx: &Id) -> Vec<RewardUtxo> {
        self.read().state.reward_utxos(staker_tx).to_vec()
    }

    /// Runs `f` on the state under the read lock, for reads this API does not cover.
    pub fn with_state<T>(&self, f: impl FnOnce(&State) -> T) -> T {
        f(&self.read().state)
    }

    /// The dynamic fee a tx pays at the current gas price: its complexity's gas · price.
    pub fn fee_of(&self, tx: &UnsignedTx) -> Result<u64, TxError> {
        let c = self.read();
        let exec = crate::executor::Executor::new(&c.identity, &c.config);
        exec.fee_at(tx, exec.gas_price(&c.state))
    }

    /// The dynamic fee state now: gas capacity and excess, and the gas price.
    pub fn fee_state(&self) -> (GasState, u64) {
        let c = self.read();
        let exec = crate::executor::Executor::new(&c.identity, &c.config);
        (c.state.fee_state(), exec.gas_price(&c.state))
    }

    /// The L1 validator fee state now: the excess and the price per validator-second.
    pub fn validator_fee_state(&self) -> (u64, u64) {
        let c = self.read();
        let f = &c.config.l1_fees;
        let excess = c.state.l1_excess();
        (
            excess,
            crate::math::gas_price(f.min_price, excess, f.excess_conversion_constant),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pchain_can_be_shared_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PChain>();
    }
}
