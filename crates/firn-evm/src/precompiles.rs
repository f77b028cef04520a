//! subnet-EVM's stateful precompiles as the genesis names them: installed at their real
//! addresses at genesis (nonce 1, code `0x01`, as subnet-evm's `Configure` does), allow-list
//! roles kept where subnet-evm keeps them (the precompile's storage, slot = the address
//! left-padded to 32 bytes), native minter's `initialMint` credited.
//!
//! The tx allow list is enforced on every transaction (pool and block building), the deployer
//! allow list on every creation at execution ([`crate::deploy_gate`]); calls to the
//! precompiles run in [`crate::stateful`].

use std::sync::Arc;

use alloy_primitives::{Address, B256, Bytes, U256};
use serde_json::Value;

use crate::error::TxError;
use crate::genesis::{ChainConfig, number};
use crate::state::WorldState;
use crate::stateful::WARP_GAS;
use crate::stateful::{Kind, Stateful, SubnetPrecompiles};
use alloy_eips::eip2930::AccessList;
use firn_core::warp::predicate::Chunk;

/// Allow-list roles (subnet-evm `allowlist.Role`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// No role.
    None = 0,
    /// May use the guarded feature.
    Enabled = 1,
    /// May also change roles.
    Admin = 2,
    /// May change `Enabled` roles (Durango).
    Manager = 3,
}

/// The precompiles active on a chain.
#[derive(Debug, Clone)]
pub struct Precompiles {
    tx_allow_list: Option<Address>,
    deployer_allow_list: Option<Address>,
    /// Every installed precompile's address with its config key.
    pub installed: Vec<(String, Address)>,
    /// What revm runs for precompile addresses.
    pub provider: SubnetPrecompiles,
}

fn slot_of(address: &Address) -> U256 {
    U256::from_be_slice(address.as_slice())
}

impl Precompiles {
    /// Installs the precompiles of `config` that are active at genesis.
    pub fn from_config(
        config: &ChainConfig,
        blockchain_id: B256,
        network_id: u32,
        state: &mut WorldState,
    ) -> Self {
        let mut tx_allow_list = None;
        let mut deployer_allow_list = None;
        let mut installed = Vec::new();
        let mut entries = Vec::new();
        for pc in &config.precompiles {
            state.install_precompile(pc.address, Bytes::from_static(&[1]));
            for (field, role) in [
                ("adminAddresses", Role::Admin),
                ("managerAddresses", Role::Manager),
                ("enabledAddresses", Role::Enabled),
            ] {
                for a in pc.addresses(field) {
                    state.set_storage(pc.address, slot_of(&a), U256::from(role as u8));
                }
            }
            let kind = match pc.key.as_str() {
                "contractNativeMinterConfig" => Kind::NativeMinter,
                "feeManagerConfig" => Kind::FeeManager,
                "rewardManagerConfig" => Kind::RewardManager,
                "warpConfig" => Kind::Warp,
                _ => Kind::AllowList,
            };
            entries.push((pc.address, kind));
            match pc.key.as_str() {
                "txAllowListConfig" => tx_allow_list = Some(pc.address),
                "contractDeployerAllowListConfig" => deployer_allow_list = Some(pc.address),
                "contractNativeMinterConfig" => {
                    if let Some(mints) = pc.config.get("initialMint").and_then(Value::as_object) {
                        for (addr, amount) in mints {
                            let (Ok(a), Some(v)) = (addr.parse::<Address>(), mint_amount(amount))
                            else {
                                continue;
                            };
                            state.credit(a, v);
                        }
                    }
                }
                _ => {}
            }
            installed.push((pc.key.clone(), pc.address));
        }
        let stateful = Stateful {
            entries,
            blockchain_id,
            network_id,
            fee_config: config.fee_config,
            allow_fee_recipients: config.allow_fee_recipients,
        };
        Self {
            tx_allow_list,
            deployer_allow_list,
            installed,
            provider: SubnetPrecompiles::new(Arc::new(stateful)),
        }
    }

    /// The role of `address` in the allow list at `list`.
    pub fn role(state: &WorldState, list: Address, address: &Address) -> U256 {
        state.storage(&list, slot_of(address))
    }

    /// Refuses a sender the tx allow list does not name.
    pub fn check_tx_allowed(&self, state: &WorldState, sender: Address) -> Result<(), TxError> {
        if let Some(list) = self.tx_allow_list
            && Self::role(state, list, &sender).is_zero()
        {
            return Err(TxError::NotAllowListed(sender));
        }
        Ok(())
    }

    /// The Warp predicates `list` carries: none on a chain without the Warp precompile.
    pub fn warp_predicates(&self, list: Option<&AccessList>) -> Vec<Vec<Chunk>> {
        match list {
            Some(list) if self.provider.receives_warp() => {
                crate::warp::receive::warp_predicates(list)
            }
            _ => Vec::new(),
        }
    }

    /// The intrinsic gas `list`'s Warp predicates add beyond their access-list price; fails
    /// for a predicate that holds no Warp message.
    pub fn predicate_gas(&self, list: Option<&AccessList>) -> Result<u64, TxError> {
        crate::warp::receive::predicate_gas(&self.warp_predicates(list), &WARP_GAS)
            .map_err(TxError::Other)
    }

    /// Whether `sender` may deploy contracts.
    pub fn may_deploy(&self, state: &WorldState, sender: &Address) -> bool {
        self.deployer_allow_list
            .is_none_or(|list| !Self::role(state, list, sender).is_zero())
    }
}

fn mint_amount(v: &Value) -> Option<U256> {
    match v {
        Value::String(s) => match s.strip_prefix("0x") {
            Some(h) => U256::from_str_radix(h, 16).ok(),
            None => U256::from_str_radix(s, 10).ok(),
        },
        other => number(other).ok().map(U256::from),
    }
}
