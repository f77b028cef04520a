//! Realistic P-Chain history on the virtual clock, deterministic from the devnet's seed.
//!
//! `firn up` starts a new devnet `days` days in the past on a frozen clock and replays a plan
//! day by day: P-Chain transfers spread over the day, primary-network validators and delegators
//! that join and end (so reward proposals pay), and an L1 — a subnet with a subnet-EVM chain,
//! converted to an L1 — whose validators are registered, reweighted, topped up and disabled.
//!
//! Every day draws from its own generator seeded by `(seed, day)`, and new validators' node IDs
//! derive from `(seed, day)` too, so a generation cut off half-way resumes from the chain's day
//! without reusing an ID. Txs the rules would refuse are not built; a refusal that slips through
//! anyway (say, a delegator racing its validator's end) is logged and skipped, never fatal.

use crate::error::{DevnetError, TxError};
use crate::genesis::{DevnetConfig, derive_bls, single_owner};
use crate::validator_manager::VALIDATOR_MANAGER;
use crate::vm::PChain;
use crate::wallet::{L1ValidatorSpec, Wallet, WalletError, manager_message, sign_warp};
use firn_core::calendar::DAY;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::keys::bls;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::network::{AVAX, SUBNET_EVM_VM_ID};
use firn_core::pchain::tx::Tx;
use firn_core::warp::messages::{L1Message, L1ValidatorWeight, PChainOwner, RegisterL1Validator};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tracing::{debug, warn};

/// Name of the generated L1's subnet-EVM chain.
pub const L1_CHAIN_NAME: &str = "FirnL1";

/// How much history to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryPlan {
    /// Days of activity, ending at the present.
    pub days: u32,
    /// P-Chain transfers per day.
    pub transfers_per_day: u32,
    /// Blocks the day's transfers are spread over.
    pub blocks_per_day: u32,
    /// The EVM chain ID of the generated L1's subnet-EVM chain.
    pub l1_evm_chain_id: u64,
}

impl Default for HistoryPlan {
    fn default() -> Self {
        Self {
            days: 30,
            transfers_per_day: 96,
            blocks_per_day: 24,
            l1_evm_chain_id: 99_999,
        }
    }
}

impl HistoryPlan {
    /// The genesis time for history that ends at `now`: midnight UTC, `days` days earlier.
    pub fn genesis_time(&self, now: u64) -> u64 {
        (now / DAY).saturating_sub(u64::from(self.days)) * DAY
    }
}

/// What one day of generation did, for progress reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayReport {
    /// The day just generated (0-based).
    pub day: u32,
    /// Days in the plan.
    pub days: u32,
    /// The chain's height after the day.
    pub height: u64,
    /// Txs accepted during the day.
    pub txs: u64,
    /// Txs built but refused (logged, skipped).
    pub skipped: u64,
}

/// The generated L1, found again from the chain on resume.
#[derive(Debug, Clone)]
pub struct GeneratedL1 {
    /// The L1's subnet ID.
    pub subnet_id: Id,
    /// Its subnet-EVM chain (also the validator manager's chain).
    pub chain_id: Id,
    /// Its validators' BLS keys by node ID, in registration order.
    pub validator_keys: Vec<(NodeId, Arc<bls::SecretKey>)>,
}

/// Drives a [`PChain`] on a frozen clock through a [`HistoryPlan`].
pub struct HistoryGenerator<'a> {
    chain: &'a PChain,
    plan: HistoryPlan,
    seed: String,
    genesis_time: u64,
    config: DevnetConfig,
    keys: Vec<PrivateKey>,
    l1: Option<GeneratedL1>,
    /// Registrations and weight changes are the L1's validator manager's to make.
    manager_on_chain: bool,
}

impl std::fmt::Debug for HistoryGenerator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryGenerator")
            .field("plan", &self.plan)
            .field("genesis_time", &self.genesis_time)
            .finish_non_exhaustive()
    }
}

/// Keys with a role: 0 owns the L1 and pays its txs, 1 stakes validators, 2 delegates; the rest
/// send transfers to each other.
const OWNER_KEY: usize = 0;
const VALIDATOR_KEY: usize = 1;
const DELEGATOR_KEY: usize = 2;
const FIRST_SENDER: usize = 3;

/// Initial L1 validators from the conversion; more are registered later.
const L1_INITIAL_VALIDATORS: u32 = 2;

/// What the L1's validator manager does on a history day, when it is driven on chain
/// ([`HistoryGenerator::with_manager_on_chain`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ManagerStep {
    /// Register the L1's `index`-th validator ([`HistoryGenerator::l1_validator_key`]), with
    /// `weight`.
    Register {
        /// Which key.
        index: u32,
        /// Its weight.
        weight: u64,
    },
    /// Set the first initial validator's weight.
    Reweigh {
        /// The new weight.
        weight: u64,
    },
    /// Remove the L1's `index`-th validator.
    Remove {
        /// Which key.
        index: u32,
    },
}

/// The manager's step on `day`, if any. Each ten days register two validators (days 1 and 3),
/// reweigh the first initial validator (days 2 and 6) and remove the first registered one
/// (day 5); the P-Chain history disables the second on day 9, and tops up the other initial
/// validator on days 4 and 8.
pub fn manager_step(day: u32) -> Option<ManagerStep> {
    let first = L1_INITIAL_VALIDATORS + 2 * (day / 10);
    match day % 10 {
        1 => Some(ManagerStep::Register {
            index: first,
            weight: 50,
        }),
        3 => Some(ManagerStep::Register {
            index: first + 1,
            weight: 40,
        }),
        2 | 6 => Some(ManagerStep::Reweigh {
            weight: 1_000 + u64::from(day) * 5,
        }),
        5 => Some(ManagerStep::Remove { index: first }),
        _ => None,
    }
}

impl<'a> HistoryGenerator<'a> {
    /// A generator over `chain`, whose clock must be frozen at or after genesis.
    pub fn new(chain: &'a PChain, plan: HistoryPlan) -> Self {
        let config = chain.config();
        let mut generator = Self {
            chain,
            plan,
            seed: config.seed.clone(),
            genesis_time: config.genesis_time,
            keys: chain.funded_keys(),
            config,
            l1: None,
            manager_on_chain: false,
        };
        generator.l1 = generator.find_l1();
        generator
    }

    /// Leaves the L1's registrations and weight changes to its validator manager contract,
    /// which the caller drives on the L1's chain as [`manager_step`] schedules; balances and
    /// disabling stay P-Chain txs, as they are for real L1s.
    pub fn with_manager_on_chain(mut self) -> Self {
        self.manager_on_chain = true;
        self
    }

    /// The L1's owner key: it pays the L1's P-Chain txs and owns its validator manager.
    pub fn owner_key(&self) -> PrivateKey {
        self.config.funded_key(OWNER_KEY as u32)
    }

    /// The node ID and BLS key of the L1's `index`-th validator (the conversion's first, then
    /// those [`manager_step`] registers).
    pub fn l1_validator_key(
        &self,
        index: u32,
    ) -> Result<(NodeId, Arc<bls::SecretKey>), DevnetError> {
        self.l1_key(index)
    }

    /// The L1 the plan created, once created.
    pub fn l1(&self) -> Option<&GeneratedL1> {
        self.l1.as_ref()
    }

    /// The BLS keys of every validator the plan adds (primary-network validators and the
    /// L1's), by node ID, so that the devnet's signers can sign as them. Keys of validators
    /// that never made it (or have left) do no harm: only current validators are asked.
    pub fn signing_keys(&self) -> Result<Vec<(NodeId, Arc<bls::SecretKey>)>, DevnetError> {
        let mut keys = Vec::new();
        for day in (0..self.plan.days).step_by(3) {
            keys.push((
                history_node_id(&self.seed, day),
                Arc::new(derive_bls(&self.seed, "firn-history-node", day)?),
            ));
        }
        // Two L1 registrations every ten days at most.
        for i in 0..L1_INITIAL_VALIDATORS + 2 * (self.plan.days / 10 + 1) {
            keys.push(self.l1_key(i)?);
        }
        Ok(keys)
    }

    /// The first day not yet generated: the chain's day, or the plan's end.
    pub fn next_day(&self) -> u32 {
        let elapsed = self.chain.timestamp().saturating_sub(self.genesis_time) / DAY;
        let done = if self.chain.height() == 0 {
            0
        } else {
            elapsed + 1
        };
        u32::try_from(done).unwrap_or(u32::MAX).min(self.plan.days)
    }

    /// Generates every remaining day, calling `on_day` after each.
    pub fn run(&mut self, mut on_day: impl FnMut(DayReport)) -> Result<(), DevnetError> {
        for day in self.next_day()..self.plan.days {
            let report = self.generate_day(day)?;
            on_day(report);
        }
        Ok(())
    }

    /// Generates one day: its scheduled events, then its transfers spread over its blocks.
    pub fn generate_day(&mut self, day: u32) -> Result<DayReport, DevnetError> {
        self.generate_day_with(day, |_, _| Ok::<_, DevnetError>(()))
    }

    /// [`Self::generate_day`], calling `after_block(slot, slots)` after each of the day's
    /// `slots` transfer blocks, with the clock still at that block's time: other chains'
    /// activity for the same virtual moment goes there.
    pub fn generate_day_with<E: From<DevnetError>>(
        &mut self,
        day: u32,
        mut after_block: impl FnMut(u32, u32) -> Result<(), E>,
    ) -> Result<DayReport, E> {
        let mut rng = SeededRng::new(&self.seed, day);
        let start = self.genesis_time + u64::from(day) * DAY;
        let mut report = DayReport {
            day,
            days: self.plan.days,
            height: 0,
            txs: 0,
            skipped: 0,
        };
        self.at(start + 60)?;
        self.daily_events(day, &mut rng, &mut report)?;

        let blocks = self.plan.blocks_per_day.max(1);
        let gap = DAY / u64::from(blocks);
        let mut remaining = self.plan.transfers_per_day;
        for b in 0..blocks {
            let slots = u64::from(blocks - b);
            let here = u32::try_from(u64::from(remaining).div_ceil(slots)).unwrap_or(remaining);
            remaining -= here;
            let t = start + 120 + u64::from(b) * gap + rng.below(gap / 2);
            self.at(t)?;
            self.transfers(here, &mut rng, &mut report)?;
            after_block(b, blocks)?;
        }
        report.height = self.chain.height();
        Ok(report)
    }

    /// One round of live activity at the clock's time: a few transfers and, every 60th round,
    /// a delegator. Deterministic from the seed and `round`.
    pub fn live_round(&mut self, round: u64) -> Result<DayReport, DevnetError> {
        let mut rng = SeededRng::labelled("firn-live-rng", &self.seed, round);
        let mut report = DayReport {
            day: u32::try_from(self.chain.timestamp().saturating_sub(self.genesis_time) / DAY)
                .unwrap_or(u32::MAX),
            days: self.plan.days,
            height: 0,
            txs: 0,
            skipped: 0,
        };
        if round.is_multiple_of(60) {
            self.add_delegator(&mut rng, &mut report)?;
        }
        let count = 1 + rng.below(4) as u32;
        self.transfers(count, &mut rng, &mut report)?;
        report.height = self.chain.height();
        Ok(report)
    }

    /// Moves the clock to `time` and builds what is due (reward proposals, mempool).
    fn at(&self, time: u64) -> Result<(), DevnetError> {
        self.chain.clock().set(time);
        self.chain.build_until_idle()?;
        Ok(())
    }

    fn wallet(&self, key: usize) -> Wallet<'a> {
        Wallet::with_keys(self.chain, vec![self.config.funded_key(key as u32)])
    }

    /// Issues `tx` and builds it into a block; a refusal is logged and counted.
    fn submit(
        &self,
        what: &str,
        tx: Result<Tx, WalletError>,
        report: &mut DayReport,
    ) -> Result<Option<Id>, DevnetError> {
        let issued = tx
            .map_err(|e| e.to_string())
            .and_then(|tx| self.chain.issue_tx(tx).map_err(|e: TxError| e.to_string()));
        match issued {
            Ok(id) => {
                self.chain.build_until_idle()?;
                report.txs += 1;
                debug!(%id, what, "history tx");
                Ok(Some(id))
            }
            Err(reason) => {
                report.skipped += 1;
                warn!(what, %reason, "history tx refused; skipped");
                Ok(None)
            }
        }
    }

    fn transfers(
        &self,
        count: u32,
        rng: &mut SeededRng,
        report: &mut DayReport,
    ) -> Result<(), DevnetError> {
        let senders = self.keys.len() - FIRST_SENDER;
        let mut sent_in_block = 0;
        let mut first = rng.below(senders as u64) as usize;
        for _ in 0..count {
            // Each sender spends once per block so that no two txs race for one UTXO.
            if sent_in_block == senders {
                self.chain.build_until_idle()?;
                sent_in_block = 0;
                first = rng.below(senders as u64) as usize;
            }
            let from = FIRST_SENDER + (first + sent_in_block) % senders;
            let to = if rng.below(4) == 0 {
                fresh_address(&self.seed, report.day, rng.next_u64())
            } else {
                self.keys[FIRST_SENDER + rng.below(senders as u64) as usize]
                    .public_key()
                    .short_id()
            };
            let amount = (1 + rng.below(50)) * AVAX / 10;
            let tx = self.wallet(from).send(to, amount);
            let issued = tx
                .map_err(|e| e.to_string())
                .and_then(|tx| self.chain.issue_tx(tx).map_err(|e| e.to_string()));
            match issued {
                Ok(_) => report.txs += 1,
                Err(reason) => {
                    report.skipped += 1;
                    warn!(%reason, "history transfer refused; skipped");
                }
            }
            sent_in_block += 1;
        }
        self.chain.build_until_idle()?;
        Ok(())
    }

    fn daily_events(
        &mut self,
        day: u32,
        rng: &mut SeededRng,
        report: &mut DayReport,
    ) -> Result<(), DevnetError> {
        if self.l1.is_none() {
            self.create_l1(report)?;
        }
        if day.is_multiple_of(3) {
            self.add_validator(day, rng, report)?;
        }
        for _ in 0..=rng.below(2) {
            self.add_delegator(rng, report)?;
        }
        if self.l1.is_some() {
            // Registrations and weights are the manager contract's when it is driven on chain.
            let by_p_chain = !self.manager_on_chain;
            match day % 10 {
                1 if by_p_chain => self.register_l1_validator(report)?,
                2 | 6 if by_p_chain => self.reweigh_l1_validator(day, report)?,
                4 | 8 => self.top_up_l1_validator(rng, report)?,
                9 => self.disable_l1_validator(report)?,
                _ => {}
            }
        }
        Ok(())
    }

    fn add_validator(
        &self,
        day: u32,
        rng: &mut SeededRng,
        report: &mut DayReport,
    ) -> Result<(), DevnetError> {
        let node_id = history_node_id(&self.seed, day);
        let bls = derive_bls(&self.seed, "firn-history-node", day)?;
        let now = self.chain.next_block_time();
        let staking = self.chain.config().staking;
        let stake = staking.min_validator_stake + rng.below(4_000) * AVAX;
        let days = 5 + rng.below(8);
        let end = (now + days * DAY).min(now + staking.max_stake_duration_secs);
        let shares = staking.min_delegation_fee + rng.below(80_000) as u32;
        let reward_to = self.keys[VALIDATOR_KEY].public_key().short_id();
        let tx = self
            .wallet(VALIDATOR_KEY)
            .add_validator(node_id, &bls, stake, end, reward_to, shares);
        self.submit("AddPermissionlessValidatorTx", tx, report)?;
        Ok(())
    }

    fn add_delegator(
        &self,
        rng: &mut SeededRng,
        report: &mut DayReport,
    ) -> Result<(), DevnetError> {
        let now = self.chain.next_block_time();
        let staking = self.chain.config().staking;
        // Validators that stay long enough for a delegation of at least the minimum duration,
        // with room for more weight.
        let candidates: Vec<_> = self
            .chain
            .current_validators(Id::ZERO, &[])
            .into_iter()
            .filter(|v| v.validator.end_time > now + staking.min_stake_duration_secs + 3600)
            .collect();
        if candidates.is_empty() {
            return Ok(());
        }
        let target = &candidates[rng.below(candidates.len() as u64) as usize];
        let weight = staking.min_delegator_stake + rng.below(500) * AVAX;
        let delegated: u64 = target.delegators.iter().map(|d| d.weight).sum();
        let cap = target
            .validator
            .weight
            .saturating_mul(staking.max_validator_weight_factor);
        if target.validator.weight + delegated + weight > cap.min(staking.max_validator_stake) {
            return Ok(());
        }
        let longest = target.validator.end_time - now;
        let span = staking.min_stake_duration_secs
            + rng.below((longest - staking.min_stake_duration_secs).min(6 * DAY));
        let reward_to = self.keys[DELEGATOR_KEY].public_key().short_id();
        let tx = self.wallet(DELEGATOR_KEY).add_delegator(
            target.validator.node_id,
            weight,
            now + span,
            reward_to,
        );
        self.submit("AddPermissionlessDelegatorTx", tx, report)?;
        Ok(())
    }

    fn owner(&self) -> ShortId {
        self.keys[OWNER_KEY].public_key().short_id()
    }

    fn l1_key(&self, i: u32) -> Result<(NodeId, Arc<bls::SecretKey>), DevnetError> {
        Ok((
            history_node_id(&self.seed, u32::MAX - i),
            Arc::new(derive_bls(&self.seed, "firn-history-l1", i)?),
        ))
    }

    /// Finds the L1 this plan created on an earlier run, if any.
    fn find_l1(&self) -> Option<GeneratedL1> {
        let chain = self
            .chain
            .blockchains()
            .into_iter()
            .find(|c| c.name == L1_CHAIN_NAME && c.vm_id == SUBNET_EVM_VM_ID)?;
        let subnet = self
            .chain
            .subnets()
            .into_iter()
            .find(|s| s.id == chain.subnet_id && s.conversion.is_some())?;
        let registered = self.chain.l1_validators(subnet.id).len() as u32;
        let validator_keys = (0..registered.max(L1_INITIAL_VALIDATORS))
            .filter_map(|i| self.l1_key(i).ok())
            .collect();
        Some(GeneratedL1 {
            subnet_id: subnet.id,
            chain_id: chain.id,
            validator_keys,
        })
    }

    /// A subnet, its subnet-EVM chain, and its conversion to an L1 with two validators.
    fn create_l1(&mut self, report: &mut DayReport) -> Result<(), DevnetError> {
        let wallet = self.wallet(OWNER_KEY);
        let owner = self.owner();
        let Some(subnet_id) = self.submit(
            "CreateSubnetTx",
            wallet.create_subnet(single_owner(owner)),
            report,
        )?
        else {
            return Ok(());
        };
        let genesis = l1_genesis_of(self.chain, self.plan.l1_evm_chain_id);
        let Some(chain_id) = self.submit(
            "CreateChainTx",
            wallet.create_chain(subnet_id, L1_CHAIN_NAME, SUBNET_EVM_VM_ID, genesis),
            report,
        )?
        else {
            return Ok(());
        };
        let keys = (0..L1_INITIAL_VALIDATORS)
            .map(|i| self.l1_key(i))
            .collect::<Result<Vec<_>, _>>()?;
        let pchain_owner = PChainOwner {
            threshold: 1,
            addresses: vec![owner],
        };
        // The first validator is funded for the whole history and heavy enough to sign alone
        // (an inactive validator's weight still counts toward the total); the second runs dry
        // after about a day, so the L1 shows a validator turning inactive and topped up again.
        let price = self.chain.config().l1_fees.min_price;
        let specs: Vec<_> = keys
            .iter()
            .enumerate()
            .map(|(i, (node_id, bls))| L1ValidatorSpec {
                node_id: *node_id,
                weight: if i == 0 { 1_000 } else { 100 },
                balance: if i == 0 {
                    price * DAY * (u64::from(self.plan.days) + 30)
                } else {
                    price * DAY
                },
                bls: bls.as_ref(),
                owner: pchain_owner.clone(),
            })
            .collect();
        let converted = self.submit(
            "ConvertSubnetToL1Tx",
            wallet.convert_subnet_to_l1(subnet_id, chain_id, VALIDATOR_MANAGER.to_vec(), &specs),
            report,
        )?;
        if converted.is_some() {
            self.l1 = Some(GeneratedL1 {
                subnet_id,
                chain_id,
                validator_keys: keys,
            });
        }
        Ok(())
    }

    /// The keys of the L1's validators in its current set (inactive ones cannot sign).
    fn l1_signers(&self, l1: &GeneratedL1) -> Vec<Arc<bls::SecretKey>> {
        let set = self
            .chain
            .validators_at(&l1.subnet_id, self.chain.height())
            .unwrap_or_default();
        l1.validator_keys
            .iter()
            .filter(|(node, _)| set.contains_key(node))
            .map(|(_, key)| key.clone())
            .collect()
    }

    fn sign(
        &self,
        l1: &GeneratedL1,
        message: &L1Message,
    ) -> Result<firn_core::warp::Message, WalletError> {
        let unsigned = manager_message(
            self.chain.network().network_id,
            l1.chain_id,
            &VALIDATOR_MANAGER,
            message,
        );
        let signers = self.l1_signers(l1);
        let refs: Vec<&bls::SecretKey> = signers.iter().map(|k| k.as_ref()).collect();
        sign_warp(self.chain, l1.subnet_id, unsigned, &refs)
    }

    fn register_l1_validator(&mut self, report: &mut DayReport) -> Result<(), DevnetError> {
        let Some(mut l1) = self.l1.clone() else {
            return Ok(());
        };
        let index = l1.validator_keys.len() as u32;
        let (node_id, bls) = self.l1_key(index)?;
        let owner = PChainOwner {
            threshold: 1,
            addresses: vec![self.owner()],
        };
        let message = L1Message::RegisterL1Validator(RegisterL1Validator {
            subnet_id: l1.subnet_id,
            node_id,
            bls_public_key: bls.public_key().to_bytes(),
            expiry: self.chain.next_block_time() + 3600,
            remaining_balance_owner: owner.clone(),
            disable_owner: owner,
            weight: 50,
        });
        let balance = self.chain.config().l1_fees.min_price * 12 * DAY;
        let tx = self.sign(&l1, &message).and_then(|signed| {
            self.wallet(OWNER_KEY)
                .register_l1_validator(balance, &bls, &signed)
        });
        if self.submit("RegisterL1ValidatorTx", tx, report)?.is_some() {
            l1.validator_keys.push((node_id, bls));
            self.l1 = Some(l1);
        }
        Ok(())
    }

    /// The newest registered validator still holding weight, beyond the initial ones.
    fn newest_extra_validator(&self, l1: &GeneratedL1) -> Option<Id> {
        self.chain
            .l1_validators(l1.subnet_id)
            .into_iter()
            .filter(|v| v.validator.weight > 0 && v.validator.is_active())
            .max_by_key(|v| v.validator.start_time)
            .map(|v| v.validator.validation_id)
    }

    fn reweigh_l1_validator(&self, day: u32, report: &mut DayReport) -> Result<(), DevnetError> {
        let Some(l1) = self.l1.as_ref() else {
            return Ok(());
        };
        let validation_id = l1.subnet_id.append(0);
        let Some(current) = self.chain.l1_validator(&validation_id) else {
            return Ok(());
        };
        let message = L1Message::L1ValidatorWeight(L1ValidatorWeight {
            validation_id,
            nonce: current.validator.min_nonce,
            weight: 1_000 + u64::from(day) * 5,
        });
        let tx = self
            .sign(l1, &message)
            .and_then(|signed| self.wallet(OWNER_KEY).set_l1_validator_weight(&signed));
        self.submit("SetL1ValidatorWeightTx", tx, report)?;
        Ok(())
    }

    fn top_up_l1_validator(
        &self,
        rng: &mut SeededRng,
        report: &mut DayReport,
    ) -> Result<(), DevnetError> {
        let Some(l1) = self.l1.as_ref() else {
            return Ok(());
        };
        // The second initial validator, which runs dry between top-ups.
        let validation_id = l1.subnet_id.append(1);
        if self.chain.l1_validator(&validation_id).is_none() {
            return Ok(());
        }
        let amount = self.chain.config().l1_fees.min_price * DAY * (1 + rng.below(3));
        let tx = self
            .wallet(OWNER_KEY)
            .increase_l1_validator_balance(validation_id, amount);
        self.submit("IncreaseL1ValidatorBalanceTx", tx, report)?;
        Ok(())
    }

    fn disable_l1_validator(&self, report: &mut DayReport) -> Result<(), DevnetError> {
        let Some(l1) = self.l1.as_ref() else {
            return Ok(());
        };
        let initial: Vec<Id> = (0..L1_INITIAL_VALIDATORS)
            .map(|i| l1.subnet_id.append(i))
            .collect();
        let Some(validation_id) = self
            .newest_extra_validator(l1)
            .filter(|id| !initial.contains(id))
        else {
            return Ok(());
        };
        let tx = self.wallet(OWNER_KEY).disable_l1_validator(validation_id);
        self.submit("DisableL1ValidatorTx", tx, report)?;
        Ok(())
    }
}

/// [`l1_genesis_json`] for `chain`'s network: its funded keys and the relayer's hold the native
/// token.
pub fn l1_genesis_of(chain: &PChain, evm_chain_id: u64) -> Vec<u8> {
    let mut funded = chain.funded_keys();
    funded.push(chain.config().relayer_key());
    l1_genesis_json(evm_chain_id, &funded)
}

/// The subnet-EVM genesis of the generated L1: every funded key holds 1,000,000 of the native
/// token; the owner key administers the native minter, the tx and deployer allow lists are off,
/// Warp is on from genesis (messages from the C-Chain need the primary network's signatures, as
/// an L1's validators need not validate it), Teleporter's address holds firn's messenger,
/// [`TELEPORTER_REGISTRY`](crate::teleporter::TELEPORTER_REGISTRY) its registry at version 1,
/// and [`VALIDATOR_MANAGER`] firn's validator manager, owned by the owner key, its churn
/// limited to 20 % an hour.
pub fn l1_genesis_json(evm_chain_id: u64, keys: &[PrivateKey]) -> Vec<u8> {
    let mut alloc: serde_json::Map<String, serde_json::Value> = keys
        .iter()
        .map(|k| {
            (
                hex::encode(k.public_key().eth_address()),
                serde_json::json!({ "balance": "0xd3c21bcecceda1000000" }),
            )
        })
        .collect();
    // Teleporter's messenger: code only, as the Data API's `EvmGenesisAllocDto` (balance,
    // code, storage) can carry it back.
    alloc.insert(
        hex::encode(crate::teleporter::TELEPORTER_MESSENGER),
        serde_json::json!({
            "balance": "0x0",
            "code": crate::teleporter::messenger_code(),
        }),
    );
    // The Teleporter registry, holding version 1 (the messenger).
    let registry_storage: serde_json::Map<String, serde_json::Value> =
        crate::teleporter::registry_storage(crate::teleporter::GENESIS_VERSIONS)
            .into_iter()
            .map(|(slot, value)| {
                (
                    format!("0x{}", hex::encode(slot)),
                    format!("0x{}", hex::encode(value)).into(),
                )
            })
            .collect();
    alloc.insert(
        hex::encode(crate::teleporter::TELEPORTER_REGISTRY),
        serde_json::json!({
            "balance": "0x0",
            "code": crate::teleporter::registry_code(),
            "storage": registry_storage,
        }),
    );
    let owner = keys[OWNER_KEY].public_key().eth_address();
    // The validator manager, owned by the L1's owner key (its `owner` in slot 0).
    alloc.insert(
        hex::encode(VALIDATOR_MANAGER),
        serde_json::json!({
            "balance": "0x0",
            "code": crate::validator_manager::manager_code(),
            "storage": {
                format!("0x{:064x}", crate::validator_manager::OWNER_SLOT):
                    format!("0x{:0>64}", hex::encode(owner)),
                format!("0x{:064x}", crate::validator_manager::CHURN_SETTINGS_SLOT):
                    format!("0x{}", hex::encode(crate::validator_manager::churn_settings_word(
                        crate::validator_manager::CHURN_PERIOD_SECONDS,
                        crate::validator_manager::MAXIMUM_CHURN_PERCENTAGE,
                    ))),
            },
        }),
    );
    let admin = format!("0x{}", hex::encode(owner));
    let genesis = serde_json::json!({
        "config": {
            "chainId": evm_chain_id,
            "homesteadBlock": 0,
            "eip150Block": 0,
            "eip155Block": 0,
            "eip158Block": 0,
            "byzantiumBlock": 0,
            "constantinopleBlock": 0,
            "petersburgBlock": 0,
            "istanbulBlock": 0,
            "muirGlacierBlock": 0,
            "feeConfig": {
                "gasLimit": 12_000_000,
                "targetBlockRate": 2,
                "minBaseFee": 25_000_000_000u64,
                "targetGas": 60_000_000,
                "baseFeeChangeDenominator": 36,
                "minBlockGasCost": 0,
                "maxBlockGasCost": 1_000_000,
                "blockGasCostStep": 200_000
            },
            "warpConfig": {
                "blockTimestamp": 0,
                "quorumNumerator": 67,
                "requirePrimaryNetworkSigners": true
            },
            "contractNativeMinterConfig": { "blockTimestamp": 0, "adminAddresses": [admin] },
            "feeManagerConfig": { "blockTimestamp": 0, "adminAddresses": [admin] },
            "rewardManagerConfig": { "blockTimestamp": 0, "adminAddresses": [admin] }
        },
        "alloc": alloc,
        "nonce": "0x0",
        "timestamp": "0x0",
        "extraData": "0x",
        "gasLimit": "0xb71b00",
        "difficulty": "0x0",
        "mixHash": "0x0000000000000000000000000000000000000000000000000000000000000000",
        "coinbase": "0x0000000000000000000000000000000000000000",
        "number": "0x0",
        "gasUsed": "0x0",
        "parentHash": "0x0000000000000000000000000000000000000000000000000000000000000000"
    });
    serde_json::to_vec(&genesis).unwrap_or_default()
}

/// A node ID for history's `day`: the first 20 bytes of `sha256("firn-history-node" ‖ seed ‖ day)`.
fn history_node_id(seed: &str, day: u32) -> NodeId {
    let digest = Sha256::new()
        .chain_update(b"firn-history-node")
        .chain_update(seed.as_bytes())
        .chain_update(day.to_be_bytes())
        .finalize();
    let mut id = [0u8; 20];
    id.copy_from_slice(&digest[..20]);
    NodeId(id)
}

/// A recipient nobody holds the key of, so some AVAX leaves the funded keys for good.
fn fresh_address(seed: &str, day: u32, n: u64) -> ShortId {
    let digest = Sha256::new()
        .chain_update(b"firn-history-recipient")
        .chain_update(seed.as_bytes())
        .chain_update(day.to_be_bytes())
        .chain_update(n.to_be_bytes())
        .finalize();
    let mut id = [0u8; 20];
    id.copy_from_slice(&digest[..20]);
    ShortId(id)
}

/// SplitMix64 seeded by `sha256(label ‖ seed ‖ n)`: deterministic, independent per label and
/// `n` (a day, a round), so that generators can resume anywhere. Not for secrets.
#[derive(Debug, Clone)]
pub struct SeededRng(u64);

impl SeededRng {
    /// The P-Chain generator's for `day`.
    fn new(seed: &str, day: u32) -> Self {
        Self::labelled("firn-history-rng", seed, u64::from(day))
    }

    /// The generator for `label`, `seed` and `n`.
    pub fn labelled(label: &str, seed: &str, n: u64) -> Self {
        let digest = Sha256::new()
            .chain_update(label.as_bytes())
            .chain_update(seed.as_bytes())
            .chain_update(n.to_be_bytes())
            .finalize();
        let mut state = [0u8; 8];
        state.copy_from_slice(&digest[..8]);
        Self(u64::from_be_bytes(state))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }
}
