//! The JSON AvalancheGo gives X-Chain txs and blocks (`avm.getTx`, `avm.getBlock` and
//! `avm.getBlockByHeight` with `encoding: json`).
//!
//! The general rules (field order, inlined embedded structs, sorted map-built objects, hex and
//! base64) are [`crate::avax::json`]'s. What is the X-Chain's own:
//! - every transferable output and input, initial state, operation and credential carries the
//!   `fxID` of the fx that owns it. AvalancheGo fills these in before answering (`txInit` in
//!   `vms/avm/tx_init.go`); here they follow from the types, as the X-Chain registers exactly
//!   secp256k1fx, nftfx and propertyfx ([`Fx`]);
//! - a credential is wrapped: `{"fxID", "credential": {"signatures": […]}}`;
//! - an operation's UTXOs are `inputIDs`, and NFT payloads are `0x` hex;
//! - the signed tx and the block carry the `id` AvalancheGo computes on parsing.
//!
//! An initial state whose `fx_index` names no fx cannot be accepted (AvalancheGo would not
//! answer for it), so its `fxID` is shown as `null` rather than refused.

use super::fx::{Credential, Fx, FxOperation, FxOutput, NftTransferOutput};
use super::tx::{BaseTx, InitialState, Operation, Tx, UnsignedTx};
use super::{Block, TransferableInput, TransferableOutput};
use crate::avax::json::{
    self as shared, JsonContext, owners, owners_fields, sig_indices, signatures, sorted,
    transfer_input, transfer_output,
};
use crate::encoding::hex_encode_nc;
use serde_json::{Map, Value, json};

fn fx_id(fx: Fx) -> Value {
    json!(fx.id())
}

/// An output behind `verify.State` (initial states, UTXOs), as its own `MarshalJSON` or the
/// one it inherits from OutputOwners writes it.
pub fn fx_output_to_json(ctx: &JsonContext, o: &FxOutput) -> Value {
    match o {
        FxOutput::Secp256k1Transfer(t) => transfer_output(ctx, t),
        FxOutput::Secp256k1Mint(o) | FxOutput::PropertyMint(o) | FxOutput::PropertyOwned(o) => {
            owners(ctx, o)
        }
        FxOutput::NftMint(n) => {
            let mut m = owners_fields(ctx, &n.owners);
            m.insert("groupID".into(), json!(n.group_id));
            sorted(m)
        }
        FxOutput::NftTransfer(n) => nft_transfer_output(ctx, n),
    }
}

fn nft_transfer_output(ctx: &JsonContext, n: &NftTransferOutput) -> Value {
    let mut m = owners_fields(ctx, &n.owners);
    m.insert("groupID".into(), json!(n.group_id));
    m.insert("payload".into(), json!(hex_encode_nc(&n.payload)));
    sorted(m)
}

/// An operation behind `fxs.FxOperation`: plain structs, so fields in declaration order.
fn fx_operation(ctx: &JsonContext, op: &FxOperation) -> Value {
    match op {
        FxOperation::Secp256k1Mint(m) => json!({
            "mintInput": sig_indices(&m.mint_input),
            "mintOutput": owners(ctx, &m.mint_output),
            "transferOutput": transfer_output(ctx, &m.transfer_output),
        }),
        FxOperation::NftMint(m) => json!({
            "mintInput": sig_indices(&m.mint_input),
            "groupID": m.group_id,
            "payload": hex_encode_nc(&m.payload),
            "outputs": m.outputs.iter().map(|o| owners(ctx, o)).collect::<Vec<_>>(),
        }),
        FxOperation::NftTransfer(t) => json!({
            "input": sig_indices(&t.input),
            "output": nft_transfer_output(ctx, &t.output),
        }),
        FxOperation::PropertyMint(m) => json!({
            "mintInput": sig_indices(&m.mint_input),
            "mintOutput": owners(ctx, &m.mint_output),
            "ownedOutput": owners(ctx, &m.owned_output),
        }),
        // BurnOperation embeds secp256k1fx.Input, so it is just the signature indices.
        FxOperation::PropertyBurn(s) => sig_indices(s),
    }
}

fn transferable_output(ctx: &JsonContext, o: &TransferableOutput) -> Value {
    shared::transferable_output(o, fx_id(Fx::Secp256k1), transfer_output(ctx, &o.output))
}

fn transferable_input(i: &TransferableInput) -> Value {
    shared::transferable_input(i, fx_id(Fx::Secp256k1), transfer_input(&i.input))
}

fn outputs(ctx: &JsonContext, outs: &[TransferableOutput]) -> Value {
    Value::Array(outs.iter().map(|o| transferable_output(ctx, o)).collect())
}

fn inputs(ins: &[TransferableInput]) -> Value {
    Value::Array(ins.iter().map(transferable_input).collect())
}

fn initial_state(ctx: &JsonContext, s: &InitialState) -> Value {
    json!({
        "fxIndex": s.fx_index,
        "fxID": Fx::from_index(s.fx_index).map_or(Value::Null, fx_id),
        "outputs": s.outputs.iter().map(|o| fx_output_to_json(ctx, o)).collect::<Vec<_>>(),
    })
}

fn operation(ctx: &JsonContext, op: &Operation) -> Value {
    json!({
        "assetID": op.asset_id,
        "inputIDs": op.utxo_ids.iter().map(shared::utxo_id).collect::<Vec<_>>(),
        "fxID": fx_id(op.op.fx()),
        "operation": fx_operation(ctx, &op.op),
    })
}

fn credential(c: &Credential) -> Value {
    json!({ "fxID": fx_id(c.fx), "credential": signatures(&c.signatures) })
}

fn base_fields(ctx: &JsonContext, b: &BaseTx) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("networkID".into(), json!(b.network_id));
    m.insert("blockchainID".into(), json!(b.blockchain_id));
    m.insert("outputs".into(), outputs(ctx, &b.outputs));
    m.insert("inputs".into(), inputs(&b.inputs));
    m.insert("memo".into(), json!(hex_encode_nc(&b.memo)));
    m
}

/// The JSON of an unsigned tx (the `unsignedTx` field of a tx): the BaseTx fields inlined,
/// then the tx type's own.
pub fn unsigned_tx_to_json(ctx: &JsonContext, tx: &UnsignedTx) -> Value {
    let mut m = base_fields(ctx, tx.base());
    match tx {
        UnsignedTx::Base(_) => {}
        UnsignedTx::CreateAsset(t) => {
            m.insert("name".into(), json!(t.name));
            m.insert("symbol".into(), json!(t.symbol));
            m.insert("denomination".into(), json!(t.denomination));
            let states = t.initial_states.iter().map(|s| initial_state(ctx, s));
            m.insert("initialStates".into(), Value::Array(states.collect()));
        }
        UnsignedTx::Operation(t) => {
            let ops = t.operations.iter().map(|op| operation(ctx, op));
            m.insert("operations".into(), Value::Array(ops.collect()));
        }
        UnsignedTx::Import(t) => {
            m.insert("sourceChain".into(), json!(t.source_chain));
            m.insert("importedInputs".into(), inputs(&t.imported_inputs));
        }
        UnsignedTx::Export(t) => {
            m.insert("destinationChain".into(), json!(t.destination_chain));
            m.insert("exportedOutputs".into(), outputs(ctx, &t.exported_outputs));
        }
    }
    Value::Object(m)
}

/// The JSON of a signed tx, as `avm.getTx` gives it: `{"unsignedTx", "credentials", "id"}`.
pub fn tx_to_json(ctx: &JsonContext, tx: &Tx) -> Value {
    let credentials = tx.credentials().iter().map(credential).collect();
    shared::signed_tx(
        unsigned_tx_to_json(ctx, tx.unsigned()),
        credentials,
        tx.id(),
    )
}

/// The JSON of a block, as `avm.getBlock` gives it: StandardBlock's fields, then `id`.
pub fn block_to_json(ctx: &JsonContext, block: &Block) -> Value {
    json!({
        "parentID": block.parent_id(),
        "height": block.height(),
        "time": block.time(),
        "merkleRoot": block.merkle_root(),
        "txs": block.txs().iter().map(|t| tx_to_json(ctx, t)).collect::<Vec<_>>(),
        "id": block.id(),
    })
}
