//! X-Chain balances (`ListXChainBalancesResponse`).

use firn_store::rows::atomic::AtomicBalance;
use firn_store::rows::xchain::XBalance;
use serde::Serialize;
use utoipa::ToSchema;

use super::XCtx;
use crate::wire::pchain::{AggregatedAssetAmount, PrimaryNetworkChainInfo};

/// An amount in the shared memory between the X-Chain and another chain
/// (`XChainSharedAssetBalance`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XChainSharedAssetBalance {
    /// The asset, amount and UTXO count.
    #[serde(flatten)]
    pub amount: AggregatedAssetAmount,
    /// The other chain.
    pub shared_with_chain_id: String,
}

/// What addresses hold on the X-Chain (`XChainBalances`).
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct XChainBalances {
    /// Per asset, outputs whose locktime has not passed.
    pub locked: Vec<AggregatedAssetAmount>,
    /// Per asset, outputs whose locktime has passed.
    pub unlocked: Vec<AggregatedAssetAmount>,
    /// Unlocked amounts exported to the X-Chain and not yet imported.
    pub atomic_memory_unlocked: Vec<XChainSharedAssetBalance>,
    /// Locked amounts exported to the X-Chain and not yet imported.
    pub atomic_memory_locked: Vec<XChainSharedAssetBalance>,
}

impl XChainBalances {
    /// From the store's per-asset sums (an asset appears only where it has UTXOs).
    pub fn from_sums(ctx: XCtx<'_>, sums: &[XBalance]) -> Self {
        let mut out = Self::default();
        for s in sums {
            let locked = s.total.saturating_sub(s.unlocked);
            let locked_count = s.utxo_count.saturating_sub(s.unlocked_count);
            if s.unlocked_count > 0 {
                out.unlocked.push(AggregatedAssetAmount {
                    asset: ctx.amount(s.asset_id, s.unlocked),
                    utxo_count: s.unlocked_count,
                });
            }
            if locked_count > 0 {
                out.locked.push(AggregatedAssetAmount {
                    asset: ctx.amount(s.asset_id, locked),
                    utxo_count: locked_count,
                });
            }
        }
        out
    }

    /// With what the X-Chain's atomic memory holds (`held`, from the store), by lock.
    pub fn with_atomic_memory(mut self, ctx: XCtx<'_>, held: &[AtomicBalance]) -> Self {
        (self.atomic_memory_unlocked, self.atomic_memory_locked) = shared_balances(ctx, held);
        self
    }
}

/// What a chain's atomic memory holds (`held`, from the store): unlocked, then locked.
pub(crate) fn shared_balances(
    ctx: XCtx<'_>,
    held: &[AtomicBalance],
) -> (Vec<XChainSharedAssetBalance>, Vec<XChainSharedAssetBalance>) {
    let (mut unlocked, mut locked) = (Vec::new(), Vec::new());
    for b in held {
        let item = XChainSharedAssetBalance {
            amount: AggregatedAssetAmount {
                asset: ctx.amount(b.asset_id, b.amount),
                utxo_count: b.utxo_count,
            },
            shared_with_chain_id: ctx.base.chain(&b.source_chain),
        };
        if b.locked {
            locked.push(item);
        } else {
            unlocked.push(item);
        }
    }
    (unlocked, locked)
}

/// Balances of addresses on the X-Chain (`ListXChainBalancesResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListXChainBalancesResponse {
    /// The balances.
    pub balances: XChainBalances,
    /// The chain and network.
    pub chain_info: PrimaryNetworkChainInfo,
}
