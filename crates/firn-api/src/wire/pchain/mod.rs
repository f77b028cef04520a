//! Primary-network shapes, one module per resource: `transactions` (P-Chain transactions and
//! the C-Chain's atomic ones), `utxos`, `blocks`, `rewards`, `delegators`, `validators`, `network`,
//! `blockchains`, `subnets`, the balances and last activity of addresses (`balances`) and the
//! AVAX supply (`supply`).
//! Here: the rendering context every one of them takes ([`Ctx`]) and the shapes they share.
//! The reward rule the delegator shapes show is `firn_core::pchain::reward`.

mod balances;
mod blockchains;
mod blocks;
mod delegators;
mod l1_validators;
mod network;
mod rewards;
mod subnets;
mod supply;
mod transactions;
mod utxos;
mod validators;

use firn_core::ids::{Id, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::pchain::AssetAmount as StoreAmount;
use serde::Serialize;
use utoipa::ToSchema;

use crate::config::NetworkProfile;

pub use balances::{
    AggregatedAssetAmount, LastActivityTimestamp, ListPChainBalancesResponse, PChainBalance,
    PChainSharedAsset,
};
pub use blockchains::{Blockchain, ChainAddressChainIdMap, ChainAddressChainIdMapListResponse};
pub use blocks::{ListPrimaryNetworkBlocksResponse, PrimaryNetworkBlock, ProposerDetails};
pub use delegators::{DelegatorDetails, ListDelegatorDetailsResponse};
pub use l1_validators::{
    BalanceOwner, BlsPublicKey, L1Validation, L1ValidatorDetailsFull, ListL1ValidatorsResponse,
};
pub use network::{
    DelegatorsDetails, GetNetworkDetailsResponse, StakingDistribution, ValidatorsDetails,
};
pub use rewards::{AssetWithPriceInfo, HistoricalReward, ListHistoricalRewardsResponse};
pub use subnets::{ListBlockchainsResponse, ListSubnetsResponse, Subnet};
pub use supply::{AvaxSupplyResponse, SupplyParts};
pub use transactions::{
    BlockchainInfo, BlsCredentials, L1ValidatorDetails, L1ValidatorManagerDetails,
    ListPChainTransactionsResponse, PChainTransaction, SubnetOwnershipInfo, TX_TYPE_FILTER,
};
pub use utxos::{ListPChainUtxosResponse, PChainUtxo};
pub use validators::{
    Geolocation, ListPendingRewardsResponse, ListValidatorDetailsResponse, PendingReward, Rewards,
    ValidatorDetails, ValidatorFacts, ValidatorHealthDetails,
};

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
    pub(crate) fn chain(&self, id: &Id) -> String {
        if *id == P_CHAIN_ID {
            P_CHAIN_ID_CB58.to_owned()
        } else {
            id.to_string()
        }
    }

    /// cb58 of an asset ID.
    pub(crate) fn asset(&self, id: &Id) -> String {
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

    pub(crate) fn addresses(&self, ids: &[ShortId]) -> Vec<String> {
        ids.iter().map(|a| self.address(a)).collect()
    }

    /// An amount of an asset with its name, symbol and denomination.
    pub fn amount(&self, asset_id: Id, amount: impl Into<u128>) -> AssetAmount {
        let avax = asset_id == self.network.avax_asset_id;
        AssetAmount {
            asset_id: self.asset(&asset_id),
            name: if avax { "Avalanche" } else { "Unknown" }.to_owned(),
            symbol: if avax { "AVAX" } else { "UNKNOWN" }.to_owned(),
            denomination: if avax { 9 } else { 0 },
            r#type: "secp256k1".to_owned(),
            amount: amount.into().to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

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
