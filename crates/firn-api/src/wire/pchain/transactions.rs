//! P-Chain transactions (`PChainTransaction`, the `txTypes` filter) and the page of C-Chain
//! atomic transactions.

use firn_store::rows::pchain::PTxRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::{AssetAmount, Ctx, L1Validation, PChainUtxo, PrimaryNetworkChainInfo};

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
    /// The validation, its weight and remaining balance.
    #[serde(flatten)]
    pub validation: L1Validation,
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
                        validation: L1Validation::new(
                            v.validation_id,
                            v.node_id,
                            v.subnet_id,
                            v.weight,
                            v.remaining_balance,
                        ),
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
