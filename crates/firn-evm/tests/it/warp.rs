//! Receiving Warp messages on a chain with the Warp precompile, against a P-Chain stand-in
//! holding a real BLS validator set: results are recorded in the header and the block file,
//! a reopened chain replays them as recorded (not verified again), and a chain without a
//! P-Chain fails every predicate.

use std::sync::Arc;

use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_primitives::{B256, Bytes, U256, keccak256};
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls::SecretKey;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_core::warp::predicate::pack;
use firn_core::warp::validators::CanonicalValidatorSet;
use firn_evm::warp::receive::WarpBackend;
use firn_evm::{EvmChain, EvmChainConfig, WARP_ADDRESS};

use crate::common::*;

const CHAIN: B256 = B256::repeat_byte(0xcc);
const SUBNET: Id = Id([0x5b; 32]);

/// The P-Chain as the chain sees it: its own subnet with three validators of weight 1 each.
struct PChainStandIn {
    keys: Vec<SecretKey>,
}

impl PChainStandIn {
    fn new() -> Self {
        Self {
            keys: (0..3u8)
                .map(|i| SecretKey::from_seed(&[i; 32]).unwrap())
                .collect(),
        }
    }

    fn set(&self) -> CanonicalValidatorSet {
        CanonicalValidatorSet::new(
            self.keys
                .iter()
                .enumerate()
                .map(|(i, k)| (NodeId([i as u8; 20]), Some(k.public_key()), 1)),
        )
        .unwrap()
    }

    /// A message from the chain itself, signed by `signers` (node indices).
    fn signed(&self, payload: &[u8], signers: &[usize]) -> Vec<u8> {
        let unsigned = UnsignedMessage::new(
            5,
            Id(CHAIN.0),
            Payload::AddressedCall(AddressedCall {
                source_address: vec![0x11; 20],
                payload: payload.to_vec(),
            })
            .bytes(),
        );
        let set = self.set();
        let sigs: Vec<_> = signers
            .iter()
            .map(|&i| {
                let at = set.index_of(&NodeId([i as u8; 20])).unwrap();
                (at, self.keys[i].sign(&unsigned.bytes()))
            })
            .collect();
        set.aggregate(unsigned, &sigs).unwrap().bytes()
    }
}

impl WarpBackend for PChainStandIn {
    fn p_chain_height(&self) -> u64 {
        7
    }

    fn subnet_of(&self, chain_id: &Id) -> Option<Id> {
        (*chain_id == Id(CHAIN.0)).then_some(SUBNET)
    }

    fn validators_at(&self, subnet_id: &Id, height: u64) -> Result<CanonicalValidatorSet, String> {
        match (subnet_id, height) {
            (&SUBNET, 7) => Ok(self.set()),
            _ => Err(format!("no set for {subnet_id} at {height}")),
        }
    }
}

fn open_with(
    dir: &std::path::Path,
    clock: &TestClock,
    warp: Option<Arc<dyn WarpBackend>>,
) -> EvmChain {
    EvmChain::open(EvmChainConfig {
        genesis: subnet_genesis(&[]),
        blockchain_id: CHAIN,
        network_id: 5,
        data_dir: Some(dir.to_path_buf()),
        now: clock.source(),
        atomic: None,
        warp,
    })
    .unwrap()
}

/// Calls `getVerifiedWarpMessage(index)` carrying `predicates`.
fn read_tx(nonce: u64, index: u64, predicates: &[Vec<u8>]) -> Bytes {
    let mut input = keccak256("getVerifiedWarpMessage(uint32)")[..4].to_vec();
    input.extend(U256::from(index).to_be_bytes::<32>());
    let list = AccessList(
        predicates
            .iter()
            .map(|p| AccessListItem {
                address: WARP_ADDRESS,
                storage_keys: pack(p).into_iter().map(B256::from).collect(),
            })
            .collect(),
    );
    tx1559_with_access_list(
        &key(0),
        nonce,
        WARP_ADDRESS,
        Bytes::from(input),
        1_000_000,
        list,
    )
}

/// The `valid` word of a `getVerifiedWarpMessage` output.
fn valid(output: &[u8]) -> bool {
    output[32..64] == U256::from(1).to_be_bytes::<32>()
}

#[test]
fn results_are_recorded_and_replayed_as_built() {
    let dir = temp_dir("warp-replay");
    let clock = TestClock::at(GENESIS_TIME + 5);
    let p = PChainStandIn::new();
    let good = p.signed(b"all three", &[0, 1, 2]);
    // Two of three equal weights is 66.7 %, under the 67 % quorum.
    let light = p.signed(b"two of three", &[0, 2]);
    let (hash, outputs) = {
        let chain = open_with(&dir, &clock, Some(Arc::new(PChainStandIn::new())));
        chain
            .submit_raw_tx(&read_tx(0, 0, &[good.clone(), light.clone()]))
            .unwrap();
        chain
            .submit_raw_tx(&read_tx(1, 1, &[good.clone(), light.clone()]))
            .unwrap();
        let block = chain.build_block().unwrap().unwrap();
        let outputs: Vec<bool> = block.traces.iter().map(|t| valid(&t.output)).collect();
        assert_eq!(outputs, [true, false]);
        for tx in &block.txs {
            assert_eq!(
                block
                    .predicate_results
                    .failed_indices(&tx.hash.0, &WARP_ADDRESS.0.0),
                vec![1]
            );
        }
        assert_eq!(
            &block.header.extra_data[80..],
            block.predicate_results.bytes().as_slice()
        );
        (block.hash, outputs)
    };
    assert!(dir.join("warp-predicates").exists());
    // Reopened without a P-Chain: a fresh verification would fail both predicates, so the
    // same hash means the recorded results were replayed.
    let chain = open_with(&dir, &clock, None);
    assert_eq!(chain.head().hash, hash);
    let outputs_again: Vec<bool> = chain
        .head()
        .traces
        .iter()
        .map(|t| valid(&t.output))
        .collect();
    assert_eq!(outputs_again, outputs);
    // New blocks on a chain with no P-Chain to ask fail every predicate.
    chain.submit_raw_tx(&read_tx(2, 0, &[good])).unwrap();
    let block = chain.build_block().unwrap().unwrap();
    assert!(!valid(&block.traces[0].output));
    let _ = std::fs::remove_dir_all(dir);
}
