//! subnet-EVM's stateful precompiles, called through their real ABIs (subnet-evm's
//! `IAllowList`, `INativeMinter`, `IFeeManager`, `IRewardManager`, `IWarpMessenger`) by signed
//! transactions and `eth_call`s on a chain whose genesis enables them.

use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use alloy_sol_types::{SolCall, SolEvent, sol};
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::AddressedCall;
use firn_evm::{BLACKHOLE, CallRequest, EvmChain, TxReceipt};

use crate::common::*;

sol! {
    interface IAllowList {
        event RoleSet(uint256 indexed role, address indexed account, address indexed sender, uint256 oldRole);
        function setAdmin(address addr) external;
        function setEnabled(address addr) external;
        function setManager(address addr) external;
        function setNone(address addr) external;
        function readAllowList(address addr) external view returns (uint256 role);
    }

    interface INativeMinter {
        event NativeCoinMinted(address indexed sender, address indexed recipient, uint256 amount);
        function mintNativeCoin(address addr, uint256 amount) external;
    }

    interface IFeeManager {
        function setFeeConfig(uint256 gasLimit, uint256 targetBlockRate, uint256 minBaseFee, uint256 targetGas, uint256 baseFeeChangeDenominator, uint256 minBlockGasCost, uint256 maxBlockGasCost, uint256 blockGasCostStep) external;
        function getFeeConfig() external view returns (uint256 gasLimit, uint256 targetBlockRate, uint256 minBaseFee, uint256 targetGas, uint256 baseFeeChangeDenominator, uint256 minBlockGasCost, uint256 maxBlockGasCost, uint256 blockGasCostStep);
        function getFeeConfigLastChangedAt() external view returns (uint256 blockNumber);
    }

    interface IRewardManager {
        function allowFeeRecipients() external;
        function areFeeRecipientsAllowed() external view returns (bool isAllowed);
        function currentRewardAddress() external view returns (address rewardAddress);
    }

    interface IWarpMessenger {
        event SendWarpMessage(address indexed sender, bytes32 indexed messageID, bytes message);
        function sendWarpMessage(bytes calldata payload) external returns (bytes32 messageID);
        function getBlockchainID() external view returns (bytes32 blockchainID);
    }
}

const DEPLOYER_ALLOW_LIST: Address = precompile(0);
const NATIVE_MINTER: Address = precompile(1);
const TX_ALLOW_LIST: Address = precompile(2);
const FEE_MANAGER: Address = precompile(3);
const REWARD_MANAGER: Address = precompile(4);
const WARP: Address = precompile(5);
const BLOCKCHAIN_ID: B256 = B256::repeat_byte(0xcc);

const fn precompile(last: u8) -> Address {
    let mut a = [0u8; 20];
    a[0] = 2;
    a[19] = last;
    Address::new(a)
}

/// A subnet-EVM chain from [`subnet_genesis`], in memory, and its clock.
fn subnet_chain(precompiles: &[&str]) -> (EvmChain, TestClock) {
    let clock = TestClock::at(GENESIS_TIME + 10);
    (open(subnet_genesis(precompiles), None, &clock), clock)
}

/// Sends `input` to `to` from key `from` (next nonce), builds the block, returns the receipt.
fn send(
    chain: &EvmChain,
    clock: &TestClock,
    from: u8,
    to: Option<Address>,
    input: Vec<u8>,
) -> TxReceipt {
    let k = key(from);
    let nonce = chain.nonce(&k.address());
    let hash = chain
        .submit_raw_tx(&tx1559(
            &k,
            nonce,
            to,
            U256::ZERO,
            Bytes::from(input),
            3_000_000,
        ))
        .unwrap();
    clock.advance(2);
    chain.build_block().unwrap().unwrap();
    let (block, i) = chain.mined(&hash).unwrap();
    block.receipts[i].clone()
}

fn call(chain: &EvmChain, to: Address, input: Vec<u8>) -> Bytes {
    chain
        .call(&CallRequest {
            from: Some(key(0).address()),
            to: Some(to),
            input: Some(Bytes::from(input)),
            ..Default::default()
        })
        .unwrap()
}

fn role(chain: &EvmChain, list: Address, who: Address) -> U256 {
    let out = call(
        chain,
        list,
        IAllowList::readAllowListCall { addr: who }.abi_encode(),
    );
    IAllowList::readAllowListCall::abi_decode_returns(&out).unwrap()
}

#[test]
fn tx_allow_list_refuses_then_admits_after_set_enabled() {
    let (chain, clock) = subnet_chain(&["txAllowListConfig"]);
    let outsider = key(1);
    assert_eq!(role(&chain, TX_ALLOW_LIST, key(0).address()), U256::from(2));
    assert_eq!(role(&chain, TX_ALLOW_LIST, outsider.address()), U256::ZERO);

    let refused = chain
        .submit_raw_tx(&transfer(&outsider, 0, key(2).address(), U256::from(1)))
        .unwrap_err()
        .to_string();
    assert_eq!(
        refused,
        format!(
            "cannot issue transaction from non-allow listed address: {}",
            outsider.address()
        )
    );

    let set = IAllowList::setEnabledCall {
        addr: outsider.address(),
    };
    let receipt = send(&chain, &clock, 0, Some(TX_ALLOW_LIST), set.abi_encode());
    assert!(receipt.success);
    let log = &receipt.logs[0];
    assert_eq!(log.address, TX_ALLOW_LIST);
    let event = IAllowList::RoleSet::decode_log_data(&log.data).unwrap();
    assert_eq!(event.role, U256::from(1));
    assert_eq!(event.account, outsider.address());
    assert_eq!(event.sender, key(0).address());
    assert_eq!(event.oldRole, U256::ZERO);
    assert_eq!(
        role(&chain, TX_ALLOW_LIST, outsider.address()),
        U256::from(1)
    );

    chain
        .submit_raw_tx(&transfer(&outsider, 0, key(2).address(), U256::from(1)))
        .unwrap();
    clock.advance(2);
    let block = chain.build_block().unwrap().unwrap();
    assert!(block.receipts[0].success);

    // An enabled address is no admin: its setAdmin call fails and changes nothing.
    let grab = IAllowList::setAdminCall {
        addr: outsider.address(),
    };
    let receipt = send(&chain, &clock, 1, Some(TX_ALLOW_LIST), grab.abi_encode());
    assert!(!receipt.success);
    assert_eq!(
        role(&chain, TX_ALLOW_LIST, outsider.address()),
        U256::from(1)
    );
}

/// Runtime code of a factory: `CREATE` of an empty contract, its address stored in slot 0.
const FACTORY_RUNTIME: [u8; 11] = [
    0x60, 0x00, 0x60, 0x00, 0x60, 0x00, 0xf0, 0x60, 0x00, 0x55, 0x00,
];

/// Init code returning [`FACTORY_RUNTIME`].
fn factory_init() -> Vec<u8> {
    let mut init = vec![
        0x60, 0x0b, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x0b, 0x60, 0x00, 0xf3,
    ];
    init.extend(FACTORY_RUNTIME);
    init
}

#[test]
fn deployer_allow_list_fails_creations_of_origins_without_a_role() {
    let (chain, clock) = subnet_chain(&["contractDeployerAllowListConfig"]);
    let outsider = key(1);
    let init = token_init_code("T", "T", ether(1));

    // As in subnet-evm, the creation is included and fails using all its gas; no code.
    let receipt = send(&chain, &clock, 1, None, init.to_vec());
    assert!(!receipt.success);
    assert_eq!(receipt.gas_used, 3_000_000);
    let would_be = outsider.address().create(0);
    assert!(chain.code(&would_be).is_empty());
    // eth_estimateGas says so too.
    let estimate = chain.estimate_gas(&CallRequest {
        from: Some(outsider.address()),
        input: Some(init.clone()),
        ..CallRequest::default()
    });
    assert!(estimate.is_err(), "{estimate:?}");

    // A contract deployed by the admin (key 0) creates only for an origin with a role.
    let admin_deploy = send(&chain, &clock, 0, None, factory_init());
    assert!(admin_deploy.success);
    let factory = admin_deploy.contract_address.unwrap();
    assert_eq!(chain.code(&factory).to_vec(), FACTORY_RUNTIME.to_vec());
    let inner = send(&chain, &clock, 1, Some(factory), Vec::new());
    assert!(inner.success, "the outer call succeeds; only CREATE fails");
    assert_eq!(chain.storage(&factory, U256::ZERO), U256::ZERO);
    let by_admin = send(&chain, &clock, 0, Some(factory), Vec::new());
    assert!(by_admin.success);
    assert_ne!(chain.storage(&factory, U256::ZERO), U256::ZERO);

    // Plain transfers are not affected.
    chain
        .submit_raw_tx(&transfer(
            &outsider,
            chain.nonce(&outsider.address()),
            key(2).address(),
            U256::from(1),
        ))
        .unwrap();

    // Once enabled, the outsider deploys.
    let set = IAllowList::setEnabledCall {
        addr: outsider.address(),
    };
    assert!(
        send(
            &chain,
            &clock,
            0,
            Some(DEPLOYER_ALLOW_LIST),
            set.abi_encode()
        )
        .success
    );
    let receipt = send(&chain, &clock, 1, None, init.to_vec());
    assert!(receipt.success);
    let created = receipt.contract_address.unwrap();
    assert!(!chain.code(&created).is_empty());
}

#[test]
fn native_minter_mints_for_admins_only() {
    let (chain, clock) = subnet_chain(&["contractNativeMinterConfig"]);
    let to = Address::repeat_byte(0x42);
    let mint = INativeMinter::mintNativeCoinCall {
        addr: to,
        amount: ether(5),
    };
    let receipt = send(&chain, &clock, 0, Some(NATIVE_MINTER), mint.abi_encode());
    assert!(receipt.success);
    assert_eq!(chain.balance(&to), ether(5));
    let log = &receipt.logs[0];
    assert_eq!(log.address, NATIVE_MINTER);
    assert_eq!(
        log.data.topics()[0],
        keccak256("NativeCoinMinted(address,address,uint256)")
    );
    let event = INativeMinter::NativeCoinMinted::decode_log_data(&log.data).unwrap();
    assert_eq!(
        (event.sender, event.recipient, event.amount),
        (key(0).address(), to, ether(5))
    );

    // Key 1 holds no role: the call fails, nothing is minted, no event.
    let receipt = send(&chain, &clock, 1, Some(NATIVE_MINTER), mint.abi_encode());
    assert!(!receipt.success);
    assert!(receipt.logs.is_empty());
    assert_eq!(chain.balance(&to), ether(5));
}

#[test]
fn fee_manager_reads_the_genesis_config_and_refuses_changes() {
    let (chain, clock) = subnet_chain(&["feeManagerConfig"]);
    let out = call(
        &chain,
        FEE_MANAGER,
        IFeeManager::getFeeConfigCall {}.abi_encode(),
    );
    let got = IFeeManager::getFeeConfigCall::abi_decode_returns(&out).unwrap();
    let fields = [
        got.gasLimit,
        got.targetBlockRate,
        got.minBaseFee,
        got.targetGas,
        got.baseFeeChangeDenominator,
        got.minBlockGasCost,
        got.maxBlockGasCost,
        got.blockGasCostStep,
    ];
    assert_eq!(fields, FEE_CONFIG.map(U256::from));
    let out = call(
        &chain,
        FEE_MANAGER,
        IFeeManager::getFeeConfigLastChangedAtCall {}.abi_encode(),
    );
    assert_eq!(
        IFeeManager::getFeeConfigLastChangedAtCall::abi_decode_returns(&out).unwrap(),
        U256::ZERO
    );

    // The devnet's fee config is fixed by its genesis: even the admin's setFeeConfig fails.
    let [a, b, c, d, e, f, g, h] = FEE_CONFIG.map(U256::from);
    let set = IFeeManager::setFeeConfigCall {
        gasLimit: a * U256::from(2),
        targetBlockRate: b,
        minBaseFee: c,
        targetGas: d,
        baseFeeChangeDenominator: e,
        minBlockGasCost: f,
        maxBlockGasCost: g,
        blockGasCostStep: h,
    };
    assert!(!send(&chain, &clock, 0, Some(FEE_MANAGER), set.abi_encode()).success);
    let out = call(
        &chain,
        FEE_MANAGER,
        IFeeManager::getFeeConfigCall {}.abi_encode(),
    );
    let got = IFeeManager::getFeeConfigCall::abi_decode_returns(&out).unwrap();
    assert_eq!(got.gasLimit, U256::from(FEE_CONFIG[0]));
}

#[test]
fn reward_manager_reads() {
    let (chain, _clock) = subnet_chain(&["rewardManagerConfig"]);
    let out = call(
        &chain,
        REWARD_MANAGER,
        IRewardManager::areFeeRecipientsAllowedCall {}.abi_encode(),
    );
    assert!(!IRewardManager::areFeeRecipientsAllowedCall::abi_decode_returns(&out).unwrap());
    let out = call(
        &chain,
        REWARD_MANAGER,
        IRewardManager::currentRewardAddressCall {}.abi_encode(),
    );
    assert_eq!(
        IRewardManager::currentRewardAddressCall::abi_decode_returns(&out).unwrap(),
        BLACKHOLE
    );
    assert_eq!(
        role(&chain, REWARD_MANAGER, key(0).address()),
        U256::from(2)
    );
}

#[test]
fn warp_reports_the_blockchain_id_and_keeps_sent_messages() {
    let (chain, clock) = subnet_chain(&[]);
    let out = call(
        &chain,
        WARP,
        IWarpMessenger::getBlockchainIDCall {}.abi_encode(),
    );
    assert_eq!(
        IWarpMessenger::getBlockchainIDCall::abi_decode_returns(&out).unwrap(),
        BLOCKCHAIN_ID
    );

    let payload = b"hello from the devnet L1".to_vec();
    let send_call = IWarpMessenger::sendWarpMessageCall {
        payload: Bytes::from(payload.clone()),
    };
    let receipt = send(&chain, &clock, 0, Some(WARP), send_call.abi_encode());
    assert!(receipt.success);
    let log = &receipt.logs[0];
    assert_eq!(log.address, WARP);
    assert_eq!(
        log.data.topics()[0],
        alloy_primitives::b256!("56600c567728a800c0aa927500f831cb451df66a7af570eb4df4dfbf4674887d")
    );
    let event = IWarpMessenger::SendWarpMessage::decode_log_data(&log.data).unwrap();
    assert_eq!(event.sender, key(0).address());

    // The message in the log is the one kept for signing, and it decodes with firn-core.
    let kept = chain.warp_message(&event.messageID).unwrap();
    assert_eq!(kept, event.message);
    let message = UnsignedMessage::from_bytes(&kept).unwrap();
    assert_eq!(message.network_id, 5);
    assert_eq!(message.source_chain_id.as_bytes(), &BLOCKCHAIN_ID.0);
    assert_eq!(B256::from(*message.id().as_bytes()), event.messageID);
    let addressed = AddressedCall::from_bytes(&message.payload).unwrap();
    assert_eq!(addressed.source_address, key(0).address().to_vec());
    assert_eq!(addressed.payload, payload);
}
