//! The X-Chain's genesis (`vms/avm/genesis.go`) and the AVAX asset it creates.
//!
//! An X-Chain genesis is a list of assets, each a [`CreateAssetTx`] under an alias. A network's
//! AVAX asset ID is not chosen: it is the ID of the genesis's first asset, the tx signed with
//! no credentials. [`Genesis::avax`] builds AVAX's genesis from a network's allocations the way
//! AvalancheGo's `genesis.FromConfig` does, so the IDs of mainnet, Fuji and the local network
//! follow from their allocations (the tests check them against [`crate::network`]).

use super::fx::FxOutput;
use super::tx::{BaseTx, CreateAssetTx, InitialState, Tx, UnsignedTx};
use crate::avax::secp256k1fx::{OutputOwners, TransferOutput};
use crate::codec::{self, Bytes, CodecError};
use crate::codec_struct;
use crate::ids::{Id, ShortId};

/// AvalancheGo's genesis codec takes values up to 1 MiB more than its tx codec; real
/// genesis files (mainnet's holds 4,365 AVAX holders) fit well within this.
pub const MAX_GENESIS_SIZE: usize = 16 * 1024 * 1024;

/// An asset created at genesis: its alias (`AVAX`) and the tx creating it (avm.GenesisAsset,
/// the tx's fields inlined after the alias).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenesisAsset {
    pub alias: String,
    pub tx: CreateAssetTx,
}
codec_struct!(GenesisAsset {
    alias: String,
    tx: CreateAssetTx
});

impl GenesisAsset {
    /// The asset's ID: the ID of its CreateAssetTx signed with no credentials.
    pub fn asset_id(&self) -> Id {
        Tx::new(UnsignedTx::CreateAsset(self.tx.clone()), Vec::new()).id()
    }
}

/// The X-Chain's genesis state (avm.Genesis): its assets, sorted by alias.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Genesis {
    pub assets: Vec<GenesisAsset>,
}
codec_struct!(Genesis {
    assets: Vec<GenesisAsset>
});

/// One entry of a network's genesis allocations, as far as the X-Chain uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allocation {
    /// Where the unlocked AVAX goes.
    pub avax_address: ShortId,
    /// The holder's Ethereum address, recorded in the asset's memo.
    pub eth_address: [u8; 20],
    /// nAVAX on the X-Chain at genesis (zero: the allocation is P-Chain only).
    pub initial_amount: u64,
}

impl Genesis {
    /// AVAX's genesis on network `network_id`: one fixed-cap asset `AVAX` ("Avalanche", 9
    /// decimals) whose holders are the allocations with an initial amount, ordered by amount
    /// then address, and whose memo is their Ethereum addresses in that order.
    pub fn avax(network_id: u32, allocations: &[Allocation]) -> Self {
        let mut holders: Vec<&Allocation> = allocations
            .iter()
            .filter(|a| a.initial_amount > 0)
            .collect();
        holders.sort_by(|a, b| {
            (a.initial_amount, a.avax_address).cmp(&(b.initial_amount, b.avax_address))
        });
        let memo = holders.iter().flat_map(|h| h.eth_address).collect();
        let outputs = holders
            .iter()
            .map(|h| {
                FxOutput::Secp256k1Transfer(TransferOutput {
                    amount: h.initial_amount,
                    owners: OutputOwners {
                        locktime: 0,
                        threshold: 1,
                        addresses: vec![h.avax_address],
                    },
                })
            })
            .collect();
        Self::new(vec![GenesisAsset {
            alias: "AVAX".to_owned(),
            tx: CreateAssetTx {
                base: BaseTx {
                    network_id,
                    memo: Bytes(memo),
                    ..BaseTx::default()
                },
                name: "Avalanche".to_owned(),
                symbol: "AVAX".to_owned(),
                denomination: 9,
                initial_states: vec![InitialState {
                    fx_index: 0,
                    outputs,
                }],
            },
        }])
    }

    /// A genesis of `assets`, put in the order AvalancheGo writes them: assets by alias, each
    /// asset's initial states by fx, and each state's outputs by their codec bytes. States
    /// without outputs are dropped, as AvalancheGo never writes them.
    pub fn new(mut assets: Vec<GenesisAsset>) -> Self {
        for asset in &mut assets {
            let states = &mut asset.tx.initial_states;
            states.retain(|s| !s.outputs.is_empty());
            states.sort_by_key(|s| s.fx_index);
            for state in states.iter_mut() {
                state.outputs.sort_by_cached_key(codec::to_bytes);
            }
        }
        assets.sort_by(|a, b| a.alias.cmp(&b.alias));
        Self { assets }
    }

    /// Reads a genesis from its bytes (what a chain's `GenesisData` holds).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, CodecError> {
        codec::from_bytes_with_max(bytes, MAX_GENESIS_SIZE)
    }

    /// The genesis bytes: codec version, then the assets.
    pub fn bytes(&self) -> Vec<u8> {
        codec::to_bytes(self)
    }

    /// The ID of the first asset, which is AVAX on every network (AvalancheGo's
    /// `genesis.AVAXAssetID`); `None` for a genesis without assets.
    pub fn avax_asset_id(&self) -> Option<Id> {
        self.assets.first().map(GenesisAsset::asset_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allocation(address: u8, amount: u64) -> Allocation {
        Allocation {
            avax_address: ShortId([address; 20]),
            eth_address: [address; 20],
            initial_amount: amount,
        }
    }

    #[test]
    fn holders_are_ordered_by_amount_then_address_and_p_chain_only_ones_left_out() {
        let genesis = Genesis::avax(
            5,
            &[
                allocation(3, 10),
                allocation(1, 20),
                allocation(2, 10),
                allocation(4, 0),
            ],
        );
        let tx = &genesis.assets[0].tx;
        let holders: Vec<(u64, u8)> = tx.initial_states[0]
            .outputs
            .iter()
            .map(|o| match o {
                FxOutput::Secp256k1Transfer(t) => (t.amount, t.owners.addresses[0].0[0]),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(holders, [(10, 2), (10, 3), (20, 1)]);
        let memo: Vec<u8> = [[2u8; 20], [3; 20], [1; 20]].concat();
        assert_eq!(tx.base.memo.0, memo);
        assert_eq!(tx.base.network_id, 5);
        assert_eq!(Genesis::from_bytes(&genesis.bytes()).unwrap(), genesis);
    }

    #[test]
    fn an_asset_without_holders_has_no_initial_state() {
        let genesis = Genesis::avax(1, &[allocation(1, 0)]);
        assert!(genesis.assets[0].tx.initial_states.is_empty());
        assert_eq!(genesis.avax_asset_id(), Some(genesis.assets[0].asset_id()));
        assert_eq!(Genesis::default().avax_asset_id(), None);
    }
}
