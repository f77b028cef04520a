//! Warp messages received on an L1, as subnet-EVM receives them: a tx carries each signed
//! message as a predicate in its access list; the block builder verifies it against the
//! source's validators at the P-Chain height and records the results in the header; the Warp
//! precompile's `getVerifiedWarpMessage` and `getVerifiedWarpBlockHash` answer from it. Too
//! little weight or the wrong subnet's signers make a predicate invalid; a predicate that
//! holds no message makes the tx invalid.

use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use firn_core::ids::{Id, NodeId};
use firn_core::network::P_CHAIN_ID;
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_core::warp::predicate::{BlockResults, pack};
use firn_core::warp::{Message, UnsignedMessage};
use firn_devnet::state::validators::canonical;
use firn_evm::WARP_ADDRESS;
use serde_json::json;

use crate::aggregator_evm::{L1, l1, l1_keys, send_warp_message, warp_rpc};

/// The predicate gas before Granite: per predicate, per 32-byte chunk, per signer.
const VERIFY_BASE: u64 = 200_000;
const PER_CHUNK: u64 = 3_200;
const PER_SIGNER: u64 = 500;

/// `unsigned` signed by the L1's validators `signers` (indices into `WEIGHTS`), aggregated
/// over the L1's canonical set now.
pub(crate) fn signed_by_l1(l1: &L1, unsigned: &UnsignedMessage, signers: &[usize]) -> Message {
    let set = canonical(
        &l1.pchain
            .validators_at(&l1.subnet, l1.pchain.height())
            .unwrap(),
    )
    .unwrap();
    let keys = l1_keys();
    let sigs: Vec<_> = signers
        .iter()
        .map(|&i| {
            let index = set.index_of(&NodeId([0x60 + i as u8; 20])).unwrap();
            (index, keys[i].sign(&unsigned.bytes()))
        })
        .collect();
    set.aggregate(unsigned.clone(), &sigs).unwrap()
}

/// `unsigned` signed by every one of the primary network's validators.
pub(crate) fn signed_by_primary(l1: &L1, unsigned: &UnsignedMessage) -> Message {
    let set = canonical(
        &l1.pchain
            .validators_at(&Id::ZERO, l1.pchain.height())
            .unwrap(),
    )
    .unwrap();
    let config = l1.pchain.config();
    let sigs: Vec<_> = (0..config.initial_validators)
        .map(|i| {
            let key = config.validator_bls_key(i).unwrap();
            (
                set.index_of(&config.validator_node_id(i)).unwrap(),
                key.sign(&unsigned.bytes()),
            )
        })
        .collect();
    set.aggregate(unsigned.clone(), &sigs).unwrap()
}

fn selector(signature: &str) -> Vec<u8> {
    keccak256(signature)[..4].to_vec()
}

/// The access list carrying `predicates` (raw signed Warp messages) for the Warp precompile.
pub(crate) fn predicate_list(predicates: &[Vec<u8>]) -> AccessList {
    AccessList(
        predicates
            .iter()
            .map(|p| AccessListItem {
                address: WARP_ADDRESS,
                storage_keys: pack(p).into_iter().map(B256::from).collect(),
            })
            .collect(),
    )
}

/// A tx on `l1`'s chain signed by funded key `from` calling `to` with `input` and
/// `access_list`.
pub(crate) fn signed_tx(
    l1: &L1,
    from: usize,
    to: TxKind,
    input: Vec<u8>,
    access_list: AccessList,
) -> Vec<u8> {
    signed_tx_on(l1, &l1.evm, from, to, input, access_list)
}

/// [`signed_tx`] on `chain` (another of the devnet's EVM chains).
pub(crate) fn signed_tx_on(
    l1: &L1,
    chain: &firn_evm::EvmChain,
    from: usize,
    to: TxKind,
    input: Vec<u8>,
    access_list: AccessList,
) -> Vec<u8> {
    let key = &l1.pchain.funded_keys()[from];
    let sender = Address::from(key.public_key().eth_address());
    firn_node::testing::signed_eip1559(
        chain,
        key,
        chain.nonce(&sender),
        2_000_000,
        to,
        input,
        access_list,
    )
}

/// A tx from the first funded key calling the Warp precompile's `function(index)`, carrying
/// `predicates`.
fn call_precompile(l1: &L1, function: &str, index: u32, predicates: &[Vec<u8>]) -> Vec<u8> {
    let mut input = selector(function);
    input.extend(U256::from(index).to_be_bytes::<32>());
    signed_tx(
        l1,
        0,
        TxKind::Call(WARP_ADDRESS),
        input,
        predicate_list(predicates),
    )
}

/// What one tx did once mined alone in a block.
struct Mined {
    hash: B256,
    output: Bytes,
    gas_used: u64,
    results: BlockResults,
}

fn mine(l1: &L1, raw: &[u8]) -> Mined {
    let hash = l1.evm.submit_raw_tx(raw).unwrap();
    let block = l1.evm.build_block().unwrap().expect("a block with the tx");
    assert_eq!(block.txs.len(), 1);
    assert!(block.receipts[0].success, "{:?}", block.traces[0].error);
    // The header carries the results after the fee window, and they decode as recorded.
    let extra = &block.header.extra_data;
    let results = BlockResults::parse(&extra[80..]).unwrap();
    assert_eq!(results, block.predicate_results);
    Mined {
        hash,
        output: block.traces[0].output.clone(),
        gas_used: block.receipts[0].gas_used,
        results,
    }
}

fn word(v: u64) -> [u8; 32] {
    U256::from(v).to_be_bytes::<32>()
}

/// `getVerifiedWarpMessage`'s output: `((sourceChainID, originSenderAddress, payload), valid)`.
fn message_output(source: Id, sender: Address, payload: &[u8]) -> Vec<u8> {
    let mut out = [
        word(64),
        word(1),
        source.0,
        B256::left_padding_from(sender.as_slice()).0,
        word(96),
        word(payload.len() as u64),
    ]
    .concat();
    out.extend(payload);
    out.resize(out.len().div_ceil(32) * 32, 0);
    out
}

fn invalid_message_output() -> Vec<u8> {
    [word(64), word(0), [0; 32], [0; 32], word(96), word(0)].concat()
}

/// Intrinsic gas of a call with a 36-byte input (selector, index) and these predicates.
fn intrinsic(index: u32, predicates: &[(usize, usize)]) -> u64 {
    let calldata = 4 * 16 + if index == 0 { 32 * 4 } else { 31 * 4 + 16 };
    21_000
        + calldata
        + predicates
            .iter()
            .map(|&(chunks, signers)| {
                VERIFY_BASE + PER_CHUNK * chunks as u64 + PER_SIGNER * signers as u64
            })
            .sum::<u64>()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_l1_receives_warp_messages_its_validators_signed_and_refuses_the_rest() {
    let l1 = l1().await;
    let network_id = l1.pchain.network().network_id;
    let chain = Id(l1.evm.blockchain_id().0);
    let sender = Address::from(l1.pchain.funded_keys()[0].public_key().eth_address());

    // A message the L1 sent, signed by the two heaviest validators (250 of 310 ≥ 67 %).
    let sent = send_warp_message(&l1, b"to be received");
    let good = signed_by_l1(&l1, &sent, &[0, 1]).bytes();
    let chunks = pack(&good).len();
    let m = mine(
        &l1,
        &call_precompile(
            &l1,
            "getVerifiedWarpMessage(uint32)",
            0,
            std::slice::from_ref(&good),
        ),
    );
    assert_eq!(
        m.output.to_vec(),
        message_output(chain, sender, b"to be received")
    );
    assert!(!m.results.failed(&m.hash.0, &WARP_ADDRESS.0.0, 0));
    assert!(!m.results.is_empty(), "a tx with predicates has results");
    // Predicate gas instead of the access-list price, then the precompile's read.
    assert_eq!(
        m.gas_used,
        intrinsic(0, &[(chunks, 2)]) + 2 + PER_CHUNK * chunks as u64
    );
    // Tracing replays the tx with the results the block recorded.
    let traced = warp_rpc(
        &l1,
        "debug_traceTransaction",
        json!([m.hash, { "tracer": "callTracer" }]),
    )
    .await
    .unwrap();
    assert_eq!(traced["output"], format!("0x{}", hex::encode(&m.output)));
    assert_eq!(traced["gasUsed"], format!("{:#x}", m.gas_used));

    // Too little weight: the heaviest alone (150 of 310). The tx is mined; the message is
    // not valid, and reading it costs only the base.
    let light = signed_by_l1(&l1, &sent, &[0]).bytes();
    let m = mine(
        &l1,
        &call_precompile(
            &l1,
            "getVerifiedWarpMessage(uint32)",
            0,
            std::slice::from_ref(&light),
        ),
    );
    assert_eq!(m.output.to_vec(), invalid_message_output());
    assert!(m.results.failed(&m.hash.0, &WARP_ADDRESS.0.0, 0));
    assert_eq!(m.gas_used, intrinsic(0, &[(pack(&light).len(), 1)]) + 2);

    // The wrong subnet: the primary network's validators sign the L1's message.
    let foreign = signed_by_primary(&l1, &sent).bytes();

    // A P-Chain message: verified against the L1's own validators, the sender is empty.
    let from_p = UnsignedMessage::new(
        network_id,
        P_CHAIN_ID,
        Payload::AddressedCall(AddressedCall {
            source_address: Vec::new(),
            payload: b"from the P-Chain".to_vec(),
        })
        .bytes(),
    );
    let from_p = signed_by_l1(&l1, &from_p, &[0, 1, 2]).bytes();

    // Three predicates in one tx: each index answers on its own.
    let predicates = [good.clone(), foreign, from_p];
    for (index, want) in [
        (0, message_output(chain, sender, b"to be received")),
        (1, invalid_message_output()),
        (
            2,
            message_output(P_CHAIN_ID, Address::ZERO, b"from the P-Chain"),
        ),
        (3, invalid_message_output()),
    ] {
        let m = mine(
            &l1,
            &call_precompile(&l1, "getVerifiedWarpMessage(uint32)", index, &predicates),
        );
        assert_eq!(m.output.to_vec(), want, "predicate {index}");
        assert_eq!(
            m.results.failed_indices(&m.hash.0, &WARP_ADDRESS.0.0),
            vec![1],
            "predicate {index}"
        );
    }

    // A block hash the L1's validators signed, read with getVerifiedWarpBlockHash; the same
    // message read as an AddressedCall fails the call.
    let head = l1.evm.head().hash;
    let block_hash = UnsignedMessage::new(network_id, chain, Payload::Hash(Id(head.0)).bytes());
    let signed_hash = signed_by_l1(&l1, &block_hash, &[0, 1]).bytes();
    let m = mine(
        &l1,
        &call_precompile(
            &l1,
            "getVerifiedWarpBlockHash(uint32)",
            0,
            std::slice::from_ref(&signed_hash),
        ),
    );
    assert_eq!(m.output.to_vec(), [chain.0, head.0, word(1)].concat());
    let hash = l1
        .evm
        .submit_raw_tx(&call_precompile(
            &l1,
            "getVerifiedWarpMessage(uint32)",
            0,
            &[signed_hash],
        ))
        .unwrap();
    let block = l1.evm.build_block().unwrap().unwrap();
    assert_eq!(block.txs[0].hash, hash);
    assert!(!block.receipts[0].success);

    // A predicate that holds no Warp message makes the tx invalid, as subnet-EVM's intrinsic
    // gas check does.
    let refused = l1
        .evm
        .submit_raw_tx(&call_precompile(
            &l1,
            "getVerifiedWarpMessage(uint32)",
            0,
            &[b"not a warp message".to_vec()],
        ))
        .unwrap_err()
        .to_string();
    assert!(
        refused.starts_with("cannot unpack warp message"),
        "{refused}"
    );

    // A block without predicates records empty results (6 bytes after the fee window).
    send_warp_message(&l1, b"no predicates");
    let head = l1.evm.head();
    assert_eq!(&head.header.extra_data[80..], &[0, 0, 0, 0, 0, 0]);
}
