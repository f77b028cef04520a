//! Shared helpers: keys, signing, a chain on a fixed clock, the token artifacts, ABI bits.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use alloy_consensus::{SignableTransaction, TxEip1559, TxEip2930, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use firn_evm::{EvmChain, EvmChainConfig, EvmGenesis};

pub const CHAIN_ID: u64 = 43113;
pub const GWEI: u128 = 1_000_000_000;
pub const GENESIS_TIME: u64 = 1_700_000_000;

/// A deterministic key.
pub fn key(i: u8) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&B256::repeat_byte(i + 1)).unwrap()
}

pub fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18))
}

/// A clock the test moves.
#[derive(Clone, Default)]
pub struct TestClock(pub Arc<AtomicU64>);

impl TestClock {
    pub fn at(t: u64) -> Self {
        Self(Arc::new(AtomicU64::new(t)))
    }
    pub fn advance(&self, s: u64) {
        self.0.fetch_add(s, Ordering::SeqCst);
    }
    pub fn source(&self) -> firn_evm::TimeSource {
        let c = self.0.clone();
        Arc::new(move || c.load(Ordering::SeqCst))
    }
}

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "firn-evm-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The C-Chain genesis with keys 0..3 funded.
pub fn c_genesis() -> EvmGenesis {
    let alloc: Vec<_> = (0..4)
        .map(|i| (key(i).address(), ether(1_000_000)))
        .collect();
    EvmGenesis::c_chain(CHAIN_ID, GENESIS_TIME, &alloc)
}

/// subnet-EVM's default fee config, in `IFeeManager.getFeeConfig` order.
pub const FEE_CONFIG: [u64; 8] = [
    15_000_000,
    2,
    25_000_000_000,
    15_000_000,
    36,
    0,
    1_000_000,
    200_000,
];

/// A subnet-EVM genesis JSON as a CreateChainTx carries it: keys 0..3 funded, key 0 admin of
/// each precompile in `precompiles` (config keys), Warp on.
pub fn subnet_genesis(precompiles: &[&str]) -> EvmGenesis {
    let admin = format!("{}", key(0).address());
    let f = FEE_CONFIG;
    let mut config = serde_json::json!({
        "chainId": CHAIN_ID,
        "feeConfig": {
            "gasLimit": f[0], "targetBlockRate": f[1], "minBaseFee": f[2], "targetGas": f[3],
            "baseFeeChangeDenominator": f[4], "minBlockGasCost": f[5], "maxBlockGasCost": f[6],
            "blockGasCostStep": f[7]
        },
        "warpConfig": {"blockTimestamp": 0, "quorumNumerator": 67}
    });
    for p in precompiles {
        config[*p] = serde_json::json!({"blockTimestamp": 0, "adminAddresses": [admin]});
    }
    let alloc: serde_json::Map<String, serde_json::Value> = (0..4)
        .map(|i| {
            (
                format!("{:x}", key(i).address()),
                serde_json::json!({"balance": format!("{:#x}", ether(1_000_000))}),
            )
        })
        .collect();
    let genesis = serde_json::json!({
        "config": config,
        "alloc": alloc,
        "timestamp": format!("{GENESIS_TIME:#x}"),
        "gasLimit": "0xe4e1c0"
    });
    EvmGenesis::from_json(genesis.to_string().as_bytes()).unwrap()
}

pub fn open(genesis: EvmGenesis, dir: Option<PathBuf>, clock: &TestClock) -> EvmChain {
    EvmChain::open(EvmChainConfig {
        genesis,
        blockchain_id: B256::repeat_byte(0xcc),
        network_id: 5,
        data_dir: dir,
        now: clock.source(),
        atomic: None,
        warp: None,
    })
    .unwrap()
}

/// An in-memory C-Chain and its clock.
pub fn chain() -> (EvmChain, TestClock) {
    let clock = TestClock::at(GENESIS_TIME + 10);
    (open(c_genesis(), None, &clock), clock)
}

fn sign<T: SignableTransaction<alloy_primitives::Signature>>(tx: T, k: &PrivateKeySigner) -> Bytes
where
    alloy_consensus::Signed<T>: Into<TxEnvelope>,
{
    let sig = k.sign_hash_sync(&tx.signature_hash()).unwrap();
    let env: TxEnvelope = tx.into_signed(sig).into();
    Bytes::from(env.encoded_2718())
}

/// A signed EIP-1559 tx paying a 100 gwei fee cap and a 1 gwei tip.
pub fn tx1559(
    k: &PrivateKeySigner,
    nonce: u64,
    to: Option<Address>,
    value: U256,
    input: Bytes,
    gas: u64,
) -> Bytes {
    priced_tx(k, nonce, to, value, input, gas, (100 * GWEI, GWEI))
}

/// A signed EIP-1559 tx (100 gwei fee cap, 1 gwei tip) carrying `access_list`.
pub fn tx1559_with_access_list(
    k: &PrivateKeySigner,
    nonce: u64,
    to: Address,
    input: Bytes,
    gas: u64,
    access_list: alloy_eips::eip2930::AccessList,
) -> Bytes {
    sign(
        TxEip1559 {
            chain_id: CHAIN_ID,
            nonce,
            gas_limit: gas,
            max_fee_per_gas: 100 * GWEI,
            max_priority_fee_per_gas: GWEI,
            to: TxKind::Call(to),
            value: U256::ZERO,
            access_list,
            input,
        },
        k,
    )
}

/// A signed EIP-1559 tx with the given `(max fee, tip)`.
pub fn priced_tx(
    k: &PrivateKeySigner,
    nonce: u64,
    to: Option<Address>,
    value: U256,
    input: Bytes,
    gas: u64,
    (max_fee, tip): (u128, u128),
) -> Bytes {
    sign(
        TxEip1559 {
            chain_id: CHAIN_ID,
            nonce,
            gas_limit: gas,
            max_fee_per_gas: max_fee,
            max_priority_fee_per_gas: tip,
            to: to.map_or(TxKind::Create, TxKind::Call),
            value,
            access_list: Default::default(),
            input,
        },
        k,
    )
}

/// A plain EIP-1559 transfer.
pub fn transfer(k: &PrivateKeySigner, nonce: u64, to: Address, value: U256) -> Bytes {
    tx1559(k, nonce, Some(to), value, Bytes::new(), 21_000)
}

/// A signed legacy (EIP-155) tx.
pub fn legacy(k: &PrivateKeySigner, nonce: u64, to: Address, value: U256, chain_id: u64) -> Bytes {
    sign(
        TxLegacy {
            chain_id: Some(chain_id),
            nonce,
            gas_price: 50 * GWEI,
            gas_limit: 21_000,
            to: TxKind::Call(to),
            value,
            input: Bytes::new(),
        },
        k,
    )
}

/// A signed EIP-2930 tx.
pub fn tx2930(k: &PrivateKeySigner, nonce: u64, to: Address, value: U256) -> Bytes {
    sign(
        TxEip2930 {
            chain_id: CHAIN_ID,
            nonce,
            gas_price: 50 * GWEI,
            gas_limit: 30_000,
            to: TxKind::Call(to),
            value,
            access_list: Default::default(),
            input: Bytes::new(),
        },
        k,
    )
}

/// Creation bytecode of a contract in `contracts/artifacts`.
pub fn artifact(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../contracts/artifacts/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let code = v["bytecode"].as_str().unwrap();
    hex::decode(code.trim_start_matches("0x")).unwrap()
}

pub fn word_u(v: U256) -> [u8; 32] {
    v.to_be_bytes()
}

pub fn word_addr(a: Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

fn string_tail(s: &str) -> Vec<u8> {
    let mut out = word_u(U256::from(s.len())).to_vec();
    let mut data = s.as_bytes().to_vec();
    data.resize(s.len().div_ceil(32) * 32, 0);
    out.extend(data);
    out
}

/// FirnToken's creation code with `(name, symbol, decimals, supply)`.
pub fn token_init_code(name: &str, symbol: &str, supply: U256) -> Bytes {
    let mut code = artifact("FirnToken");
    let name_tail = string_tail(name);
    code.extend(word_u(U256::from(4 * 32)));
    code.extend(word_u(U256::from(4 * 32 + name_tail.len())));
    code.extend(word_u(U256::from(18)));
    code.extend(word_u(supply));
    code.extend(name_tail);
    code.extend(string_tail(symbol));
    Bytes::from(code)
}

/// Calldata of `selector(address, uint256)`.
pub fn call_addr_u256(selector: [u8; 4], a: Address, v: U256) -> Bytes {
    let mut d = selector.to_vec();
    d.extend(word_addr(a));
    d.extend(word_u(v));
    Bytes::from(d)
}

pub const TRANSFER: [u8; 4] = [0xa9, 0x05, 0x9c, 0xbb];
pub const BALANCE_OF: [u8; 4] = [0x70, 0xa0, 0x82, 0x31];

pub fn balance_of_call(token: Address, owner: Address) -> firn_evm::CallRequest {
    let mut d = BALANCE_OF.to_vec();
    d.extend(word_addr(owner));
    firn_evm::CallRequest {
        to: Some(token),
        input: Some(Bytes::from(d)),
        ..Default::default()
    }
}
