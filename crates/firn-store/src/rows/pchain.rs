//! P-Chain rows: blocks, transactions, UTXOs, stakers, rewards, subnets, blockchains,
//! L1 validators.
//!
//! Write types ([`PChainBlockRows`], [`PTx`]) carry what one accepted block changes; read types
//! (`*Record`) add what the store derives (positions, consumption, rewards, status).

use firn_core::ids::{Id, NodeId, ShortId};
use serde::{Deserialize, Serialize};

use super::text_enum;

/// Everything one accepted P-Chain block writes: the unit of atomic commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PChainBlockRows {
    /// The block header.
    pub block: PBlock,
    /// Its transactions, in block order (the position is the transaction index).
    pub txs: Vec<PTx>,
    /// What the L1 validator fee ledger changed since the last block that carried changes,
    /// this one included (`None`: the ledger is not replayed, or nothing to write yet).
    pub l1_fees: Option<super::l1_fees::L1FeeChanges>,
}

/// A P-Chain block header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PBlock {
    /// Height.
    pub height: u64,
    /// Block ID.
    pub hash: Id,
    /// Parent block ID.
    pub parent_hash: Id,
    /// Block time, Unix seconds.
    pub timestamp: u64,
    /// Block type name (`BanffStandardBlock`, …).
    pub block_type: String,
    /// Encoded size.
    pub size_bytes: u64,
    /// Snowman++ proposer data, when the block was proposed.
    pub proposer: Option<ProposerDetails>,
    /// Fees accrued by L1 validators (post-Etna).
    pub l1_validators_accrued_fees: Option<u64>,
    /// Number of active L1 validators (post-Etna).
    pub active_l1_validators: Option<u64>,
    /// AVAX supply after the block.
    pub current_supply: Option<u64>,
}

/// Snowman++ proposer details of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProposerDetails {
    /// Proposervm block ID.
    pub id: Id,
    /// Proposervm parent ID.
    pub parent_id: Id,
    /// The proposing node.
    pub node_id: NodeId,
    /// P-Chain height the proposer referenced.
    pub pchain_height: u64,
    /// Proposer timestamp.
    pub timestamp: u64,
}

/// A stored block and the IDs of its transactions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PBlockRecord {
    /// The header as written.
    pub block: PBlock,
    /// Transaction IDs in block order.
    pub tx_hashes: Vec<Id>,
}

/// An amount of one asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssetAmount {
    /// Asset ID.
    pub asset_id: Id,
    /// Amount in the smallest unit.
    pub amount: u64,
}

/// The fields of a P-Chain transaction that are stored and read back as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PTxCore {
    /// Transaction ID.
    pub tx_hash: Id,
    /// Type name as the Data API spells it (`AddPermissionlessValidatorTx`, …).
    pub tx_type: String,
    /// Memo bytes.
    pub memo: Vec<u8>,
    /// Source chain of an import.
    pub source_chain: Option<Id>,
    /// Destination chain of an export.
    pub destination_chain: Option<Id>,
    /// Value moved, per asset.
    pub value: Vec<AssetAmount>,
    /// Fees burned, per asset.
    pub amount_burned: Vec<AssetAmount>,
    /// Amount staked, per asset.
    pub amount_staked: Vec<AssetAmount>,
    /// L1 validator balance burned, per asset.
    pub amount_l1_balance_burned: Vec<AssetAmount>,
    /// Validator node, for staking and L1 transactions.
    pub node_id: Option<NodeId>,
    /// Subnet the transaction acts on.
    pub subnet_id: Option<Id>,
    /// Staking start.
    pub start_ts: Option<u64>,
    /// Staking end.
    pub end_ts: Option<u64>,
    /// The staking transaction this one ends (`RewardValidatorTx`, `RemoveSubnetValidatorTx`).
    pub ends_staker: Option<Id>,
    /// Wire extras, kept as they are.
    pub details: PTxDetails,
}

/// Per-type extras of a P-Chain transaction (stored as JSON; not filtered on).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PTxDetails {
    /// Delegation fee of a validator, as the Data API's percentage string.
    pub delegation_fee_percent: Option<String>,
    /// Reward owners of a staking transaction.
    pub reward_addresses: Vec<ShortId>,
    /// Estimated reward of a staking transaction.
    pub estimated_reward: Option<u64>,
    /// BLS key and proof of possession of a permissionless validator.
    pub bls_credentials: Option<BlsCredentials>,
    /// Owner set by `CreateSubnetTx` / `TransferSubnetOwnershipTx`.
    pub subnet_owner: Option<Owner>,
    /// Validator manager of a `ConvertSubnetToL1Tx`.
    pub l1_validator_manager: Option<L1ValidatorManager>,
    /// L1 validators a transaction registers or changes.
    pub l1_validator_details: Vec<L1ValidatorDetail>,
    /// Chain created by `CreateChainTx`.
    pub blockchain_info: Option<BlockchainInfo>,
}

/// A BLS public key and its proof of possession, hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlsCredentials {
    /// Public key, hex.
    pub public_key: String,
    /// Proof of possession, hex.
    pub proof_of_possession: String,
}

/// A multisig owner.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Owner {
    /// Locktime.
    pub locktime: u64,
    /// Signatures needed.
    pub threshold: u32,
    /// Owner addresses.
    pub addresses: Vec<ShortId>,
}

/// Validator manager of an L1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct L1ValidatorManager {
    /// Chain of the manager contract.
    pub blockchain_id: Id,
    /// Manager contract address, hex.
    pub contract_address: String,
}

/// One L1 validator as a transaction shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct L1ValidatorDetail {
    /// Validation ID.
    pub validation_id: Id,
    /// Node.
    pub node_id: NodeId,
    /// Subnet.
    pub subnet_id: Id,
    /// Weight.
    pub weight: u64,
    /// Remaining balance.
    pub remaining_balance: u64,
    /// Balance change made by the transaction.
    pub balance_change: Option<u64>,
    /// BLS credentials, when registered by the transaction.
    pub bls_credentials: Option<BlsCredentials>,
}

/// Name and VM of a created chain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockchainInfo {
    /// Chain name.
    pub chain_name: String,
    /// VM ID.
    pub vm_id: Id,
}

/// A P-Chain transaction and everything it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PTx {
    /// The stored fields.
    pub core: PTxCore,
    /// Every address the transaction touches (input owners, outputs, reward owners); the
    /// `addresses` filter matches these.
    pub addresses: Vec<ShortId>,
    /// IDs of the UTXOs it spends, in input order. Each must be stored and unspent, or be in
    /// `imported`.
    pub consumed: Vec<Id>,
    /// UTXOs from another chain's shared memory that this import spends.
    pub imported: Vec<PUtxo>,
    /// UTXOs it creates, in output order (staked outputs included).
    pub emitted: Vec<PUtxo>,
    /// The staker it adds (validator or delegator transactions).
    pub staker: Option<NewStaker>,
    /// Reward UTXOs it pays (`RewardValidatorTx`).
    pub rewards: Vec<NewReward>,
    /// L1 validation IDs it concerns; the `l1ValidationId` filter matches these.
    pub l1_validation_ids: Vec<Id>,
    /// New state of every L1 validator it creates or changes.
    pub l1_validators: Vec<L1Validator>,
    /// Subnet it creates or changes.
    pub subnet: Option<SubnetChange>,
    /// Chain it creates.
    pub blockchain: Option<NewBlockchain>,
}

text_enum!(
    /// Kind of P-Chain UTXO.
    UtxoType {
        /// Locked in a staking transaction.
        Stake = "STAKE",
        /// Anything else.
        Transfer = "TRANSFER",
    }
);

text_enum!(
    /// Kind of staking reward.
    RewardType {
        /// A validator's own reward.
        Validator = "VALIDATOR",
        /// A delegator's reward.
        Delegator = "DELEGATOR",
        /// The validator's fee from a delegation.
        ValidatorFee = "VALIDATOR_FEE",
    }
);

/// A P-Chain UTXO as created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PUtxo {
    /// UTXO ID.
    pub utxo_id: Id,
    /// Creating transaction.
    pub tx_hash: Id,
    /// Output index in the creating transaction.
    pub output_index: u32,
    /// Asset.
    pub asset_id: Id,
    /// Amount.
    pub amount: u64,
    /// Owners.
    pub addresses: Vec<ShortId>,
    /// Signatures needed.
    pub threshold: u32,
    /// Platform locktime.
    pub locktime: u64,
    /// Stakeable locktime, for stakeable-locked outputs.
    pub stakeable_locktime: Option<u64>,
    /// Whether the output is staked.
    pub staked: bool,
    /// Stake or transfer.
    pub utxo_type: UtxoType,
    /// Reward kind, for reward UTXOs.
    pub reward_type: Option<RewardType>,
    /// Chain the UTXO was created on.
    pub created_on_chain: Id,
    /// Chain it is (or will be) consumed on.
    pub consumed_on_chain: Id,
    /// Staking start, for staked outputs.
    pub start_ts: Option<u64>,
    /// Staking end, for staked outputs.
    pub end_ts: Option<u64>,
    /// Encoded UTXO.
    pub bytes: Vec<u8>,
}

/// Where and when a stored UTXO was spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UtxoConsumption {
    /// Spending transaction.
    pub tx_hash: Id,
    /// Its block height.
    pub height: u64,
    /// Its block time.
    pub timestamp: u64,
}

/// A stored UTXO with its creating block and its consumption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PUtxoRecord {
    /// The UTXO as created.
    pub utxo: PUtxo,
    /// Height of the creating block (for imported UTXOs, of the importing block).
    pub height: u64,
    /// Time of that block.
    pub timestamp: u64,
    /// Consumption, if spent.
    pub consumed: Option<UtxoConsumption>,
}

/// A stored transaction with its position and UTXOs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PTxRecord {
    /// Block height.
    pub height: u64,
    /// Index in the block.
    pub tx_index: u32,
    /// Block ID.
    pub block_hash: Id,
    /// Block time.
    pub timestamp: u64,
    /// The stored fields.
    pub core: PTxCore,
    /// UTXOs spent, in input order.
    pub consumed: Vec<PUtxoRecord>,
    /// UTXOs created, in output order.
    pub emitted: Vec<PUtxoRecord>,
}

/// A validator or delegator added by a staking transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewStaker {
    /// Node.
    pub node_id: NodeId,
    /// Subnet validated ([`firn_core::network::P_CHAIN_ID`] for the Primary Network).
    pub subnet_id: Id,
    /// Start time.
    pub start_ts: u64,
    /// End time.
    pub end_ts: u64,
    /// Stake or weight.
    pub weight: u64,
    /// True for delegators.
    pub is_delegator: bool,
    /// Delegation fee in millionths: what a validator charges, or what a delegator's
    /// validator charges it (the rate its reward is split at).
    pub delegation_fee: u32,
    /// Reward owners.
    pub reward_addresses: Vec<ShortId>,
    /// Estimated reward, when known.
    pub estimated_reward: Option<u64>,
}

text_enum!(
    /// Status of a staker at a moment.
    StakerStatus {
        /// Ended (rewarded or removed).
        Completed = "completed",
        /// Started and not ended.
        Active = "active",
        /// Not started yet.
        Pending = "pending",
        /// A permissioned subnet's validator taken off by a `RemoveSubnetValidatorTx`.
        Removed = "removed",
    }
);

/// The staking transaction of a permissioned subnet's validator: it ends at its end time
/// without a transaction, or earlier by a `RemoveSubnetValidatorTx`.
pub const SUBNET_VALIDATOR_TX: &str = "AddSubnetValidatorTx";

/// A stored staker with its end and rewards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StakerRecord {
    /// Staking transaction.
    pub tx_hash: Id,
    /// Its type name.
    pub tx_type: String,
    /// Its block height.
    pub height: u64,
    /// Its index in the block.
    pub tx_index: u32,
    /// The staker as added.
    pub staker: NewStaker,
    /// The ending transaction, once ended.
    pub ended_by: Option<UtxoConsumption>,
    /// All rewards paid for this stake (for a delegator: its reward plus the validator fee).
    pub gross_reward: u64,
    /// Rewards paid to the staker itself (VALIDATOR or DELEGATOR kind).
    pub net_reward: u64,
}

impl StakerRecord {
    /// Status at `now` (Unix seconds): completed once ended (rewarded, or for a permissioned
    /// subnet's validator, past its end time), removed when a subnet validator was taken off,
    /// pending before start.
    pub fn status(&self, now: u64) -> StakerStatus {
        let subnet_validator = self.tx_type == SUBNET_VALIDATOR_TX;
        if self.ended_by.is_some() && subnet_validator {
            StakerStatus::Removed
        } else if self.ended_by.is_some() || (subnet_validator && self.staker.end_ts <= now) {
            StakerStatus::Completed
        } else if self.staker.start_ts > now {
            StakerStatus::Pending
        } else {
            StakerStatus::Active
        }
    }
}

/// A reward UTXO paid by a `RewardValidatorTx`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewReward {
    /// UTXO ID.
    pub utxo_id: Id,
    /// Output index.
    pub output_index: u32,
    /// Kind.
    pub reward_type: RewardType,
    /// The stake that earned it.
    pub staking_tx_hash: Id,
    /// Asset.
    pub asset_id: Id,
    /// Amount.
    pub amount: u64,
    /// Owners.
    pub addresses: Vec<ShortId>,
}

/// A stored reward, joined with its stake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewardRecord {
    /// The reward as paid.
    pub reward: NewReward,
    /// Paying transaction.
    pub reward_tx_hash: Id,
    /// Its block height.
    pub height: u64,
    /// Its index in the block.
    pub tx_index: u32,
    /// Position among the transaction's rewards.
    pub seq: u32,
    /// Node of the stake.
    pub node_id: NodeId,
    /// Amount staked.
    pub amount_staked: u64,
    /// Stake start.
    pub start_ts: u64,
    /// Stake end.
    pub end_ts: u64,
}

/// A subnet change made by a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubnetChange {
    /// `CreateSubnetTx`: the subnet ID is the transaction ID.
    Created {
        /// Subnet ID.
        subnet_id: Id,
        /// Owner.
        owner: Owner,
    },
    /// `TransferSubnetOwnershipTx`.
    OwnerChanged {
        /// Subnet ID.
        subnet_id: Id,
        /// New owner.
        owner: Owner,
    },
    /// `ConvertSubnetToL1Tx`.
    Converted {
        /// Subnet ID.
        subnet_id: Id,
        /// Conversion ID.
        conversion_id: Id,
        /// Chain of the validator manager.
        manager_chain: Id,
        /// Validator manager address.
        manager_address: Vec<u8>,
    },
}

/// What the stakers active at one moment add up to (validators and delegators apart).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StakingTotals {
    /// Active validators.
    pub validators: u64,
    /// Their summed weight (stake), nAVAX.
    pub validator_weight: u128,
    /// Active delegators.
    pub delegators: u64,
    /// Their summed weight, nAVAX.
    pub delegator_weight: u128,
    /// The rewards all of them stand to earn (the node's potential rewards), nAVAX.
    pub potential_reward: u128,
}

/// What the followed node last said of a node validating the primary network
/// (`platform.getCurrentValidators`); the node's subnet validations share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidatorObservation {
    /// The node.
    pub node_id: NodeId,
    /// Its uptime as the node measures it, percent × 10,000 (the four decimals AvalancheGo
    /// writes: 99.5 % is 995,000).
    pub uptime: u32,
    /// Whether the node was connected to it.
    pub connected: bool,
    /// When (Unix seconds).
    pub observed_at: u64,
}

/// What the followed node last said of an L1 validator's remaining balance
/// (`platform.getCurrentValidators` of its L1): fees drain it every second by a rule only the
/// node's fee state knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L1Observation {
    /// The validation.
    pub validation_id: Id,
    /// Its remaining balance, nAVAX.
    pub balance: u64,
    /// The P-Chain height the node named.
    pub height: u64,
    /// When (Unix seconds).
    pub observed_at: u64,
}

/// The parts of an asset's supply the P-Chain index holds
/// ([`crate::PChainReader::find_supply_totals`]); amounts saturate at `u64::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SupplyTotals {
    /// Burned by the indexed transactions: what they consumed less what they produced, staked
    /// and moved into L1 validator balances.
    pub burned: u64,
    /// Paid by the indexed reward transactions (reward UTXOs).
    pub rewarded: u64,
    /// Minted into the supply and not paid yet: the potential rewards of the primary
    /// network's stakers started by that moment and not yet ended by a transaction, and the
    /// delegation fees their validators accrued from delegators already rewarded.
    pub pending_rewards: u64,
    /// Held by unspent P-Chain UTXOs whose lock (locktime or stakeable lock) ends after the
    /// moment asked about, stakes still staking left out.
    pub locked: u64,
    /// Of the genesis block's outputs (a node whose block 0 carries its genesis, as firn's
    /// devnet does), those whose lock ends after that moment, wherever they went since.
    pub genesis_locked: u64,
}

/// The current supply the followed node reported (`platform.getCurrentSupply`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SupplyReading {
    /// The subnet whose supply it is ([`firn_core::network::P_CHAIN_ID`]: AVAX).
    pub subnet_id: Id,
    /// The supply, in the subnet's smallest unit (nAVAX).
    pub supply: u64,
    /// The P-Chain height the node named.
    pub height: u64,
    /// When it was read (Unix seconds).
    pub observed_at: u64,
}

/// The delegations a validator received (those inside its staking period, on its node and
/// subnet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DelegationTotals {
    /// The validator's staking transaction.
    pub validator: Id,
    /// Delegations in all.
    pub count: u64,
    /// Their stake, nAVAX.
    pub amount: u128,
    /// Delegations not yet ended (rewarded).
    pub open_count: u64,
    /// Their stake, nAVAX.
    pub open_amount: u128,
    /// The validator's cut of their potential rewards (its delegation fees to come), nAVAX.
    pub open_fees: u128,
}

/// A stored subnet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubnetRecord {
    /// Subnet ID.
    pub subnet_id: Id,
    /// Creating block height.
    pub height: u64,
    /// Creating transaction.
    pub tx_hash: Id,
    /// Creating block time.
    pub timestamp: u64,
    /// Current owner.
    pub owner: Owner,
    /// L1 conversion, once converted.
    pub conversion: Option<SubnetConversion>,
}

/// How and when a subnet became an L1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubnetConversion {
    /// Conversion ID.
    pub conversion_id: Id,
    /// Chain of the validator manager.
    pub manager_chain: Id,
    /// Validator manager address.
    pub manager_address: Vec<u8>,
    /// Height of the conversion.
    pub height: u64,
}

/// A chain created by `CreateChainTx`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBlockchain {
    /// Blockchain ID (the transaction ID).
    pub blockchain_id: Id,
    /// Subnet.
    pub subnet_id: Id,
    /// Name.
    pub name: String,
    /// VM ID.
    pub vm_id: Id,
    /// Genesis bytes as given in the transaction.
    pub genesis: Vec<u8>,
    /// EVM chain ID read from an EVM genesis.
    pub evm_chain_id: Option<u64>,
}

/// A stored chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockchainRecord {
    /// The chain as created.
    pub chain: NewBlockchain,
    /// Creating block height.
    pub height: u64,
    /// Creating transaction.
    pub tx_hash: Id,
    /// Creating block time.
    pub timestamp: u64,
}

/// The state of an L1 validator after a transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L1Validator {
    /// Validation ID.
    pub validation_id: Id,
    /// Subnet.
    pub subnet_id: Id,
    /// Node.
    pub node_id: NodeId,
    /// Weight (0 once removed).
    pub weight: u64,
    /// Remaining balance.
    pub balance: u64,
    /// BLS public key.
    pub bls_public_key: Vec<u8>,
    /// False once disabled or removed.
    pub active: bool,
    /// Who gets the remaining balance back (locktime 0; empty for validators stored before
    /// the store kept owners).
    pub remaining_balance_owner: Owner,
    /// Who may disable it.
    pub deactivation_owner: Owner,
}

/// A stored L1 validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L1ValidatorRecord {
    /// Current state.
    pub validator: L1Validator,
    /// Height that created it.
    pub created_height: u64,
    /// Transaction that created it.
    pub created_tx_hash: Id,
    /// Time of the block that created it.
    pub created_timestamp: u64,
    /// Height of its last change.
    pub updated_height: u64,
}
