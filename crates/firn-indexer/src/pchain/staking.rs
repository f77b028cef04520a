//! Staking txs: the stakers they add, the stakers they end and the rewards an ending pays
//! (read from `platform.getRewardUTXOs`, typed by the proposal's commit or abort).

use std::collections::BTreeSet;

use firn_core::ids::ShortId;
use firn_core::network::P_CHAIN_ID;
use firn_core::pchain::UnsignedTx;
use firn_core::pchain::fx::{OutputOwners, Signer, TransferableOutput};
use firn_core::pchain::reward::fee_percent_text;
use firn_store::rows::pchain::{
    BlsCredentials, NewReward, NewStaker, PTx, PUtxo, RewardType, UtxoType,
};

use super::derive::{Deriver, TxCtx, hex_of};
use super::source::RawUtxo;
use crate::error::Result;

impl Deriver {
    /// Stakers added and ended, and the rewards an ending pays.
    pub(super) async fn staking(
        &mut self,
        ctx: &TxCtx<'_>,
        out: &mut PTx,
        addresses: &mut BTreeSet<ShortId>,
    ) -> Result<()> {
        let unsigned = ctx.tx.unsigned();
        let (start, end) = staking_window(unsigned, ctx.timestamp);
        let staker =
            |node_id, subnet_id, weight, is_delegator, fee: u32, owner: &OutputOwners| NewStaker {
                node_id,
                subnet_id,
                start_ts: start,
                end_ts: end,
                weight,
                is_delegator,
                delegation_fee: fee,
                reward_addresses: owner.addresses.clone(),
                estimated_reward: None,
            };
        let mut new = match unsigned {
            UnsignedTx::AddValidator(t) => Some(staker(
                t.validator.node_id,
                P_CHAIN_ID,
                t.validator.weight,
                false,
                t.shares,
                &t.rewards_owner.0,
            )),
            UnsignedTx::AddPermissionlessValidator(t) => {
                if let Signer::ProofOfPossession(p) = &t.signer {
                    out.core.details.bls_credentials = Some(BlsCredentials {
                        public_key: format!("0x{}", hex_of(&p.public_key)),
                        proof_of_possession: format!("0x{}", hex_of(&p.proof_of_possession)),
                    });
                }
                addresses.extend(t.delegation_rewards_owner.0.addresses.iter().copied());
                Some(staker(
                    t.validator.node_id,
                    t.subnet_id,
                    t.validator.weight,
                    false,
                    t.shares,
                    &t.validation_rewards_owner.0,
                ))
            }
            UnsignedTx::AddDelegator(t) => Some(staker(
                t.validator.node_id,
                P_CHAIN_ID,
                t.validator.weight,
                true,
                0,
                &t.rewards_owner.0,
            )),
            UnsignedTx::AddPermissionlessDelegator(t) => Some(staker(
                t.validator.node_id,
                t.subnet_id,
                t.validator.weight,
                true,
                0,
                &t.rewards_owner.0,
            )),
            UnsignedTx::AddSubnetValidator(t) => {
                let v = &t.validator;
                self.known
                    .subnet_validator_added(v.subnet_id, v.validator.node_id, ctx.id);
                Some(staker(
                    v.validator.node_id,
                    v.subnet_id,
                    v.validator.weight,
                    false,
                    0,
                    &OutputOwners::default(),
                ))
            }
            _ => None,
        };
        if let Some(s) = new.as_mut().filter(|s| s.subnet_id == P_CHAIN_ID)
            && !matches!(unsigned, UnsignedTx::AddSubnetValidator(_))
        {
            self.primary_staker_rewards(ctx, s).await?;
            out.core.details.estimated_reward = s.estimated_reward;
        }
        if let Some(s) = new {
            out.core.node_id = Some(s.node_id);
            out.core.subnet_id = Some(s.subnet_id);
            out.core.start_ts = Some(s.start_ts);
            out.core.end_ts = Some(s.end_ts);
            out.core.details.reward_addresses = s.reward_addresses.clone();
            if !s.is_delegator && !matches!(unsigned, UnsignedTx::AddSubnetValidator(_)) {
                out.core.details.delegation_fee_percent = Some(fee_percent_text(s.delegation_fee));
            }
            addresses.extend(s.reward_addresses.iter().copied());
            self.known.staker_added(ctx.id, s.is_delegator);
            out.staker = Some(s);
        }
        match unsigned {
            UnsignedTx::RemoveSubnetValidator(t) => {
                out.core.node_id = Some(t.node_id);
                out.core.subnet_id = Some(t.subnet_id);
                let ended = self
                    .known
                    .take_subnet_validator(t.subnet_id, t.node_id, &self.store)
                    .await?;
                out.core.ends_staker = Some(ended);
            }
            UnsignedTx::RewardValidator(t) => {
                out.core.ends_staker = Some(t.tx_id);
                let mut rewards = self.source.reward_utxos(t.tx_id).await?;
                rewards.sort_by_key(|r| r.output_index);
                let is_delegator = self.known.is_delegator(t.tx_id, &self.store).await?;
                // The node mints a validator's own reward first (on commit), then its
                // delegation fees; a delegator gets its reward on commit only, followed
                // (before Cortina) by its validator's fee.
                let committed = ctx.committed.unwrap_or(!rewards.is_empty());
                for (i, r) in rewards.iter().enumerate() {
                    let kind = if is_delegator && i == 0 {
                        RewardType::Delegator
                    } else if !is_delegator && committed && i == 0 {
                        RewardType::Validator
                    } else {
                        RewardType::ValidatorFee
                    };
                    let u = reward_utxo(r, kind);
                    addresses.extend(u.addresses.iter().copied());
                    out.rewards.push(NewReward {
                        utxo_id: u.utxo_id,
                        output_index: u.output_index,
                        reward_type: kind,
                        staking_tx_hash: t.tx_id,
                        asset_id: u.asset_id,
                        amount: u.amount,
                        addresses: u.addresses.clone(),
                    });
                    self.known.created(&u, true);
                    out.emitted.push(u);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A new primary-network staker's potential reward (from the node, while it lists the
    /// staker as current) and, for a delegator, its validator's fee: the rate its reward will
    /// be split at (`NewStaker::delegation_fee`).
    async fn primary_staker_rewards(&mut self, ctx: &TxCtx<'_>, s: &mut NewStaker) -> Result<()> {
        let current = self.source.current_staker(s.node_id, ctx.id).await?;
        s.estimated_reward = current.map(|c| c.potential_reward);
        if s.is_delegator {
            s.delegation_fee = match current {
                Some(c) => c.validator_shares,
                None => {
                    self.known
                        .validator_shares(s.node_id, s.start_ts, &self.store)
                        .await?
                }
            };
        } else {
            self.known.validator_added(s.node_id, s.delegation_fee);
        }
        Ok(())
    }
}

/// The stake outputs of a staking tx, `None` for other txs.
pub(crate) fn stake_outputs(tx: &UnsignedTx) -> Option<&[TransferableOutput]> {
    Some(match tx {
        UnsignedTx::AddValidator(t) => &t.stake,
        UnsignedTx::AddDelegator(t) => &t.stake,
        UnsignedTx::AddPermissionlessValidator(t) => &t.stake,
        UnsignedTx::AddPermissionlessDelegator(t) => &t.stake,
        _ => return None,
    })
}

/// Start and end of a staker. Post-Durango stakers start when accepted (the block time);
/// older txs name a start after their acceptance.
pub(super) fn staking_window(tx: &UnsignedTx, block_time: u64) -> (u64, u64) {
    let v = match tx {
        UnsignedTx::AddValidator(t) => &t.validator,
        UnsignedTx::AddDelegator(t) => &t.validator,
        UnsignedTx::AddPermissionlessValidator(t) => &t.validator,
        UnsignedTx::AddPermissionlessDelegator(t) => &t.validator,
        UnsignedTx::AddSubnetValidator(t) => &t.validator.validator,
        _ => return (0, 0),
    };
    (v.start.max(block_time), v.end)
}

fn reward_utxo(r: &RawUtxo, kind: RewardType) -> PUtxo {
    let owners = &r.output.transfer().owners;
    PUtxo {
        utxo_id: r.id(),
        tx_hash: r.tx_id,
        output_index: r.output_index,
        asset_id: r.asset_id,
        amount: r.output.amount(),
        addresses: owners.addresses.clone(),
        threshold: owners.threshold,
        locktime: owners.locktime,
        stakeable_locktime: None,
        staked: false,
        utxo_type: UtxoType::Transfer,
        reward_type: Some(kind),
        created_on_chain: P_CHAIN_ID,
        consumed_on_chain: P_CHAIN_ID,
        start_ts: None,
        end_ts: None,
        bytes: r.bytes.clone(),
    }
}
