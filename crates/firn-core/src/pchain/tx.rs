//! Unsigned and signed P-Chain transactions: every type through Etna.
//!
//! [`UnsignedTx`] is the enum behind AvalancheGo's `UnsignedTx` interface; [`Tx`] pairs it with
//! its credentials and caches its ID (`sha256` of the signed bytes).

use super::fx::{
    AuthInput, Credential, Owner, ProofOfPossession, Signer, TransferableInput, TransferableOutput,
};
use super::type_id;
use crate::codec::{self, Bytes};
use crate::codec_struct;
use crate::ids::{Id, NodeId};
use crate::warp::messages::PChainOwner;
use sha2::{Digest, Sha256};

/// Fields every tx but AdvanceTime and RewardValidator starts with (avax.BaseTx).
pub type BaseTx = crate::avax::BaseTx<super::fx::Output, super::fx::Input>;

/// A validator's node, period and weight.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Validator {
    pub node_id: NodeId,
    pub start: u64,
    pub end: u64,
    pub weight: u64,
}
codec_struct!(Validator {
    node_id: NodeId,
    start: u64,
    end: u64,
    weight: u64
});

/// A validator of a subnet.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SubnetValidator {
    pub validator: Validator,
    pub subnet_id: Id,
}
codec_struct!(SubnetValidator {
    validator: Validator,
    subnet_id: Id
});

/// Type 12 (pre-Durango primary network validator).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AddValidatorTx {
    pub base: BaseTx,
    pub validator: Validator,
    pub stake: Vec<TransferableOutput>,
    pub rewards_owner: Owner,
    pub shares: u32,
}
codec_struct!(AddValidatorTx {
    base: BaseTx,
    validator: Validator,
    stake: Vec<TransferableOutput>,
    rewards_owner: Owner,
    shares: u32,
});

/// Type 13.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AddSubnetValidatorTx {
    pub base: BaseTx,
    pub validator: SubnetValidator,
    pub subnet_auth: AuthInput,
}
codec_struct!(AddSubnetValidatorTx {
    base: BaseTx,
    validator: SubnetValidator,
    subnet_auth: AuthInput
});

/// Type 14 (pre-Durango primary network delegator).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AddDelegatorTx {
    pub base: BaseTx,
    pub validator: Validator,
    pub stake: Vec<TransferableOutput>,
    pub rewards_owner: Owner,
}
codec_struct!(AddDelegatorTx {
    base: BaseTx,
    validator: Validator,
    stake: Vec<TransferableOutput>,
    rewards_owner: Owner,
});

/// Type 15.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CreateChainTx {
    pub base: BaseTx,
    pub subnet_id: Id,
    pub chain_name: String,
    pub vm_id: Id,
    pub fx_ids: Vec<Id>,
    pub genesis_data: Bytes,
    pub subnet_auth: AuthInput,
}
codec_struct!(CreateChainTx {
    base: BaseTx,
    subnet_id: Id,
    chain_name: String,
    vm_id: Id,
    fx_ids: Vec<Id>,
    genesis_data: Bytes,
    subnet_auth: AuthInput,
});

/// Type 16.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CreateSubnetTx {
    pub base: BaseTx,
    pub owner: Owner,
}
codec_struct!(CreateSubnetTx {
    base: BaseTx,
    owner: Owner
});

/// Type 17.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ImportTx {
    pub base: BaseTx,
    pub source_chain: Id,
    pub imported_inputs: Vec<TransferableInput>,
}
codec_struct!(ImportTx { base: BaseTx, source_chain: Id, imported_inputs: Vec<TransferableInput> });

/// Type 18.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExportTx {
    pub base: BaseTx,
    pub destination_chain: Id,
    pub exported_outputs: Vec<TransferableOutput>,
}
codec_struct!(ExportTx {
    base: BaseTx,
    destination_chain: Id,
    exported_outputs: Vec<TransferableOutput>,
});

/// Type 19 (pre-Banff).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AdvanceTimeTx {
    pub time: u64,
}
codec_struct!(AdvanceTimeTx { time: u64 });

/// Type 20: ends the staking period of the staker added by `tx_id`.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RewardValidatorTx {
    pub tx_id: Id,
}
codec_struct!(RewardValidatorTx { tx_id: Id });

/// Type 23.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RemoveSubnetValidatorTx {
    pub base: BaseTx,
    pub node_id: NodeId,
    pub subnet_id: Id,
    pub subnet_auth: AuthInput,
}
codec_struct!(RemoveSubnetValidatorTx {
    base: BaseTx,
    node_id: NodeId,
    subnet_id: Id,
    subnet_auth: AuthInput,
});

/// Type 24 (elastic subnets; disabled since Etna, still decodable).
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransformSubnetTx {
    pub base: BaseTx,
    pub subnet_id: Id,
    pub asset_id: Id,
    pub initial_supply: u64,
    pub maximum_supply: u64,
    pub min_consumption_rate: u64,
    pub max_consumption_rate: u64,
    pub min_validator_stake: u64,
    pub max_validator_stake: u64,
    pub min_stake_duration: u32,
    pub max_stake_duration: u32,
    pub min_delegation_fee: u32,
    pub min_delegator_stake: u64,
    pub max_validator_weight_factor: u8,
    pub uptime_requirement: u32,
    pub subnet_auth: AuthInput,
}
codec_struct!(TransformSubnetTx {
    base: BaseTx,
    subnet_id: Id,
    asset_id: Id,
    initial_supply: u64,
    maximum_supply: u64,
    min_consumption_rate: u64,
    max_consumption_rate: u64,
    min_validator_stake: u64,
    max_validator_stake: u64,
    min_stake_duration: u32,
    max_stake_duration: u32,
    min_delegation_fee: u32,
    min_delegator_stake: u64,
    max_validator_weight_factor: u8,
    uptime_requirement: u32,
    subnet_auth: AuthInput,
});

/// Type 25.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AddPermissionlessValidatorTx {
    pub base: BaseTx,
    pub validator: Validator,
    pub subnet_id: Id,
    pub signer: Signer,
    pub stake: Vec<TransferableOutput>,
    pub validation_rewards_owner: Owner,
    pub delegation_rewards_owner: Owner,
    pub shares: u32,
}
codec_struct!(AddPermissionlessValidatorTx {
    base: BaseTx,
    validator: Validator,
    subnet_id: Id,
    signer: Signer,
    stake: Vec<TransferableOutput>,
    validation_rewards_owner: Owner,
    delegation_rewards_owner: Owner,
    shares: u32,
});

/// Type 26.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AddPermissionlessDelegatorTx {
    pub base: BaseTx,
    pub validator: Validator,
    pub subnet_id: Id,
    pub stake: Vec<TransferableOutput>,
    pub rewards_owner: Owner,
}
codec_struct!(AddPermissionlessDelegatorTx {
    base: BaseTx,
    validator: Validator,
    subnet_id: Id,
    stake: Vec<TransferableOutput>,
    rewards_owner: Owner,
});

/// Type 33.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TransferSubnetOwnershipTx {
    pub base: BaseTx,
    pub subnet_id: Id,
    pub subnet_auth: AuthInput,
    pub new_owner: Owner,
}
codec_struct!(TransferSubnetOwnershipTx {
    base: BaseTx,
    subnet_id: Id,
    subnet_auth: AuthInput,
    new_owner: Owner,
});

/// One initial validator of a ConvertSubnetToL1Tx.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConvertSubnetToL1Validator {
    /// Raw node ID bytes (20 bytes once verified; the codec takes any length).
    pub node_id: Bytes,
    pub weight: u64,
    pub balance: u64,
    pub signer: ProofOfPossession,
    pub remaining_balance_owner: PChainOwner,
    pub deactivation_owner: PChainOwner,
}
codec_struct!(ConvertSubnetToL1Validator {
    node_id: Bytes,
    weight: u64,
    balance: u64,
    signer: ProofOfPossession,
    remaining_balance_owner: PChainOwner,
    deactivation_owner: PChainOwner,
});

/// Type 35.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConvertSubnetToL1Tx {
    pub base: BaseTx,
    pub subnet_id: Id,
    pub chain_id: Id,
    pub address: Bytes,
    pub validators: Vec<ConvertSubnetToL1Validator>,
    pub subnet_auth: AuthInput,
}
codec_struct!(ConvertSubnetToL1Tx {
    base: BaseTx,
    subnet_id: Id,
    chain_id: Id,
    address: Bytes,
    validators: Vec<ConvertSubnetToL1Validator>,
    subnet_auth: AuthInput,
});

impl ConvertSubnetToL1Tx {
    /// The validation ID of the `index`-th initial validator: `subnet_id.append(index)`.
    pub fn validation_id(&self, index: u32) -> Id {
        self.subnet_id.append(index)
    }

    /// The data whose sha256 is the conversion ID the P-Chain signs for this conversion. Fails
    /// when a validator's node ID is not 20 bytes (such a tx is invalid).
    pub fn conversion_data(
        &self,
    ) -> Result<crate::warp::messages::SubnetToL1ConversionData, crate::encoding::EncodingError>
    {
        Ok(crate::warp::messages::SubnetToL1ConversionData {
            subnet_id: self.subnet_id,
            manager_chain_id: self.chain_id,
            manager_address: self.address.to_vec(),
            validators: self
                .validators
                .iter()
                .map(|v| {
                    Ok(crate::warp::messages::ConversionValidatorData {
                        node_id: NodeId::from_slice(&v.node_id)?,
                        bls_public_key: v.signer.public_key,
                        weight: v.weight,
                    })
                })
                .collect::<Result<_, _>>()?,
        })
    }
}

/// Type 36: `message` is a signed Warp message carrying a RegisterL1Validator payload.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RegisterL1ValidatorTx {
    pub base: BaseTx,
    pub balance: u64,
    pub proof_of_possession: [u8; 96],
    pub message: Bytes,
}
codec_struct!(RegisterL1ValidatorTx {
    base: BaseTx,
    balance: u64,
    proof_of_possession: [u8; 96],
    message: Bytes,
});

/// Type 37: `message` is a signed Warp message carrying an L1ValidatorWeight payload.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SetL1ValidatorWeightTx {
    pub base: BaseTx,
    pub message: Bytes,
}
codec_struct!(SetL1ValidatorWeightTx {
    base: BaseTx,
    message: Bytes
});

/// Type 38.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IncreaseL1ValidatorBalanceTx {
    pub base: BaseTx,
    pub validation_id: Id,
    pub balance: u64,
}
codec_struct!(IncreaseL1ValidatorBalanceTx {
    base: BaseTx,
    validation_id: Id,
    balance: u64
});

/// Type 39.
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DisableL1ValidatorTx {
    pub base: BaseTx,
    pub validation_id: Id,
    pub disable_auth: AuthInput,
}
codec_struct!(DisableL1ValidatorTx {
    base: BaseTx,
    validation_id: Id,
    disable_auth: AuthInput
});

crate::codec_enum! {
    /// An unsigned P-Chain tx: the value behind AvalancheGo's `UnsignedTx` interface. Its
    /// `type_name` is what the Data API's `txType` uses.
    pub enum UnsignedTx ("an unsigned tx", min AdvanceTimeTx) {
        AddValidator(AddValidatorTx) = type_id::ADD_VALIDATOR_TX, "AddValidatorTx";
        AddSubnetValidator(AddSubnetValidatorTx) = type_id::ADD_SUBNET_VALIDATOR_TX, "AddSubnetValidatorTx";
        AddDelegator(AddDelegatorTx) = type_id::ADD_DELEGATOR_TX, "AddDelegatorTx";
        CreateChain(CreateChainTx) = type_id::CREATE_CHAIN_TX, "CreateChainTx";
        CreateSubnet(CreateSubnetTx) = type_id::CREATE_SUBNET_TX, "CreateSubnetTx";
        Import(ImportTx) = type_id::IMPORT_TX, "ImportTx";
        Export(ExportTx) = type_id::EXPORT_TX, "ExportTx";
        AdvanceTime(AdvanceTimeTx) = type_id::ADVANCE_TIME_TX, "AdvanceTimeTx";
        RewardValidator(RewardValidatorTx) = type_id::REWARD_VALIDATOR_TX, "RewardValidatorTx";
        RemoveSubnetValidator(RemoveSubnetValidatorTx) = type_id::REMOVE_SUBNET_VALIDATOR_TX, "RemoveSubnetValidatorTx";
        TransformSubnet(TransformSubnetTx) = type_id::TRANSFORM_SUBNET_TX, "TransformSubnetTx";
        AddPermissionlessValidator(AddPermissionlessValidatorTx) = type_id::ADD_PERMISSIONLESS_VALIDATOR_TX, "AddPermissionlessValidatorTx";
        AddPermissionlessDelegator(AddPermissionlessDelegatorTx) = type_id::ADD_PERMISSIONLESS_DELEGATOR_TX, "AddPermissionlessDelegatorTx";
        TransferSubnetOwnership(TransferSubnetOwnershipTx) = type_id::TRANSFER_SUBNET_OWNERSHIP_TX, "TransferSubnetOwnershipTx";
        Base(BaseTx) = type_id::BASE_TX, "BaseTx";
        ConvertSubnetToL1(ConvertSubnetToL1Tx) = type_id::CONVERT_SUBNET_TO_L1_TX, "ConvertSubnetToL1Tx";
        RegisterL1Validator(RegisterL1ValidatorTx) = type_id::REGISTER_L1_VALIDATOR_TX, "RegisterL1ValidatorTx";
        SetL1ValidatorWeight(SetL1ValidatorWeightTx) = type_id::SET_L1_VALIDATOR_WEIGHT_TX, "SetL1ValidatorWeightTx";
        IncreaseL1ValidatorBalance(IncreaseL1ValidatorBalanceTx) = type_id::INCREASE_L1_VALIDATOR_BALANCE_TX, "IncreaseL1ValidatorBalanceTx";
        DisableL1Validator(DisableL1ValidatorTx) = type_id::DISABLE_L1_VALIDATOR_TX, "DisableL1ValidatorTx";
    }
}

impl UnsignedTx {
    /// The shared BaseTx fields, absent for AdvanceTimeTx and RewardValidatorTx.
    pub fn base(&self) -> Option<&BaseTx> {
        Some(match self {
            UnsignedTx::AddValidator(t) => &t.base,
            UnsignedTx::AddSubnetValidator(t) => &t.base,
            UnsignedTx::AddDelegator(t) => &t.base,
            UnsignedTx::CreateChain(t) => &t.base,
            UnsignedTx::CreateSubnet(t) => &t.base,
            UnsignedTx::Import(t) => &t.base,
            UnsignedTx::Export(t) => &t.base,
            UnsignedTx::RemoveSubnetValidator(t) => &t.base,
            UnsignedTx::TransformSubnet(t) => &t.base,
            UnsignedTx::AddPermissionlessValidator(t) => &t.base,
            UnsignedTx::AddPermissionlessDelegator(t) => &t.base,
            UnsignedTx::TransferSubnetOwnership(t) => &t.base,
            UnsignedTx::Base(t) => t,
            UnsignedTx::ConvertSubnetToL1(t) => &t.base,
            UnsignedTx::RegisterL1Validator(t) => &t.base,
            UnsignedTx::SetL1ValidatorWeight(t) => &t.base,
            UnsignedTx::IncreaseL1ValidatorBalance(t) => &t.base,
            UnsignedTx::DisableL1Validator(t) => &t.base,
            UnsignedTx::AdvanceTime(_) | UnsignedTx::RewardValidator(_) => return None,
        })
    }

    /// The bytes credentials sign over: codec version and the tx.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// sha256 of [`UnsignedTx::bytes`]: the hash secp256k1 credentials sign.
    pub fn signing_hash(&self) -> [u8; 32] {
        Sha256::digest(self.bytes()).into()
    }
}

/// A signed P-Chain tx: the unsigned tx and one credential per input (and authorisation).
/// Its ID is sha256 of the signed bytes, computed on first use and cached.
pub type Tx = crate::avax::SignedTx<UnsignedTx, Credential>;
