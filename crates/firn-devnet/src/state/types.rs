//! The records the P-Chain state holds: UTXOs, stakers, subnets, chains and L1 validators.

use firn_core::ids::{Id, NodeId};
use firn_core::pchain::fx::{Output, OutputOwners, TransferableOutput};
use firn_core::warp::messages::PChainOwner;
use serde::Serialize;

/// An unspent output: which tx made it, at which index, of which asset.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Utxo {
    /// The tx that produced it (for reward and returned-stake UTXOs: the staker's tx).
    pub tx_id: Id,
    /// Its index among that tx's outputs.
    pub output_index: u32,
    /// The asset.
    pub asset_id: Id,
    /// The output.
    pub output: Output,
}

impl Utxo {
    /// The UTXO ID: `tx_id.prefix(output_index)`.
    pub fn id(&self) -> Id {
        self.tx_id.prefix(u64::from(self.output_index))
    }

    /// The owners of the output.
    pub fn owners(&self) -> &OutputOwners {
        &self.output.transfer().owners
    }
}

/// What kind of staker, in AvalancheGo's priority order for stakers ending at the same time:
/// permissioned subnet validators leave first, then delegators, then validators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StakerKind {
    /// AddSubnetValidatorTx: removed at its end time, no reward.
    SubnetValidator,
    /// AddPermissionlessDelegatorTx on the primary network.
    Delegator,
    /// AddPermissionlessValidatorTx on the primary network.
    Validator,
}

/// A current staker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Staker {
    /// The tx that added it.
    pub tx_id: Id,
    /// Validator, delegator or subnet validator.
    pub kind: StakerKind,
    /// The subnet (the zero ID for the primary network).
    pub subnet_id: Id,
    /// The node.
    pub node_id: NodeId,
    /// The BLS public key (primary network validators with a signer).
    #[serde(skip)]
    pub public_key: Option<[u8; 48]>,
    /// The staked weight.
    pub weight: u64,
    /// When it started (the chain time when its tx was accepted, post-Durango).
    pub start_time: u64,
    /// When it ends.
    pub end_time: u64,
    /// The reward it gets if rewarded (added to the supply when it started).
    pub potential_reward: u64,
    /// A validator's delegation fee, parts per million.
    pub delegation_fee: u32,
    /// Delegation fees accrued from finished delegators, paid when the validator ends.
    pub delegatee_reward: u64,
    /// The staked outputs, returned when the staker leaves.
    #[serde(skip)]
    pub stake: Vec<TransferableOutput>,
    /// How many plain outputs the staker's tx had (returned stake is indexed after them).
    #[serde(skip)]
    pub outputs_len: u32,
    /// Who receives the staking reward.
    #[serde(skip)]
    pub reward_owner: OutputOwners,
    /// Who receives delegation fees (validators).
    #[serde(skip)]
    pub delegation_reward_owner: OutputOwners,
}

/// A subnet and, once converted, its L1 manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subnet {
    /// The subnet ID (the CreateSubnetTx's ID).
    pub id: Id,
    /// Who authorises changes.
    pub owner: OutputOwners,
    /// Set by ConvertSubnetToL1Tx.
    pub conversion: Option<Conversion>,
}

/// A subnet's conversion to an L1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// `SubnetToL1ConversionData::id()`.
    pub conversion_id: Id,
    /// The chain of the validator manager.
    pub chain_id: Id,
    /// The validator manager's address on that chain.
    pub address: Vec<u8>,
}

/// A blockchain created by CreateChainTx.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// The chain ID (the CreateChainTx's ID).
    pub id: Id,
    /// The subnet that validates it.
    pub subnet_id: Id,
    /// Its name.
    pub name: String,
    /// Its VM.
    pub vm_id: Id,
    /// Its feature extensions.
    pub fx_ids: Vec<Id>,
    /// Its genesis bytes.
    pub genesis: Vec<u8>,
}

/// An L1 validator (ACP-77).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L1Validator {
    /// The validation ID.
    pub validation_id: Id,
    /// The L1's subnet ID.
    pub subnet_id: Id,
    /// The node.
    pub node_id: NodeId,
    /// The compressed BLS public key.
    pub public_key: [u8; 48],
    /// Who receives the remaining balance.
    pub remaining_balance_owner: PChainOwner,
    /// Who may disable it.
    pub deactivation_owner: PChainOwner,
    /// When it was registered.
    pub start_time: u64,
    /// Its weight.
    pub weight: u64,
    /// The least nonce the next weight change may carry.
    pub min_nonce: u64,
    /// The accrued-fee level at which its balance is used up; zero when inactive.
    pub end_accumulated_fee: u64,
}

impl L1Validator {
    /// True while it has balance left.
    pub fn is_active(&self) -> bool {
        self.end_accumulated_fee != 0
    }

    /// Its remaining balance given the network's accrued fees.
    pub fn balance(&self, accrued_fees: u64) -> u64 {
        self.end_accumulated_fee.saturating_sub(accrued_fees)
    }
}

/// The Data API's reward types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RewardKind {
    /// A validator's own staking reward.
    Validator,
    /// A delegator's reward.
    Delegator,
    /// Delegation fees paid to a validator.
    ValidatorFee,
}

/// A reward UTXO minted when a staker left, keyed by the staker's tx.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardUtxo {
    /// The UTXO.
    pub utxo: Utxo,
    /// Which reward it is.
    pub kind: RewardKind,
}
