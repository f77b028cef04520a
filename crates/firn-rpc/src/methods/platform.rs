//! `platform.*` on `/ext/bc/P`: the P-Chain's methods, params and replies
//! (AvalancheGo's `vms/platformvm/service.go` and `platformapi`). The shapes AvalancheGo's
//! `api` package shares with other chains are declared in [`super::api`] and re-exported here.

use std::collections::BTreeMap;

use firn_core::ids::{Id, NodeId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::api::{
    BlockReply, Encoded, GetBlockByHeightParams, GetBlockParams, GetUtxosParams, HeightReply,
    IssueTxParams, TxIdReply, TxParams, TxReply, UtxoIndex, UtxoRef, UtxosReply,
};
use super::{NoParams, methods};
use crate::avajson::{Uint64, float32_4dp, u32_string, u64_string};

methods! {
    /// The last accepted height.
    GetHeight = "platform.getHeight" (NoParams) -> HeightReply;
    /// The height a new block would propose (the devnet: the last accepted height).
    GetProposedHeight = "platform.getProposedHeight" (NoParams) -> HeightReply;
    /// AVAX held by addresses (deprecated by AvalancheGo, still served).
    GetBalance = "platform.getBalance" (AddressesParams) -> BalanceReply;
    /// UTXOs owned by addresses, paged.
    GetUtxos = "platform.getUTXOs" (GetUtxosParams) -> UtxosReply;
    /// A block by ID.
    GetBlock = "platform.getBlock" (GetBlockParams) -> BlockReply;
    /// A block by height.
    GetBlockByHeight = "platform.getBlockByHeight" (GetBlockByHeightParams) -> BlockReply;
    /// A tx by ID.
    GetTx = "platform.getTx" (TxParams) -> TxReply;
    /// A tx's status.
    GetTxStatus = "platform.getTxStatus" (TxParams) -> TxStatusReply;
    /// Issues a signed tx.
    IssueTx = "platform.issueTx" (IssueTxParams) -> TxIdReply;
    /// The asset a subnet stakes.
    GetStakingAssetId = "platform.getStakingAssetID" (SubnetParams) -> AssetIdReply;
    /// One subnet.
    GetSubnet = "platform.getSubnet" (SubnetParams) -> SubnetReply;
    /// Subnets (deprecated by AvalancheGo, still served).
    GetSubnets = "platform.getSubnets" (IdsParams) -> SubnetsReply;
    /// The current validators of a subnet.
    GetCurrentValidators = "platform.getCurrentValidators" (ValidatorsParams) -> CurrentValidatorsReply;
    /// The pending validators (none since Durango).
    GetPendingValidators = "platform.getPendingValidators" (ValidatorsParams) -> PendingValidatorsReply;
    /// A subnet's validator set at a height.
    GetValidatorsAt = "platform.getValidatorsAt" (HeightParams) -> ValidatorsAtReply;
    /// Every subnet's canonical validator set at a height.
    GetAllValidatorsAt = "platform.getAllValidatorsAt" (HeightParams) -> AllValidatorsAtReply;
    /// One L1 validator.
    GetL1Validator = "platform.getL1Validator" (ValidationIdParams) -> L1ValidatorReply;
    /// The current AVAX supply.
    GetCurrentSupply = "platform.getCurrentSupply" (SubnetParams) -> SupplyReply;
    /// Every blockchain (deprecated by AvalancheGo, still served).
    GetBlockchains = "platform.getBlockchains" (NoParams) -> BlockchainsReply;
    /// A blockchain's status on this node.
    GetBlockchainStatus = "platform.getBlockchainStatus" (BlockchainAliasParams) -> StatusReply;
    /// The subnet validating a blockchain.
    ValidatedBy = "platform.validatedBy" (BlockchainIdParams) -> SubnetIdReply;
    /// The blockchains a subnet validates.
    Validates = "platform.validates" (SubnetParams) -> BlockchainIdsReply;
    /// The chain time.
    GetTimestamp = "platform.getTimestamp" (NoParams) -> TimestampReply;
    /// The least stake of a validator and a delegator.
    GetMinStake = "platform.getMinStake" (SubnetParams) -> MinStakeReply;
    /// The current set's total weight.
    GetTotalStake = "platform.getTotalStake" (SubnetParams) -> TotalStakeReply;
    /// The UTXOs a staker's reward paid.
    GetRewardUtxos = "platform.getRewardUTXOs" (TxParams) -> RewardUtxosReply;
    /// Stake owned by addresses (deprecated by AvalancheGo, still served).
    GetStake = "platform.getStake" (GetStakeParams) -> StakeReply;
    /// Validators sampled by weight.
    SampleValidators = "platform.sampleValidators" (SampleValidatorsParams) -> SampleValidatorsReply;
    /// Etna's dynamic-fee configuration.
    GetFeeConfig = "platform.getFeeConfig" (NoParams) -> FeeConfigReply;
    /// Etna's dynamic-fee state.
    GetFeeState = "platform.getFeeState" (NoParams) -> FeeStateReply;
    /// The L1 validator fee configuration.
    GetValidatorFeeConfig = "platform.getValidatorFeeConfig" (NoParams) -> ValidatorFeeConfigReply;
    /// The L1 validator fee state.
    GetValidatorFeeState = "platform.getValidatorFeeState" (NoParams) -> ValidatorFeeStateReply;
}

// ---- params ----

/// `{addresses}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AddressesParams {
    /// `P-<hrp>1…` addresses.
    pub addresses: Vec<String>,
}

/// `{subnetID}` (the primary network when absent).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SubnetParams {
    /// The subnet.
    #[serde(rename = "subnetID")]
    pub subnet_id: Id,
}

/// `{ids}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct IdsParams {
    /// Subnet IDs (all when empty).
    pub ids: Vec<Id>,
}

/// `{subnetID, nodeIDs}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ValidatorsParams {
    /// The subnet (the primary network when absent).
    #[serde(rename = "subnetID")]
    pub subnet_id: Id,
    /// Only these nodes (all when empty).
    #[serde(rename = "nodeIDs")]
    pub node_ids: Vec<NodeId>,
}

/// `{height, subnetID}`: `height` a number, a decimal string, or `"proposed"` (the last
/// accepted height); kept as JSON so that a bad value is the method's error, not a decoding one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeightParams {
    /// The height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub height: Option<Value>,
    /// The subnet (the primary network when absent).
    #[serde(rename = "subnetID")]
    pub subnet_id: Id,
}

/// `{validationID}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ValidationIdParams {
    /// The L1 validator's validation ID.
    #[serde(rename = "validationID")]
    pub validation_id: Id,
}

/// `{blockchainID}` as given: an alias (`P`, `X`, `C`) or a cb58 ID.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockchainAliasParams {
    /// The blockchain.
    #[serde(rename = "blockchainID")]
    pub blockchain_id: String,
}

/// `{blockchainID}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BlockchainIdParams {
    /// The blockchain.
    #[serde(rename = "blockchainID")]
    pub blockchain_id: Id,
}

/// `platform.getStake` params.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GetStakeParams {
    /// Owners.
    pub addresses: Vec<String>,
    /// Only validators' stake.
    pub validators_only: bool,
    /// `hex` (default) or `hexnc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub encoding: Option<String>,
}

/// `{size, subnetID}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SampleValidatorsParams {
    /// How many weight units to draw.
    #[serde(with = "u64_string")]
    pub size: u64,
    /// The subnet (the primary network when absent).
    #[serde(rename = "subnetID")]
    pub subnet_id: Id,
}

// ---- replies ----

/// `platform.getBalance`'s reply: AVAX totals, per-asset maps, the UTXOs counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BalanceReply {
    /// Everything, nAVAX.
    #[serde(with = "u64_string")]
    pub balance: u64,
    /// Spendable now.
    #[serde(with = "u64_string")]
    pub unlocked: u64,
    /// Locked, but stakeable.
    #[serde(with = "u64_string")]
    pub locked_stakeable: u64,
    /// Locked, not stakeable.
    #[serde(with = "u64_string")]
    pub locked_not_stakeable: u64,
    /// `balance` by asset.
    pub balances: BTreeMap<Id, Uint64>,
    /// `unlocked` by asset.
    pub unlockeds: BTreeMap<Id, Uint64>,
    /// `lockedStakeable` by asset.
    pub locked_stakeables: BTreeMap<Id, Uint64>,
    /// `lockedNotStakeable` by asset.
    pub locked_not_stakeables: BTreeMap<Id, Uint64>,
    /// The UTXOs counted (`null` when none).
    #[serde(rename = "utxoIDs")]
    pub utxo_ids: Option<Vec<UtxoRef>>,
}

/// A tx's status as `getTxStatus` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TxStatus {
    /// Accepted (for a proposal, its commit accepted).
    Committed,
    /// A proposal whose abort was accepted.
    Aborted,
    /// In the mempool.
    Processing,
    /// Refused after it was issued; `reason` says why.
    Dropped,
    /// Never seen.
    Unknown,
}

/// `{status, reason?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TxStatusReply {
    /// The status.
    pub status: TxStatus,
    /// Why a dropped tx was dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `{assetID}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssetIdReply {
    /// The asset.
    #[serde(rename = "assetID")]
    pub asset_id: Id,
}

/// `platform.getSubnet`'s reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubnetReply {
    /// Not converted to an L1.
    #[serde(rename = "isPermissioned")]
    pub is_permissioned: bool,
    /// The owner's addresses.
    #[serde(rename = "controlKeys")]
    pub control_keys: Vec<String>,
    /// Signatures the owner needs.
    #[serde(with = "u32_string")]
    pub threshold: u32,
    /// The owner's locktime.
    #[serde(with = "u64_string")]
    pub locktime: u64,
    /// Always the zero ID (elastic subnets are gone).
    #[serde(rename = "subnetTransformationTxID")]
    pub subnet_transformation_tx_id: Id,
    /// The L1 conversion's ID (zero before conversion).
    #[serde(rename = "conversionID")]
    pub conversion_id: Id,
    /// The validator manager's chain (zero before conversion).
    #[serde(rename = "managerChainID")]
    pub manager_chain_id: Id,
    /// The validator manager's address, `0x`-hex (`0x` before conversion).
    #[serde(rename = "managerAddress")]
    pub manager_address: String,
}

/// One subnet in `getSubnets`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubnetSummary {
    /// The subnet.
    pub id: Id,
    /// The owner's addresses.
    #[serde(rename = "controlKeys")]
    pub control_keys: Vec<String>,
    /// Signatures the owner needs.
    #[serde(with = "u32_string")]
    pub threshold: u32,
}

/// `{subnets}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubnetsReply {
    /// The subnets.
    pub subnets: Vec<SubnetSummary>,
}

/// An output owner as `platformapi.Owner`: `{locktime, threshold, addresses}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner {
    /// Unix time before which it cannot spend.
    #[serde(with = "u64_string")]
    pub locktime: u64,
    /// Signatures needed.
    #[serde(with = "u32_string")]
    pub threshold: u32,
    /// `P-<hrp>1…` addresses.
    pub addresses: Vec<String>,
}

/// A validator's BLS key and, for permissionless validators, its proof of possession.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidatorSigner {
    /// The public key, `0x`-hex.
    #[serde(rename = "publicKey")]
    pub public_key: String,
    /// The proof of possession, `0x`-hex.
    #[serde(
        rename = "proofOfPossession",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub proof_of_possession: Option<String>,
}

/// A primary-network validator (`getCurrentValidators`, shape 1). What older nodes may not
/// write reads as its zero value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PrimaryValidator {
    /// The staker's tx, period, weight and node.
    #[serde(flatten)]
    pub staker: Staker,
    /// Who the validation reward pays.
    #[serde(default)]
    pub validation_reward_owner: Owner,
    /// Who delegation fees pay.
    #[serde(default)]
    pub delegation_reward_owner: Owner,
    /// The reward if its period ends well.
    #[serde(with = "u64_string")]
    pub potential_reward: u64,
    /// Delegation fees earned so far.
    #[serde(default, with = "u64_string")]
    pub accrued_delegatee_reward: u64,
    /// Its delegation fee, percent.
    #[serde(default, with = "float32_4dp")]
    pub delegation_fee: f32,
    /// Uptime, percent.
    #[serde(default, with = "float32_4dp")]
    pub uptime: f32,
    /// Whether this node sees it connected.
    #[serde(default)]
    pub connected: bool,
    /// Its BLS key, if it registered one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer: Option<ValidatorSigner>,
    /// How many delegate to it.
    #[serde(default, with = "u64_string")]
    pub delegator_count: u64,
    /// Their total stake.
    #[serde(default, with = "u64_string")]
    pub delegator_weight: u64,
    /// The delegators, when exactly one node was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegators: Option<Vec<Delegator>>,
}

/// A delegator of a primary-network validator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Delegator {
    /// The staker's tx, period, weight and the node it delegates to.
    #[serde(flatten)]
    pub staker: Staker,
    /// Who its reward pays (omitted by AvalancheGo when several nodes were asked for).
    #[serde(default)]
    pub reward_owner: Owner,
    /// The reward if its period ends well, before the validator's fee.
    #[serde(with = "u64_string")]
    pub potential_reward: u64,
}

/// What every staker record starts with (`platformapi.Staker`); alone, a permissioned
/// subnet's validator (shape 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Staker {
    /// The tx that added it.
    #[serde(rename = "txID")]
    pub tx_id: Id,
    /// Unix start.
    #[serde(with = "u64_string")]
    pub start_time: u64,
    /// Unix end.
    #[serde(with = "u64_string")]
    pub end_time: u64,
    /// Its weight.
    #[serde(with = "u64_string")]
    pub weight: u64,
    /// The node.
    #[serde(rename = "nodeID")]
    pub node_id: NodeId,
}

/// An L1 validator (shape 3, `platformapi.APIL1Validator`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct L1Validator {
    /// The node.
    #[serde(rename = "nodeID")]
    pub node_id: NodeId,
    /// Its weight.
    #[serde(with = "u64_string")]
    pub weight: u64,
    /// Unix start.
    #[serde(with = "u64_string")]
    pub start_time: u64,
    /// The validation ID.
    #[serde(rename = "validationID")]
    pub validation_id: Id,
    /// The BLS key, `0x`-hex.
    pub public_key: String,
    /// Who the remaining balance returns to.
    pub remaining_balance_owner: Owner,
    /// Who may deactivate it.
    pub deactivation_owner: Owner,
    /// The least nonce of its next weight change.
    #[serde(with = "u64_string")]
    pub min_nonce: u64,
    /// Its balance, nAVAX.
    #[serde(with = "u64_string")]
    pub balance: u64,
}

/// One entry of `getCurrentValidators`, in the shape of its subnet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CurrentValidator {
    /// An L1 validator.
    L1(L1Validator),
    /// A primary-network validator.
    Primary(PrimaryValidator),
    /// A permissioned subnet's validator.
    Subnet(Staker),
}

/// `{validators}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurrentValidatorsReply {
    /// The validators.
    pub validators: Vec<CurrentValidator>,
}

/// `{validators, delegators}`, both empty since Durango.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PendingValidatorsReply {
    /// Pending validators.
    pub validators: Vec<CurrentValidator>,
    /// Pending delegators.
    pub delegators: Vec<Delegator>,
}

/// One node of `getValidatorsAt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorAt {
    /// Its BLS key, `0x`-hex (`null` without one).
    pub public_key: Option<String>,
    /// Its weight.
    #[serde(with = "u64_string")]
    pub weight: u64,
}

/// The bare map `{"NodeID-…": {publicKey, weight}}`.
pub type ValidatorsAtReply = BTreeMap<NodeId, ValidatorAt>;

/// One canonical validator of `getAllValidatorsAt`: a BLS key and the nodes sharing it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CanonicalValidator {
    /// The BLS key, `0x`-hex.
    pub public_key: String,
    /// The summed weight.
    #[serde(with = "u64_string")]
    pub weight: u64,
    /// The nodes.
    #[serde(rename = "nodeIDs")]
    pub node_ids: Vec<NodeId>,
}

/// A subnet's canonical set: `{validators, totalWeight}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CanonicalSet {
    /// In Warp's canonical order.
    pub validators: Vec<CanonicalValidator>,
    /// Every validator's weight, keyless ones included.
    #[serde(with = "u64_string")]
    pub total_weight: u64,
}

/// `{validatorSets}` by subnet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AllValidatorsAtReply {
    /// The sets.
    pub validator_sets: BTreeMap<Id, CanonicalSet>,
}

/// `getL1Validator`'s reply: the L1 shape, its subnet and the height it was read at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct L1ValidatorReply {
    /// The validator.
    #[serde(flatten)]
    pub validator: L1Validator,
    /// Its L1.
    #[serde(rename = "subnetID")]
    pub subnet_id: Id,
    /// The height read.
    #[serde(with = "u64_string")]
    pub height: u64,
}

/// `{supply, height}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SupplyReply {
    /// nAVAX in existence.
    #[serde(with = "u64_string")]
    pub supply: u64,
    /// The height read.
    #[serde(with = "u64_string")]
    pub height: u64,
}

/// One blockchain of `getBlockchains`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blockchain {
    /// The chain.
    pub id: Id,
    /// Its name.
    pub name: String,
    /// The subnet validating it.
    #[serde(rename = "subnetID")]
    pub subnet_id: Id,
    /// Its VM.
    #[serde(rename = "vmID")]
    pub vm_id: Id,
}

/// `{blockchains}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockchainsReply {
    /// The chains.
    pub blockchains: Vec<Blockchain>,
}

/// `{status}`: `Validating`, `Created`, `Preferred`, `Syncing` or `Unknown`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusReply {
    /// The status.
    pub status: String,
}

/// `{subnetID}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubnetIdReply {
    /// The subnet.
    #[serde(rename = "subnetID")]
    pub subnet_id: Id,
}

/// `{blockchainIDs}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockchainIdsReply {
    /// The chains.
    #[serde(rename = "blockchainIDs")]
    pub blockchain_ids: Vec<Id>,
}

/// `{timestamp}`: RFC 3339.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimestampReply {
    /// The time.
    pub timestamp: String,
}

/// `{minValidatorStake, minDelegatorStake}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MinStakeReply {
    /// nAVAX.
    #[serde(with = "u64_string")]
    pub min_validator_stake: u64,
    /// nAVAX.
    #[serde(with = "u64_string")]
    pub min_delegator_stake: u64,
}

/// `{stake, weight}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TotalStakeReply {
    /// The staked amount (for the primary network, the weight).
    #[serde(with = "u64_string")]
    pub stake: u64,
    /// The set's weight.
    #[serde(with = "u64_string")]
    pub weight: u64,
}

/// `{numFetched, utxos, encoding}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RewardUtxosReply {
    /// How many.
    #[serde(with = "u64_string")]
    pub num_fetched: u64,
    /// The UTXOs, encoded.
    #[serde(default)]
    pub utxos: Vec<String>,
    /// The encoding used.
    pub encoding: String,
}

/// `{staked, stakeds, stakedOutputs, encoding}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StakeReply {
    /// AVAX staked.
    #[serde(with = "u64_string")]
    pub staked: u64,
    /// Staked by asset.
    pub stakeds: BTreeMap<Id, Uint64>,
    /// The stake outputs, encoded.
    pub staked_outputs: Vec<String>,
    /// The encoding used.
    pub encoding: String,
}

/// `{validators}`: node IDs, a heavy one possibly more than once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleValidatorsReply {
    /// The sample, sorted.
    pub validators: Vec<NodeId>,
}

/// Etna's `gas.Config`: plain JSON numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeeConfigReply {
    /// Gas per unit of bandwidth, reads, writes, compute.
    pub weights: [u64; 4],
    /// The most gas a burst may use.
    pub max_capacity: u64,
    /// Gas capacity regained per second.
    pub max_per_second: u64,
    /// The gas per second the price aims at.
    pub target_per_second: u64,
    /// The least price, nAVAX per gas.
    pub min_price: u64,
    /// How fast the price follows the excess.
    pub excess_conversion_constant: u64,
}

/// Etna's fee state: `{capacity, excess, price, timestamp}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeeStateReply {
    /// Gas available now.
    pub capacity: u64,
    /// Gas used above the target.
    pub excess: u64,
    /// nAVAX per gas.
    pub price: u64,
    /// The chain time, RFC 3339.
    pub timestamp: String,
}

/// The L1 validator fee's `fee.Config`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidatorFeeConfigReply {
    /// The most L1 validators the fee allows for.
    pub capacity: u64,
    /// The number the price aims at.
    pub target: u64,
    /// The least price, nAVAX per second.
    pub min_price: u64,
    /// How fast the price follows the excess.
    pub excess_conversion_constant: u64,
}

/// The L1 validator fee's state: `{excess, price, timestamp}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidatorFeeStateReply {
    /// Validator-seconds above the target.
    pub excess: u64,
    /// nAVAX per validator-second.
    pub price: u64,
    /// The chain time, RFC 3339.
    pub timestamp: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three `getCurrentValidators` shapes as AvalancheGo writes them
    /// (`reference/node-rpc-facts.md` §1), each read as its own variant and written back
    /// byte for byte.
    #[test]
    fn current_validator_shapes_round_trip() {
        let primary = r#"{"txID":"11111111111111111111111111111111LpoYY","startTime":"1600368632","endTime":"1602960455","weight":"2000000000000","nodeID":"NodeID-111111111111111111116DBWJs","validationRewardOwner":{"locktime":"0","threshold":"1","addresses":["P-avax1"]},"delegationRewardOwner":{"locktime":"0","threshold":"1","addresses":["P-avax1"]},"potentialReward":"117431493426","accruedDelegateeReward":"0","delegationFee":"10.0000","uptime":"99.8712","connected":true,"signer":{"publicKey":"0x01","proofOfPossession":"0x02"},"delegatorCount":"1","delegatorWeight":"25000000000","delegators":[{"txID":"11111111111111111111111111111111LpoYY","startTime":"1","endTime":"2","weight":"25000000000","nodeID":"NodeID-111111111111111111116DBWJs","rewardOwner":{"locktime":"0","threshold":"1","addresses":["P-avax1"]},"potentialReward":"5"}]}"#;
        let subnet = r#"{"txID":"11111111111111111111111111111111LpoYY","startTime":"1","endTime":"2","weight":"20","nodeID":"NodeID-111111111111111111116DBWJs"}"#;
        let l1 = r#"{"nodeID":"NodeID-111111111111111111116DBWJs","weight":"20","startTime":"1734034648","validationID":"11111111111111111111111111111111LpoYY","publicKey":"0x03","remainingBalanceOwner":{"locktime":"0","threshold":"1","addresses":["P-fuji1"]},"deactivationOwner":{"locktime":"0","threshold":"1","addresses":["P-fuji1"]},"minNonce":"0","balance":"8780477952"}"#;
        for (text, want) in [(primary, "primary"), (subnet, "subnet"), (l1, "l1")] {
            let v: CurrentValidator = serde_json::from_str(text).unwrap();
            let got = match &v {
                CurrentValidator::Primary(p) => {
                    assert_eq!(p.delegation_fee, 10.0);
                    assert_eq!(p.delegators.as_ref().map(Vec::len), Some(1));
                    "primary"
                }
                CurrentValidator::Subnet(_) => "subnet",
                CurrentValidator::L1(_) => "l1",
            };
            assert_eq!(got, want);
            assert_eq!(serde_json::to_string(&v).unwrap(), text);
        }
    }

    /// An older node's primary validator (no signer, no uptime, no counts) still reads.
    #[test]
    fn a_sparse_primary_validator_reads() {
        let text = r#"{"txID":"11111111111111111111111111111111LpoYY","startTime":"1","endTime":"2","weight":"3","nodeID":"NodeID-111111111111111111116DBWJs","potentialReward":"4"}"#;
        let v: CurrentValidator = serde_json::from_str(text).unwrap();
        let CurrentValidator::Primary(p) = v else {
            panic!("not read as a primary validator: {v:?}");
        };
        assert_eq!((p.potential_reward, p.delegation_fee), (4, 0.0));
    }

    #[test]
    fn dropped_tx_status_carries_its_reason_and_others_none() {
        let dropped = r#"{"status":"Dropped","reason":"insufficient funds"}"#;
        let r: TxStatusReply = serde_json::from_str(dropped).unwrap();
        assert_eq!(r.status, TxStatus::Dropped);
        assert_eq!(serde_json::to_string(&r).unwrap(), dropped);
        let r = TxStatusReply {
            status: TxStatus::Committed,
            reason: None,
        };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"status":"Committed"}"#
        );
    }
}
