//! Network identity profiles, the devnet configuration and the genesis it implies.
//!
//! [`DevnetConfig`] is plain serde data (TOML- and JSON-friendly); the types it holds come from
//! the layers below it ([`crate::fee`], [`crate::math`]) or are declared here, so that every
//! module above can read the configuration and this one depends on none of them. [`Genesis::build`] turns it
//! into the funded keys, the initial validators (node IDs and BLS keys derived from the seed)
//! and block 0: a BanffStandardBlock at the genesis time whose txs are a BaseTx with the
//! genesis outputs and one AddPermissionlessValidatorTx per initial validator, none of them
//! spending anything. An indexer can thus derive every genesis UTXO and staker from the
//! blocks alone; the block's ID is a pure function of the configuration.

use crate::error::DevnetError;
use crate::fee::DynamicFeeConfig;
use crate::math::{L1FeeConfig, RewardConfig};
use firn_core::address::format_address;
use firn_core::calendar::DAY;
use firn_core::codec::Bytes;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::keys::{bls, secp256k1::PrivateKey};
use firn_core::network::{self, PrimaryNetwork};
use firn_core::pchain::block::{Block, BlockKind};
use firn_core::pchain::fx::{
    LockedOutput, Output, OutputOwners, Owner, ProofOfPossession, Signer, TransferOutput,
    TransferableOutput,
};
use firn_core::pchain::tx::{AddPermissionlessValidatorTx, BaseTx, Tx, UnsignedTx, Validator};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

use firn_core::network::AVAX;
const YEAR: u64 = 365 * DAY;

/// Which public network's identity the devnet wears.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// Fuji's IDs (network 5, HRP `fuji`), so that SDKs that only know Fuji work unchanged.
    #[default]
    Fuji,
    /// AvalancheGo's local network (network 12345, HRP `local`).
    Local,
}

/// The identity a profile gives: network ID, HRP, chain IDs and the AVAX asset ID.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkIdentity {
    /// The profile.
    pub profile: Profile,
    /// The network ID (5, 12345).
    pub network_id: u32,
    /// The bech32 HRP of addresses.
    pub hrp: String,
    /// The P-Chain ID (the zero ID on every network).
    pub p_chain_id: Id,
    /// The X-Chain ID.
    pub x_chain_id: Id,
    /// The C-Chain ID.
    pub c_chain_id: Id,
    /// The C-Chain's EVM chain ID.
    pub evm_chain_id: u64,
    /// The AVAX asset ID.
    pub avax_asset_id: Id,
}

impl NetworkIdentity {
    /// The identity of `profile`: Fuji's IDs, or those of AvalancheGo's local network.
    pub fn of(profile: Profile) -> Self {
        let known = match profile {
            Profile::Fuji => network::FUJI,
            Profile::Local => network::LOCAL,
        };
        Self::from_known(profile, &known)
    }

    fn from_known(profile: Profile, n: &PrimaryNetwork) -> Self {
        Self {
            profile,
            network_id: n.network_id,
            hrp: n.hrp.to_owned(),
            p_chain_id: network::P_CHAIN_ID,
            x_chain_id: n.x_chain_id,
            c_chain_id: n.c_chain_id,
            evm_chain_id: n.evm_chain_id,
            avax_asset_id: n.avax_asset_id,
        }
    }

    /// `P-<hrp>1…` for a short ID.
    pub fn p_address(&self, id: &ShortId) -> String {
        format_address("P", self.network_id, id)
    }
}

/// Primary network staking rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StakingConfig {
    /// Least stake of a validator, nAVAX.
    pub min_validator_stake: u64,
    /// Most weight of a validator (stake plus delegations), nAVAX.
    pub max_validator_stake: u64,
    /// Least stake of a delegator, nAVAX.
    pub min_delegator_stake: u64,
    /// Shortest staking period, seconds.
    pub min_stake_duration_secs: u64,
    /// Longest staking period, seconds.
    pub max_stake_duration_secs: u64,
    /// Least delegation fee, parts per million.
    pub min_delegation_fee: u32,
    /// A validator's weight may reach this many times its own stake through delegations.
    pub max_validator_weight_factor: u64,
    /// The reward calculator's parameters.
    pub reward: RewardConfig,
}

impl Default for StakingConfig {
    fn default() -> Self {
        Self {
            min_validator_stake: 2_000 * AVAX,
            max_validator_stake: 3_000_000 * AVAX,
            min_delegator_stake: 25 * AVAX,
            min_stake_duration_secs: DAY,
            max_stake_duration_secs: YEAR,
            min_delegation_fee: 20_000,
            max_validator_weight_factor: 5,
            reward: RewardConfig {
                max_consumption_rate: 120_000,
                min_consumption_rate: 100_000,
                minting_period_secs: YEAR,
                supply_cap: 720_000_000 * AVAX,
            },
        }
    }
}

/// How a devnet validator answers signature requests: plain configuration, which
/// [`DevnetSigners`](crate::signers::DevnetSigners) acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignerBehaviour {
    /// Signs what its chain state justifies, at once.
    #[default]
    Honest,
    /// Cannot be reached.
    Offline,
    /// Answers with a well-formed signature of something else.
    BadSignature,
    /// Answers honestly after a delay.
    Slow {
        /// The delay, milliseconds.
        delay_ms: u64,
    },
}

/// Everything the devnet is made from. Missing fields take the defaults of [`Default`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DevnetConfig {
    /// The identity profile.
    pub profile: Profile,
    /// The seed every key and node ID derives from.
    pub seed: String,
    /// How many funded keys (at least 20).
    pub funded_keys: u32,
    /// Unlocked nAVAX each funded key receives.
    pub funded_amount: u64,
    /// Stakeable-locked nAVAX each funded key receives, locked until
    /// `genesis_time + locked_duration_secs`.
    pub locked_amount: u64,
    /// How long the stakeable lock lasts, seconds.
    pub locked_duration_secs: u64,
    /// The genesis timestamp, Unix seconds.
    pub genesis_time: u64,
    /// How many primary network validators genesis starts with (at least 1).
    pub initial_validators: u32,
    /// Each initial validator's stake, nAVAX.
    pub validator_stake: u64,
    /// Each initial validator's delegation fee, parts per million.
    pub validator_delegation_fee: u32,
    /// How long initial validators validate, seconds.
    pub validator_duration_secs: u64,
    /// Validators treated as offline: their reward proposals are aborted.
    pub offline_validators: Vec<NodeId>,
    /// How validators answer Warp signature requests (honest when not listed).
    pub warp_signers: BTreeMap<NodeId, SignerBehaviour>,
    /// Staking rules.
    pub staking: StakingConfig,
    /// Etna's dynamic tx fees (ACP-103).
    pub dynamic_fees: DynamicFeeConfig,
    /// L1 validator continuous fees.
    pub l1_fees: L1FeeConfig,
}

impl Default for DevnetConfig {
    fn default() -> Self {
        Self {
            profile: Profile::Fuji,
            seed: "firn".into(),
            funded_keys: 20,
            funded_amount: 1_000_000 * AVAX,
            locked_amount: 100_000 * AVAX,
            locked_duration_secs: YEAR,
            genesis_time: 1_735_689_600, // 2025-01-01T00:00:00Z
            initial_validators: 5,
            validator_stake: 200_000 * AVAX,
            validator_delegation_fee: 20_000,
            validator_duration_secs: YEAR,
            offline_validators: Vec::new(),
            warp_signers: BTreeMap::new(),
            staking: StakingConfig::default(),
            dynamic_fees: DynamicFeeConfig::default(),
            l1_fees: L1FeeConfig::default(),
        }
    }
}

impl DevnetConfig {
    /// The defaults for `profile`: both are post-Etna with AvalancheGo's dynamic fee
    /// configuration (the same on Fuji and local networks); the local profile uses
    /// AvalancheGo's local L1 validator fee prices.
    pub fn for_profile(profile: Profile) -> Self {
        let mut c = Self {
            profile,
            ..Self::default()
        };
        if profile == Profile::Local {
            c.l1_fees.min_price = 1;
            c.l1_fees.excess_conversion_constant = 865_617;
        }
        c
    }

    /// This configuration with its genesis at the current wall-clock second. A live devnet
    /// should start this way: with a genesis far in the past, the first block would jump to
    /// the initial validators' end time and retire them all.
    pub fn starting_now(mut self) -> Self {
        self.genesis_time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(self.genesis_time);
        self
    }

    /// Checks the configuration for values the devnet cannot run with.
    pub fn validate(&self) -> Result<(), DevnetError> {
        let bad = |field: &'static str, reason: &'static str| {
            Err(DevnetError::InvalidConfig { field, reason })
        };
        if self.funded_keys < 20 {
            return bad("funded_keys", "at least 20 funded keys are required");
        }
        if self.initial_validators == 0 {
            return bad("initial_validators", "at least one validator is required");
        }
        if self.validator_stake < self.staking.min_validator_stake
            || self.validator_stake > self.staking.max_validator_stake
        {
            return bad("validator_stake", "outside the staking bounds");
        }
        if self.validator_duration_secs == 0 {
            return bad("validator_duration_secs", "must be positive");
        }
        if self.validator_delegation_fee > 1_000_000 {
            return bad("validator_delegation_fee", "above 100%");
        }
        if self.funded_amount == 0 {
            return bad("funded_amount", "must be positive");
        }
        if self.staking.reward.minting_period_secs == 0 {
            return bad("staking.reward.minting_period_secs", "must be positive");
        }
        let d = &self.dynamic_fees;
        if d.excess_conversion_constant == 0 {
            return bad(
                "dynamic_fees.excess_conversion_constant",
                "must be positive",
            );
        }
        if d.max_capacity == 0 || d.max_per_second == 0 {
            return bad("dynamic_fees", "capacity and refill rate must be positive");
        }
        if d.target_per_second > d.max_per_second {
            return bad("dynamic_fees.target_per_second", "above max_per_second");
        }
        if self.l1_fees.excess_conversion_constant == 0 {
            return bad("l1_fees.excess_conversion_constant", "must be positive");
        }
        Ok(())
    }

    /// The `i`-th funded key.
    pub fn funded_key(&self, i: u32) -> PrivateKey {
        PrivateKey::from_seed(self.seed.as_bytes(), i)
    }

    /// The key the node's ICM relayer pays delivery txs from: funded on the EVM chains only
    /// (the C-Chain's and each L1's genesis), so that no one else's txs share its nonces.
    pub fn relayer_key(&self) -> PrivateKey {
        PrivateKey::from_seed(self.seed.as_bytes(), u32::MAX)
    }

    /// The node ID of the `i`-th initial validator: the first 20 bytes of
    /// `sha256("firn-node" ‖ seed ‖ i)`.
    pub fn validator_node_id(&self, i: u32) -> NodeId {
        let d = Sha256::new()
            .chain_update(b"firn-node")
            .chain_update(self.seed.as_bytes())
            .chain_update(i.to_be_bytes())
            .finalize();
        let mut b = [0u8; 20];
        b.copy_from_slice(&d[..20]);
        NodeId(b)
    }

    /// The BLS key of the `i`-th initial validator: `from_seed(sha256("firn-bls" ‖ seed ‖ i))`.
    pub fn validator_bls_key(&self, i: u32) -> Result<bls::SecretKey, DevnetError> {
        derive_bls(&self.seed, "firn-bls", i)
    }
}

/// A BLS key derived from the seed, a domain label and an index.
pub fn derive_bls(seed: &str, label: &str, i: u32) -> Result<bls::SecretKey, DevnetError> {
    let ikm: [u8; 32] = Sha256::new()
        .chain_update(label.as_bytes())
        .chain_update(seed.as_bytes())
        .chain_update(i.to_be_bytes())
        .finalize()
        .into();
    bls::SecretKey::from_seed(&ikm).map_err(|e| DevnetError::Key(e.to_string()))
}

/// One initial validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenesisValidator {
    /// Its node ID.
    pub node_id: NodeId,
    /// Its BLS public key.
    pub public_key: bls::PublicKey,
    /// The funded key that owns its stake and rewards.
    pub owner: ShortId,
    /// Its stake.
    pub stake: u64,
}

/// The genesis a [`DevnetConfig`] implies.
#[derive(Debug, Clone)]
pub struct Genesis {
    /// The network identity.
    pub identity: NetworkIdentity,
    /// Block 0.
    pub block: Block,
    /// The initial validators.
    pub validators: Vec<GenesisValidator>,
    /// The sum of every genesis output and stake.
    pub initial_supply: u64,
}

/// `owners` of a single address, no locktime.
pub fn single_owner(addr: ShortId) -> OutputOwners {
    OutputOwners {
        locktime: 0,
        threshold: 1,
        addresses: vec![addr],
    }
}

impl Genesis {
    /// Builds the genesis of `config`.
    pub fn build(config: &DevnetConfig) -> Result<Self, DevnetError> {
        config.validate()?;
        let identity = NetworkIdentity::of(config.profile);
        let asset = identity.avax_asset_id;
        let mut supply: u64 = 0;
        let mut add = |v: u64| -> Result<(), DevnetError> {
            supply = supply.checked_add(v).ok_or(DevnetError::InvalidConfig {
                field: "funded_amount",
                reason: "the genesis supply overflows u64",
            })?;
            Ok(())
        };

        let mut outputs = Vec::new();
        let lock_until = config
            .genesis_time
            .saturating_add(config.locked_duration_secs);
        for i in 0..config.funded_keys {
            let addr = config.funded_key(i).public_key().short_id();
            add(config.funded_amount)?;
            outputs.push(TransferableOutput {
                asset_id: asset,
                output: Output::Transfer(TransferOutput {
                    amount: config.funded_amount,
                    owners: single_owner(addr),
                }),
            });
            if config.locked_amount > 0 {
                add(config.locked_amount)?;
                outputs.push(TransferableOutput {
                    asset_id: asset,
                    output: Output::Locked(LockedOutput {
                        locktime: lock_until,
                        output: TransferOutput {
                            amount: config.locked_amount,
                            owners: single_owner(addr),
                        },
                    }),
                });
            }
        }
        TransferableOutput::sort_canonical(&mut outputs);
        let mut txs = vec![Tx::new(
            UnsignedTx::Base(BaseTx {
                network_id: identity.network_id,
                blockchain_id: identity.p_chain_id,
                outputs,
                inputs: Vec::new(),
                memo: Bytes(b"firn genesis".to_vec()),
            }),
            Vec::new(),
        )];

        let mut validators = Vec::new();
        for i in 0..config.initial_validators {
            let node_id = config.validator_node_id(i);
            let sk = config.validator_bls_key(i)?;
            let public_key = sk.public_key();
            let owner = config
                .funded_key(i % config.funded_keys)
                .public_key()
                .short_id();
            add(config.validator_stake)?;
            let tx = AddPermissionlessValidatorTx {
                base: BaseTx {
                    network_id: identity.network_id,
                    blockchain_id: identity.p_chain_id,
                    outputs: Vec::new(),
                    inputs: Vec::new(),
                    memo: Bytes::default(),
                },
                validator: Validator {
                    node_id,
                    start: config.genesis_time,
                    end: config
                        .genesis_time
                        .saturating_add(config.validator_duration_secs),
                    weight: config.validator_stake,
                },
                subnet_id: Id::ZERO,
                signer: Signer::ProofOfPossession(Box::new(ProofOfPossession::new(&sk))),
                stake: vec![TransferableOutput {
                    asset_id: asset,
                    output: Output::Transfer(TransferOutput {
                        amount: config.validator_stake,
                        owners: single_owner(owner),
                    }),
                }],
                validation_rewards_owner: Owner(single_owner(owner)),
                delegation_rewards_owner: Owner(single_owner(owner)),
                shares: config.validator_delegation_fee,
            };
            txs.push(Tx::new(
                UnsignedTx::AddPermissionlessValidator(tx),
                Vec::new(),
            ));
            validators.push(GenesisValidator {
                node_id,
                public_key,
                owner,
                stake: config.validator_stake,
            });
        }

        let block = Block::new(
            Id::ZERO,
            0,
            BlockKind::BanffStandard {
                time: config.genesis_time,
                txs,
            },
        );
        Ok(Self {
            identity,
            block,
            validators,
            initial_supply: supply,
        })
    }
}

/// The runtime code (`deployedBytecode`, `0x` hex) of a compiled contract artifact from
/// `contracts/artifacts/`, for a genesis `alloc`; empty if the artifact has none.
pub(crate) fn runtime_code(artifact: &str) -> String {
    serde_json::from_str::<serde_json::Value>(artifact)
        .ok()
        .and_then(|v| v["deployedBytecode"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_ids_parse_and_print_back() {
        for p in [Profile::Fuji, Profile::Local] {
            let idn = NetworkIdentity::of(p);
            assert!(!idn.x_chain_id.is_zero());
            assert!(!idn.c_chain_id.is_zero());
            assert!(!idn.avax_asset_id.is_zero());
        }
        let fuji = NetworkIdentity::of(Profile::Fuji);
        assert_eq!(
            fuji.avax_asset_id.to_string(),
            "U8iRqJoiJm8xZHAacmvYyZVwqQx6uDNtQeP3CQ6fcgQk3JqnK"
        );
        assert_eq!(fuji.hrp, "fuji");
        assert_eq!(NetworkIdentity::of(Profile::Local).network_id, 12345);
    }

    #[test]
    fn genesis_is_deterministic_and_depends_on_the_seed() {
        let a = Genesis::build(&DevnetConfig::default()).unwrap();
        let b = Genesis::build(&DevnetConfig::default()).unwrap();
        assert_eq!(a.block.id(), b.block.id());
        assert_eq!(a.block.height(), 0);
        assert_eq!(a.block.parent_id(), Id::ZERO);
        let other = DevnetConfig {
            seed: "other".into(),
            ..DevnetConfig::default()
        };
        assert_ne!(Genesis::build(&other).unwrap().block.id(), a.block.id());
        assert_eq!(a.validators.len(), 5);
        assert_eq!(a.block.txs().count(), 6);
    }

    #[test]
    fn config_rejects_too_few_keys_and_reads_partial_json() {
        let c = DevnetConfig {
            funded_keys: 3,
            ..DevnetConfig::default()
        };
        assert!(matches!(
            c.validate(),
            Err(DevnetError::InvalidConfig {
                field: "funded_keys",
                ..
            })
        ));
        let parsed: DevnetConfig = serde_json::from_str(
            r#"{"profile":"local","seed":"x","staking":{"min_delegator_stake":5}}"#,
        )
        .unwrap();
        assert_eq!(parsed.profile, Profile::Local);
        assert_eq!(parsed.funded_keys, 20);
        assert_eq!(parsed.staking.min_delegator_stake, 5);
        assert_eq!(parsed.staking.min_validator_stake, 2_000 * AVAX);
    }

    #[test]
    fn signer_behaviours_read_from_the_devnet_config() {
        let node = DevnetConfig::default().validator_node_id(1);
        let json = format!(
            r#"{{"warp_signers": {{"{node}": {{"slow": {{"delay_ms": 250}}}}, "NodeID-111111111111111111116DBWJs": "offline"}}}}"#
        );
        let config: DevnetConfig = serde_json::from_str(&json).unwrap();
        assert_eq!(
            config.warp_signers[&node],
            SignerBehaviour::Slow { delay_ms: 250 }
        );
        let back: DevnetConfig =
            serde_json::from_str(&serde_json::to_string(&config).unwrap()).unwrap();
        assert_eq!(back, config);
    }
}
