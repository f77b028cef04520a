//! The dev-loop methods Foundry, Hardhat and viem's test actions call on a local node, under
//! anvil's names and Hardhat's: mining on demand, the block clock, account state set
//! directly, and impersonation.
//!
//! Each state change is carried by a block mined for it at once ([`firn_evm::EvmChain::mine`]):
//! "latest" shows it immediately, every state root is one the chain's blocks explain, and a
//! restart replays it. Snapshots and reverts are refused: Avalanche blocks are final once
//! accepted, and firn's indexer and clients rely on that.

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use alloy_primitives::{Address, B256};
use firn_evm::{DevChange, EvmError, impersonated};
use firn_rpc::EthServer;
use serde_json::Value;

use super::params::{Addr, CallArgs, DevU64, Hash, HexBytes, HexU256};
use super::{EthError, State};

/// The most blocks one `anvil_mine` or `evm_mine` call makes.
pub const MAX_MINED: u64 = 10_000;

/// The accounts the node sends for without their keys.
#[derive(Debug, Default)]
pub struct Impersonation {
    accounts: Mutex<HashSet<Address>>,
    everyone: AtomicBool,
}

impl Impersonation {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<Address>> {
        self.accounts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a tx from `a` may be sent unsigned.
    pub fn covers(&self, a: &Address) -> bool {
        self.everyone.load(Ordering::Relaxed) || self.lock().contains(a)
    }

    /// The impersonated accounts, in order (what `eth_accounts` lists).
    pub fn accounts(&self) -> Vec<Address> {
        let mut all: Vec<Address> = self.lock().iter().copied().collect();
        all.sort();
        all
    }
}

/// Registers `f` as `anvil_<name>` (answering null, as anvil does) and as `hardhat_<name>`
/// (answering true, as Hardhat does).
macro_rules! anvil_and_hardhat {
    ($s:expr, $name:literal, $f:expr) => {
        $s.method(concat!("anvil_", $name), $f)
            .method(concat!("hardhat_", $name), |n, p| async move {
                $f(n, p).await.map(|()| true)
            })
    };
}

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    let s = anvil_and_hardhat!(s, "mine", mine_blocks);
    let s = anvil_and_hardhat!(s, "setBalance", set_balance);
    let s = anvil_and_hardhat!(s, "setCode", set_code);
    let s = anvil_and_hardhat!(s, "setNonce", set_nonce);
    let s = anvil_and_hardhat!(s, "impersonateAccount", impersonate);
    let s = anvil_and_hardhat!(s, "stopImpersonatingAccount", stop_impersonating);
    let s = s
        .method("evm_mine", evm_mine)
        .method("evm_increaseTime", increase_time)
        .method("anvil_increaseTime", increase_time)
        .method("evm_setNextBlockTimestamp", set_next_block_timestamp)
        .method("anvil_setNextBlockTimestamp", set_next_block_timestamp)
        .method("anvil_setStorageAt", set_storage_at)
        .method("hardhat_setStorageAt", set_storage_at)
        .method("anvil_autoImpersonateAccount", auto_impersonate)
        .method("eth_sendTransaction", send_transaction);
    ["evm_snapshot", "evm_revert", "anvil_snapshot", "anvil_revert", "anvil_reset", "hardhat_reset"]
        .into_iter()
        .fold(s, |s, name| s.method(name, move |_: State, _: (Option<Value>, Option<Value>)| async move {
            Err::<(), _>(EthError::server(format!(
                "{name} is not supported: Avalanche blocks are final once accepted, so firn's chains never go back; start a fresh devnet (a new data dir) instead"
            )))
        }))
}

/// Mines one block carrying `change`.
async fn mine_change(node: State, change: DevChange) -> Result<(), EthError> {
    node.on_chain(move |c| c.mine(vec![change], None)).await?;
    Ok(())
}

/// `evm_mine [timestamp | {timestamp, blocks}]` → `"0x0"`: one block (or `blocks`) now, the
/// first at `timestamp` when given, with whatever the pool has ready.
async fn evm_mine(node: State, (options,): (Option<Value>,)) -> Result<String, EthError> {
    let (timestamp, blocks) = match &options {
        None | Some(Value::Null) => (None, 1),
        Some(Value::Object(o)) => {
            let field = |k: &str| -> Result<Option<u64>, EthError> {
                o.get(k)
                    .filter(|v| !v.is_null())
                    .map(|v| dev_u64(v.clone()))
                    .transpose()
            };
            (field("timestamp")?, field("blocks")?.unwrap_or(1))
        }
        Some(v) => (Some(dev_u64(v.clone())?), 1),
    };
    mine_many(&node, blocks, timestamp, None).await?;
    Ok("0x0".to_owned())
}

fn dev_u64(v: Value) -> Result<u64, EthError> {
    serde_json::from_value::<DevU64>(v)
        .map(|n| n.0)
        .map_err(|e| {
            EthError(firn_rpc::ErrorObject::new(
                firn_rpc::error::INVALID_PARAMS,
                e.to_string(),
            ))
        })
}

/// `anvil_mine [blocks, interval]` (and `hardhat_mine`): `blocks` (default 1) blocks, each
/// `interval` seconds after the last when given.
async fn mine_blocks(
    node: State,
    (blocks, interval): (Option<DevU64>, Option<DevU64>),
) -> Result<(), EthError> {
    let n = blocks.map_or(1, |b| b.0);
    mine_many(&node, n, None, interval.map(|i| i.0)).await
}

async fn mine_many(
    node: &State,
    n: u64,
    first: Option<u64>,
    interval: Option<u64>,
) -> Result<(), EthError> {
    if n > MAX_MINED {
        return Err(EthError::server(format!(
            "{n} blocks asked for; at most {MAX_MINED} a call"
        )));
    }
    node.on_chain(move |c| {
        let mut time = first;
        for _ in 0..n {
            let b = c.mine(Vec::new(), time)?;
            time = interval.map(|i| b.header.timestamp.saturating_add(i));
        }
        Ok::<_, EvmError>(())
    })
    .await
}

/// `evm_increaseTime [seconds]` → the seconds added to block times so far.
async fn increase_time(node: State, (seconds,): (DevU64,)) -> Result<u64, EthError> {
    Ok(node.chain.increase_time(seconds.0))
}

/// `evm_setNextBlockTimestamp [timestamp]`: the next block's time, not before the head's.
async fn set_next_block_timestamp(node: State, (t,): (DevU64,)) -> Result<(), EthError> {
    Ok(node.chain.set_next_timestamp(t.0)?)
}

/// `anvil_setBalance [address, wei]`.
async fn set_balance(node: State, (a, wei): (Addr, HexU256)) -> Result<(), EthError> {
    mine_change(node, DevChange::Balance(a.0, wei.0)).await
}

/// `anvil_setCode [address, code]`.
async fn set_code(node: State, (a, code): (Addr, HexBytes)) -> Result<(), EthError> {
    mine_change(node, DevChange::Code(a.0, code.0)).await
}

/// `anvil_setNonce [address, nonce]`.
async fn set_nonce(node: State, (a, nonce): (Addr, DevU64)) -> Result<(), EthError> {
    mine_change(node, DevChange::Nonce(a.0, nonce.0)).await
}

/// `anvil_setStorageAt [address, slot, value]` → `true`.
async fn set_storage_at(
    node: State,
    (a, slot, value): (Addr, HexU256, Hash),
) -> Result<bool, EthError> {
    let value = alloy_primitives::U256::from_be_bytes(value.0.0);
    mine_change(node, DevChange::Storage(a.0, slot.0, value)).await?;
    Ok(true)
}

/// `anvil_impersonateAccount [address]`: `eth_sendTransaction` from it needs no key.
async fn impersonate(node: State, (a,): (Addr,)) -> Result<(), EthError> {
    node.impersonation.lock().insert(a.0);
    Ok(())
}

/// `anvil_stopImpersonatingAccount [address]`.
async fn stop_impersonating(node: State, (a,): (Addr,)) -> Result<(), EthError> {
    node.impersonation.lock().remove(&a.0);
    Ok(())
}

/// `anvil_autoImpersonateAccount [enabled]`: every account, while enabled.
async fn auto_impersonate(node: State, (on,): (bool,)) -> Result<(), EthError> {
    node.impersonation.everyone.store(on, Ordering::Relaxed);
    Ok(())
}

/// `eth_sendTransaction [args]` → the tx hash, for an impersonated `from`; geth's "unknown
/// account" otherwise (the node holds no keys). Unset fields are filled as geth fills them:
/// the pending nonce, an estimate of the gas, a tip and twice the next base fee.
async fn send_transaction(node: State, (args,): (CallArgs,)) -> Result<B256, EthError> {
    let req = args.0;
    let from = req
        .from
        .filter(|a| node.impersonation.covers(a))
        .ok_or_else(|| EthError::server("unknown account"))?;
    let hash = node
        .on_chain(move |c| {
            let tx = super::wallet::fill(c, &req, from)?;
            c.submit(impersonated(tx, from)?)
        })
        .await?;
    node.wake();
    Ok(hash)
}
