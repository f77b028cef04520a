//! Fixtures for tests and benches of other crates (feature `testing`): what several suites
//! set up on a [`crate::NodeHandle`] from [`crate::NodeConfig::test`], written once.

use firn_core::ids::{Id, NodeId};
use firn_core::network::AVAX;
use firn_core::pchain::tx::Tx;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::messages::{L1Message, PChainOwner, SubnetToL1Conversion};
use firn_devnet::PChain;
use firn_devnet::genesis::{derive_bls, single_owner};
use firn_devnet::wallet::{L1ValidatorSpec, Wallet};

/// Issues `tx`, moves the (frozen) clock a second and builds until idle: the tx's ID.
///
/// # Panics
/// If the chain refuses the tx or cannot build: a fixture's txs are valid.
pub fn issue_and_build(chain: &PChain, tx: Tx) -> Id {
    #[allow(clippy::expect_used)]
    let id = chain.issue_tx(tx).expect("a fixture's tx is valid");
    chain.clock().advance(1);
    #[allow(clippy::expect_used)]
    chain.build_until_idle().expect("the chain builds");
    id
}

/// A subnet converted to an L1 of one validator, and the conversion's P-Chain Warp message.
#[derive(Debug, Clone)]
pub struct ConvertedL1 {
    /// The subnet (also the ID of the tx that created it).
    pub subnet: Id,
    /// The conversion tx.
    pub convert_tx: Id,
    /// The `SubnetToL1Conversion` message the primary network signs.
    pub message: UnsignedMessage,
    /// The L1's one validator (weight 100).
    pub validator: NodeId,
}

/// Creates a subnet with a chain and converts it to an L1 of one validator, paid by the first
/// funded key, on a chain whose blocks are built by hand.
///
/// # Panics
/// If the chain refuses a step (it does not, on a fresh devnet).
pub fn convert_an_l1(chain: &PChain) -> ConvertedL1 {
    let wallet = Wallet::new(chain);
    let me = wallet.change_address();
    #[allow(clippy::expect_used)]
    let subnet = issue_and_build(
        chain,
        wallet.create_subnet(single_owner(me)).expect("a subnet"),
    );
    #[allow(clippy::expect_used)]
    let manager = issue_and_build(
        chain,
        wallet
            .create_chain(subnet, "manager", Id([9; 32]), b"{}".to_vec())
            .expect("a chain"),
    );
    #[allow(clippy::expect_used)]
    let key = derive_bls("firn-node-testing", "l1", 0).expect("a BLS key");
    let validator = NodeId([0x41; 20]);
    let spec = L1ValidatorSpec {
        node_id: validator,
        weight: 100,
        balance: 10 * AVAX,
        bls: &key,
        owner: PChainOwner {
            threshold: 1,
            addresses: vec![me],
        },
    };
    #[allow(clippy::expect_used)]
    let convert_tx = issue_and_build(
        chain,
        wallet
            .convert_subnet_to_l1(subnet, manager, vec![0xAB; 20], &[spec])
            .expect("a conversion"),
    );
    #[allow(clippy::expect_used)]
    let conversion_id = chain
        .subnets()
        .into_iter()
        .find(|s| s.id == subnet)
        .and_then(|s| s.conversion)
        .expect("the subnet is converted")
        .conversion_id;
    let message = L1Message::SubnetToL1Conversion(SubnetToL1Conversion { id: conversion_id })
        .to_unsigned_message(chain.network().network_id);
    ConvertedL1 {
        subnet,
        convert_tx,
        message,
        validator,
    }
}

/// A node with a subnet-EVM chain on a subnet converted to an L1, the chain booted and the
/// L1's validators signing (see [`evm_l1`]).
#[derive(Debug)]
pub struct EvmL1 {
    /// The P-Chain.
    pub pchain: std::sync::Arc<PChain>,
    /// The L1's subnet.
    pub subnet: Id,
    /// The L1's EVM chain.
    pub evm: std::sync::Arc<firn_evm::EvmChain>,
    /// The node's Warp signers, the L1's validators among them.
    pub signers: std::sync::Arc<firn_devnet::signers::DevnetSigners>,
    /// The node.
    pub node: crate::NodeHandle,
}

/// The BLS keys of [`evm_l1`]'s validators: validator `i` is node `0x60 + i`.
///
/// # Panics
/// Never for a fixture's indices (key derivation does not fail).
pub fn evm_l1_keys(count: usize) -> Vec<firn_core::keys::bls::SecretKey> {
    (0..count as u32)
        .map(|i| {
            #[allow(clippy::expect_used)]
            derive_bls("evm-warp", "l1", i).expect("a fixture key derives")
        })
        .collect()
}

/// A node made from `config` with EVM chains and the genesis signers, and a subnet-EVM chain
/// (EVM chain ID `evm_chain_id`, the history's L1 genesis: Teleporter's messenger, the funded
/// keys and the relayer's) on a subnet converted to an L1 whose validators have `weights`.
///
/// # Panics
/// If the node does not start or the chain does not boot: a fixture's setup is valid.
#[allow(clippy::expect_used)]
pub async fn evm_l1(config: crate::NodeConfig, evm_chain_id: u64, weights: &[u64]) -> EvmL1 {
    let node = crate::spawn(
        config
            .with_evm()
            .with_signers(crate::config::SignerKeys::Genesis),
    )
    .await
    .expect("the node starts");
    let pchain = node.pchain().clone();
    let wallet = Wallet::new(&pchain);
    let me = wallet.change_address();
    let subnet = issue_and_build(
        &pchain,
        wallet.create_subnet(single_owner(me)).expect("a subnet"),
    );
    let genesis = firn_devnet::history::l1_genesis_of(&pchain, evm_chain_id);
    let chain_id = issue_and_build(
        &pchain,
        wallet
            .create_chain(
                subnet,
                "FirnL1",
                firn_core::network::SUBNET_EVM_VM_ID,
                genesis,
            )
            .expect("a chain"),
    );
    let keys = evm_l1_keys(weights.len());
    let owner = PChainOwner {
        threshold: 1,
        addresses: vec![me],
    };
    let specs: Vec<_> = keys
        .iter()
        .zip(weights)
        .enumerate()
        .map(|(i, (bls, weight))| L1ValidatorSpec {
            node_id: NodeId([0x60 + i as u8; 20]),
            weight: *weight,
            balance: 10 * AVAX,
            bls,
            owner: owner.clone(),
        })
        .collect();
    issue_and_build(
        &pchain,
        wallet
            .convert_subnet_to_l1(subnet, chain_id, vec![0xAB; 20], &specs)
            .expect("a conversion"),
    );
    let signers = node.signers().expect("signers").clone();
    for (i, key) in keys.into_iter().enumerate() {
        signers.add_key(NodeId([0x60 + i as u8; 20]), key);
    }
    // The node boots the chain (and registers its signing rules) as soon as it looks.
    let chains = node.evm().expect("EVM chains");
    chains.boot_new_chains();
    let evm = chains.chain(&chain_id).expect("the L1's chain booted");
    EvmL1 {
        pchain,
        subnet,
        evm,
        signers,
        node,
    }
}

/// An EIP-1559 tx on `chain` signed by `key` at `nonce`: `gas` gas, a 1,000 gwei fee cap and a
/// 1 gwei tip, no value; its EIP-2718 bytes.
pub fn signed_eip1559(
    chain: &firn_evm::EvmChain,
    key: &firn_core::keys::secp256k1::PrivateKey,
    nonce: u64,
    gas: u64,
    to: alloy_primitives::TxKind,
    input: Vec<u8>,
    access_list: alloy_eips::eip2930::AccessList,
) -> Vec<u8> {
    use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
    use alloy_eips::eip2718::Encodable2718;
    use alloy_primitives::{Signature, U256};
    let tx = TxEip1559 {
        chain_id: chain.chain_id(),
        nonce,
        gas_limit: gas,
        max_fee_per_gas: 1_000_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to,
        value: U256::ZERO,
        access_list,
        input: input.into(),
    };
    let rsv = *key.sign_hash(&tx.signature_hash().0).as_bytes();
    let sig = Signature::new(
        U256::from_be_slice(&rsv[..32]),
        U256::from_be_slice(&rsv[32..64]),
        rsv[64] == 1,
    );
    let envelope: TxEnvelope = tx.into_signed(sig).into();
    envelope.encoded_2718()
}
