//! Fixtures shared by benches and tests (feature `testing`): a funded key, EIP-1559 signing,
//! a chain with room for big blocks, and the repo's ERC-20 (`contracts/src/FirnToken.sol`)
//! deployed on it. Not for production use: it panics on failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;

use crate::{EvmChain, EvmChainConfig, EvmGenesis};

/// The chain ID fixtures sign for (Fuji's C-Chain).
pub const CHAIN_ID: u64 = 43113;

const FIRN_TOKEN: &str = include_str!("../../../contracts/artifacts/FirnToken.json");

/// A deterministic key (`i` + 1 repeated), funded by [`chain`].
pub fn key(i: u8) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&B256::repeat_byte(i + 1)).expect("a valid key")
}

/// An EIP-1559 tx signed by `k` for [`CHAIN_ID`], paying up to 1,000 gwei with a 1 wei tip.
pub fn sign(
    k: &PrivateKeySigner,
    nonce: u64,
    to: Option<Address>,
    value: U256,
    input: Bytes,
    gas: u64,
) -> Bytes {
    let tx = TxEip1559 {
        chain_id: CHAIN_ID,
        nonce,
        gas_limit: gas,
        max_fee_per_gas: 1_000_000_000_000,
        max_priority_fee_per_gas: 1,
        to: to.map_or(TxKind::Create, TxKind::Call),
        value,
        access_list: Default::default(),
        input,
    };
    let sig = k.sign_hash_sync(&tx.signature_hash()).expect("signing");
    let env: TxEnvelope = tx.into_signed(sig).into();
    Bytes::from(env.encoded_2718())
}

/// `count` signed transfers of `value` wei from `k` to `to`, nonces from `first_nonce`.
pub fn plain_transfers(
    k: &PrivateKeySigner,
    to: Address,
    value: U256,
    first_nonce: u64,
    count: u64,
) -> Vec<Bytes> {
    (first_nonce..first_nonce + count)
        .map(|nonce| sign(k, nonce, Some(to), value, Bytes::new(), 21_000))
        .collect()
}

/// `count` signed transfers of one unit of the ERC-20 `token` from `k`, nonces from
/// `first_nonce`, each to a new recipient (the nonce as an address), so every transfer writes
/// a fresh storage slot.
pub fn erc20_transfers(
    k: &PrivateKeySigner,
    token: Address,
    first_nonce: u64,
    count: u64,
) -> Vec<Bytes> {
    (first_nonce..first_nonce + count)
        .map(|nonce| {
            let to = Address::from_word(B256::from(U256::from(nonce)));
            let data = transfer_data(to, U256::from(1));
            sign(k, nonce, Some(token), U256::ZERO, data, 60_000)
        })
        .collect()
}

/// FirnToken's creation code with constructor arguments `(name, symbol, 18, supply)`.
pub fn token_init_code(name: &str, symbol: &str, supply: U256) -> Bytes {
    let artifact: serde_json::Value = serde_json::from_str(FIRN_TOKEN).expect("artifact JSON");
    let hex = artifact["bytecode"].as_str().expect("bytecode");
    let mut code = alloy_primitives::hex::decode(hex).expect("bytecode hex");
    let word = |n: usize| U256::from(n).to_be_bytes::<32>();
    let tail = |s: &str| {
        let mut t = word(s.len()).to_vec();
        let mut b = s.as_bytes().to_vec();
        b.resize(s.len().div_ceil(32) * 32, 0);
        t.extend(b);
        t
    };
    let (name, symbol) = (tail(name), tail(symbol));
    code.extend(word(4 * 32));
    code.extend(word(4 * 32 + name.len()));
    code.extend(word(18));
    code.extend(supply.to_be_bytes::<32>());
    code.extend(name);
    code.extend(symbol);
    Bytes::from(code)
}

/// The slot of `owner`'s entry in a Solidity `mapping(address => …)` declared at slot `index`
/// (FirnToken's `balanceOf` is at 4).
pub fn mapping_slot(owner: Address, index: u64) -> alloy_primitives::B256 {
    let mut preimage = [0u8; 64];
    preimage[12..32].copy_from_slice(owner.as_slice());
    preimage[32..].copy_from_slice(&U256::from(index).to_be_bytes::<32>());
    alloy_primitives::keccak256(preimage)
}

/// Calldata of ERC-20 `transfer(to, amount)`.
pub fn transfer_data(to: Address, amount: U256) -> Bytes {
    let mut d = vec![0xa9, 0x05, 0x9c, 0xbb];
    d.extend([0u8; 12]);
    d.extend(to.as_slice());
    d.extend(amount.to_be_bytes::<32>());
    Bytes::from(d)
}

/// An in-memory C-Chain-like chain where keys `0..keys` hold 10^30 wei each and blocks take
/// `gas_limit` gas (subnet-EVM's fee window sizes them, not ACP-176). Its clock moves 10 s
/// each time it is read, so full blocks built back to back do not push the base fee past what
/// [`sign`] pays.
pub fn chain(keys: u8, gas_limit: u64) -> EvmChain {
    let funds = U256::from(10u64).pow(U256::from(30));
    let alloc: Vec<_> = (0..keys).map(|i| (key(i).address(), funds)).collect();
    let mut genesis = EvmGenesis::c_chain(CHAIN_ID, 0, &alloc);
    genesis.config.fee_config.gas_limit = gas_limit;
    genesis.config.fee_rules = crate::fee::FeeRules::Window(genesis.config.fee_config);
    genesis.gas_limit = gas_limit;
    let clock = Arc::new(AtomicU64::new(1_700_000_000));
    EvmChain::open(EvmChainConfig {
        genesis,
        blockchain_id: B256::ZERO,
        network_id: 5,
        data_dir: None,
        now: Arc::new(move || clock.fetch_add(10, Ordering::Relaxed)),
        atomic: None,
        warp: None,
    })
    .expect("opening the fixture chain")
}

/// Deploys a FirnToken with the largest supply from `k` (at `nonce`), builds the block and
/// returns the token's address.
pub fn deploy_token(chain: &EvmChain, k: &PrivateKeySigner, nonce: u64) -> Address {
    let init = token_init_code("Bench", "BNCH", U256::MAX);
    chain
        .submit_raw_tx(&sign(k, nonce, None, U256::ZERO, init, 5_000_000))
        .expect("pooling the token deployment");
    let block = chain
        .build_block()
        .expect("building")
        .expect("a block with the deployment");
    block.receipts[0]
        .contract_address
        .expect("the token deployed")
}
