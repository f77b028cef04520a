//! Staker txs: primary network validators and delegators, permissioned subnet validators,
//! and the RewardValidatorTx that ends a staker (AvalancheGo's `staker_tx_verification.go`
//! and `proposal_tx_executor.go`).

use super::Executor;
use super::spend::verify_spend;
use super::syntax::{verify_outputs, verify_owners};
use crate::error::TxError;
use crate::math;
use crate::state::{RewardKind, RewardUtxo, Staker, StakerKind, State, Utxo};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::pchain::fx::{Output, Signer, TransferOutput, TransferableOutput};
use firn_core::pchain::tx::{
    AddPermissionlessDelegatorTx, AddPermissionlessValidatorTx, AddSubnetValidatorTx,
    RemoveSubnetValidatorTx, Tx,
};

const MAX_SHARES: u32 = 1_000_000;

/// Checks stake outputs: non-empty, one asset, sorted, well formed, summing to `weight`.
fn verify_stake(
    stake: &[TransferableOutput],
    weight: u64,
    mismatch: &'static str,
) -> Result<(), TxError> {
    let first = stake.first().ok_or(TxError::Syntax("no stake"))?;
    if stake.iter().any(|o| o.asset_id != first.asset_id) {
        return Err(TxError::Syntax("multiple staked assets"));
    }
    verify_outputs(stake)?;
    let mut total = 0u64;
    for o in stake {
        total = total
            .checked_add(o.output.amount())
            .ok_or(TxError::Overflow)?;
    }
    if total != weight {
        return Err(TxError::Syntax(mismatch));
    }
    Ok(())
}

/// Checks a BLS proof of possession.
pub(super) fn verify_pop(public_key: &[u8; 48], pop: &[u8; 96]) -> Result<bls::PublicKey, TxError> {
    let pk =
        bls::PublicKey::from_bytes(public_key).map_err(|_| TxError::InvalidProofOfPossession)?;
    let sig = bls::Signature::from_bytes(pop).map_err(|_| TxError::InvalidProofOfPossession)?;
    if !bls::verify_proof_of_possession(&pk, &sig) {
        return Err(TxError::InvalidProofOfPossession);
    }
    Ok(pk)
}

impl Executor<'_> {
    fn flow_failed(e: TxError) -> TxError {
        TxError::FlowCheckFailed(Box::new(e))
    }

    pub(super) fn add_validator(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &AddPermissionlessValidatorTx,
    ) -> Result<(), TxError> {
        let v = &t.validator;
        if v.node_id == NodeId::EMPTY {
            return Err(TxError::Syntax("validator nodeID cannot be empty"));
        }
        verify_stake(&t.stake, v.weight, "validator weight mismatch")?;
        if t.shares > MAX_SHARES {
            return Err(TxError::Syntax(
                "a staker can only require at most 100% reward",
            ));
        }
        verify_owners(&t.validation_rewards_owner.0).map_err(TxError::InvalidOutput)?;
        verify_owners(&t.delegation_rewards_owner.0).map_err(TxError::InvalidOutput)?;
        let public_key = match (&t.signer, t.subnet_id == Id::ZERO) {
            (Signer::ProofOfPossession(p), true) => {
                verify_pop(&p.public_key, &p.proof_of_possession)?;
                Some(p.public_key)
            }
            (Signer::Empty, false) => None,
            _ => return Err(TxError::Syntax("invalid signer")),
        };
        if t.subnet_id != Id::ZERO {
            return Err(TxError::Staking("is not a transform subnet tx"));
        }

        let s = &self.config.staking;
        let now = state.timestamp();
        let duration = v.end.saturating_sub(now);
        if v.weight < s.min_validator_stake {
            return Err(TxError::Staking("weight of this validator is too low"));
        }
        if v.weight > s.max_validator_stake {
            return Err(TxError::Staking("weight of this validator is too large"));
        }
        if t.shares < s.min_delegation_fee {
            return Err(TxError::Staking(
                "staker charges an insufficient delegation fee",
            ));
        }
        if duration < s.min_stake_duration_secs {
            return Err(TxError::Staking("staking period is too short"));
        }
        if duration > s.max_stake_duration_secs {
            return Err(TxError::Staking("staking period is too long"));
        }
        let staked_asset = t.stake[0].asset_id;
        if staked_asset != self.avax() {
            return Err(TxError::WrongStakedAsset {
                expected: self.avax(),
                actual: staked_asset,
            });
        }
        if state.validator(&t.subnet_id, &v.node_id).is_some() {
            return Err(TxError::DuplicateValidator {
                node_id: v.node_id,
                subnet_id: t.subnet_id,
            });
        }
        let mut spend = self.base_spend(tx, &t.base, tx.credentials().len(), 0)?;
        spend.outputs.extend(&t.stake);
        verify_spend(state, self.avax(), &spend, now).map_err(Self::flow_failed)?;

        let potential = math::reward(&s.reward, duration, v.weight, state.supply());
        state.set_supply(state.supply().saturating_add(potential));
        state.put_staker(Staker {
            tx_id: tx.id(),
            kind: StakerKind::Validator,
            subnet_id: Id::ZERO,
            node_id: v.node_id,
            public_key,
            weight: v.weight,
            start_time: now,
            end_time: v.end,
            potential_reward: potential,
            delegation_fee: t.shares,
            delegatee_reward: 0,
            stake: t.stake.clone(),
            outputs_len: t.base.outputs.len() as u32,
            reward_owner: t.validation_rewards_owner.0.clone(),
            delegation_reward_owner: t.delegation_rewards_owner.0.clone(),
        });
        Ok(())
    }

    pub(super) fn add_delegator(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &AddPermissionlessDelegatorTx,
    ) -> Result<(), TxError> {
        let d = &t.validator;
        verify_stake(
            &t.stake,
            d.weight,
            "delegator weight is not equal to total stake weight",
        )?;
        verify_owners(&t.rewards_owner.0).map_err(TxError::InvalidOutput)?;
        if t.subnet_id != Id::ZERO {
            return Err(TxError::Staking("is not a transform subnet tx"));
        }
        let s = &self.config.staking;
        let now = state.timestamp();
        let duration = d.end.saturating_sub(now);
        if duration < s.min_stake_duration_secs {
            return Err(TxError::Staking("staking period is too short"));
        }
        if duration > s.max_stake_duration_secs {
            return Err(TxError::Staking("staking period is too long"));
        }
        if d.weight < s.min_delegator_stake {
            return Err(TxError::Staking("weight of this validator is too low"));
        }
        let validator = state
            .validator(&t.subnet_id, &d.node_id)
            .ok_or(TxError::PrimaryValidatorNotFound(d.node_id))?;
        if d.end > validator.end_time {
            return Err(TxError::Staking(
                "proposed staking period is not inside dependent staking period",
            ));
        }
        let max_weight = validator
            .weight
            .saturating_mul(s.max_validator_weight_factor)
            .min(s.max_validator_stake);
        let delegated: u64 = state
            .delegators_of(&t.subnet_id, &d.node_id)
            .iter()
            .map(|x| x.weight)
            .sum();
        let total = validator
            .weight
            .saturating_add(delegated)
            .saturating_add(d.weight);
        if total > max_weight {
            return Err(TxError::Staking("validator would be over delegated"));
        }
        let staked_asset = t.stake[0].asset_id;
        if staked_asset != self.avax() {
            return Err(TxError::WrongStakedAsset {
                expected: self.avax(),
                actual: staked_asset,
            });
        }
        let mut spend = self.base_spend(tx, &t.base, tx.credentials().len(), 0)?;
        spend.outputs.extend(&t.stake);
        verify_spend(state, self.avax(), &spend, now).map_err(Self::flow_failed)?;

        let potential = math::reward(&s.reward, duration, d.weight, state.supply());
        state.set_supply(state.supply().saturating_add(potential));
        state.put_staker(Staker {
            tx_id: tx.id(),
            kind: StakerKind::Delegator,
            subnet_id: Id::ZERO,
            node_id: d.node_id,
            public_key: None,
            weight: d.weight,
            start_time: now,
            end_time: d.end,
            potential_reward: potential,
            delegation_fee: 0,
            delegatee_reward: 0,
            stake: t.stake.clone(),
            outputs_len: t.base.outputs.len() as u32,
            reward_owner: t.rewards_owner.0.clone(),
            delegation_reward_owner: Default::default(),
        });
        Ok(())
    }

    pub(super) fn add_subnet_validator(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &AddSubnetValidatorTx,
    ) -> Result<(), TxError> {
        let v = &t.validator.validator;
        let subnet_id = t.validator.subnet_id;
        if subnet_id == Id::ZERO {
            return Err(TxError::Syntax(
                "can't add primary network validator with AddSubnetValidatorTx",
            ));
        }
        if v.node_id == NodeId::EMPTY {
            return Err(TxError::Syntax("validator nodeID cannot be empty"));
        }
        if v.weight == 0 {
            return Err(TxError::Staking("weight of this validator is too low"));
        }
        let s = &self.config.staking;
        let now = state.timestamp();
        let duration = v.end.saturating_sub(now);
        if duration < s.min_stake_duration_secs {
            return Err(TxError::Staking("staking period is too short"));
        }
        if duration > s.max_stake_duration_secs {
            return Err(TxError::Staking("staking period is too long"));
        }
        if state.validator(&subnet_id, &v.node_id).is_some() {
            return Err(TxError::DuplicateValidator {
                node_id: v.node_id,
                subnet_id,
            });
        }
        let primary =
            state
                .validator(&Id::ZERO, &v.node_id)
                .ok_or_else(|| TxError::NotValidator {
                    node_id: v.node_id,
                    of: "the primary network".into(),
                })?;
        if v.end > primary.end_time {
            return Err(TxError::Staking(
                "proposed staking period is not inside dependent staking period",
            ));
        }
        let hash = tx.unsigned().signing_hash();
        let n = self.poa_auth(state, &hash, subnet_id, &t.subnet_auth, tx.credentials())?;
        let spend = self.base_spend(tx, &t.base, n, 0)?;
        verify_spend(state, self.avax(), &spend, now).map_err(Self::flow_failed)?;
        state.put_staker(Staker {
            tx_id: tx.id(),
            kind: StakerKind::SubnetValidator,
            subnet_id,
            node_id: v.node_id,
            public_key: None,
            weight: v.weight,
            start_time: now,
            end_time: v.end,
            potential_reward: 0,
            delegation_fee: 0,
            delegatee_reward: 0,
            stake: Vec::new(),
            outputs_len: t.base.outputs.len() as u32,
            reward_owner: Default::default(),
            delegation_reward_owner: Default::default(),
        });
        Ok(())
    }

    pub(super) fn remove_subnet_validator(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &RemoveSubnetValidatorTx,
    ) -> Result<(), TxError> {
        if t.subnet_id == Id::ZERO {
            return Err(TxError::Staking(
                "attempting to remove permissionless validator",
            ));
        }
        let staker = state
            .validator(&t.subnet_id, &t.node_id)
            .filter(|s| s.kind == StakerKind::SubnetValidator)
            .map(|s| s.tx_id)
            .ok_or_else(|| TxError::NotValidator {
                node_id: t.node_id,
                of: format!("{}: not found", t.subnet_id),
            })?;
        let hash = tx.unsigned().signing_hash();
        let n = self.poa_auth(state, &hash, t.subnet_id, &t.subnet_auth, tx.credentials())?;
        let spend = self.base_spend(tx, &t.base, n, 0)?;
        verify_spend(state, self.avax(), &spend, state.timestamp())?;
        state.remove_staker(&staker);
        Ok(())
    }

    /// Ends the staker added by `staker_tx` at the chain time, as RewardValidatorTx does:
    /// returns its stake and, on commit, mints its reward (validators: reward and accrued
    /// delegation fees; delegators: their share, the validator's fee accruing to it). On
    /// abort the potential reward leaves the supply again.
    pub fn reward(&self, state: &mut State, staker_tx: Id, commit: bool) -> Result<(), TxError> {
        let mark = state.mark();
        let r = self.reward_inner(state, staker_tx, commit);
        if r.is_err() {
            state.rollback_to(mark);
        }
        r
    }

    fn reward_inner(&self, state: &mut State, staker_tx: Id, commit: bool) -> Result<(), TxError> {
        let next = state
            .next_staker_to_end()
            .ok_or(TxError::RemoveWrongStaker)?;
        if next.tx_id != staker_tx || next.end_time > state.timestamp() {
            return Err(TxError::RemoveWrongStaker);
        }
        let staker = state
            .remove_staker(&staker_tx)
            .ok_or(TxError::RemoveWrongStaker)?;
        let base_index = staker.outputs_len + staker.stake.len() as u32;
        for (i, out) in staker.stake.iter().enumerate() {
            state.add_utxo(Utxo {
                tx_id: staker_tx,
                output_index: staker.outputs_len + i as u32,
                asset_id: out.asset_id,
                output: out.output.clone(),
            });
        }
        let asset = staker.stake.first().map_or(self.avax(), |o| o.asset_id);
        let mint = |state: &mut State,
                    index: u32,
                    amount: u64,
                    owners: &firn_core::pchain::fx::OutputOwners,
                    kind| {
            let utxo = Utxo {
                tx_id: staker_tx,
                output_index: index,
                asset_id: asset,
                output: Output::Transfer(TransferOutput {
                    amount,
                    owners: owners.clone(),
                }),
            };
            state.add_utxo(utxo.clone());
            state.add_reward_utxo(staker_tx, RewardUtxo { utxo, kind });
        };
        match staker.kind {
            StakerKind::Validator => {
                let mut index = base_index;
                if commit && staker.potential_reward > 0 {
                    mint(
                        state,
                        index,
                        staker.potential_reward,
                        &staker.reward_owner,
                        RewardKind::Validator,
                    );
                    index += 1;
                }
                if staker.delegatee_reward > 0 {
                    mint(
                        state,
                        index,
                        staker.delegatee_reward,
                        &staker.delegation_reward_owner,
                        RewardKind::ValidatorFee,
                    );
                }
            }
            StakerKind::Delegator => {
                if commit {
                    let validator = state
                        .validator(&staker.subnet_id, &staker.node_id)
                        .cloned()
                        .ok_or(TxError::PrimaryValidatorNotFound(staker.node_id))?;
                    let (fee, rest) =
                        math::split(staker.potential_reward, validator.delegation_fee);
                    if rest > 0 {
                        mint(
                            state,
                            base_index,
                            rest,
                            &staker.reward_owner,
                            RewardKind::Delegator,
                        );
                    }
                    if fee > 0 {
                        let mut v = validator;
                        v.delegatee_reward = v.delegatee_reward.saturating_add(fee);
                        state.put_staker(v);
                    }
                }
            }
            StakerKind::SubnetValidator => return Err(TxError::RemoveWrongStaker),
        }
        if !commit {
            state.set_supply(state.supply().saturating_sub(staker.potential_reward));
        }
        Ok(())
    }
}
