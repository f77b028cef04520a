//! Primary-network shapes: P-Chain transactions and UTXOs, blocks, rewards, delegators,
//! blockchains.

use firn_core::ids::{Id, ShortId};
use firn_core::pchain::reward;
use firn_store::rows::pchain::{
    AssetAmount as StoreAmount, BlockchainRecord, P_CHAIN_ID, PBlockRecord, PTxRecord, PUtxoRecord,
    RewardRecord, StakerRecord, StakerStatus,
};
use serde::Serialize;
use utoipa::ToSchema;

use super::Money;
use crate::config::NetworkProfile;

/// `txTypes` filter values (`PrimaryNetworkTxType`).
pub const TX_TYPE_FILTER: [&str; 23] = [
    "AddValidatorTx",
    "AddSubnetValidatorTx",
    "AddDelegatorTx",
    "CreateChainTx",
    "CreateSubnetTx",
    "ImportTx",
    "ExportTx",
    "AdvanceTimeTx",
    "RewardValidatorTx",
    "RemoveSubnetValidatorTx",
    "TransformSubnetTx",
    "AddPermissionlessValidatorTx",
    "AddPermissionlessDelegatorTx",
    "BaseTx",
    "TransferSubnetOwnershipTx",
    "ConvertSubnetToL1Tx",
    "RegisterL1ValidatorTx",
    "SetL1ValidatorWeightTx",
    "DisableL1ValidatorTx",
    "IncreaseL1ValidatorBalanceTx",
    "UNKNOWN",
    "CreateAssetTx",
    "OperationTx",
];

/// The first 21 filter values are the P-Chain's response types (`PChainTransactionType`).
fn response_tx_type(stored: &str) -> String {
    if TX_TYPE_FILTER[..21].contains(&stored) {
        stored.to_owned()
    } else {
        "UNKNOWN".to_owned()
    }
}

/// cb58 of the P-Chain's ID (all zeros), the chain of nearly every UTXO.
const P_CHAIN_ID_CB58: &str = "11111111111111111111111111111111LpoYY";

/// Rendering context: the network's HRP and AVAX asset, with the cb58 of the IDs every UTXO
/// repeats (its chains and asset) made once, not per UTXO.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The network identity.
    pub network: &'a NetworkProfile,
    avax_asset_cb58: &'a str,
}

impl<'a> Ctx<'a> {
    /// A context for `network`; `avax_asset_cb58` is the cb58 of its AVAX asset ID.
    pub fn new(network: &'a NetworkProfile, avax_asset_cb58: &'a str) -> Self {
        Self {
            network,
            avax_asset_cb58,
        }
    }

    /// cb58 of a chain ID.
    fn chain(&self, id: &Id) -> String {
        if *id == P_CHAIN_ID {
            P_CHAIN_ID_CB58.to_owned()
        } else {
            id.to_string()
        }
    }

    /// cb58 of an asset ID.
    fn asset(&self, id: &Id) -> String {
        if *id == self.network.avax_asset_id {
            self.avax_asset_cb58.to_owned()
        } else {
            id.to_string()
        }
    }

    /// bech32 without a chain prefix (`fuji1…`), as the Data API prints addresses.
    pub fn address(&self, id: &ShortId) -> String {
        firn_core::address::bech32_encode(&self.network.hrp, id).unwrap_or_default()
    }

    fn addresses(&self, ids: &[ShortId]) -> Vec<String> {
        ids.iter().map(|a| self.address(a)).collect()
    }

    /// An amount of an asset with its name, symbol and denomination.
    pub fn amount(&self, asset_id: Id, amount: u64) -> AssetAmount {
        let avax = asset_id == self.network.avax_asset_id;
        AssetAmount {
            asset_id: self.asset(&asset_id),
            name: if avax { "Avalanche" } else { "Unknown" }.to_owned(),
            symbol: if avax { "AVAX" } else { "UNKNOWN" }.to_owned(),
            denomination: if avax { 9 } else { 0 },
            r#type: "secp256k1".to_owned(),
            amount: amount.to_string(),
        }
    }

    fn amounts(&self, list: &[StoreAmount]) -> Vec<AssetAmount> {
        list.iter()
            .map(|a| self.amount(a.asset_id, a.amount))
            .collect()
    }
}

/// Network of a list response (`PrimaryNetworkChainInfo`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrimaryNetworkChainInfo {
    /// `p-chain`, `x-chain` or `c-chain`.
    pub chain_name: String,
    /// `mainnet` or `fuji`.
    pub network: String,
}

/// An amount of one asset (`AssetAmount`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetAmount {
    /// Asset ID.
    pub asset_id: String,
    /// Asset name.
    pub name: String,
    /// Asset symbol.
    pub symbol: String,
    /// Decimals.
    pub denomination: u32,
    /// `secp256k1` or `nft`.
    pub r#type: String,
    /// Amount in the smallest unit.
    pub amount: String,
}

/// A P-Chain UTXO (`PChainUtxo`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PChainUtxo {
    /// Owners.
    pub addresses: Vec<String>,
    /// Asset and amount.
    pub asset: AssetAmount,
    /// Chain it is consumed on.
    pub consumed_on_chain_id: String,
    /// Chain it was created on.
    pub created_on_chain_id: String,
    /// UTXO ID.
    pub utxo_id: String,
    /// Amount.
    pub amount: String,
    /// Asset ID.
    pub asset_id: String,
    /// Creating block height.
    pub block_number: String,
    /// Creating block time.
    pub block_timestamp: u64,
    /// Output index.
    pub output_index: u32,
    /// Creating transaction.
    pub tx_hash: String,
    /// `STAKE` or `TRANSFER`.
    pub utxo_type: String,
    /// Spending transaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_tx_hash: Option<String>,
    /// Encoded UTXO, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utxo_bytes: Option<String>,
    /// Spending block height.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_block_number: Option<String>,
    /// Spending block time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consuming_block_timestamp: Option<u64>,
    /// Platform locktime.
    pub platform_locktime: u64,
    /// Reward kind of reward UTXOs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_type: Option<String>,
    /// Stakeable locktime.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stakeable_locktime: Option<u64>,
    /// Whether it is staked.
    pub staked: bool,
    /// Signatures needed.
    pub threshold: u32,
    /// Staking end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utxo_end_timestamp: Option<u64>,
    /// Staking start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utxo_start_timestamp: Option<u64>,
}

impl PChainUtxo {
    /// From a stored UTXO.
    pub fn from_record(ctx: Ctx<'_>, r: &PUtxoRecord) -> Self {
        let u = &r.utxo;
        Self {
            addresses: ctx.addresses(&u.addresses),
            asset: ctx.amount(u.asset_id, u.amount),
            consumed_on_chain_id: ctx.chain(&u.consumed_on_chain),
            created_on_chain_id: ctx.chain(&u.created_on_chain),
            utxo_id: u.utxo_id.to_string(),
            amount: u.amount.to_string(),
            asset_id: ctx.asset(&u.asset_id),
            block_number: r.height.to_string(),
            block_timestamp: r.timestamp,
            output_index: u.output_index,
            tx_hash: u.tx_hash.to_string(),
            utxo_type: u.utxo_type.as_str().to_owned(),
            consuming_tx_hash: r.consumed.map(|c| c.tx_hash.to_string()),
            utxo_bytes: (!u.bytes.is_empty()).then(|| format!("0x{}", hex::encode(&u.bytes))),
            consuming_block_number: r.consumed.map(|c| c.height.to_string()),
            consuming_block_timestamp: r.consumed.map(|c| c.timestamp),
            platform_locktime: u.locktime,
            reward_type: u.reward_type.map(|t| t.as_str().to_owned()),
            stakeable_locktime: u.stakeable_locktime,
            staked: u.staked,
            threshold: u.threshold,
            utxo_end_timestamp: u.end_ts,
            utxo_start_timestamp: u.start_ts,
        }
    }
}

/// Validator manager of a conversion.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct L1ValidatorManagerDetails {
    /// Chain of the manager contract.
    pub blockchain_id: String,
    /// Manager contract address.
    pub contract_address: String,
}

/// BLS key and proof of possession.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlsCredentials {
    /// Public key, hex.
    pub public_key: String,
    /// Proof of possession, hex.
    pub proof_of_possession: String,
}

/// One L1 validator as a transaction shows it (`L1ValidatorDetailsTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct L1ValidatorDetails {
    /// Validation ID, cb58.
    pub validation_id: String,
    /// Validation ID, hex.
    pub validation_id_hex: String,
    /// Node.
    pub node_id: String,
    /// Subnet.
    pub subnet_id: String,
    /// Weight.
    pub weight: u64,
    /// Remaining balance, nAVAX.
    pub remaining_balance: u64,
    /// Balance change made by the transaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub balance_change: Option<u64>,
    /// BLS credentials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bls_credentials: Option<BlsCredentials>,
}

/// Owner set on a subnet.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubnetOwnershipInfo {
    /// Locktime.
    pub locktime: u64,
    /// Signatures needed.
    pub threshold: u32,
    /// Owners.
    pub addresses: Vec<String>,
}

/// Chain created by a `CreateChainTx`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockchainInfo {
    /// Name.
    pub chain_name: String,
    /// VM ID.
    pub vm_id: String,
}

/// A P-Chain transaction (`PChainTransaction`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PChainTransaction {
    /// Transaction ID.
    pub tx_hash: String,
    /// Type (`PChainTransactionType`).
    pub tx_type: String,
    /// Block time.
    pub block_timestamp: u64,
    /// Block height.
    pub block_number: String,
    /// Block ID.
    pub block_hash: String,
    /// UTXOs spent.
    pub consumed_utxos: Vec<PChainUtxo>,
    /// UTXOs created.
    pub emitted_utxos: Vec<PChainUtxo>,
    /// Value moved.
    pub value: Vec<AssetAmount>,
    /// Fees burned.
    pub amount_burned: Vec<AssetAmount>,
    /// Amount staked.
    pub amount_staked: Vec<AssetAmount>,
    /// L1 validator balance burned.
    #[serde(rename = "amountL1ValidatorBalanceBurned")]
    pub amount_l1_validator_balance_burned: Vec<AssetAmount>,
    /// Source chain of an import.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_chain: Option<String>,
    /// Destination chain of an export.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destination_chain: Option<String>,
    /// Staking start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_timestamp: Option<u64>,
    /// Staking end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_timestamp: Option<u64>,
    /// Delegation fee of a validator, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delegation_fee_percent: Option<String>,
    /// Node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    /// Subnet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet_id: Option<String>,
    /// Validator manager of a conversion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l1_validator_manager_details: Option<L1ValidatorManagerDetails>,
    /// L1 validators registered or changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l1_validator_details: Option<Vec<L1ValidatorDetails>>,
    /// Estimated reward of a stake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_reward: Option<String>,
    /// Reward owners of a stake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reward_addresses: Option<Vec<String>>,
    /// Memo, hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memo: Option<String>,
    /// The stake a `RewardValidatorTx` ends.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staking_tx_hash: Option<String>,
    /// Owner set on a subnet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subnet_ownership_info: Option<SubnetOwnershipInfo>,
    /// BLS credentials of a validator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bls_credentials: Option<BlsCredentials>,
    /// Chain created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blockchain_info: Option<BlockchainInfo>,
}

fn bls(b: &firn_store::rows::pchain::BlsCredentials) -> BlsCredentials {
    BlsCredentials {
        public_key: b.public_key.clone(),
        proof_of_possession: b.proof_of_possession.clone(),
    }
}

impl PChainTransaction {
    /// From a stored transaction.
    pub fn from_record(ctx: Ctx<'_>, r: &PTxRecord) -> Self {
        let c = &r.core;
        let d = &c.details;
        Self {
            tx_hash: c.tx_hash.to_string(),
            tx_type: response_tx_type(&c.tx_type),
            block_timestamp: r.timestamp,
            block_number: r.height.to_string(),
            block_hash: r.block_hash.to_string(),
            consumed_utxos: r
                .consumed
                .iter()
                .map(|u| PChainUtxo::from_record(ctx, u))
                .collect(),
            emitted_utxos: r
                .emitted
                .iter()
                .map(|u| PChainUtxo::from_record(ctx, u))
                .collect(),
            value: ctx.amounts(&c.value),
            amount_burned: ctx.amounts(&c.amount_burned),
            amount_staked: ctx.amounts(&c.amount_staked),
            amount_l1_validator_balance_burned: ctx.amounts(&c.amount_l1_balance_burned),
            source_chain: c.source_chain.map(|i| i.to_string()),
            destination_chain: c.destination_chain.map(|i| i.to_string()),
            start_timestamp: c.start_ts,
            end_timestamp: c.end_ts,
            delegation_fee_percent: d.delegation_fee_percent.clone(),
            node_id: c.node_id.map(|n| n.to_string()),
            subnet_id: c.subnet_id.map(|s| s.to_string()),
            l1_validator_manager_details: d.l1_validator_manager.as_ref().map(|m| {
                L1ValidatorManagerDetails {
                    blockchain_id: m.blockchain_id.to_string(),
                    contract_address: m.contract_address.clone(),
                }
            }),
            l1_validator_details: (!d.l1_validator_details.is_empty()).then(|| {
                d.l1_validator_details
                    .iter()
                    .map(|v| L1ValidatorDetails {
                        validation_id: v.validation_id.to_string(),
                        validation_id_hex: format!("0x{}", hex::encode(v.validation_id.0)),
                        node_id: v.node_id.to_string(),
                        subnet_id: v.subnet_id.to_string(),
                        weight: v.weight,
                        remaining_balance: v.remaining_balance,
                        balance_change: v.balance_change,
                        bls_credentials: v.bls_credentials.as_ref().map(bls),
                    })
                    .collect()
            }),
            estimated_reward: d.estimated_reward.map(|r| r.to_string()),
            reward_addresses: (!d.reward_addresses.is_empty())
                .then(|| ctx.addresses(&d.reward_addresses)),
            memo: (!c.memo.is_empty()).then(|| format!("0x{}", hex::encode(&c.memo))),
            staking_tx_hash: c.ends_staker.map(|s| s.to_string()),
            subnet_ownership_info: d.subnet_owner.as_ref().map(|o| SubnetOwnershipInfo {
                locktime: o.locktime,
                threshold: o.threshold,
                addresses: ctx.addresses(&o.addresses),
            }),
            bls_credentials: d.bls_credentials.as_ref().map(bls),
            blockchain_info: d.blockchain_info.as_ref().map(|b| BlockchainInfo {
                chain_name: b.chain_name.clone(),
                vm_id: b.vm_id.to_string(),
            }),
        }
    }
}

/// A page of P-Chain transactions (`ListPChainTransactionsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPChainTransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The transactions.
    pub transactions: Vec<PChainTransaction>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}

/// A page of C-Chain atomic transactions (`ListCChainAtomicTransactionsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListCChainAtomicTransactionsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The transactions (C-Chain atomic import/export shapes).
    #[schema(value_type = Vec<Object>)]
    pub transactions: Vec<serde_json::Value>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}

/// Snowman++ proposer of a block.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProposerDetails {
    /// Proposervm block ID.
    pub proposer_id: String,
    /// Proposervm parent ID.
    pub proposer_parent_id: String,
    /// Proposing node.
    pub proposer_node_id: String,
    /// Referenced P-Chain height.
    pub proposer_p_chain_height: u64,
    /// Proposer time.
    pub proposer_timestamp: u64,
}

/// A primary-network block (`PrimaryNetworkBlock`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrimaryNetworkBlock {
    /// Height.
    pub block_number: String,
    /// Block ID.
    pub block_hash: String,
    /// Parent ID.
    pub parent_hash: String,
    /// Time.
    pub block_timestamp: u64,
    /// Block type.
    pub block_type: String,
    /// Number of transactions.
    pub tx_count: u64,
    /// Transaction IDs.
    pub transactions: Vec<String>,
    /// Size.
    pub block_size_bytes: u64,
    /// Fees accrued by L1 validators.
    #[serde(
        rename = "l1ValidatorsAccruedFees",
        skip_serializing_if = "Option::is_none"
    )]
    pub l1_validators_accrued_fees: Option<u64>,
    /// Active L1 validators.
    #[serde(rename = "activeL1Validators", skip_serializing_if = "Option::is_none")]
    pub active_l1_validators: Option<u64>,
    /// AVAX supply after the block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_supply: Option<String>,
    /// Proposer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposer_details: Option<ProposerDetails>,
}

impl From<&PBlockRecord> for PrimaryNetworkBlock {
    fn from(r: &PBlockRecord) -> Self {
        let b = &r.block;
        Self {
            block_number: b.height.to_string(),
            block_hash: b.hash.to_string(),
            parent_hash: b.parent_hash.to_string(),
            block_timestamp: b.timestamp,
            block_type: b.block_type.clone(),
            tx_count: r.tx_hashes.len() as u64,
            transactions: r.tx_hashes.iter().map(|h| h.to_string()).collect(),
            block_size_bytes: b.size_bytes,
            l1_validators_accrued_fees: b.l1_validators_accrued_fees,
            active_l1_validators: b.active_l1_validators,
            current_supply: b.current_supply.map(|s| s.to_string()),
            proposer_details: b.proposer.map(|p| ProposerDetails {
                proposer_id: p.id.to_string(),
                proposer_parent_id: p.parent_id.to_string(),
                proposer_node_id: p.node_id.to_string(),
                proposer_p_chain_height: p.pchain_height,
                proposer_timestamp: p.timestamp,
            }),
        }
    }
}

/// A page of blocks (`ListPrimaryNetworkBlocksResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPrimaryNetworkBlocksResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The blocks.
    pub blocks: Vec<PrimaryNetworkBlock>,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}

/// A reward amount with its price (`AssetWithPriceInfo`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetWithPriceInfo {
    /// The amount.
    #[serde(flatten)]
    pub amount: AssetAmount,
    /// Price from the configured table; absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub historical_price: Option<Money>,
}

/// A paid staking reward (`HistoricalReward`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoricalReward {
    /// Reward owners.
    pub addresses: Vec<String>,
    /// The staking transaction.
    pub tx_hash: String,
    /// Amount staked.
    pub amount_staked: String,
    /// Node.
    pub node_id: String,
    /// Stake start.
    pub start_timestamp: u64,
    /// Stake end.
    pub end_timestamp: u64,
    /// `VALIDATOR`, `DELEGATOR` or `VALIDATOR_FEE`.
    pub reward_type: String,
    /// Reward UTXO.
    pub utxo_id: String,
    /// Its output index.
    pub output_index: u32,
    /// The reward.
    pub reward: AssetWithPriceInfo,
    /// The paying transaction.
    pub reward_tx_hash: String,
}

impl HistoricalReward {
    /// From a stored reward, with an optional price.
    pub fn from_record(ctx: Ctx<'_>, r: &RewardRecord, price: Option<Money>) -> Self {
        let w = &r.reward;
        Self {
            addresses: ctx.addresses(&w.addresses),
            tx_hash: w.staking_tx_hash.to_string(),
            amount_staked: r.amount_staked.to_string(),
            node_id: r.node_id.to_string(),
            start_timestamp: r.start_ts,
            end_timestamp: r.end_ts,
            reward_type: w.reward_type.as_str().to_owned(),
            utxo_id: w.utxo_id.to_string(),
            output_index: w.output_index,
            reward: AssetWithPriceInfo {
                amount: ctx.amount(w.asset_id, w.amount),
                historical_price: price,
            },
            reward_tx_hash: r.reward_tx_hash.to_string(),
        }
    }
}

/// A page of rewards (`ListHistoricalRewardsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListHistoricalRewardsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The rewards.
    pub historical_rewards: Vec<HistoricalReward>,
}

/// A delegator: completed ones carry `grossReward`/`netReward`, active and pending ones
/// `estimatedGrossReward`/`estimatedNetReward` (`CompletedDelegatorDetails` |
/// `ActiveDelegatorDetails` | `PendingDelegatorDetails`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DelegatorDetails {
    /// Staking transaction.
    pub tx_hash: String,
    /// Node.
    pub node_id: String,
    /// Reward owners.
    pub reward_addresses: Vec<String>,
    /// Amount delegated.
    pub amount_delegated: String,
    /// The validator's share of the gross reward, in nAVAX (gross minus net).
    pub delegation_fee: String,
    /// Start.
    pub start_timestamp: u64,
    /// End.
    pub end_timestamp: u64,
    /// All rewards paid (completed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gross_reward: Option<String>,
    /// Rewards paid to the delegator (completed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub net_reward: Option<String>,
    /// Estimated reward (active, pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_gross_reward: Option<String>,
    /// Estimated reward to the delegator (active, pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_net_reward: Option<String>,
    /// `completed`, `active` or `pending`.
    pub delegation_status: String,
}

impl DelegatorDetails {
    /// From a stored delegator, judged at `now`. The reward is shared with the validator at
    /// the validator's fee (`delegation_fee`, AvalancheGo's `reward.Split`): an active
    /// delegator's estimate is the node's potential reward and its split; a completed one was
    /// paid its net reward, and its gross is the net plus the fee when its reward tx paid both
    /// (before Cortina), else the potential reward recorded when it started or, when firn
    /// indexed it only after it had ended, the smallest total that splits into what was paid.
    pub fn from_record(ctx: Ctx<'_>, r: &StakerRecord, now: u64) -> Self {
        let s = &r.staker;
        let status = r.status(now);
        let completed = status == StakerStatus::Completed;
        let (gross, net) = if completed && r.gross_reward > r.net_reward {
            // Before Cortina the validator's fee was paid by the delegator's reward tx too.
            (r.gross_reward, r.net_reward)
        } else if completed {
            let net = r.net_reward;
            let gross = if net == 0 {
                0
            } else {
                s.estimated_reward
                    .or_else(|| reward::total_for_net(net, s.delegation_fee))
                    .unwrap_or(net)
            };
            (gross, net)
        } else {
            let gross = s.estimated_reward.unwrap_or(0);
            (gross, reward::split(gross, s.delegation_fee).1)
        };
        let gross_text = gross.to_string();
        let net_text = net.to_string();
        Self {
            tx_hash: r.tx_hash.to_string(),
            node_id: s.node_id.to_string(),
            reward_addresses: ctx.addresses(&s.reward_addresses),
            amount_delegated: s.weight.to_string(),
            delegation_fee: gross.saturating_sub(net).to_string(),
            start_timestamp: s.start_ts,
            end_timestamp: s.end_ts,
            gross_reward: completed.then(|| gross_text.clone()),
            net_reward: completed.then(|| net_text.clone()),
            estimated_gross_reward: (!completed).then_some(gross_text),
            estimated_net_reward: (!completed).then_some(net_text),
            delegation_status: status.as_str().to_owned(),
        }
    }
}

/// A page of delegators (`ListDelegatorDetailsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListDelegatorDetailsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The delegators.
    pub delegators: Vec<DelegatorDetails>,
}

/// The chains one address has touched (`ChainAddressChainIdMap`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChainAddressChainIdMap {
    /// The address as sent.
    pub address: String,
    /// Blockchain IDs.
    pub blockchain_ids: Vec<String>,
}

/// `ChainAddressChainIdMapListResponse`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChainAddressChainIdMapListResponse {
    /// One entry per address.
    pub addresses: Vec<ChainAddressChainIdMap>,
}

/// A registered blockchain (`Blockchain`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Blockchain {
    /// Creating block time.
    pub create_block_timestamp: u64,
    /// Creating block height.
    pub create_block_number: String,
    /// Blockchain ID.
    pub blockchain_id: String,
    /// VM ID.
    pub vm_id: String,
    /// Subnet.
    pub subnet_id: String,
    /// Name.
    pub blockchain_name: String,
    /// EVM chain ID of an EVM chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evm_chain_id: Option<u64>,
    /// Genesis: the parsed JSON object for EVM chains (what both official SDKs accept), the
    /// bytes as `0x` hex otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub genesis_data: Option<serde_json::Value>,
}

impl From<&BlockchainRecord> for Blockchain {
    fn from(r: &BlockchainRecord) -> Self {
        let c = &r.chain;
        let genesis = match serde_json::from_slice::<serde_json::Value>(&c.genesis) {
            Ok(v @ serde_json::Value::Object(_)) => v,
            _ => serde_json::Value::String(format!("0x{}", hex::encode(&c.genesis))),
        };
        Self {
            create_block_timestamp: r.timestamp,
            create_block_number: r.height.to_string(),
            blockchain_id: c.blockchain_id.to_string(),
            vm_id: c.vm_id.to_string(),
            subnet_id: c.subnet_id.to_string(),
            blockchain_name: c.name.clone(),
            evm_chain_id: c.evm_chain_id,
            genesis_data: (!c.genesis.is_empty()).then_some(genesis),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use firn_core::ids::NodeId;
    use firn_store::rows::pchain::{NewStaker, UtxoConsumption};

    /// A delegator at a 2 % fee with the given potential reward and payout.
    fn delegator(estimated: Option<u64>, ended: bool, gross: u64, net: u64) -> StakerRecord {
        StakerRecord {
            tx_hash: Id([1; 32]),
            tx_type: "AddPermissionlessDelegatorTx".into(),
            height: 5,
            tx_index: 0,
            staker: NewStaker {
                node_id: NodeId([2; 20]),
                subnet_id: P_CHAIN_ID,
                start_ts: 100,
                end_ts: 200,
                weight: 25_000_000_000,
                is_delegator: true,
                delegation_fee: 20_000,
                reward_addresses: vec![ShortId([3; 20])],
                estimated_reward: estimated,
            },
            ended_by: ended.then_some(UtxoConsumption {
                tx_hash: Id([4; 32]),
                height: 9,
                timestamp: 200,
            }),
            gross_reward: gross,
            net_reward: net,
        }
    }

    fn details(r: &StakerRecord) -> DelegatorDetails {
        let network = NetworkProfile::fuji();
        let avax = network.avax_asset_id.to_string();
        DelegatorDetails::from_record(Ctx::new(&network, &avax), r, 150)
    }

    #[test]
    fn an_active_delegator_estimates_the_potential_reward_and_its_split() {
        let d = details(&delegator(Some(1_626_765_523), false, 0, 0));
        assert_eq!(d.delegation_status, "active");
        assert_eq!(d.estimated_gross_reward.as_deref(), Some("1626765523"));
        // The validator's 2 % is rounded up: 1,626,765,523 · 0.98 = 1,594,230,212.54.
        assert_eq!(d.estimated_net_reward.as_deref(), Some("1594230212"));
        assert_eq!(d.delegation_fee, "32535311");
        assert!(d.gross_reward.is_none() && d.net_reward.is_none());
    }

    #[test]
    fn a_completed_delegator_is_paid_net_of_its_validators_fee() {
        // Indexed while current: the gross is the node's potential reward.
        let d = details(&delegator(
            Some(1_626_765_523),
            true,
            1_594_230_212,
            1_594_230_212,
        ));
        assert_eq!(d.gross_reward.as_deref(), Some("1626765523"));
        assert_eq!(d.net_reward.as_deref(), Some("1594230212"));
        assert_eq!(d.delegation_fee, "32535311");
        assert!(d.estimated_gross_reward.is_none());
        // Indexed after it ended: the smallest total that splits into the payout.
        let d = details(&delegator(None, true, 98, 98));
        assert_eq!(
            (d.gross_reward.as_deref(), d.delegation_fee.as_str()),
            (Some("100"), "2")
        );
        // Before Cortina the reward tx paid the fee too.
        let d = details(&delegator(Some(57), true, 107, 97));
        assert_eq!(
            (d.gross_reward.as_deref(), d.delegation_fee.as_str()),
            (Some("107"), "10")
        );
        // Aborted: nothing paid, nothing earned.
        let d = details(&delegator(Some(57), true, 0, 0));
        assert_eq!(
            (d.gross_reward.as_deref(), d.net_reward.as_deref()),
            (Some("0"), Some("0"))
        );
        assert_eq!(d.delegation_fee, "0");
    }

    #[test]
    fn cached_ids_print_as_cb58_does() {
        let network = NetworkProfile::fuji();
        let avax = network.avax_asset_id.to_string();
        let ctx = Ctx::new(&network, &avax);
        assert_eq!(ctx.chain(&P_CHAIN_ID), P_CHAIN_ID.to_string());
        assert_eq!(
            ctx.chain(&network.c_chain_id),
            network.c_chain_id.to_string()
        );
        assert_eq!(ctx.asset(&network.avax_asset_id), avax);
        assert_eq!(ctx.asset(&Id([7; 32])), Id([7; 32]).to_string());
    }
}
