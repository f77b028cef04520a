//! What addresses hold on the P-Chain (`ListPChainBalancesResponse`) and when they last moved
//! (`LastActivityTimestamp`).

use firn_store::rows::atomic::AtomicBalance;
use firn_store::rows::utxos::{BalanceKind, BalanceSum, UtxoActivity};
use serde::Serialize;
use utoipa::ToSchema;

use super::{AssetAmount, Ctx, PrimaryNetworkChainInfo};

/// One asset's amount of one kind and the UTXOs holding it (`AggregatedAssetAmount`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AggregatedAssetAmount {
    /// The asset and amount.
    #[serde(flatten)]
    pub asset: AssetAmount,
    /// UTXOs holding it.
    pub utxo_count: u64,
}

/// `PChainSharedAsset.status` of what sits in atomic memory: exported, awaiting its import.
/// The official file leaves the values open; this one says what the amount is waiting for.
pub const PENDING_IMPORT: &str = "pendingImport";

/// An amount in the shared memory between the P-Chain and another chain (`PChainSharedAsset`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PChainSharedAsset {
    /// The asset, amount and UTXO count.
    #[serde(flatten)]
    pub amount: AggregatedAssetAmount,
    /// The other chain.
    pub shared_with_chain_id: String,
    /// Status.
    pub status: String,
}

/// P-Chain balances by kind (`PChainBalance`).
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PChainBalance {
    /// Spendable now, not staked.
    pub unlocked_unstaked: Vec<AggregatedAssetAmount>,
    /// Staked; spendable once the staking period ends.
    pub unlocked_staked: Vec<AggregatedAssetAmount>,
    /// Not staked, locked until its platform locktime.
    pub locked_platform: Vec<AggregatedAssetAmount>,
    /// Not staked, usable only for staking until its stakeable locktime.
    pub locked_stakeable: Vec<AggregatedAssetAmount>,
    /// Staked, and still stakeable-locked when the staking period ends.
    pub locked_staked: Vec<AggregatedAssetAmount>,
    /// Staked in a period that has not started.
    pub pending_staked: Vec<AggregatedAssetAmount>,
    /// Unlocked amounts exported to the P-Chain and not yet imported.
    pub atomic_memory_unlocked: Vec<PChainSharedAsset>,
    /// Locked amounts exported to the P-Chain and not yet imported.
    pub atomic_memory_locked: Vec<PChainSharedAsset>,
}

impl PChainBalance {
    /// The buckets of the store's sums (each asset once per kind, in the store's order).
    pub fn from_sums(ctx: Ctx<'_>, sums: &[BalanceSum]) -> Self {
        let mut out = Self::default();
        for s in sums {
            let item = AggregatedAssetAmount {
                asset: ctx.amount(s.asset_id, s.amount),
                utxo_count: s.utxo_count,
            };
            let bucket = match s.kind {
                BalanceKind::UnlockedUnstaked => &mut out.unlocked_unstaked,
                BalanceKind::UnlockedStaked => &mut out.unlocked_staked,
                BalanceKind::LockedPlatform => &mut out.locked_platform,
                BalanceKind::LockedStakeable => &mut out.locked_stakeable,
                BalanceKind::LockedStaked => &mut out.locked_staked,
                BalanceKind::PendingStaked => &mut out.pending_staked,
            };
            bucket.push(item);
        }
        out
    }

    /// With what the P-Chain's atomic memory holds (`held`, from the store), by lock.
    pub fn with_atomic_memory(mut self, ctx: Ctx<'_>, held: &[AtomicBalance]) -> Self {
        for b in held {
            let item = PChainSharedAsset {
                amount: AggregatedAssetAmount {
                    asset: ctx.amount(b.asset_id, b.amount),
                    utxo_count: b.utxo_count,
                },
                shared_with_chain_id: ctx.chain(&b.source_chain),
                status: PENDING_IMPORT.to_owned(),
            };
            if b.locked {
                self.atomic_memory_locked.push(item);
            } else {
                self.atomic_memory_unlocked.push(item);
            }
        }
        self
    }
}

/// Balances of addresses on the P-Chain (`ListPChainBalancesResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPChainBalancesResponse {
    /// The balances.
    pub balances: PChainBalance,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}

/// The last creation or spending of an address's UTXOs (`LastActivityTimestamp`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastActivityTimestamp {
    /// Block time, Unix seconds.
    pub timestamp: u64,
    /// Block height.
    pub block_number: String,
    /// The transaction that created or spent the UTXO.
    pub tx_hash: String,
    /// The UTXO.
    pub utxo_id: String,
    /// Whether the activity was the spending.
    pub is_consumed: bool,
    /// `p-chain`, `x-chain` or `c-chain`.
    pub chain_name: String,
    /// `mainnet` or `fuji`.
    pub network: String,
}

impl LastActivityTimestamp {
    /// From the store's activity, on the chain and network of `info`.
    pub fn from_activity(a: &UtxoActivity, info: PrimaryNetworkChainInfo) -> Self {
        Self {
            timestamp: a.timestamp,
            block_number: a.height.to_string(),
            tx_hash: a.tx_hash.to_string(),
            utxo_id: a.utxo_id.to_string(),
            is_consumed: a.consumed,
            chain_name: info.chain_name,
            network: info.network,
        }
    }
}
