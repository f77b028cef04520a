//! Reads the index does not hold, from the node each EVM chain's indexer follows (the chain
//! record's `rpc_url`, which the operator configured): native balances, now or at a past block.
//!
//! One client per chain, made on first use, with short timeouts, one retry and small
//! responses: an API request waits for the node at most a few seconds, and a node that
//! answers with megabytes is cut off.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use firn_rpc::{ClientConfig, ClientError, EthClient};
use firn_store::rows::evm::EvmChainRecord;
use firn_store::types::{Address, ParseText, U256};

use crate::error::{ApiError, ApiResult};

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
