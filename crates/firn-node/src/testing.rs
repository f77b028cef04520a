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
