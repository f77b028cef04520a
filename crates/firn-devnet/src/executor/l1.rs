//! ACP-77 L1 txs: ConvertSubnetToL1Tx, RegisterL1ValidatorTx, SetL1ValidatorWeightTx,
//! IncreaseL1ValidatorBalanceTx and DisableL1ValidatorTx (AvalancheGo's
//! `standard_tx_executor.go`), with the Warp signature checked against the source L1's
//! validator set at a 67% quorum.

use super::Executor;
use super::spend::{verify_auth, verify_spend};
use super::staking::verify_pop;
use super::syntax::{pchain_owner, verify_owners};
use crate::error::TxError;
use crate::state::validators::{canonical, compute_set};
use crate::state::{Conversion, L1Validator, State, Utxo};
use firn_core::ids::{Id, NodeId};
use firn_core::pchain::fx::{Output, TransferOutput};
use firn_core::pchain::tx::{
    ConvertSubnetToL1Tx, DisableL1ValidatorTx, IncreaseL1ValidatorBalanceTx, RegisterL1ValidatorTx,
    SetL1ValidatorWeightTx, Tx,
};
use firn_core::warp::messages::{ConversionValidatorData, L1Message, SubnetToL1ConversionData};
use firn_core::warp::payload::Payload;
use firn_core::warp::{DEFAULT_QUORUM_NUM, Message, QUORUM_DEN};

/// How far ahead a RegisterL1Validator message may expire (AvalancheGo: one day).
pub const REGISTER_EXPIRY_WINDOW: u64 = 24 * 3600;
const MAX_ADDRESS_LEN: usize = 4096;

fn warp_err(e: impl std::fmt::Display) -> TxError {
    TxError::Warp(e.to_string())
}

impl Executor<'_> {
    fn check_capacity(&self, state: &State) -> Result<(), TxError> {
        if state.active_l1_count() >= self.config.l1_fees.capacity {
            return Err(TxError::L1(
                "already at the max number of active validators",
            ));
        }
        Ok(())
    }

    pub(super) fn convert_subnet(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &ConvertSubnetToL1Tx,
    ) -> Result<(), TxError> {
        if t.subnet_id == Id::ZERO {
            return Err(TxError::Syntax("cannot convert a permissionless subnet"));
        }
        if t.address.len() > MAX_ADDRESS_LEN {
            return Err(TxError::Syntax("address is too long"));
        }
        if t.validators.is_empty() {
            return Err(TxError::Syntax(
                "conversion must include at least one validator",
            ));
        }
        if t.validators
            .windows(2)
            .any(|w| w[0].node_id.0 >= w[1].node_id.0)
        {
            return Err(TxError::Syntax(
                "conversion validators must be sorted and unique",
            ));
        }
        let mut balances = 0u64;
        for v in &t.validators {
            if v.weight == 0 {
                return Err(TxError::Syntax("validator weight must be non-zero"));
            }
            let node_id = NodeId::from_slice(&v.node_id).map_err(|_| {
                TxError::Warp(format!("expected 20 bytes but got {}", v.node_id.len()))
            })?;
            if node_id == NodeId::EMPTY {
                return Err(TxError::Syntax("validator nodeID cannot be empty"));
            }
            verify_pop(&v.signer.public_key, &v.signer.proof_of_possession)?;
            verify_owners(&pchain_owner(&v.remaining_balance_owner))
                .map_err(TxError::InvalidOutput)?;
            verify_owners(&pchain_owner(&v.deactivation_owner)).map_err(TxError::InvalidOutput)?;
            balances = balances.checked_add(v.balance).ok_or(TxError::Overflow)?;
        }
        let hash = tx.unsigned().signing_hash();
        let n = self.poa_auth(state, &hash, t.subnet_id, &t.subnet_auth, tx.credentials())?;
        verify_spend(
            state,
            self.avax(),
            &self.base_spend(tx, &t.base, n, balances)?,
            state.timestamp(),
        )?;

        let now = state.timestamp();
        let mut data = SubnetToL1ConversionData {
            subnet_id: t.subnet_id,
            manager_chain_id: t.chain_id,
            manager_address: t.address.0.clone(),
            validators: Vec::with_capacity(t.validators.len()),
        };
        for (i, v) in t.validators.iter().enumerate() {
            let node_id = NodeId::from_slice(&v.node_id).map_err(warp_err)?;
            let mut end_accumulated_fee = 0;
            if v.balance != 0 {
                self.check_capacity(state)?;
                end_accumulated_fee = v
                    .balance
                    .checked_add(state.accrued_fees())
                    .ok_or(TxError::Overflow)?;
            }
            if state.l1_validator_by_node(&t.subnet_id, &node_id).is_some() {
                return Err(TxError::L1(
                    "L1 validator contains conflicting subnetID + nodeID pair",
                ));
            }
            state.put_l1_validator(L1Validator {
                validation_id: t.subnet_id.append(i as u32),
                subnet_id: t.subnet_id,
                node_id,
                public_key: v.signer.public_key,
                remaining_balance_owner: v.remaining_balance_owner.clone(),
                deactivation_owner: v.deactivation_owner.clone(),
                start_time: now,
                weight: v.weight,
                min_nonce: 0,
                end_accumulated_fee,
            });
            data.validators.push(ConversionValidatorData {
                node_id,
                bls_public_key: v.signer.public_key,
                weight: v.weight,
            });
        }
        let mut subnet = state
            .subnet(&t.subnet_id)
            .cloned()
            .ok_or(TxError::SubnetNotFound(t.subnet_id))?;
        subnet.conversion = Some(Conversion {
            conversion_id: data.id(),
            chain_id: t.chain_id,
            address: t.address.0.clone(),
        });
        state.put_subnet(subnet);
        Ok(())
    }

    /// Decodes a signed Warp message carrying a P-Chain L1 message in an AddressedCall.
    fn parse_warp(bytes: &[u8]) -> Result<(Message, Vec<u8>, L1Message), TxError> {
        let msg = Message::from_bytes(bytes).map_err(warp_err)?;
        let call = match Payload::from_bytes(&msg.unsigned.payload).map_err(warp_err)? {
            Payload::AddressedCall(c) => c,
            Payload::Hash(_) => {
                return Err(TxError::Warp(
                    "wrong payload type: expected AddressedCall, found Hash".into(),
                ));
            }
        };
        let l1 = L1Message::from_bytes(&call.payload).map_err(warp_err)?;
        Ok((msg, call.source_address, l1))
    }

    /// AvalancheGo's `verifyL1Conversion`: the message comes from the L1's manager.
    fn verify_manager(
        state: &State,
        subnet_id: Id,
        msg: &Message,
        source_address: &[u8],
    ) -> Result<(), TxError> {
        let conv = state
            .subnet(&subnet_id)
            .and_then(|s| s.conversion.as_ref())
            .ok_or_else(|| {
                TxError::Warp(format!(
                    "could not load subnet conversion for {subnet_id} with: not found"
                ))
            })?;
        if msg.unsigned.source_chain_id != conv.chain_id {
            return Err(TxError::Warp(format!(
                "wrong warp message source chain ID expected {} but had {}",
                conv.chain_id, msg.unsigned.source_chain_id
            )));
        }
        if source_address != conv.address.as_slice() {
            return Err(TxError::L1("wrong warp message source address"));
        }
        Ok(())
    }

    /// Verifies the Warp signature against the current validators of the source chain's
    /// subnet (the primary network for chains the P-Chain does not know), 67% quorum.
    fn verify_warp_signature(&self, state: &State, msg: &Message) -> Result<(), TxError> {
        let source = msg.unsigned.source_chain_id;
        let subnet = state.chain(&source).map_or(Id::ZERO, |c| c.subnet_id);
        let set = canonical(&compute_set(state, subnet)).map_err(warp_err)?;
        set.verify(
            msg,
            self.identity.network_id,
            DEFAULT_QUORUM_NUM,
            QUORUM_DEN,
        )
        .map_err(|e| TxError::Warp(format!("failed to verify warp message: {e}")))
    }

    pub(super) fn register_l1_validator(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &RegisterL1ValidatorTx,
    ) -> Result<(), TxError> {
        let n = tx.credentials().len();
        verify_spend(
            state,
            self.avax(),
            &self.base_spend(tx, &t.base, n, t.balance)?,
            state.timestamp(),
        )?;
        let (msg, source_address, l1) = Self::parse_warp(&t.message)?;
        let L1Message::RegisterL1Validator(reg) = l1 else {
            return Err(TxError::Warp(format!(
                "wrong payload type: expected RegisterL1Validator, found {}",
                l1.type_name()
            )));
        };
        reg.verify().map_err(warp_err)?;
        Self::verify_manager(state, reg.subnet_id, &msg, &source_address)?;
        let now = state.timestamp();
        if reg.expiry <= now {
            return Err(TxError::Warp(format!(
                "warp message expired at {} and it is currently {now}",
                reg.expiry
            )));
        }
        if reg.expiry - now > REGISTER_EXPIRY_WINDOW {
            return Err(TxError::Warp(format!(
                "warp message not yet allowed because time is {} seconds in the future but the limit is {REGISTER_EXPIRY_WINDOW}",
                reg.expiry - now
            )));
        }
        let validation_id = reg.validation_id();
        if state.has_expiry(reg.expiry, &validation_id) {
            return Err(TxError::Warp(format!(
                "warp message already issued for validationID {validation_id}"
            )));
        }
        verify_pop(&reg.bls_public_key, &t.proof_of_possession)?;
        self.verify_warp_signature(state, &msg)?;
        if state
            .l1_validator_by_node(&reg.subnet_id, &reg.node_id)
            .is_some()
            || state.l1_validator(&validation_id).is_some()
        {
            return Err(TxError::L1(
                "L1 validator contains conflicting subnetID + nodeID pair",
            ));
        }
        let mut end_accumulated_fee = 0;
        if t.balance != 0 {
            self.check_capacity(state)?;
            end_accumulated_fee = t
                .balance
                .checked_add(state.accrued_fees())
                .ok_or(TxError::Overflow)?;
        }
        state.put_l1_validator(L1Validator {
            validation_id,
            subnet_id: reg.subnet_id,
            node_id: reg.node_id,
            public_key: reg.bls_public_key,
            remaining_balance_owner: reg.remaining_balance_owner.clone(),
            deactivation_owner: reg.disable_owner.clone(),
            start_time: now,
            weight: reg.weight,
            min_nonce: 0,
            end_accumulated_fee,
        });
        state.add_expiry(reg.expiry, validation_id);
        Ok(())
    }

    fn refund_balance(
        &self,
        state: &mut State,
        tx: &Tx,
        outputs_len: usize,
        v: &L1Validator,
    ) -> Result<(), TxError> {
        if !v.is_active() {
            return Ok(());
        }
        let remaining = v.balance(state.accrued_fees());
        if remaining == 0 {
            return Err(TxError::L1(
                "state corruption: validator should have already been disabled",
            ));
        }
        state.add_utxo(Utxo {
            tx_id: tx.id(),
            output_index: outputs_len as u32,
            asset_id: self.avax(),
            output: Output::Transfer(TransferOutput {
                amount: remaining,
                owners: pchain_owner(&v.remaining_balance_owner),
            }),
        });
        Ok(())
    }

    pub(super) fn set_l1_validator_weight(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &SetL1ValidatorWeightTx,
    ) -> Result<(), TxError> {
        let n = tx.credentials().len();
        verify_spend(
            state,
            self.avax(),
            &self.base_spend(tx, &t.base, n, 0)?,
            state.timestamp(),
        )?;
        let (msg, source_address, l1) = Self::parse_warp(&t.message)?;
        let L1Message::L1ValidatorWeight(w) = l1 else {
            return Err(TxError::Warp(format!(
                "wrong payload type: expected L1ValidatorWeight, found {}",
                l1.type_name()
            )));
        };
        w.verify().map_err(warp_err)?;
        let mut v = state
            .l1_validator(&w.validation_id)
            .cloned()
            .ok_or(TxError::L1ValidatorNotFound(w.validation_id))?;
        if w.nonce < v.min_nonce {
            return Err(TxError::Warp(format!(
                "warp message contains stale nonce {} must be at least {}",
                w.nonce, v.min_nonce
            )));
        }
        Self::verify_manager(state, v.subnet_id, &msg, &source_address)?;
        self.verify_warp_signature(state, &msg)?;
        if w.weight == 0 {
            let total: u64 = state.l1_validators_of(v.subnet_id).map(|x| x.weight).sum();
            if total == v.weight {
                return Err(TxError::L1(
                    "attempting to remove the last L1 validator from a converted subnet",
                ));
            }
            self.refund_balance(state, tx, t.base.outputs.len(), &v)?;
            state.remove_l1_validator(&v.validation_id);
            return Ok(());
        }
        v.min_nonce = w.nonce.saturating_add(1);
        v.weight = w.weight;
        state.put_l1_validator(v);
        Ok(())
    }

    pub(super) fn increase_l1_balance(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &IncreaseL1ValidatorBalanceTx,
    ) -> Result<(), TxError> {
        if t.balance == 0 {
            return Err(TxError::Syntax("balance must be greater than 0"));
        }
        let n = tx.credentials().len();
        verify_spend(
            state,
            self.avax(),
            &self.base_spend(tx, &t.base, n, t.balance)?,
            state.timestamp(),
        )?;
        let mut v = state
            .l1_validator(&t.validation_id)
            .cloned()
            .ok_or(TxError::L1ValidatorNotFound(t.validation_id))?;
        if !v.is_active() {
            self.check_capacity(state)?;
            v.end_accumulated_fee = state.accrued_fees();
        }
        v.end_accumulated_fee = v
            .end_accumulated_fee
            .checked_add(t.balance)
            .ok_or(TxError::Overflow)?;
        state.put_l1_validator(v);
        Ok(())
    }

    pub(super) fn disable_l1_validator(
        &self,
        state: &mut State,
        tx: &Tx,
        t: &DisableL1ValidatorTx,
    ) -> Result<(), TxError> {
        let mut v = state
            .l1_validator(&t.validation_id)
            .cloned()
            .ok_or(TxError::L1ValidatorNotFound(t.validation_id))?;
        let hash = tx.unsigned().signing_hash();
        let n = verify_auth(
            &hash,
            &t.disable_auth,
            tx.credentials(),
            &pchain_owner(&v.deactivation_owner),
            state.timestamp(),
        )?;
        verify_spend(
            state,
            self.avax(),
            &self.base_spend(tx, &t.base, n, 0)?,
            state.timestamp(),
        )?;
        self.refund_balance(state, tx, t.base.outputs.len(), &v)?;
        v.end_accumulated_fee = 0;
        state.put_l1_validator(v);
        Ok(())
    }
}
