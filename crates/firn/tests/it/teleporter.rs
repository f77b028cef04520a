//! firn's Teleporter-compatible messenger (`contracts/src/FirnTeleporterMessenger.sol`) at
//! Teleporter's address on an L1, messaging the L1 itself through real Warp messages signed
//! by its validators: a message is sent, delivered by a relayer and executed; a failing
//! execution is stored and retried; receipts ride back on the next message and pay the
//! relayer its ERC-20 fee; a second delivery and a foreign sender are refused. Event topics and
//! message IDs are Teleporter's.

use alloy_primitives::{Address, B256, Bytes, TxKind, U256, keccak256};
use alloy_sol_types::{SolCall, SolEvent, SolValue, sol};
use firn_core::warp::UnsignedMessage;
use firn_evm::EvmChain;
use firn_evm::{Block, CallRequest, sent_messages};
use std::sync::Arc;

use crate::aggregator_evm::{L1, l1, l1_with};
use crate::warp_receive::{
    predicate_list, signed_by_l1, signed_by_primary, signed_tx, signed_tx_on,
};

/// Teleporter's address on every chain (ICM's v1 deployment).
const TELEPORTER: Address = Address::new(firn_devnet::teleporter::TELEPORTER_MESSENGER);

sol! {
    struct TeleporterMessageReceipt { uint256 receivedMessageNonce; address relayerRewardAddress; }
    struct TeleporterFeeInfo { address feeTokenAddress; uint256 amount; }
    struct TeleporterMessage {
        uint256 messageNonce;
        address originSenderAddress;
        bytes32 destinationBlockchainID;
        address destinationAddress;
        uint256 requiredGasLimit;
        address[] allowedRelayerAddresses;
        TeleporterMessageReceipt[] receipts;
        bytes message;
    }
    struct TeleporterMessageInput {
        bytes32 destinationBlockchainID;
        address destinationAddress;
        TeleporterFeeInfo feeInfo;
        uint256 requiredGasLimit;
        address[] allowedRelayerAddresses;
        bytes message;
    }
    function sendCrossChainMessage(TeleporterMessageInput messageInput) returns (bytes32);
    function receiveCrossChainMessage(uint32 messageIndex, address relayerRewardAddress);
    function retryMessageExecution(bytes32 sourceBlockchainID, TeleporterMessage message);
    function redeemRelayerRewards(address feeAsset);
    function checkRelayerRewardAmount(address relayer, address feeAsset) returns (uint256);
    function receivedFailedMessageHashes(bytes32 messageID) returns (bytes32);
    function messageReceived(bytes32 messageID) returns (bool);
    function getMessageHash(bytes32 messageID) returns (bytes32);
    function getRelayerRewardAddress(bytes32 messageID) returns (address);
    function getReceiptQueueSize(bytes32 sourceBlockchainID) returns (uint256);
    function setClosed(bool closed);
    function received() returns (uint256);
    function approve(address spender, uint256 amount) returns (bool);
    function balanceOf(address owner) returns (uint256);
    event SendCrossChainMessage(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, TeleporterMessage message, TeleporterFeeInfo feeInfo);
    event ReceiveCrossChainMessage(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, address indexed deliverer, address rewardRedeemer, TeleporterMessage message);
    event MessageExecuted(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID);
    event MessageExecutionFailed(bytes32 indexed messageID, bytes32 indexed sourceBlockchainID, TeleporterMessage message);
    event ReceiptReceived(bytes32 indexed messageID, bytes32 indexed destinationBlockchainID, address indexed relayerRewardAddress, TeleporterFeeInfo feeInfo);
}

fn artifact(name: &str, field: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../contracts/artifacts/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    hex::decode(v[field].as_str().unwrap().trim_start_matches("0x")).unwrap()
}

/// The topic0 values ICM's v1 bytecode holds (`vectors/teleporter/event-topics.json`).
fn vector_topic(event: &str) -> B256 {
    let path = format!(
        "{}/../../../shared/vectors/teleporter/event-topics.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v["events"][event]["topic0"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

pub(crate) fn address_of(l1: &L1, key: usize) -> Address {
    Address::from(l1.pchain.funded_keys()[key].public_key().eth_address())
}

/// Submits a tx from funded key `from` and builds its block; the block.
pub(crate) fn run(
    l1: &L1,
    from: usize,
    to: Address,
    input: Vec<u8>,
    predicates: &[Vec<u8>],
) -> Arc<Block> {
    run_on(l1, &l1.evm, from, TxKind::Call(to), input, predicates)
}

fn deploy(l1: &L1, from: usize, init: Vec<u8>) -> Address {
    let raw = signed_tx(l1, from, TxKind::Create, init, Default::default());
    l1.evm.submit_raw_tx(&raw).unwrap();
    let block = l1.evm.build_block().unwrap().unwrap();
    block.receipts[0].contract_address.expect("a deployment")
}

pub(crate) fn read<C: SolCall>(l1: &L1, to: Address, call: C) -> C::Return {
    read_on(&l1.evm, to, call)
}

fn read_on<C: SolCall>(chain: &EvmChain, to: Address, call: C) -> C::Return {
    let out = chain
        .call(&CallRequest {
            to: Some(to),
            input: Some(Bytes::from(call.abi_encode())),
            ..Default::default()
        })
        .unwrap();
    C::abi_decode_returns(&out).unwrap()
}

/// The events of type `E` the messenger logged in `block`.
fn events<E: SolEvent>(block: &Block) -> Vec<E> {
    block
        .receipts
        .iter()
        .flat_map(|r| r.logs.iter())
        .filter(|log| {
            log.address == TELEPORTER && log.data.topics().first() == Some(&E::SIGNATURE_HASH)
        })
        .map(|log| E::decode_log_data(&log.data).unwrap())
        .collect()
}

/// Sends `payload` to `inbox` on the L1 itself from funded key 0, paying `fee`; returns the
/// sent message and its Warp message signed by the L1's validators.
fn send(
    l1: &L1,
    inbox: Address,
    payload: &[u8],
    fee: (Address, u64),
) -> (SendCrossChainMessage, Vec<u8>) {
    let here = l1.evm.blockchain_id();
    let input = sendCrossChainMessageCall {
        messageInput: TeleporterMessageInput {
            destinationBlockchainID: here,
            destinationAddress: inbox,
            feeInfo: TeleporterFeeInfo {
                feeTokenAddress: fee.0,
                amount: U256::from(fee.1),
            },
            requiredGasLimit: U256::from(100_000),
            allowedRelayerAddresses: vec![address_of(l1, 1)],
            message: Bytes::copy_from_slice(payload),
        },
    }
    .abi_encode();
    let block = run(l1, 0, TELEPORTER, input, &[]);
    assert!(block.receipts[0].success, "{:?}", block.traces[0].error);
    let sent = events::<SendCrossChainMessage>(&block).remove(0);
    let warp = sent_messages(&block);
    assert_eq!(warp.len(), 1);
    let unsigned = UnsignedMessage::from_bytes(&warp[0].1).unwrap();
    (sent, signed_by_l1(l1, &unsigned, &[0, 1]).bytes())
}

/// Funded key 1, the relayer, delivers `signed`, naming funded key 2 for its reward.
fn deliver(l1: &L1, signed: &[u8]) -> Arc<Block> {
    let input = receiveCrossChainMessageCall {
        messageIndex: 0,
        relayerRewardAddress: address_of(l1, 2),
    }
    .abi_encode();
    run(l1, 1, TELEPORTER, input, &[signed.to_vec()])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_messenger_delivers_retries_and_pays_relayers_as_teleporter_does() {
    let l1 = l1().await;
    let here = l1.evm.blockchain_id();
    // Teleporter's address holds firn's messenger from the L1's genesis.
    assert_eq!(
        l1.evm.code(&TELEPORTER).to_vec(),
        artifact("FirnTeleporterMessenger", "deployedBytecode")
    );
    let mut init = artifact("FirnTeleporterInbox", "bytecode");
    init.extend(TELEPORTER.abi_encode());
    let inbox = deploy(&l1, 0, init);
    for event in [
        "SendCrossChainMessage",
        "ReceiveCrossChainMessage",
        "MessageExecuted",
        "MessageExecutionFailed",
        "ReceiptReceived",
    ] {
        let ours = match event {
            "SendCrossChainMessage" => SendCrossChainMessage::SIGNATURE_HASH,
            "ReceiveCrossChainMessage" => ReceiveCrossChainMessage::SIGNATURE_HASH,
            "MessageExecuted" => MessageExecuted::SIGNATURE_HASH,
            "MessageExecutionFailed" => MessageExecutionFailed::SIGNATURE_HASH,
            _ => ReceiptReceived::SIGNATURE_HASH,
        };
        assert_eq!(ours, vector_topic(event), "{event}");
    }

    // A fee token: key 0 holds the supply and lets the messenger take fees.
    let mut token_init = artifact("FirnToken", "bytecode");
    token_init.extend(
        (
            "Fee".to_string(),
            "FEE".to_string(),
            U256::from(18),
            U256::from(1_000_000u64),
        )
            .abi_encode_params(),
    );
    let token = deploy(&l1, 0, token_init);
    let approve = approveCall {
        spender: TELEPORTER,
        amount: U256::from(1_000_000u64),
    }
    .abi_encode();
    assert!(run(&l1, 0, token, approve, &[]).receipts[0].success);

    // 1. Sent, delivered by the allowed relayer, executed.
    let (first, signed) = send(&l1, inbox, b"hello", (token, 300));
    let id = keccak256((TELEPORTER, here, here, U256::from(1)).abi_encode());
    assert_eq!(
        first.messageID, id,
        "Teleporter's message ID rule, first nonce 1"
    );
    assert_eq!(first.message.originSenderAddress, address_of(&l1, 0));
    assert_eq!(first.feeInfo.amount, U256::from(300));
    let block = deliver(&l1, &signed);
    assert!(block.receipts[0].success, "{:?}", block.traces[0].error);
    let got = events::<ReceiveCrossChainMessage>(&block).remove(0);
    assert_eq!((got.messageID, got.sourceBlockchainID), (id, here));
    assert_eq!(
        (got.deliverer, got.rewardRedeemer),
        (address_of(&l1, 1), address_of(&l1, 2))
    );
    assert_eq!(events::<MessageExecuted>(&block).len(), 1);
    assert_eq!(read(&l1, inbox, receivedCall {}), U256::from(1));
    assert!(read(&l1, TELEPORTER, messageReceivedCall { messageID: id }));

    // Delivered again: refused, nothing changes.
    let again = deliver(&l1, &signed);
    assert!(!again.receipts[0].success);
    assert_eq!(
        again.traces[0].revert_reason.as_deref(),
        Some("TeleporterMessenger: message already received")
    );
    assert_eq!(read(&l1, inbox, receivedCall {}), U256::from(1));

    // 2. The inbox is closed: the delivery succeeds, the execution fails and is stored. The
    // message carries the receipt of the first (received from this same chain): its delivery
    // pays the first message's fee to the relayer the receipt names.
    assert!(
        run(
            &l1,
            0,
            inbox,
            setClosedCall { closed: true }.abi_encode(),
            &[]
        )
        .receipts[0]
            .success
    );
    let (second, signed) = send(&l1, inbox, b"retry me", (token, 200));
    let nonces: Vec<_> = second
        .message
        .receipts
        .iter()
        .map(|r| r.receivedMessageNonce)
        .collect();
    assert_eq!(nonces, [U256::from(1)]);
    let block = deliver(&l1, &signed);
    assert!(block.receipts[0].success);
    let paid = events::<ReceiptReceived>(&block);
    assert_eq!(paid.len(), 1);
    assert_eq!(
        (paid[0].messageID, paid[0].relayerRewardAddress),
        (id, address_of(&l1, 2))
    );
    assert_eq!(paid[0].feeInfo.amount, U256::from(300));
    let failed = events::<MessageExecutionFailed>(&block).remove(0);
    assert_eq!(failed.messageID, second.messageID);
    let stored = read(
        &l1,
        TELEPORTER,
        receivedFailedMessageHashesCall {
            messageID: second.messageID,
        },
    );
    assert_eq!(stored, keccak256(second.message.abi_encode()));
    // Retried once the inbox opens: executed, and the stored failure is gone.
    assert!(
        run(
            &l1,
            0,
            inbox,
            setClosedCall { closed: false }.abi_encode(),
            &[]
        )
        .receipts[0]
            .success
    );
    let retry = retryMessageExecutionCall {
        sourceBlockchainID: here,
        message: second.message.clone(),
    }
    .abi_encode();
    let block = run(&l1, 3, TELEPORTER, retry, &[]);
    assert!(
        block.receipts[0].success,
        "{:?}",
        block.traces[0].revert_reason
    );
    assert_eq!(
        events::<MessageExecuted>(&block)[0].messageID,
        second.messageID
    );
    assert_eq!(read(&l1, inbox, receivedCall {}), U256::from(2));
    assert_eq!(
        read(
            &l1,
            TELEPORTER,
            receivedFailedMessageHashesCall {
                messageID: second.messageID
            }
        ),
        B256::ZERO
    );

    // 3. The second's receipt rides on the next message; once it is delivered, the relayer's
    // reward address holds both fees and redeems them.
    assert_eq!(
        read(
            &l1,
            TELEPORTER,
            getReceiptQueueSizeCall {
                sourceBlockchainID: here
            }
        ),
        U256::from(1)
    );
    let (third, signed) = send(&l1, inbox, b"with receipts", (Address::ZERO, 0));
    let nonces: Vec<_> = third
        .message
        .receipts
        .iter()
        .map(|r| r.receivedMessageNonce)
        .collect();
    assert_eq!(nonces, [U256::from(2)]);
    let block = deliver(&l1, &signed);
    let receipts = events::<ReceiptReceived>(&block);
    assert_eq!(
        receipts.iter().map(|r| r.messageID).collect::<Vec<_>>(),
        [second.messageID]
    );
    let relayer = address_of(&l1, 2);
    assert_eq!(
        read(
            &l1,
            TELEPORTER,
            checkRelayerRewardAmountCall {
                relayer,
                feeAsset: token
            }
        ),
        U256::from(500)
    );
    assert!(
        run(
            &l1,
            2,
            TELEPORTER,
            redeemRelayerRewardsCall { feeAsset: token }.abi_encode(),
            &[]
        )
        .receipts[0]
            .success
    );
    assert_eq!(
        read(&l1, token, balanceOfCall { owner: relayer }),
        U256::from(500)
    );

    // A relayer not on the message's list is refused.
    let (_, signed) = send(&l1, inbox, b"for relayer 1 only", (Address::ZERO, 0));
    let input = receiveCrossChainMessageCall {
        messageIndex: 0,
        relayerRewardAddress: relayer,
    }
    .abi_encode();
    let block = run(&l1, 3, TELEPORTER, input, &[signed]);
    assert_eq!(
        block.traces[0].revert_reason.as_deref(),
        Some("TeleporterMessenger: unauthorized relayer")
    );
}

/// Submits a tx on `chain` from funded key `from` and builds its block.
fn run_on(
    l1: &L1,
    chain: &EvmChain,
    from: usize,
    to: TxKind,
    input: Vec<u8>,
    predicates: &[Vec<u8>],
) -> Arc<Block> {
    let raw = signed_tx_on(l1, chain, from, to, input, predicate_list(predicates));
    chain.submit_raw_tx(&raw).unwrap();
    chain.build_block().unwrap().expect("a block with the tx")
}

/// Sends `payload` from funded key 0 on `from` to `inbox` on the chain `to`; the sent event and
/// the unsigned Warp message.
fn send_between(
    l1: &L1,
    from: &EvmChain,
    to: B256,
    inbox: Address,
    payload: &[u8],
) -> (SendCrossChainMessage, UnsignedMessage) {
    let input = sendCrossChainMessageCall {
        messageInput: TeleporterMessageInput {
            destinationBlockchainID: to,
            destinationAddress: inbox,
            feeInfo: TeleporterFeeInfo {
                feeTokenAddress: Address::ZERO,
                amount: U256::ZERO,
            },
            requiredGasLimit: U256::from(100_000),
            allowedRelayerAddresses: Vec::new(),
            message: Bytes::copy_from_slice(payload),
        },
    }
    .abi_encode();
    let block = run_on(l1, from, 0, TxKind::Call(TELEPORTER), input, &[]);
    assert!(
        block.receipts[0].success,
        "{:?}",
        block.traces[0].revert_reason
    );
    let warp = sent_messages(&block);
    (
        events::<SendCrossChainMessage>(&block).remove(0),
        UnsignedMessage::from_bytes(&warp[0].1).unwrap(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_c_chain_and_an_l1_message_each_other_through_teleporter() {
    let l1 = l1().await;
    let c = l1.node.evm().unwrap().c_chain.clone();
    let (c_id, l1_id) = (c.blockchain_id(), l1.evm.blockchain_id());
    // The C-Chain has Warp and the messenger from its genesis, as the L1 does.
    assert_eq!(
        c.code(&TELEPORTER).to_vec(),
        artifact("FirnTeleporterMessenger", "deployedBytecode")
    );
    let inbox_init = |_: ()| {
        let mut init = artifact("FirnTeleporterInbox", "bytecode");
        init.extend(TELEPORTER.abi_encode());
        init
    };
    let l1_inbox = deploy(&l1, 0, inbox_init(()));
    let block = run_on(&l1, &c, 0, TxKind::Create, inbox_init(()), &[]);
    let c_inbox = block.receipts[0].contract_address.unwrap();
    let deliver_on = |chain: &EvmChain, signed: Vec<u8>| {
        let input = receiveCrossChainMessageCall {
            messageIndex: 0,
            relayerRewardAddress: address_of(&l1, 2),
        }
        .abi_encode();
        run_on(&l1, chain, 1, TxKind::Call(TELEPORTER), input, &[signed])
    };

    // C-Chain → L1: the L1 requires the primary network's signatures for the C-Chain's
    // messages; its own validators' are refused.
    let (to_l1, unsigned) = send_between(&l1, &c, l1_id, l1_inbox, b"from the C-Chain");
    let refused = deliver_on(&l1.evm, signed_by_l1(&l1, &unsigned, &[0, 1, 2]).bytes());
    assert_eq!(
        refused.traces[0].revert_reason.as_deref(),
        Some("TeleporterMessenger: invalid warp message")
    );
    let block = deliver_on(&l1.evm, signed_by_primary(&l1, &unsigned).bytes());
    assert!(
        block.receipts[0].success,
        "{:?}",
        block.traces[0].revert_reason
    );
    let got = events::<ReceiveCrossChainMessage>(&block).remove(0);
    assert_eq!(
        (got.messageID, got.sourceBlockchainID),
        (to_l1.messageID, c_id)
    );
    assert_eq!(events::<MessageExecuted>(&block).len(), 1);
    assert_eq!(read(&l1, l1_inbox, receivedCall {}), U256::from(1));

    // L1 → C-Chain, signed by the L1's validators; it carries the receipt of the message the
    // L1 received, which the C-Chain's messenger settles.
    let (to_c, unsigned) = send_between(&l1, &l1.evm, c_id, c_inbox, b"from the L1");
    assert_eq!(to_c.message.receipts.len(), 1);
    let block = deliver_on(&c, signed_by_l1(&l1, &unsigned, &[0, 1]).bytes());
    assert!(
        block.receipts[0].success,
        "{:?}",
        block.traces[0].revert_reason
    );
    assert_eq!(
        events::<MessageExecuted>(&block)[0].sourceBlockchainID,
        l1_id
    );
    let receipts = events::<ReceiptReceived>(&block);
    assert_eq!(
        receipts.iter().map(|r| r.messageID).collect::<Vec<_>>(),
        [to_l1.messageID]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_nodes_relayer_delivers_both_ways_and_its_receipts_come_back() {
    let l1 = l1_with(firn_node::NodeConfig::test().with_relayer()).await;
    assert!(l1.node.relaying());
    let c = l1.node.evm().unwrap().c_chain.clone();
    let (c_id, l1_id) = (c.blockchain_id(), l1.evm.blockchain_id());
    let (l1_inbox, c_inbox) = inboxes(&l1, &c);
    let settle = |what: &str, done: &dyn Fn() -> bool| settle(&l1, &c, what, done);

    let (to_l1, _) = send_between(&l1, &c, l1_id, l1_inbox, b"relayed to the L1");
    settle("C-Chain to L1", &|| {
        read(&l1, l1_inbox, receivedCall {}) == U256::from(1)
    });
    assert!(read(
        &l1,
        TELEPORTER,
        messageReceivedCall {
            messageID: to_l1.messageID
        }
    ));
    let (to_c, _) = send_between(&l1, &l1.evm, c_id, c_inbox, b"relayed to the C-Chain");
    // The L1's message carries the receipt of the one it received.
    assert_eq!(to_c.message.receipts.len(), 1);
    settle("L1 to C-Chain", &|| {
        read_on(&c, c_inbox, receivedCall {}) == U256::from(1)
    });
    // The receipt came back with it: the C-Chain forgot the message it sent, as delivered.
    assert_eq!(
        read_on(
            &c,
            TELEPORTER,
            getMessageHashCall {
                messageID: to_l1.messageID
            }
        ),
        B256::ZERO
    );
    // The relayer named itself for the rewards.
    let relayer = Address::from(l1.pchain.config().relayer_key().public_key().eth_address());
    let delivered = read(
        &l1,
        TELEPORTER,
        getRelayerRewardAddressCall {
            messageID: to_l1.messageID,
        },
    );
    assert_eq!(delivered, relayer);
}

/// A closable inbox on the L1 (from funded key 0) and one on the C-Chain (from key 1: the same
/// deployer and nonce would give both one address).
fn inboxes(l1: &L1, c: &EvmChain) -> (Address, Address) {
    let inbox_init = || {
        let mut init = artifact("FirnTeleporterInbox", "bytecode");
        init.extend(TELEPORTER.abi_encode());
        init
    };
    let l1_inbox = deploy(l1, 0, inbox_init());
    let c_inbox = run_on(l1, c, 1, TxKind::Create, inbox_init(), &[]).receipts[0]
        .contract_address
        .unwrap();
    assert_ne!(c_inbox, l1_inbox);
    (l1_inbox, c_inbox)
}

/// Blocks are built by hand in these tests: builds both chains until `done` holds (10 s at
/// most), for the relayer's deliveries to land.
fn settle(l1: &L1, c: &EvmChain, what: &str, done: &dyn Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !done() {
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: not relayed in 10 s"
        );
        c.build_block().unwrap();
        l1.evm.build_block().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The txs of `chain`'s blocks whose messenger logged an event of type `E` for `id`: (hash,
/// block), oldest first.
fn txs_with<E: SolEvent>(chain: &EvmChain, id: B256, message_id: fn(&E) -> B256) -> Vec<B256> {
    let mut out = Vec::new();
    for n in 1..=chain.height() {
        let block = chain.block_by_number(n).unwrap();
        for (tx, receipt) in block.txs.iter().zip(&block.receipts) {
            let hit = receipt.logs.iter().any(|log| {
                log.address == TELEPORTER
                    && log.data.topics().first() == Some(&E::SIGNATURE_HASH)
                    && message_id(&E::decode_log_data(&log.data).unwrap()) == id
            });
            if hit {
                out.push(tx.hash);
            }
        }
    }
    out
}

/// `firn index --once` of the node at `url` into `db`.
async fn index_once(url: &str, db: &std::path::Path) {
    let (url, db) = (url.to_owned(), db.to_owned());
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_firn"))
            .args(["index", "--once", "--rpc", &url, "--database"])
            .arg(&db)
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "firn index --once failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn get_ok(url: &str, path: &str) -> serde_json::Value {
    let (status, body) = crate::data_api::get(url, path);
    assert!(status.contains(" 200 "), "{path}: {status} {body}");
    body
}

/// `path`'s body once `ready` holds of it: `firn serve` sees another process's commits at its
/// next read of the store's generation, and serves its cached pages until then.
fn get_when(
    url: &str,
    path: &str,
    ready: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let body = get_ok(url, path);
        if ready(&body) {
            return body;
        }
        assert!(std::time::Instant::now() < deadline, "{path}: still {body}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn icm_messages_are_indexed_from_both_chains_and_served_with_their_status() {
    let l1 = l1_with(firn_node::NodeConfig::test().with_relayer()).await;
    let c = l1.node.evm().unwrap().c_chain.clone();
    let (c_id, l1_id) = (c.blockchain_id(), l1.evm.blockchain_id());
    let (l1_inbox, c_inbox) = inboxes(&l1, &c);
    let settle = |what: &str, done: &dyn Fn() -> bool| settle(&l1, &c, what, done);
    let is_received = |id: B256| read(&l1, TELEPORTER, messageReceivedCall { messageID: id });

    // 1. C-Chain → L1 into a closed inbox: delivered, its execution fails.
    let closed = run(
        &l1,
        0,
        l1_inbox,
        setClosedCall { closed: true }.abi_encode(),
        &[],
    );
    assert!(closed.receipts[0].success);
    let (failing, _) = send_between(&l1, &c, l1_id, l1_inbox, b"fails first");
    // The ID the indexer keys it by follows the messenger's rule.
    assert_eq!(
        firn_core::teleporter::message_id(
            TELEPORTER,
            firn_core::ids::Id(c_id.0),
            firn_core::ids::Id(l1_id.0),
            failing.message.messageNonce,
        )
        .0,
        failing.messageID.0
    );
    settle("the failing message", &|| is_received(failing.messageID));
    let tmp = crate::devnet::temp_dir("icm-index");
    let db = tmp.path().join("store.db");
    index_once(l1.node.url(), &db).await;
    let served = crate::data_api::serve(&db, &[]);
    let api = served.url.clone();
    let hex_id = |id: B256| hex::encode(id.0);
    let failing_path = format!("/v1/icm/messages/{}", hex_id(failing.messageID));
    let m = get_ok(&api, &failing_path);
    assert_eq!(m["status"], "delivered");
    assert_eq!(m["messageExecuted"], false, "{m}");

    // 2. Retried once the inbox opens; then L1 → C-Chain, carrying the first one's receipt,
    // and a third message that stays pending (the L1 builds no more blocks).
    let open = run(
        &l1,
        0,
        l1_inbox,
        setClosedCall { closed: false }.abi_encode(),
        &[],
    );
    assert!(open.receipts[0].success);
    let retry = retryMessageExecutionCall {
        sourceBlockchainID: c_id,
        message: failing.message.clone(),
    };
    let retried = run(&l1, 3, TELEPORTER, retry.abi_encode(), &[]);
    assert!(
        retried.receipts[0].success,
        "{:?}",
        retried.traces[0].revert_reason
    );
    let (back, _) = send_between(&l1, &l1.evm, c_id, c_inbox, b"and back");
    settle("the reply", &|| {
        read_on(&c, c_inbox, receivedCall {}) == U256::from(1)
    });
    let (pending, _) = send_between(&l1, &c, l1_id, l1_inbox, b"not yet");
    index_once(l1.node.url(), &db).await;

    // Both sides of each message, as the chains logged them.
    let sender = address_of(&l1, 0);
    let relayer = Address::from(l1.pchain.config().relayer_key().public_key().eth_address());
    let sent_on =
        |chain: &EvmChain, id| txs_with::<SendCrossChainMessage>(chain, id, |e| e.messageID)[0];
    let received_on =
        |chain: &EvmChain, id| txs_with::<ReceiveCrossChainMessage>(chain, id, |e| e.messageID)[0];
    let m = get_when(&api, &failing_path, |m| m["messageExecuted"] == true);
    assert_eq!(m["status"], "delivered");
    assert_eq!(
        m["receiptDelivered"], true,
        "the reply carried its receipt: {m}"
    );
    assert_eq!(
        m["sourceBlockchainId"],
        firn_core::ids::Id(c_id.0).to_string()
    );
    assert_eq!(
        m["destinationBlockchainId"],
        firn_core::ids::Id(l1_id.0).to_string()
    );
    assert_eq!(m["sourceEvmChainId"], c.chain_id().to_string());
    assert_eq!(m["destinationEvmChainId"], l1.evm.chain_id().to_string());
    assert_eq!(m["messageNonce"], failing.message.messageNonce.to_string());
    assert_eq!(m["from"], sender.to_string());
    assert_eq!(m["to"], l1_inbox.to_string());
    assert_eq!(m["data"], format!("0x{}", hex::encode(b"fails first")));
    assert_eq!(m["icmContractAddress"], TELEPORTER.to_string());
    assert_eq!(
        m["sourceTransaction"]["txHash"],
        sent_on(&c, failing.messageID).to_string()
    );
    assert_eq!(
        m["destinationTransaction"]["txHash"],
        received_on(&l1.evm, failing.messageID).to_string()
    );
    assert_eq!(
        m["destinationTransaction"]["delivererAddress"],
        relayer.to_string()
    );
    assert_eq!(
        m["destinationTransaction"]["rewardRedeemer"],
        relayer.to_string()
    );
    assert_eq!(m["rewardDetails"]["value"], "0");
    let m = get_ok(
        &api,
        &format!("/v1/icm/messages/0x{}", hex_id(pending.messageID)),
    );
    assert_eq!(m["status"], "pending");
    assert!(m.get("destinationTransaction").is_none(), "{m}");
    let m = get_ok(
        &api,
        &format!("/v1/icm/messages/{}", hex_id(back.messageID)),
    );
    assert_eq!(
        (m["status"].as_str(), m["messageExecuted"].as_bool()),
        (Some("delivered"), Some(true))
    );
    assert_eq!(
        m["receipts"][0]["receivedMessageNonce"],
        failing.message.messageNonce.to_string()
    );
    assert_eq!(
        m["receipts"][0]["relayerRewardAddress"],
        relayer.to_string()
    );
    let (status, _) = crate::data_api::get(&api, &format!("/v1/icm/messages/{}", "ab".repeat(32)));
    assert!(status.contains(" 404 "), "{status}");
    let (status, _) = crate::data_api::get(&api, "/v1/icm/messages/not-an-id");
    assert!(status.contains(" 400 "), "{status}");

    // Lists and their filters.
    let ids = |path: &str| -> Vec<String> {
        let body = get_ok(&api, path);
        body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["messageId"].as_str().unwrap().to_owned())
            .collect()
    };
    let set = |list: &[B256]| -> std::collections::BTreeSet<String> {
        list.iter().map(|id| hex_id(*id)).collect()
    };
    let as_set = |v: Vec<String>| v.into_iter().collect::<std::collections::BTreeSet<_>>();
    let all = [failing.messageID, back.messageID, pending.messageID];
    assert_eq!(as_set(ids("/v1/icm/messages")), set(&all));
    let c_evm = c.chain_id();
    assert_eq!(
        as_set(ids(&format!("/v1/icm/messages?sourceBlockchainId={c_evm}"))),
        set(&[failing.messageID, pending.messageID])
    );
    let c_cb58 = firn_core::ids::Id(c_id.0).to_string();
    assert_eq!(
        ids(&format!(
            "/v1/icm/messages?destinationBlockchainId={c_cb58}"
        )),
        vec![hex_id(back.messageID)]
    );
    let l1_cb58 = firn_core::ids::Id(l1_id.0).to_string();
    assert_eq!(
        as_set(ids(&format!("/v1/icm/messages?blockchainId={l1_cb58}"))),
        set(&all)
    );
    assert_eq!(
        ids(&format!("/v1/icm/messages?to={c_inbox}&from={sender}")),
        vec![hex_id(back.messageID)]
    );
    assert_eq!(
        ids("/v1/icm/messages?sourceBlockchainId=999999"),
        Vec::<String>::new()
    );
    assert_eq!(
        ids("/v1/icm/messages?network=mainnet"),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(&format!("/v1/icm/addresses/{c_inbox}/messages")),
        vec![hex_id(back.messageID)]
    );
    // Pages of one walk the same list.
    let mut walked = Vec::new();
    let mut path = "/v1/icm/messages?pageSize=1".to_owned();
    loop {
        let body = get_ok(&api, &path);
        walked.extend(
            body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["messageId"].as_str().unwrap().to_owned()),
        );
        match body["nextPageToken"].as_str() {
            Some(token) => path = format!("/v1/icm/messages?pageSize=1&pageToken={token}"),
            None => break,
        }
    }
    assert_eq!(walked, ids("/v1/icm/messages"));
    let (status, _) = crate::data_api::get(&api, "/v1/icm/messages?from=0x12");
    assert!(status.contains(" 400 "), "{status}");

    // The transactions name their message.
    let tx = get_ok(
        &api,
        &format!(
            "/v1/chains/{c_evm}/transactions/{}",
            sent_on(&c, failing.messageID)
        ),
    );
    let info = &tx["teleporterMessageInfo"];
    assert_eq!(info["teleporterMessageId"], hex_id(failing.messageID));
    assert_eq!(info["direction"], "SOURCE_TRANSACTION");
    assert_eq!(info["destinationChainId"], l1.evm.chain_id().to_string());
    let tx = get_ok(
        &api,
        &format!(
            "/v1/chains/{c_evm}/transactions/{}",
            received_on(&c, back.messageID)
        ),
    );
    let info = &tx["teleporterMessageInfo"];
    assert_eq!(info["direction"], "DESTINATION_TRANSACTION");
    assert_eq!(info["sourceChainId"], l1.evm.chain_id().to_string());

    // The Metrics API counts them.
    let metrics = served.metrics_url.clone();
    let summary = get_ok(&metrics, "/v2/icm/summary");
    assert_eq!(summary["result"]["allTime"], 3.0, "{summary}");
    assert_eq!(summary["result"]["srcBlockchainId"], "all");
    let from_c = get_ok(
        &metrics,
        &format!("/v2/icm/summary?srcBlockchainId={c_cb58}"),
    );
    assert_eq!(from_c["result"]["allTime"], 2.0, "{from_c}");
    let series = get_ok(
        &metrics,
        "/v2/icm/timeseries?timeInterval=hour&groupBy=srcBlockchainId",
    );
    let mut by_source = std::collections::BTreeMap::<String, f64>::new();
    for p in series["results"].as_array().unwrap() {
        *by_source
            .entry(p["srcBlockchainId"].as_str().unwrap().to_owned())
            .or_default() += p["value"].as_f64().unwrap();
        assert_eq!(p["destBlockchainId"], "all");
    }
    assert_eq!(
        by_source,
        std::collections::BTreeMap::from([(c_cb58.clone(), 2.0), (l1_cb58.clone(), 1.0)])
    );
    let (status, _) = crate::data_api::get(&metrics, "/v2/icm/timeseries?groupBy=nonsense");
    assert!(status.contains(" 400 "), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_relayer_resumes_where_it_stopped_and_relays_what_was_sent_meanwhile() {
    let dir = crate::devnet::temp_dir("relayer-restart");
    let config = || firn_node::NodeConfig::test().with_data_dir(dir.path());
    let l1 = l1_with(config().with_relayer()).await;
    let l1_id = firn_core::ids::Id(l1.evm.blockchain_id().0);
    let c = l1.node.evm().unwrap().c_chain.clone();
    let (l1_inbox, _) = inboxes(&l1, &c);
    let cursor = dir.path().join(firn_node::relayer::CURSOR_FILE);
    settle(&l1, &c, "the relayer's cursor", &|| cursor.exists());
    drop(c);
    let L1 { node, pchain, .. } = l1;
    node.shutdown().await;

    // The node again, relaying nothing: a message to the L1 is sent and accepted.
    let node_of = |relay: bool| {
        let config = config()
            .with_evm()
            .with_signers(firn_node::config::SignerKeys::Genesis);
        firn_node::spawn(if relay { config.with_relayer() } else { config })
    };
    let quiet = node_of(false).await.unwrap();
    let c = quiet.evm().unwrap().c_chain.clone();
    let key = &pchain.funded_keys()[0];
    let input = sendCrossChainMessageCall {
        messageInput: TeleporterMessageInput {
            destinationBlockchainID: B256::new(l1_id.0),
            destinationAddress: l1_inbox,
            feeInfo: TeleporterFeeInfo {
                feeTokenAddress: Address::ZERO,
                amount: U256::ZERO,
            },
            requiredGasLimit: U256::from(100_000),
            allowedRelayerAddresses: Vec::new(),
            message: Bytes::from_static(b"sent while no relayer ran"),
        },
    }
    .abi_encode();
    let sender = Address::from(key.public_key().eth_address());
    let raw = firn_node::testing::signed_eip1559(
        &c,
        key,
        c.nonce(&sender),
        2_000_000,
        TxKind::Call(TELEPORTER),
        input,
        Default::default(),
    );
    c.submit_raw_tx(&raw).unwrap();
    let block = c.build_block().unwrap().unwrap();
    assert!(block.receipts[0].success);
    drop(c);
    quiet.shutdown().await;

    // With the relayer back, it reads from where it stopped and delivers the message.
    let node = node_of(true).await.unwrap();
    let evm = node.evm().unwrap();
    let (c, l1_chain) = (evm.c_chain.clone(), evm.chain(&l1_id).unwrap());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while read_on(&l1_chain, l1_inbox, receivedCall {}) != U256::from(1) {
        assert!(
            std::time::Instant::now() < deadline,
            "the message sent meanwhile was not relayed in 10 s"
        );
        c.build_block().unwrap();
        l1_chain.build_block().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop((c, l1_chain));
    node.shutdown().await;
}

/// `firn relay` between `l1`'s C-Chain and L1 over its node's RPC, paying with `key`, signing
/// as `signing` says, keeping its cursor in `dir`; running once it says "Relaying".
fn firn_relay(
    l1: &L1,
    key: &firn_core::keys::secp256k1::PrivateKey,
    dir: &tempfile::TempDir,
    signing: &[&str],
) -> crate::devnet::Running {
    use std::io::BufRead;

    let l1_url = l1.node.url_of(&format!(
        "/ext/bc/{}/rpc",
        firn_core::ids::Id(l1.evm.blockchain_id().0)
    ));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_firn"))
        .args([
            "relay",
            "--chain",
            &l1.node.url_of("/ext/bc/C/rpc"),
            "--chain",
        ])
        .arg(&l1_url)
        .args(signing)
        .arg("--cursor")
        .arg(dir.path().join("relayer.json"))
        .env(
            "FIRN_RELAYER_KEY",
            format!("0x{}", hex::encode(key.to_bytes())),
        )
        .env("FIRN_LOG", "firn_node::relayer=debug")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut banner = Vec::new();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line == "Relaying" {
            break;
        }
        banner.push(line);
    }
    assert!(
        banner.iter().any(|l| l.contains("EVM chain ID 99999")),
        "{banner:?}"
    );
    // Killed if the test fails on the way.
    crate::devnet::Running {
        child,
        url: String::new(),
        banner,
    }
}

/// `firn relay` relays between chains it reaches only through their nodes' RPC: here a node that
/// relays nothing itself. It reads both chains' logs, has the node's validators sign through
/// firn's aggregator, and delivers with `eth_sendRawTransaction`, both ways.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firn_relay_delivers_between_chains_it_reaches_over_rpc() {
    let l1 = l1().await;
    assert!(!l1.node.relaying());
    let c = l1.node.evm().unwrap().c_chain.clone();
    let (c_id, l1_id) = (c.blockchain_id(), l1.evm.blockchain_id());
    let (l1_inbox, c_inbox) = inboxes(&l1, &c);
    let dir = crate::devnet::temp_dir("firn-relay");
    let key = &l1.pchain.funded_keys()[5];
    let relayer_address = Address::from(key.public_key().eth_address());
    let relay = firn_relay(&l1, key, &dir, &["--node", l1.node.url()]);
    let settle = |what: &str, done: &dyn Fn() -> bool| settle(&l1, &c, what, done);

    let (to_l1, _) = send_between(&l1, &c, l1_id, l1_inbox, b"relayed by firn relay");
    settle("C-Chain to L1", &|| {
        read(&l1, l1_inbox, receivedCall {}) == U256::from(1)
    });
    let (to_c, _) = send_between(&l1, &l1.evm, c_id, c_inbox, b"and back");
    settle("L1 to C-Chain", &|| {
        read_on(&c, c_inbox, receivedCall {}) == U256::from(1)
    });
    // The relayer's key delivered both and is named for their rewards.
    for (chain, id) in [(&l1.evm, to_l1.messageID), (&c, to_c.messageID)] {
        let reward = read_on(
            chain,
            TELEPORTER,
            getRelayerRewardAddressCall { messageID: id },
        );
        assert_eq!(reward, relayer_address);
    }
    // Its cursor is on disk for a restart.
    let cursor: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("relayer.json")).unwrap()).unwrap();
    assert_eq!(cursor.as_object().unwrap().len(), 2, "{cursor}");

    crate::devnet::stop(relay);
}

/// `firn relay --aggregator` has a Data API sign (as it would against AvalancheGo nodes, which
/// answer signature requests only over p2p): here firn's own, over the node's validators.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn firn_relay_signs_through_a_data_api() {
    let l1 = l1().await;
    let c = l1.node.evm().unwrap().c_chain.clone();
    let l1_id = l1.evm.blockchain_id();
    let (l1_inbox, _) = inboxes(&l1, &c);
    let (api, _stop_api) = crate::aggregator_evm::serve(&l1).await;
    let dir = crate::devnet::temp_dir("firn-relay-api");
    let key = &l1.pchain.funded_keys()[6];
    let api = format!("http://{api}");
    let relay = firn_relay(&l1, key, &dir, &["--aggregator", &api]);
    assert!(
        relay.banner.iter().any(|l| l.contains("the Data API at")),
        "{:?}",
        relay.banner
    );

    let (to_l1, _) = send_between(&l1, &c, l1_id, l1_inbox, b"signed by a Data API");
    settle(&l1, &c, "C-Chain to L1", &|| {
        read(&l1, l1_inbox, receivedCall {}) == U256::from(1)
    });
    let reward = read(
        &l1,
        TELEPORTER,
        getRelayerRewardAddressCall {
            messageID: to_l1.messageID,
        },
    );
    assert_eq!(reward, Address::from(key.public_key().eth_address()));
    crate::devnet::stop(relay);
}
