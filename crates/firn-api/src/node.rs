//! Reads the index does not hold, from the node each EVM chain's indexer follows (the chain
//! record's `rpc_url`, which the operator configured): native balances, and the ERC-20
//! balances of tokens whose `balanceOf` disagrees with their transfers, now or at a past block.
//!
//! One client per chain, made on first use, with short timeouts, one retry and small
//! responses: an API request waits for the node at most a few seconds, and a node that
//! answers with megabytes is cut off.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;
use tokio::task::JoinSet;

use firn_rpc::{ClientConfig, ClientError, EthClient};
use firn_store::rows::evm::EvmChainRecord;
use firn_store::types::{Address, ParseText, U256};

use crate::error::{ApiError, ApiResult};

/// `balanceOf(address)`.
const BALANCE_OF: [u8; 4] = [0x70, 0xa0, 0x82, 0x31];
/// Gas one `balanceOf` may burn: far more than a rebasing token's arithmetic needs.
const BALANCE_OF_GAS: u64 = 1_000_000;
/// `balanceOf` calls one request has in flight at once.
const CALLS_AT_ONCE: usize = 8;

/// The nodes behind the indexed EVM chains.
#[derive(Debug, Default)]
pub struct NodeReads {
    clients: Mutex<HashMap<u64, EthClient>>,
}

fn config() -> ClientConfig {
    ClientConfig {
        timeout: Duration::from_secs(5),
        max_retries: 1,
        initial_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_millis(200),
        max_response_bytes: 64 * 1024,
    }
}

impl NodeReads {
    /// The client of `chain`'s node.
    fn client(&self, chain: &EvmChainRecord) -> ApiResult<EthClient> {
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = clients.get(&chain.chain_id)
            && c.url() == chain.rpc_url
        {
            return Ok(c.clone());
        }
        let client = EthClient::new(&chain.rpc_url, config()).map_err(|e| {
            ApiError::Unavailable(format!(
                "chain {} has no usable node URL: {e}",
                chain.chain_id
            ))
        })?;
        clients.insert(chain.chain_id, client.clone());
        Ok(client)
    }

    /// The native balance of `address` at `block` (the node's latest without one).
    pub async fn native_balance(
        &self,
        chain: &EvmChainRecord,
        address: Address,
        block: Option<u64>,
    ) -> ApiResult<U256> {
        let tag = block.map_or_else(|| "latest".to_owned(), |b| format!("{b:#x}"));
        let raw: String = self
            .client(chain)?
            .call("eth_getBalance", (format!("{address:#x}"), tag))
            .await
            .map_err(|e| node_error(chain, "eth_getBalance", block, e))?;
        U256::parse_text(&raw).map_err(|_| {
            ApiError::Unavailable(format!(
                "the node of chain {} answered eth_getBalance with {raw:?}, not an amount",
                chain.chain_id
            ))
        })
    }

    /// The native balances of `addresses` now, [`CALLS_AT_ONCE`] at a time.
    pub async fn native_balances(
        &self,
        chain: &EvmChainRecord,
        addresses: &[Address],
    ) -> ApiResult<HashMap<Address, U256>> {
        let client = self.client(chain)?;
        let mut calls = JoinSet::new();
        let mut out = HashMap::with_capacity(addresses.len());
        let mut pending = addresses.iter();
        loop {
            while calls.len() < CALLS_AT_ONCE
                && let Some(a) = pending.next()
            {
                let (client, a) = (client.clone(), *a);
                calls.spawn(async move {
                    let got = client
                        .call::<_, String>("eth_getBalance", (format!("{a:#x}"), "latest"))
                        .await;
                    (a, got)
                });
            }
            let Some(done) = calls.join_next().await else {
                return Ok(out);
            };
            let (a, got) = done.map_err(|e| {
                ApiError::Unavailable(format!(
                    "a read from the node of chain {} failed: {e}",
                    chain.chain_id
                ))
            })?;
            let raw = got.map_err(|e| node_error(chain, "eth_getBalance", None, e))?;
            let balance = U256::parse_text(&raw).map_err(|_| {
                ApiError::Unavailable(format!(
                    "the node of chain {} answered eth_getBalance with {raw:?}, not an amount",
                    chain.chain_id
                ))
            })?;
            out.insert(a, balance);
        }
    }

    /// `owner`'s `balanceOf` each of `tokens` at `block` (the node's latest without one),
    /// [`CALLS_AT_ONCE`] at a time. A token that reverts, runs out of gas or answers with
    /// anything but one word has no entry: a contract can fail its own call, never the
    /// request. A node that does not answer is [`ApiError::Unavailable`].
    pub async fn erc20_balances(
        &self,
        chain: &EvmChainRecord,
        owner: Address,
        tokens: &[Address],
        block: Option<u64>,
    ) -> ApiResult<HashMap<Address, U256>> {
        let client = self.client(chain)?;
        let tag = block.map_or_else(|| "latest".to_owned(), |b| format!("{b:#x}"));
        let mut data = BALANCE_OF.to_vec();
        data.extend([0u8; 12]);
        data.extend(owner.as_slice());
        let data = format!("0x{}", hex::encode(data));
        let mut calls = JoinSet::new();
        let mut out = HashMap::new();
        for token in tokens {
            if calls.len() >= CALLS_AT_ONCE
                && let Some(done) = calls.join_next().await
            {
                collect_balance(chain, done, &mut out)?;
            }
            let call = json!({
                "to": format!("{token:#x}"),
                "data": data,
                "gas": format!("{BALANCE_OF_GAS:#x}"),
            });
            let (client, tag, token) = (client.clone(), tag.clone(), *token);
            calls.spawn(async move {
                let got = client.call::<_, String>("eth_call", (call, tag)).await;
                (token, got)
            });
        }
        while let Some(done) = calls.join_next().await {
            collect_balance(chain, done, &mut out)?;
        }
        Ok(out)
    }
}

/// Adds one `balanceOf` answer to `out`, if it is one.
fn collect_balance(
    chain: &EvmChainRecord,
    done: Result<(Address, Result<String, ClientError>), tokio::task::JoinError>,
    out: &mut HashMap<Address, U256>,
) -> ApiResult<()> {
    let (token, got) = done.map_err(|e| {
        ApiError::Unavailable(format!(
            "a read from the node of chain {} failed: {e}",
            chain.chain_id
        ))
    })?;
    match got {
        Ok(raw) => {
            let word = hex::decode(raw.trim_start_matches("0x")).ok();
            if let Some(bytes) = word.and_then(|w| <[u8; 32]>::try_from(w).ok()) {
                out.insert(token, U256::from_be_bytes(bytes));
            }
            Ok(())
        }
        Err(ClientError::Rpc(_) | ClientError::ResponseTooLarge { .. }) => Ok(()),
        Err(e) => Err(node_error(chain, "eth_call", None, e)),
    }
}

/// A node's refusal of a block (one it does not have, or has pruned) is the client's 400;
/// anything else is the node being unavailable.
fn node_error(
    chain: &EvmChainRecord,
    method: &str,
    block: Option<u64>,
    e: ClientError,
) -> ApiError {
    match (e, block) {
        (ClientError::Rpc(o), Some(b)) => ApiError::bad(format!(
            "blockNumber {b}: the node of chain {} cannot answer at that block ({})",
            chain.chain_id, o.message
        )),
        (e, _) => ApiError::Unavailable(format!(
            "the node of chain {} did not answer {method}: {e}",
            chain.chain_id
        )),
    }
}
