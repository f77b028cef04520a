//! X-Chain tx verification and execution, as AvalancheGo's `vms/avm/txs/executor` does it:
//! the syntactic checks (no state), the semantic checks (UTXOs, assets, fxs, credentials,
//! shared memory), then the effects.
//!
//! Verification only reads; [`XExecutor::execute`] applies a tx only once it verified, so an
//! invalid tx changes nothing. Error texts are AvalancheGo's, with its `%w:` wrapping.

use super::state::{Asset, XState};
use crate::error::TxError;
use crate::executor::spend::verify_credentials;
use crate::executor::syntax::{verify_owners, verify_sig_indices};
use crate::shared_memory::{AtomicUtxo, SharedMemory};
use firn_core::avax::UtxoId;
use firn_core::avax::secp256k1fx::{OutputOwners, SigIndices, TransferOutput};
use firn_core::avm::fx::{Credential, Fx, FxOperation, FxOutput};
use firn_core::avm::tx::{BaseTx, Operation, UnsignedTx};
use firn_core::avm::{TransferableInput, TransferableOutput, Tx, Utxo};
use firn_core::codec;
use firn_core::ids::Id;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Most bytes of an X-Chain memo (`avax.MaxMemoSize`).
pub const MAX_MEMO_SIZE: usize = 256;
/// Most bytes of an NFT's payload (`nftfx.MaxPayloadSize`).
pub const MAX_PAYLOAD_SIZE: usize = 1024;
const MAX_NAME_LEN: usize = 128;
const MAX_SYMBOL_LEN: usize = 4;
const MAX_DENOMINATION: u8 = 32;

/// The X-Chain's static fees (`avm/config.Config`), nAVAX.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct XFees {
    /// What every tx but CreateAssetTx burns.
    pub tx_fee: u64,
    /// What a CreateAssetTx burns.
    pub create_asset_tx_fee: u64,
}

/// What the executor needs of its chain and network.
#[derive(Debug, Clone, Copy)]
pub struct XExecutor<'a> {
    /// The network ID.
    pub network_id: u32,
    /// The X-Chain's ID.
    pub chain_id: Id,
    /// AVAX: the asset fees are paid in.
    pub avax: Id,
    /// The static fees.
    pub fees: XFees,
    /// The chains of the primary network this chain may import from and export to.
    pub peers: &'a [Id],
    /// Shared memory.
    pub shared: &'a SharedMemory,
    /// Replaying accepted blocks: an imported UTXO missing from shared memory (its export not
    /// replayed yet) is taken as the input describes it, as AvalancheGo skips these checks
    /// while bootstrapping.
    pub replaying: bool,
}

fn rule(text: impl Into<String>) -> TxError {
    TxError::Rule(text.into())
}

impl XExecutor<'_> {
    /// Verifies `tx` against `state` at time `now` and applies it. On error nothing changed.
    pub fn execute(&self, state: &mut XState, tx: &Tx, now: u64) -> Result<(), TxError> {
        self.verify_syntax(tx)?;
        self.verify_semantics(state, tx, now)?;
        apply(state, tx);
        Ok(())
    }

    /// The fee `tx` burns.
    pub fn fee_of(&self, tx: &UnsignedTx) -> u64 {
        match tx {
            UnsignedTx::CreateAsset(_) => self.fees.create_asset_tx_fee,
            _ => self.fees.tx_fee,
        }
    }

    // ---- syntax ----

    /// The checks that need no state (`SyntacticVerifier`).
    pub fn verify_syntax(&self, tx: &Tx) -> Result<(), TxError> {
        let unsigned = tx.unsigned();
        let base = unsigned.base();
        let fee = self.fee_of(unsigned);
        let none: &[TransferableInput] = &[];
        let (inputs, outputs, credentials_needed): (
            [&[TransferableInput]; 2],
            [&[TransferableOutput]; 2],
            usize,
        ) = match unsigned {
            UnsignedTx::Base(_) => (
                [&base.inputs, none],
                [&base.outputs, &[]],
                base.inputs.len(),
            ),
            UnsignedTx::CreateAsset(t) => {
                verify_asset_definition(
                    &t.name,
                    &t.symbol,
                    t.denomination,
                    t.initial_states.len(),
                )?;
                (
                    [&base.inputs, none],
                    [&base.outputs, &[]],
                    base.inputs.len(),
                )
            }
            UnsignedTx::Operation(t) => {
                if t.operations.is_empty() {
                    return Err(rule("an operationTx must have at least one operation"));
                }
                (
                    [&base.inputs, none],
                    [&base.outputs, &[]],
                    base.inputs.len() + t.operations.len(),
                )
            }
            UnsignedTx::Import(t) => {
                if t.imported_inputs.is_empty() {
                    return Err(rule("no import inputs"));
                }
                (
                    [&base.inputs, &t.imported_inputs],
                    [&base.outputs, &[]],
                    base.inputs.len() + t.imported_inputs.len(),
                )
            }
            UnsignedTx::Export(t) => {
                if t.exported_outputs.is_empty() {
                    return Err(rule("no export outputs"));
                }
                (
                    [&base.inputs, none],
                    [&base.outputs, &t.exported_outputs],
                    base.inputs.len(),
                )
            }
        };
        self.verify_base(base)?;
        verify_flow(fee, self.avax, &inputs, &outputs)?;
        match unsigned {
            UnsignedTx::CreateAsset(t) => {
                for state in &t.initial_states {
                    if Fx::from_index(state.fx_index).is_none() {
                        return Err(rule("unknown feature extension"));
                    }
                    for o in &state.outputs {
                        verify_fx_output(o)?;
                    }
                    let bytes: Vec<Vec<u8>> = state.outputs.iter().map(codec::to_bytes).collect();
                    if bytes.windows(2).any(|w| w[0] > w[1]) {
                        return Err(rule("outputs not sorted"));
                    }
                }
                if t.initial_states
                    .windows(2)
                    .any(|w| w[0].fx_index >= w[1].fx_index)
                {
                    return Err(rule("initial states not sorted and unique"));
                }
            }
            UnsignedTx::Operation(t) => {
                let mut spent: HashSet<UtxoId> = base.inputs.iter().map(|i| i.utxo()).collect();
                for op in &t.operations {
                    verify_operation_syntax(op)?;
                    for u in &op.utxo_ids {
                        if !spent.insert(*u) {
                            return Err(rule("inputs attempt to double spend an input"));
                        }
                    }
                }
                let bytes: Vec<Vec<u8>> = t.operations.iter().map(codec::to_bytes).collect();
                if bytes.windows(2).any(|w| w[0] >= w[1]) {
                    return Err(rule("operations not sorted and unique"));
                }
            }
            _ => {}
        }
        let creds = tx.credentials().len();
        if creds != credentials_needed {
            return Err(rule(format!(
                "wrong number of credentials: {creds} != {credentials_needed}"
            )));
        }
        Ok(())
    }

    fn verify_base(&self, base: &BaseTx) -> Result<(), TxError> {
        if base.network_id != self.network_id {
            return Err(rule("tx has wrong network ID"));
        }
        if base.blockchain_id != self.chain_id {
            return Err(rule("tx has wrong chain ID"));
        }
        if base.memo.len() > MAX_MEMO_SIZE {
            return Err(rule(format!(
                "memo exceeds maximum length: {} > {MAX_MEMO_SIZE}",
                base.memo.len()
            )));
        }
        Ok(())
    }

    // ---- semantics ----

    /// The checks against the state (`SemanticVerifier`), for a tx that passed
    /// [`Self::verify_syntax`] (which matched its credentials to its inputs).
    fn verify_semantics(&self, state: &XState, tx: &Tx, now: u64) -> Result<(), TxError> {
        let unsigned = tx.unsigned();
        let base = unsigned.base();
        let hash = tx.signing_hash();
        let creds = tx.credentials();
        for (input, cred) in base.inputs.iter().zip(creds) {
            let utxo = state.utxo(&input.utxo_id()).ok_or_else(|| {
                rule(format!(
                    "failed to verify transfer: failed to get utxo {}: not found",
                    input.utxo_id()
                ))
            })?;
            self.verify_transfer(state, &hash, input, cred, &utxo.asset_id, &utxo.output, now)
                .map_err(|e| rule(format!("failed to verify transfer: {e}")))?;
        }
        for out in &base.outputs {
            verify_fx_usage(state, Fx::Secp256k1, &out.asset_id)
                .map_err(|e| rule(format!("failed to verify fx usage: {e}")))?;
        }
        let rest = creds.get(base.inputs.len()..).unwrap_or_default();
        match unsigned {
            UnsignedTx::Operation(t) => {
                for (op, cred) in t.operations.iter().zip(rest) {
                    self.verify_operation(state, &hash, op, cred, now)
                        .map_err(rule)?;
                }
            }
            UnsignedTx::Import(t) => {
                self.same_subnet(&t.source_chain)?;
                for (input, cred) in t.imported_inputs.iter().zip(rest) {
                    let id = input.utxo_id();
                    let utxo = if state.atomic().removes(&t.source_chain, &id) {
                        None
                    } else {
                        self.shared.get(&self.chain_id, &t.source_chain, &id)
                    };
                    let Some(utxo) = utxo else {
                        if self.replaying {
                            continue;
                        }
                        return Err(rule("not found"));
                    };
                    let output = FxOutput::Secp256k1Transfer(utxo.output);
                    self.verify_transfer(state, &hash, input, cred, &utxo.asset_id, &output, now)
                        .map_err(rule)?;
                }
            }
            UnsignedTx::Export(t) => {
                self.same_subnet(&t.destination_chain)?;
                for out in &t.exported_outputs {
                    verify_fx_usage(state, Fx::Secp256k1, &out.asset_id).map_err(rule)?;
                }
            }
            UnsignedTx::Base(_) | UnsignedTx::CreateAsset(_) => {}
        }
        Ok(())
    }

    fn same_subnet(&self, peer: &Id) -> Result<(), TxError> {
        if *peer == self.chain_id {
            return Err(rule("same chainID"));
        }
        if !self.peers.contains(peer) {
            return Err(rule(format!(
                "failed to get subnet of \"{peer}\": not found"
            )));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn verify_transfer(
        &self,
        state: &XState,
        hash: &[u8; 32],
        input: &TransferableInput,
        cred: &Credential,
        utxo_asset: &Id,
        utxo: &FxOutput,
        now: u64,
    ) -> Result<(), String> {
        if *utxo_asset != input.asset_id {
            return Err("asset IDs in the input don't match the utxo".into());
        }
        verify_fx_usage(state, cred.fx, &input.asset_id)?;
        if cred.fx != Fx::Secp256k1 {
            return Err("cant transfer with this fx".into());
        }
        let FxOutput::Secp256k1Transfer(out) = utxo else {
            return Err("wrong utxo type".into());
        };
        if out.amount != input.input.amount {
            return Err(format!(
                "utxo amount and input amount are not equal: {} != {}",
                out.amount, input.input.amount
            ));
        }
        verify_credentials(
            hash,
            &input.input.sig_indices,
            &cred.signatures,
            &out.owners,
            now,
        )
        .map_err(|e| e.to_string())
    }

    fn verify_operation(
        &self,
        state: &XState,
        hash: &[u8; 32],
        op: &Operation,
        cred: &Credential,
        now: u64,
    ) -> Result<(), String> {
        let mut utxos = Vec::with_capacity(op.utxo_ids.len());
        for u in &op.utxo_ids {
            let utxo = state.utxo(&u.id()).ok_or("not found")?;
            if utxo.asset_id != op.asset_id {
                return Err("asset IDs in the input don't match the utxo".into());
            }
            utxos.push(&utxo.output);
        }
        let fx = op.op.fx();
        verify_fx_usage(state, fx, &op.asset_id)?;
        let number_error = match fx {
            Fx::Secp256k1 => "wrong number of utxos for the operation",
            Fx::Nft | Fx::Property => "wrong number of UTXOs for the operation",
        };
        if fx != Fx::Secp256k1 && utxos.len() != 1 {
            return Err(number_error.into());
        }
        if cred.fx != fx {
            return Err("wrong credential type".into());
        }
        let [utxo] = utxos.as_slice() else {
            return Err(number_error.into());
        };
        let sign = |indices: &SigIndices, owners: &OutputOwners| {
            verify_credentials(hash, &indices.sig_indices, &cred.signatures, owners, now)
                .map_err(|e| e.to_string())
        };
        match (&op.op, utxo) {
            (FxOperation::Secp256k1Mint(m), FxOutput::Secp256k1Mint(owners)) => {
                if m.mint_output != *owners {
                    return Err("wrong mint output created from the operation".into());
                }
                sign(&m.mint_input, owners)
            }
            (FxOperation::NftMint(m), FxOutput::NftMint(out)) => {
                if out.group_id != m.group_id {
                    return Err("wrong unique ID provided".into());
                }
                sign(&m.mint_input, &out.owners)
            }
            (FxOperation::NftTransfer(t), FxOutput::NftTransfer(out)) => {
                if out.group_id != t.output.group_id {
                    return Err("wrong unique ID provided".into());
                }
                if out.payload != t.output.payload {
                    return Err("wrong bytes provided".into());
                }
                sign(&t.input, &out.owners)
            }
            (FxOperation::PropertyMint(m), FxOutput::PropertyMint(owners)) => {
                if m.mint_output != *owners {
                    return Err("wrong mint output provided".into());
                }
                sign(&m.mint_input, owners)
            }
            (FxOperation::PropertyBurn(indices), FxOutput::PropertyOwned(owners)) => {
                sign(indices, owners)
            }
            _ => Err("wrong utxo type".into()),
        }
    }
}

/// `verifyFxUsage`: the asset exists and one of its initial states uses `fx`.
fn verify_fx_usage(state: &XState, fx: Fx, asset_id: &Id) -> Result<(), String> {
    let asset = state.asset(asset_id).ok_or("not found")?;
    if asset.fxs.contains(&fx) {
        Ok(())
    } else {
        Err("incompatible feature extension".into())
    }
}

fn verify_asset_definition(
    name: &str,
    symbol: &str,
    denomination: u8,
    states: usize,
) -> Result<(), TxError> {
    let error = if name.is_empty() {
        Some("name is too short, minimum size is 1")
    } else if name.len() > MAX_NAME_LEN {
        Some("name is too long, maximum size is 128")
    } else if symbol.is_empty() {
        Some("symbol is too short, minimum size is 1")
    } else if symbol.len() > MAX_SYMBOL_LEN {
        Some("symbol is too long, maximum size is 4")
    } else if states == 0 {
        Some("assets must support at least one Fx")
    } else if denomination > MAX_DENOMINATION {
        Some("denomination is too large")
    } else if name.trim() != name {
        Some("unexpected whitespace provided")
    } else if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ') {
        Some("asset's name must be made up of only letters and numbers")
    } else if !symbol.chars().all(|c| c.is_ascii_uppercase()) {
        Some("asset's symbol must be all upper case letters")
    } else {
        None
    };
    error.map_or(Ok(()), |e| Err(rule(e)))
}

fn verify_owners_text(o: &OutputOwners) -> Result<(), TxError> {
    verify_owners(o).map_err(rule)
}

fn verify_transfer_output(o: &TransferOutput) -> Result<(), TxError> {
    if o.amount == 0 {
        return Err(rule("output has no value"));
    }
    verify_owners_text(&o.owners)
}

fn verify_indices(i: &SigIndices) -> Result<(), TxError> {
    verify_sig_indices(&i.sig_indices).map_err(|e| rule(e.to_string()))
}

fn verify_payload(payload: &[u8]) -> Result<(), TxError> {
    if payload.len() > MAX_PAYLOAD_SIZE {
        return Err(rule("payload too large"));
    }
    Ok(())
}

/// An output's own checks (`verify.State.Verify`).
fn verify_fx_output(o: &FxOutput) -> Result<(), TxError> {
    match o {
        FxOutput::Secp256k1Transfer(t) => verify_transfer_output(t),
        FxOutput::NftTransfer(n) => {
            verify_payload(&n.payload)?;
            verify_owners_text(&n.owners)
        }
        FxOutput::NftMint(n) => verify_owners_text(&n.owners),
        FxOutput::Secp256k1Mint(o) | FxOutput::PropertyMint(o) | FxOutput::PropertyOwned(o) => {
            verify_owners_text(o)
        }
    }
}

fn verify_operation_syntax(op: &Operation) -> Result<(), TxError> {
    if op.utxo_ids.windows(2).any(|w| w[0] >= w[1]) {
        return Err(rule("utxo IDs not sorted and unique"));
    }
    match &op.op {
        FxOperation::Secp256k1Mint(m) => {
            verify_indices(&m.mint_input)?;
            verify_owners_text(&m.mint_output)?;
            verify_transfer_output(&m.transfer_output)
        }
        FxOperation::NftMint(m) => {
            verify_payload(&m.payload)?;
            for o in &m.outputs {
                verify_owners_text(o)?;
            }
            verify_indices(&m.mint_input)
        }
        FxOperation::NftTransfer(t) => {
            verify_indices(&t.input)?;
            verify_payload(&t.output.payload)?;
            verify_owners_text(&t.output.owners)
        }
        FxOperation::PropertyMint(m) => {
            verify_indices(&m.mint_input)?;
            verify_owners_text(&m.mint_output)?;
            verify_owners_text(&m.owned_output)
        }
        FxOperation::PropertyBurn(i) => verify_indices(i),
    }
}

/// `avax.VerifyTx`: outputs and inputs well formed and in order, and inputs cover the outputs
/// plus the fee, per asset.
fn verify_flow(
    fee: u64,
    avax: Id,
    inputs: &[&[TransferableInput]],
    outputs: &[&[TransferableOutput]],
) -> Result<(), TxError> {
    let mut produced: BTreeMap<Id, u64> = BTreeMap::new();
    let mut consumed: BTreeMap<Id, u64> = BTreeMap::new();
    let add = |m: &mut BTreeMap<Id, u64>, asset: Id, amount: u64| -> Result<(), TxError> {
        let e = m.entry(asset).or_default();
        *e = e.checked_add(amount).ok_or(TxError::Overflow)?;
        Ok(())
    };
    add(&mut produced, avax, fee)?;
    for outs in outputs {
        for o in *outs {
            verify_transfer_output(&o.output)?;
            add(&mut produced, o.asset_id, o.output.amount)?;
        }
        if outs
            .windows(2)
            .any(|w| w[0].canonical_cmp(&w[1]) == Ordering::Greater)
        {
            return Err(TxError::OutputsNotSorted);
        }
    }
    for ins in inputs {
        for i in *ins {
            if i.input.amount == 0 {
                return Err(rule("input has no value"));
            }
            verify_sig_indices(&i.input.sig_indices).map_err(|e| rule(e.to_string()))?;
            add(&mut consumed, i.asset_id, i.input.amount)?;
        }
        if ins.windows(2).any(|w| w[0].utxo() >= w[1].utxo()) {
            return Err(TxError::InputsNotSortedUnique);
        }
    }
    for (asset, p) in produced {
        if p > consumed.get(&asset).copied().unwrap_or(0) {
            return Err(rule("insufficient funds"));
        }
    }
    Ok(())
}

/// The effects of a verified tx (`Executor`): inputs and operations' UTXOs consumed, outputs,
/// initial states and operations' outputs produced (indexed on from the outputs), assets
/// created, shared memory requested.
fn apply(state: &mut XState, tx: &Tx) {
    let tx_id = tx.id();
    let unsigned = tx.unsigned();
    let base = unsigned.base();
    for i in &base.inputs {
        state.remove_utxo(&i.utxo_id());
    }
    let mut index = 0u32;
    let mut produce = |state: &mut XState, asset_id: Id, output: FxOutput| {
        state.add_utxo(Utxo {
            tx_id,
            output_index: index,
            asset_id,
            output,
        });
        index += 1;
    };
    for o in &base.outputs {
        produce(
            state,
            o.asset_id,
            FxOutput::Secp256k1Transfer(o.output.clone()),
        );
    }
    match unsigned {
        UnsignedTx::Base(_) => {}
        UnsignedTx::CreateAsset(t) => {
            for s in &t.initial_states {
                for o in &s.outputs {
                    produce(state, tx_id, o.clone());
                }
            }
            state.add_asset(Asset {
                id: tx_id,
                name: t.name.clone(),
                symbol: t.symbol.clone(),
                denomination: t.denomination,
                fxs: t
                    .initial_states
                    .iter()
                    .filter_map(|s| Fx::from_index(s.fx_index))
                    .collect::<BTreeSet<_>>(),
            });
        }
        UnsignedTx::Operation(t) => {
            for op in &t.operations {
                for u in &op.utxo_ids {
                    state.remove_utxo(&u.id());
                }
                for o in operation_outputs(&op.op) {
                    produce(state, op.asset_id, o);
                }
            }
        }
        UnsignedTx::Import(t) => {
            for i in &t.imported_inputs {
                state.remove_atomic(t.source_chain, i.utxo_id());
            }
        }
        UnsignedTx::Export(t) => {
            let first = base.outputs.len() as u32;
            for (i, o) in t.exported_outputs.iter().enumerate() {
                state.put_atomic(
                    t.destination_chain,
                    AtomicUtxo {
                        tx_id,
                        output_index: first + i as u32,
                        asset_id: o.asset_id,
                        output: o.output.clone(),
                    },
                );
            }
        }
    }
}

/// The outputs an operation creates (`FxOperation.Outs`).
pub fn operation_outputs(op: &FxOperation) -> Vec<FxOutput> {
    op.outputs()
}
