//! Tx verification and execution, as AvalancheGo's `txs/executor` does it.
//!
//! [`Executor::execute`] verifies one decision tx against the [`State`] at the chain time and
//! a gas price, and applies it; on any error it rolls the state back, so an invalid tx
//! changes nothing. The tx burns its dynamic fee (its complexity's gas at that price, see
//! [`crate::fee`]) in its flow check. [`Executor::advance_time`] moves the chain time
//! (refilling gas capacity, expiring subnet validators and charging L1 validators their
//! continuous fee) and [`Executor::reward`] ends a staker.

mod atomic;
mod l1;
pub mod spend;
mod staking;
pub mod syntax;

use crate::error::TxError;
use crate::fee::{Dimensions, tx_complexity};
use crate::genesis::{DevnetConfig, Genesis, NetworkIdentity};
use crate::math::{self, FeeState};
use crate::shared_memory::SharedMemory;
use crate::state::{Chain, Staker, StakerKind, State, Subnet};
use firn_core::ids::Id;
use firn_core::pchain::fx::Signer;
use firn_core::pchain::tx::{Tx, UnsignedTx};
use spend::{Spend, consume, produce, verify_auth, verify_spend};
use syntax::{verify_base, verify_owners};

/// Most bytes in a chain name.
const MAX_NAME_LEN: usize = 128;
/// Most genesis bytes of a chain.
const MAX_GENESIS_LEN: usize = 1024 * 1024;

/// Executes txs for one network and configuration.
#[derive(Debug, Clone, Copy)]
pub struct Executor<'a> {
    /// The network identity.
    pub identity: &'a NetworkIdentity,
    /// The devnet configuration.
    pub config: &'a DevnetConfig,
    /// The gas price txs pay (set per tx by [`Executor::execute`]).
    gas_price: u64,
    /// Shared memory, for ImportTx and ExportTx (refused without it).
    shared: Option<&'a SharedMemory>,
    /// Replaying accepted blocks: an ImportTx whose UTXOs are not in shared memory yet (their
    /// export not replayed yet) is taken as it stands, as AvalancheGo skips that check while
    /// bootstrapping.
    replaying: bool,
}

impl<'a> Executor<'a> {
    /// The spend of a tx's BaseTx: its inputs, its outputs, the first `creds` credentials,
    /// and its fee plus `extra` burned.
    pub(super) fn base_spend<'t>(
        &self,
        tx: &'t Tx,
        base: &'t firn_core::pchain::tx::BaseTx,
        creds: usize,
        extra: u64,
    ) -> Result<Spend<'t>, TxError> {
        Ok(Spend {
            hash: tx.unsigned().signing_hash(),
            inputs: &base.inputs,
            outputs: base.outputs.iter().collect(),
            creds: &tx.credentials()[..creds],
            burned: self
                .fee(tx.unsigned())?
                .checked_add(extra)
                .ok_or(TxError::Overflow)?,
        })
    }

    /// Builds an executor.
    pub fn new(identity: &'a NetworkIdentity, config: &'a DevnetConfig) -> Self {
        Self {
            identity,
            config,
            gas_price: 0,
            shared: None,
            replaying: false,
        }
    }

    /// This executor with shared memory, so that it runs ImportTx and ExportTx.
    pub fn with_shared(self, shared: &'a SharedMemory, replaying: bool) -> Self {
        Self {
            shared: Some(shared),
            replaying,
            ..self
        }
    }

    /// The gas price of the next block on `state`: AvalancheGo's `PickFeeCalculator`, from
    /// the fee state's excess.
    pub fn gas_price(&self, state: &State) -> u64 {
        self.config.dynamic_fees.price(state.fee_state().excess)
    }

    /// A tx's complexity (AvalancheGo's `TxComplexity`).
    pub fn complexity(tx: &UnsignedTx) -> Result<Dimensions, TxError> {
        tx_complexity(tx).map_err(|e| TxError::Fee(format!("error calculating complexity: {e}")))
    }

    /// A tx's gas: its complexity weighted by the configured weights.
    pub fn gas(&self, tx: &UnsignedTx) -> Result<u64, TxError> {
        let complexity = Self::complexity(tx)?;
        self.config
            .dynamic_fees
            .gas(complexity)
            .ok_or_else(|| TxError::Fee("error calculating gas: overflow".into()))
    }

    /// The dynamic fee of a tx at `gas_price`: gas · price.
    pub fn fee_at(&self, tx: &UnsignedTx, gas_price: u64) -> Result<u64, TxError> {
        self.gas(tx)?
            .checked_mul(gas_price)
            .ok_or_else(|| TxError::Fee("error calculating cost: overflow".into()))
    }

    /// The fee of a tx at the price this executor runs at.
    fn fee(&self, tx: &UnsignedTx) -> Result<u64, TxError> {
        self.fee_at(tx, self.gas_price)
    }

    /// Verifies and applies a decision tx at the state's chain time, paying `gas_price` per
    /// gas. On error the state is left exactly as it was.
    pub fn execute(&self, state: &mut State, tx: &Tx, gas_price: u64) -> Result<(), TxError> {
        let exec = Self { gas_price, ..*self };
        let mark = state.mark();
        let result = exec.execute_inner(state, tx);
        if result.is_err() {
            state.rollback_to(mark);
        }
        result
    }

    fn execute_inner(&self, state: &mut State, tx: &Tx) -> Result<(), TxError> {
        let unsigned = tx.unsigned();
        let base = unsigned.base().ok_or(TxError::Unsupported(
            "RewardValidatorTx and AdvanceTimeTx are built by the block builder, not issued",
        ))?;
        match unsigned {
            UnsignedTx::AddValidator(_) => {
                return Err(TxError::Unsupported(
                    "AddValidatorTx is not permitted post-Durango",
                ));
            }
            UnsignedTx::AddDelegator(_) => {
                return Err(TxError::Unsupported(
                    "AddDelegatorTx is not permitted post-Durango",
                ));
            }
            UnsignedTx::TransformSubnet(_) => {
                return Err(TxError::Unsupported(
                    "TransformSubnetTx is not permitted post-Etna",
                ));
            }
            UnsignedTx::Import(_) | UnsignedTx::Export(_) if self.shared.is_none() => {
                return Err(TxError::Unsupported(
                    "unsupported tx type: this P-Chain has no shared memory",
                ));
            }
            _ => {}
        }
        verify_base(base, self.identity.network_id, &self.identity.p_chain_id)?;
        let hash = unsigned.signing_hash();
        let now = state.timestamp();
        let fee = self.fee(unsigned)?;
        let tx_id = tx.id();
        let creds = tx.credentials();
        let simple = |burned: u64, creds| Spend {
            hash,
            inputs: &base.inputs,
            outputs: base.outputs.iter().collect(),
            creds,
            burned,
        };

        match unsigned {
            UnsignedTx::Base(_) => {
                verify_spend(state, self.avax(), &simple(fee, creds), now)?;
            }
            UnsignedTx::CreateSubnet(t) => {
                verify_owners(&t.owner.0).map_err(TxError::InvalidOutput)?;
                verify_spend(state, self.avax(), &simple(fee, creds), now)?;
                state.put_subnet(Subnet {
                    id: tx_id,
                    owner: t.owner.0.clone(),
                    conversion: None,
                });
            }
            UnsignedTx::CreateChain(t) => {
                if t.subnet_id == Id::ZERO {
                    return Err(TxError::Syntax(
                        "new blockchain can't be validated by primary network",
                    ));
                }
                verify_chain_name(&t.chain_name)?;
                if t.vm_id == Id::ZERO {
                    return Err(TxError::Syntax("invalid VM ID"));
                }
                if t.fx_ids.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(TxError::Syntax(
                        "feature extensions IDs must be sorted and unique",
                    ));
                }
                if t.genesis_data.len() > MAX_GENESIS_LEN {
                    return Err(TxError::Syntax("genesis too long"));
                }
                let n = self.poa_auth(state, &hash, t.subnet_id, &t.subnet_auth, creds)?;
                verify_spend(state, self.avax(), &simple(fee, &creds[..n]), now)?;
                state.add_chain(Chain {
                    id: tx_id,
                    subnet_id: t.subnet_id,
                    name: t.chain_name.clone(),
                    vm_id: t.vm_id,
                    fx_ids: t.fx_ids.clone(),
                    genesis: t.genesis_data.0.clone(),
                });
            }
            UnsignedTx::TransferSubnetOwnership(t) => {
                if t.subnet_id == Id::ZERO {
                    return Err(TxError::Syntax(
                        "can't transfer ownership of the primary network",
                    ));
                }
                verify_owners(&t.new_owner.0).map_err(TxError::InvalidOutput)?;
                let n = self.poa_auth(state, &hash, t.subnet_id, &t.subnet_auth, creds)?;
                verify_spend(state, self.avax(), &simple(fee, &creds[..n]), now)?;
                let mut subnet = state
                    .subnet(&t.subnet_id)
                    .cloned()
                    .ok_or(TxError::SubnetNotFound(t.subnet_id))?;
                subnet.owner = t.new_owner.0.clone();
                state.put_subnet(subnet);
            }
            UnsignedTx::AddPermissionlessValidator(t) => self.add_validator(state, tx, t)?,
            UnsignedTx::AddPermissionlessDelegator(t) => self.add_delegator(state, tx, t)?,
            UnsignedTx::AddSubnetValidator(t) => self.add_subnet_validator(state, tx, t)?,
            UnsignedTx::RemoveSubnetValidator(t) => self.remove_subnet_validator(state, tx, t)?,
            UnsignedTx::ConvertSubnetToL1(t) => self.convert_subnet(state, tx, t)?,
            UnsignedTx::RegisterL1Validator(t) => self.register_l1_validator(state, tx, t)?,
            UnsignedTx::SetL1ValidatorWeight(t) => self.set_l1_validator_weight(state, tx, t)?,
            UnsignedTx::IncreaseL1ValidatorBalance(t) => self.increase_l1_balance(state, tx, t)?,
            UnsignedTx::DisableL1Validator(t) => self.disable_l1_validator(state, tx, t)?,
            UnsignedTx::Import(t) => self.import(state, tx, t, fee)?,
            UnsignedTx::Export(t) => self.export(state, tx, t, fee)?,
            _ => return Err(TxError::Unsupported("unsupported tx type")),
        }

        // Every tx that got here spends its inputs and produces its outputs. What the inputs
        // hold beyond the outputs, the stake and L1 balances is burnt: the fee, and whatever
        // a wallet paid above it (a fee computed at a higher price than the block's). As in
        // AvalancheGo the current supply (an upper bound) keeps it; the state counts it apart.
        let burned = self.unlocked_burn(unsigned, base);
        consume(state, &base.inputs);
        produce(state, tx_id, &base.outputs);
        debug_assert!(
            burned >= fee,
            "the flow check guarantees the fee is covered"
        );
        if burned > 0 {
            state.add_burned(burned);
        }
        Ok(())
    }

    /// The AVAX a verified tx destroys: its AVAX inputs minus its AVAX outputs, stake and
    /// the balances it gives L1 validators.
    fn unlocked_burn(&self, tx: &UnsignedTx, base: &firn_core::pchain::tx::BaseTx) -> u64 {
        let avax = self.avax();
        let imported: &[firn_core::pchain::fx::TransferableInput] = match tx {
            UnsignedTx::Import(t) => &t.imported_inputs,
            _ => &[],
        };
        let consumed: u64 = base
            .inputs
            .iter()
            .chain(imported)
            .filter(|i| i.asset_id == avax)
            .map(|i| i.input.amount())
            .fold(0, u64::saturating_add);
        let outputs = |outs: &[firn_core::pchain::fx::TransferableOutput]| {
            outs.iter()
                .filter(|o| o.asset_id == avax)
                .map(|o| o.output.amount())
                .fold(0u64, u64::saturating_add)
        };
        let elsewhere = match tx {
            UnsignedTx::AddPermissionlessValidator(t) => outputs(&t.stake),
            UnsignedTx::AddPermissionlessDelegator(t) => outputs(&t.stake),
            UnsignedTx::ConvertSubnetToL1(t) => t
                .validators
                .iter()
                .map(|v| v.balance)
                .fold(0, u64::saturating_add),
            UnsignedTx::RegisterL1Validator(t) => t.balance,
            UnsignedTx::IncreaseL1ValidatorBalance(t) => t.balance,
            UnsignedTx::Export(t) => outputs(&t.exported_outputs),
            _ => 0,
        };
        consumed.saturating_sub(outputs(&base.outputs).saturating_add(elsewhere))
    }

    /// The AVAX asset ID.
    pub fn avax(&self) -> Id {
        self.identity.avax_asset_id
    }

    /// Subnet authorisation for a permissioned (not converted) subnet. Returns how many
    /// credentials belong to the inputs.
    fn poa_auth(
        &self,
        state: &State,
        hash: &[u8; 32],
        subnet_id: Id,
        auth: &firn_core::pchain::fx::AuthInput,
        creds: &[firn_core::pchain::fx::Credential],
    ) -> Result<usize, TxError> {
        let subnet = state
            .subnet(&subnet_id)
            .ok_or(TxError::SubnetNotFound(subnet_id))?;
        let n = verify_auth(hash, auth, creds, &subnet.owner, state.timestamp())?;
        if subnet.conversion.is_some() {
            return Err(TxError::Immutable(subnet_id));
        }
        Ok(n)
    }

    /// The next time the state changes by itself: the first staker's end or the first L1
    /// validator running out of balance. `u64::MAX` if neither.
    pub fn next_change_time(&self, state: &State) -> u64 {
        let now = state.timestamp();
        let mut next = state.next_staker_to_end().map_or(u64::MAX, |s| s.end_time);
        if let Some(v) = state.first_l1_to_deplete() {
            let remaining = v.balance(state.accrued_fees());
            let fs = FeeState {
                current: state.active_l1_count(),
                excess: state.l1_excess(),
            };
            let max = next.saturating_sub(now);
            // At least one second: a balance smaller than one second's fee is used up by
            // the next second (AvalancheGo would wait for the next block).
            let secs = fs
                .seconds_remaining(&self.config.l1_fees, max, remaining)
                .max(1);
            next = next.min(now.saturating_add(secs));
        }
        next
    }

    /// Moves the chain time to `time` (≥ the current time): removes permissioned subnet
    /// validators that ended, forgets stale expiries, refills gas capacity and drains the
    /// excess, charges active L1 validators and deactivates those whose balance ran out.
    pub fn advance_time(&self, state: &mut State, time: u64) {
        let now = state.timestamp();
        if time <= now {
            return;
        }
        while let Some(s) = state.next_staker_to_end() {
            if s.end_time > time || s.kind != StakerKind::SubnetValidator {
                break;
            }
            let id = s.tx_id;
            state.remove_staker(&id);
        }
        for e in state.stale_expiries(time) {
            state.remove_expiry(e);
        }
        let seconds = time - now;
        state.set_fee_state(
            state
                .fee_state()
                .advance(&self.config.dynamic_fees, seconds),
        );
        let c = &self.config.l1_fees;
        let fs = FeeState {
            current: state.active_l1_count(),
            excess: state.l1_excess(),
        };
        let accrued = state.accrued_fees().saturating_add(fs.cost_of(c, seconds));
        for id in state.depleted_l1(accrued) {
            if let Some(mut v) = state.l1_validator(&id).cloned() {
                v.end_accumulated_fee = 0;
                state.put_l1_validator(v);
            }
        }
        state.set_l1_excess(fs.advance(c.target, seconds).excess);
        state.set_accrued_fees(accrued);
        state.set_timestamp(time);
    }

    /// Applies genesis to an empty state: the funded UTXOs, the supply and the initial
    /// validators (each adding its potential reward to the supply, as AvalancheGo does).
    pub fn apply_genesis(&self, state: &mut State, genesis: &Genesis) {
        state.set_timestamp(self.config.genesis_time);
        state.set_supply(genesis.initial_supply);
        state.set_fee_state(self.config.dynamic_fees.genesis_state());
        for tx in genesis.block.txs() {
            match tx.unsigned() {
                UnsignedTx::Base(b) => produce(state, tx.id(), &b.outputs),
                UnsignedTx::AddPermissionlessValidator(t) => {
                    let duration = t.validator.end.saturating_sub(t.validator.start);
                    let potential = math::reward(
                        &self.config.staking.reward,
                        duration,
                        t.validator.weight,
                        state.supply(),
                    );
                    state.set_supply(state.supply().saturating_add(potential));
                    state.put_staker(Staker {
                        tx_id: tx.id(),
                        kind: StakerKind::Validator,
                        subnet_id: Id::ZERO,
                        node_id: t.validator.node_id,
                        public_key: match &t.signer {
                            Signer::ProofOfPossession(p) => Some(p.public_key),
                            Signer::Empty => None,
                        },
                        weight: t.validator.weight,
                        start_time: t.validator.start,
                        end_time: t.validator.end,
                        potential_reward: potential,
                        delegation_fee: t.shares,
                        delegatee_reward: 0,
                        stake: t.stake.clone(),
                        outputs_len: t.base.outputs.len() as u32,
                        reward_owner: t.validation_rewards_owner.0.clone(),
                        delegation_reward_owner: t.delegation_rewards_owner.0.clone(),
                    });
                }
                _ => {}
            }
        }
    }
}

/// AvalancheGo's chain name rules: at most 128 bytes of ASCII letters, digits and spaces.
fn verify_chain_name(name: &str) -> Result<(), TxError> {
    if name.len() > MAX_NAME_LEN {
        return Err(TxError::ChainName("name too long"));
    }
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b' ') {
        return Err(TxError::ChainName("illegal name character"));
    }
    Ok(())
}
