//! The complexity of a P-Chain tx along the four fee dimensions, exactly as AvalancheGo's
//! `txs/fee/complexity.go` counts it: an intrinsic part per tx type (its fixed-size fields,
//! the DB reads and writes its execution does), plus parts per input, output, owner,
//! signature, signer and Warp message. A tx's bandwidth is its signed byte length.

use super::Dimensions;
use firn_core::pchain::fx::{
    AuthInput, Input, Output, OutputOwners, Signer, TransferableInput, TransferableOutput,
};
use firn_core::pchain::tx::{BaseTx, ConvertSubnetToL1Validator, UnsignedTx};
use firn_core::warp::Message;

/// Why a tx has no complexity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ComplexityError {
    /// The tx type is not issued post-Etna (or is built by the block builder).
    #[error("unsupported transaction type")]
    UnsupportedTx,
    /// A Warp message in the tx does not parse.
    #[error("{0}")]
    Warp(String),
    /// The complexity does not fit in 64 bits.
    #[error("overflow")]
    Overflow,
}

const ID_LEN: u64 = 32;
const SHORT_ID_LEN: u64 = 20;
const NODE_ID_LEN: u64 = 20;
const LONG_LEN: u64 = 8;
const INT_LEN: u64 = 4;
const SHORT_LEN: u64 = 2;
const CODEC_VERSION_LEN: u64 = 2;
const SECP_SIGNATURE_LEN: u64 = 65;
const BLS_PUBLIC_KEY_LEN: u64 = 48;
const BLS_SIGNATURE_LEN: u64 = 96;

/// nodeID, start, end, weight.
const VALIDATOR_BANDWIDTH: u64 = NODE_ID_LEN + 3 * LONG_LEN;
/// assetID, output type ID.
const OUTPUT_BANDWIDTH: u64 = ID_LEN + INT_LEN;
/// locktime, output type ID.
const STAKEABLE_LOCKED_OUTPUT_BANDWIDTH: u64 = LONG_LEN + INT_LEN;
/// locktime, threshold, number of addresses.
const OWNERS_BANDWIDTH: u64 = LONG_LEN + 2 * INT_LEN;
/// amount and owners.
const SECP_OUTPUT_BANDWIDTH: u64 = LONG_LEN + OWNERS_BANDWIDTH;
/// txID, output index, assetID, input type ID, credential type ID.
const INPUT_BANDWIDTH: u64 = ID_LEN + INT_LEN + ID_LEN + INT_LEN + INT_LEN;
/// locktime, input type ID.
const STAKEABLE_LOCKED_INPUT_BANDWIDTH: u64 = LONG_LEN + INT_LEN;
/// number of indices, number of signatures.
const SECP_INPUT_BANDWIDTH: u64 = 2 * INT_LEN;
/// amount and the input.
const SECP_TRANSFERABLE_INPUT_BANDWIDTH: u64 = LONG_LEN + SECP_INPUT_BANDWIDTH;
/// signature index and signature.
const SECP_SIGNATURE_BANDWIDTH: u64 = INT_LEN + SECP_SIGNATURE_LEN;
/// About 200µs to verify a secp256k1 signature.
const SECP_SIGNATURE_COMPUTE: u64 = 200;
/// nodeID length, weight, balance, two owners' threshold and address count.
const CONVERT_VALIDATOR_BANDWIDTH: u64 = INT_LEN + 2 * LONG_LEN + 4 * INT_LEN;
const BLS_AGGREGATE_COMPUTE: u64 = 5;
const BLS_VERIFY_COMPUTE: u64 = 1_000;
const BLS_PUBLIC_KEY_VALIDATION_COMPUTE: u64 = 50;
const BLS_POP_VERIFY_COMPUTE: u64 = BLS_PUBLIC_KEY_VALIDATION_COMPUTE + BLS_VERIFY_COMPUTE;
/// chainID → subnetID, weight diffs, public key diffs, and the diff application reads.
const WARP_DB_READS: u64 = 3 + 20;
const POP_BANDWIDTH: u64 = BLS_PUBLIC_KEY_LEN + BLS_SIGNATURE_LEN;
/// weight diff, public key diff, subnetID/nodeID and validationID.
const CONVERT_VALIDATOR_DB_WRITES: u64 = 4;

/// codec version, type ID, networkID, blockchainID, numbers of outputs and inputs, memo
/// length, number of credentials.
const BASE_BANDWIDTH: u64 = CODEC_VERSION_LEN + INT_LEN + INT_LEN + ID_LEN + 4 * INT_LEN;

/// The intrinsic complexity of each tx type (AvalancheGo's `Intrinsic*TxComplexities`).
mod intrinsic {
    use super::*;

    /// A BaseTx's fixed fields.
    pub const BASE: Dimensions = Dimensions::new(BASE_BANDWIDTH, 0, 0, 0);
    /// The base plus subnet validator, subnet auth and its credential type IDs; reads subnet auth,
    /// transformation and conversion; writes the staker and its weight and key diffs.
    pub const ADD_SUBNET_VALIDATOR: Dimensions = Dimensions::new(
        BASE_BANDWIDTH + VALIDATOR_BANDWIDTH + ID_LEN + 2 * INT_LEN,
        3,
        3,
        0,
    );
    /// The base plus subnetID, chain name length, vmID, number of fxIDs, genesis length, auth types.
    pub const CREATE_CHAIN: Dimensions = Dimensions::new(
        BASE_BANDWIDTH + ID_LEN + SHORT_LEN + ID_LEN + INT_LEN + INT_LEN + 2 * INT_LEN,
        3,
        1,
        0,
    );
    /// The base plus owner type ID; writes the subnet owner.
    pub const CREATE_SUBNET: Dimensions = Dimensions::new(BASE_BANDWIDTH + INT_LEN, 0, 1, 0);
    /// The base plus source chain, number of imported inputs.
    pub const IMPORT: Dimensions = Dimensions::new(BASE_BANDWIDTH + ID_LEN + INT_LEN, 0, 0, 0);
    /// The base plus destination chain, number of exported outputs.
    pub const EXPORT: Dimensions = Dimensions::new(BASE_BANDWIDTH + ID_LEN + INT_LEN, 0, 0, 0);
    /// The base plus nodeID, subnetID, auth types; reads subnet auth; deletes the validator, writes diffs.
    pub const REMOVE_SUBNET_VALIDATOR: Dimensions =
        Dimensions::new(BASE_BANDWIDTH + NODE_ID_LEN + ID_LEN + 2 * INT_LEN, 1, 3, 0);
    /// The base plus validator, subnetID, signer type, number of stake outputs, two owner types, shares.
    pub const ADD_PERMISSIONLESS_VALIDATOR: Dimensions = Dimensions::new(
        BASE_BANDWIDTH + VALIDATOR_BANDWIDTH + ID_LEN + 5 * INT_LEN,
        1,
        3,
        0,
    );
    /// The base plus validator, subnetID, number of stake outputs, owner type.
    pub const ADD_PERMISSIONLESS_DELEGATOR: Dimensions = Dimensions::new(
        BASE_BANDWIDTH + VALIDATOR_BANDWIDTH + ID_LEN + 2 * INT_LEN,
        1,
        2,
        0,
    );
    /// The base plus subnetID, auth type, owner type, auth credential type.
    pub const TRANSFER_SUBNET_OWNERSHIP: Dimensions =
        Dimensions::new(BASE_BANDWIDTH + ID_LEN + 3 * INT_LEN, 1, 1, 0);
    /// The base plus subnetID, chainID, address length, number of validators, auth types.
    pub const CONVERT_SUBNET_TO_L1: Dimensions =
        Dimensions::new(BASE_BANDWIDTH + 2 * ID_LEN + 4 * INT_LEN, 3, 2, 0);
    /// The base plus balance, proof of possession, message length; verifies the proof of possession.
    pub const REGISTER_L1_VALIDATOR: Dimensions = Dimensions::new(
        BASE_BANDWIDTH + LONG_LEN + BLS_SIGNATURE_LEN + INT_LEN,
        5,
        6,
        BLS_POP_VERIFY_COMPUTE,
    );
    /// The base plus message length.
    pub const SET_L1_VALIDATOR_WEIGHT: Dimensions =
        Dimensions::new(BASE_BANDWIDTH + INT_LEN, 3, 5, 0);
    /// The base plus validationID, balance.
    pub const INCREASE_L1_VALIDATOR_BALANCE: Dimensions =
        Dimensions::new(BASE_BANDWIDTH + ID_LEN + LONG_LEN, 1, 5, 0);
    /// The base plus validationID, auth types.
    pub const DISABLE_L1_VALIDATOR: Dimensions =
        Dimensions::new(BASE_BANDWIDTH + ID_LEN + 2 * INT_LEN, 1, 6, 0);
}

fn sum(parts: &[Dimensions]) -> Result<Dimensions, ComplexityError> {
    parts
        .iter()
        .try_fold(Dimensions::default(), |acc, d| acc.checked_add(*d))
        .ok_or(ComplexityError::Overflow)
}

fn mul(a: u64, b: u64) -> Result<u64, ComplexityError> {
    a.checked_mul(b).ok_or(ComplexityError::Overflow)
}

fn bandwidth(n: u64) -> Dimensions {
    Dimensions::new(n, 0, 0, 0)
}

/// The complexity of one output (`OutputComplexity`).
pub fn output_complexity(out: &TransferableOutput) -> Result<Dimensions, ComplexityError> {
    let mut bw = OUTPUT_BANDWIDTH + SECP_OUTPUT_BANDWIDTH;
    if matches!(out.output, Output::Locked(_)) {
        bw += STAKEABLE_LOCKED_OUTPUT_BANDWIDTH;
    }
    let addresses = out.output.transfer().owners.addresses.len() as u64;
    bw = bw
        .checked_add(mul(addresses, SHORT_ID_LEN)?)
        .ok_or(ComplexityError::Overflow)?;
    Ok(Dimensions::new(bw, 0, 1, 0))
}

/// The complexity of one input (`InputComplexity`): its bytes, one read, one write, and a
/// signature check per signer.
pub fn input_complexity(input: &TransferableInput) -> Result<Dimensions, ComplexityError> {
    let mut bw = INPUT_BANDWIDTH + SECP_TRANSFERABLE_INPUT_BANDWIDTH;
    if matches!(input.input, Input::Locked(_)) {
        bw += STAKEABLE_LOCKED_INPUT_BANDWIDTH;
    }
    let signatures = input.input.transfer().sig_indices.len() as u64;
    bw = bw
        .checked_add(mul(signatures, SECP_SIGNATURE_BANDWIDTH)?)
        .ok_or(ComplexityError::Overflow)?;
    Ok(Dimensions::new(
        bw,
        1,
        1,
        mul(signatures, SECP_SIGNATURE_COMPUTE)?,
    ))
}

/// The complexity of an owner's addresses and fields (`OwnerComplexity`).
pub fn owner_complexity(owner: &OutputOwners) -> Result<Dimensions, ComplexityError> {
    let addresses = mul(owner.addresses.len() as u64, SHORT_ID_LEN)?;
    Ok(bandwidth(OWNERS_BANDWIDTH + addresses))
}

/// The complexity of an authorisation (`AuthComplexity`).
pub fn auth_complexity(auth: &AuthInput) -> Result<Dimensions, ComplexityError> {
    let signatures = auth.sig_indices.len() as u64;
    Ok(Dimensions::new(
        SECP_INPUT_BANDWIDTH + mul(signatures, SECP_SIGNATURE_BANDWIDTH)?,
        0,
        0,
        mul(signatures, SECP_SIGNATURE_COMPUTE)?,
    ))
}

/// The complexity of a BLS signer (`SignerComplexity`).
pub fn signer_complexity(signer: &Signer) -> Dimensions {
    match signer {
        Signer::Empty => Dimensions::default(),
        Signer::ProofOfPossession(_) => {
            Dimensions::new(POP_BANDWIDTH, 0, 0, BLS_POP_VERIFY_COMPUTE)
        }
    }
}

/// The complexity of a Warp message: its bytes, the validator-set reads, and the BLS
/// aggregation and verification (`WarpComplexity`).
pub fn warp_complexity(message: &[u8]) -> Result<Dimensions, ComplexityError> {
    let msg = Message::from_bytes(message).map_err(|e| ComplexityError::Warp(e.to_string()))?;
    let signers = msg
        .signature
        .num_signers()
        .map_err(|e| ComplexityError::Warp(e.to_string()))?;
    let compute = mul(signers as u64, BLS_AGGREGATE_COMPUTE)? + BLS_VERIFY_COMPUTE;
    Ok(Dimensions::new(
        message.len() as u64,
        WARP_DB_READS,
        0,
        compute,
    ))
}

fn convert_validator_complexity(
    v: &ConvertSubnetToL1Validator,
) -> Result<Dimensions, ComplexityError> {
    let addresses =
        (v.remaining_balance_owner.addresses.len() + v.deactivation_owner.addresses.len()) as u64;
    sum(&[
        Dimensions::new(CONVERT_VALIDATOR_BANDWIDTH, 0, 0, 0),
        Dimensions::new(0, 0, CONVERT_VALIDATOR_DB_WRITES, 0),
        bandwidth(v.node_id.0.len() as u64),
        Dimensions::new(POP_BANDWIDTH, 0, 0, BLS_POP_VERIFY_COMPUTE),
        bandwidth(mul(addresses, SHORT_ID_LEN)?),
    ])
}

fn outputs_complexity(outs: &[TransferableOutput]) -> Result<Dimensions, ComplexityError> {
    let parts = outs
        .iter()
        .map(output_complexity)
        .collect::<Result<Vec<_>, _>>()?;
    sum(&parts)
}

fn inputs_complexity(ins: &[TransferableInput]) -> Result<Dimensions, ComplexityError> {
    let parts = ins
        .iter()
        .map(input_complexity)
        .collect::<Result<Vec<_>, _>>()?;
    sum(&parts)
}

/// The complexity of a BaseTx's outputs, inputs and memo (not its intrinsic part).
fn base_complexity(base: &BaseTx) -> Result<Dimensions, ComplexityError> {
    sum(&[
        outputs_complexity(&base.outputs)?,
        inputs_complexity(&base.inputs)?,
        bandwidth(base.memo.0.len() as u64),
    ])
}

/// The complexity of an unsigned tx (AvalancheGo's `TxComplexity`). AddValidatorTx,
/// AddDelegatorTx, TransformSubnetTx, AdvanceTimeTx and RewardValidatorTx have none.
pub fn tx_complexity(tx: &UnsignedTx) -> Result<Dimensions, ComplexityError> {
    use intrinsic as i;
    match tx {
        UnsignedTx::Base(t) => sum(&[i::BASE, base_complexity(t)?]),
        UnsignedTx::CreateSubnet(t) => sum(&[
            i::CREATE_SUBNET,
            base_complexity(&t.base)?,
            owner_complexity(&t.owner.0)?,
        ]),
        UnsignedTx::CreateChain(t) => {
            let fx_ids = mul(t.fx_ids.len() as u64, ID_LEN)?;
            let dynamic = fx_ids
                .checked_add(t.chain_name.len() as u64)
                .and_then(|b| b.checked_add(t.genesis_data.0.len() as u64))
                .ok_or(ComplexityError::Overflow)?;
            sum(&[
                i::CREATE_CHAIN,
                bandwidth(dynamic),
                base_complexity(&t.base)?,
                auth_complexity(&t.subnet_auth)?,
            ])
        }
        UnsignedTx::Import(t) => sum(&[
            i::IMPORT,
            base_complexity(&t.base)?,
            inputs_complexity(&t.imported_inputs)?,
        ]),
        UnsignedTx::Export(t) => sum(&[
            i::EXPORT,
            base_complexity(&t.base)?,
            outputs_complexity(&t.exported_outputs)?,
        ]),
        UnsignedTx::AddSubnetValidator(t) => sum(&[
            i::ADD_SUBNET_VALIDATOR,
            base_complexity(&t.base)?,
            auth_complexity(&t.subnet_auth)?,
        ]),
        UnsignedTx::RemoveSubnetValidator(t) => sum(&[
            i::REMOVE_SUBNET_VALIDATOR,
            base_complexity(&t.base)?,
            auth_complexity(&t.subnet_auth)?,
        ]),
        UnsignedTx::AddPermissionlessValidator(t) => sum(&[
            i::ADD_PERMISSIONLESS_VALIDATOR,
            base_complexity(&t.base)?,
            signer_complexity(&t.signer),
            outputs_complexity(&t.stake)?,
            owner_complexity(&t.validation_rewards_owner.0)?,
            owner_complexity(&t.delegation_rewards_owner.0)?,
        ]),
        UnsignedTx::AddPermissionlessDelegator(t) => sum(&[
            i::ADD_PERMISSIONLESS_DELEGATOR,
            base_complexity(&t.base)?,
            owner_complexity(&t.rewards_owner.0)?,
            outputs_complexity(&t.stake)?,
        ]),
        UnsignedTx::TransferSubnetOwnership(t) => sum(&[
            i::TRANSFER_SUBNET_OWNERSHIP,
            base_complexity(&t.base)?,
            auth_complexity(&t.subnet_auth)?,
            owner_complexity(&t.new_owner.0)?,
        ]),
        UnsignedTx::ConvertSubnetToL1(t) => {
            let validators = t
                .validators
                .iter()
                .map(convert_validator_complexity)
                .collect::<Result<Vec<_>, _>>()?;
            sum(&[
                i::CONVERT_SUBNET_TO_L1,
                base_complexity(&t.base)?,
                sum(&validators)?,
                auth_complexity(&t.subnet_auth)?,
                bandwidth(t.address.0.len() as u64),
            ])
        }
        UnsignedTx::RegisterL1Validator(t) => sum(&[
            i::REGISTER_L1_VALIDATOR,
            base_complexity(&t.base)?,
            warp_complexity(&t.message.0)?,
        ]),
        UnsignedTx::SetL1ValidatorWeight(t) => sum(&[
            i::SET_L1_VALIDATOR_WEIGHT,
            base_complexity(&t.base)?,
            warp_complexity(&t.message.0)?,
        ]),
        UnsignedTx::IncreaseL1ValidatorBalance(t) => {
            sum(&[i::INCREASE_L1_VALIDATOR_BALANCE, base_complexity(&t.base)?])
        }
        UnsignedTx::DisableL1Validator(t) => sum(&[
            i::DISABLE_L1_VALIDATOR,
            base_complexity(&t.base)?,
            auth_complexity(&t.disable_auth)?,
        ]),
        _ => Err(ComplexityError::UnsupportedTx),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::pchain::tx::Tx;
    use serde_json::Value;

    /// AvalancheGo's fee test txs: every supported type's complexity gives the expected fee
    /// at the test weights and price 1, and its bandwidth is its byte length.
    #[test]
    fn complexity_matches_avalanchego_fee_vectors() {
        let v: Value =
            serde_json::from_str(include_str!("../../tests/vectors/fee-complexity.json"))
                .expect("vector file");
        let weights: Vec<u64> = serde_json::from_value(v["weights"].clone()).expect("weights");
        let weights = Dimensions([weights[0], weights[1], weights[2], weights[3]]);
        let mut checked = 0;
        for t in v["txs"].as_array().expect("txs") {
            let name = t["name"].as_str().expect("name");
            let bytes = hex::decode(t["tx"].as_str().expect("tx")).expect("hex");
            let tx: Tx = match firn_core::codec::from_bytes(&bytes) {
                Ok(tx) => tx,
                // Helicon's auto-renewed validator txs are not part of firn's P-Chain.
                Err(_) if name.contains("AutoRenewed") => continue,
                Err(e) => panic!("{name}: {e}"),
            };
            let got = tx_complexity(tx.unsigned());
            if t["unsupported"].as_bool() == Some(true) {
                assert_eq!(got, Err(ComplexityError::UnsupportedTx), "{name}");
                continue;
            }
            let d = got.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(d.0[super::super::BANDWIDTH], bytes.len() as u64, "{name}");
            assert_eq!(Some(d.0[0]), t["bandwidth"].as_u64(), "{name}");
            assert_eq!(d.to_gas(&weights), t["fee"].as_u64(), "{name}: {d:?}");
            checked += 1;
        }
        assert_eq!(checked, 17);
    }

    #[test]
    fn base_tx_dimensions_are_avalanchegos() {
        // AvalancheGo's BaseTx vector: one input with one signature, two outputs.
        let v: Value =
            serde_json::from_str(include_str!("../../tests/vectors/fee-complexity.json"))
                .expect("vector file");
        let base = v["txs"]
            .as_array()
            .and_then(|a| a.iter().find(|t| t["name"] == "BaseTx"))
            .expect("BaseTx vector");
        let bytes = hex::decode(base["tx"].as_str().expect("tx")).expect("hex");
        let tx: Tx = firn_core::codec::from_bytes(&bytes).expect("decode");
        assert_eq!(
            tx_complexity(tx.unsigned()),
            Ok(Dimensions::new(399, 1, 3, 200))
        );
    }
}
