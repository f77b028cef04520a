//! The relayer's chains over JSON-RPC (`firn relay`): any nodes' EVM chains, read with
//! `eth_getLogs` (the Warp precompile's `SendWarpMessage` logs from Teleporter's messenger),
//! written with `eth_sendRawTransaction`.
//!
//! Every answer is a stranger's: a log whose message does not decode, does not come from this
//! chain or not from the messenger is skipped; responses are bounded in size; ranges are bounded
//! in blocks ([`super::MAX_BLOCKS_PER_ROUND`]).

use std::sync::Arc;

use alloy_consensus::TxEip1559;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use firn_core::evm::{event_topic, events};
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::teleporter::TeleporterMessage;
use firn_core::warp::{Message, UnsignedMessage};
use firn_evm::{SUGGESTED_TIP, WARP_ADDRESS, send_warp_message_bytes};
use firn_rpc::methods::eth::{Block, Log, Quantity, Transaction};
use firn_rpc::{ClientConfig, EthClient};
use serde_json::json;

use super::node::{call_from, delivery_input, predicate_list, received_input};
use super::{RelayChain, RelayChains, Relayer, Sent, WarpSigner};
use crate::history::evm_tx::{calldata, signed_raw};

/// Largest answer read from a node (a 1,000-block log range of messages included).
const MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;

/// One chain behind its node's RPC.
#[derive(Debug)]
pub struct RpcChain {
    client: EthClient,
    url: String,
    blockchain_id: B256,
    chain_id: u64,
}

impl RpcChain {
    /// The chain at `url` (`http://host:9650/ext/bc/<chain>/rpc`): its EVM chain ID and, from
    /// the Warp precompile, its blockchain ID.
    pub async fn connect(url: &str) -> Result<Self, String> {
        let config = ClientConfig {
            max_response_bytes: MAX_RESPONSE_BYTES,
            ..ClientConfig::default()
        };
        let client = EthClient::new(url, config).map_err(|e| e.to_string())?;
        let Quantity(chain_id) = client
            .call("eth_chainId", ())
            .await
            .map_err(|e| format!("{url}: eth_chainId: {e}"))?;
        let id = eth_call(&client, WARP_ADDRESS, calldata("getBlockchainID()", &[]))
            .await
            .map_err(|e| format!("{url}: the Warp precompile's getBlockchainID: {e}"))?;
        let blockchain_id = (id.len() == 32)
            .then(|| B256::from_slice(&id))
            .ok_or_else(|| format!("{url}: getBlockchainID returned {} bytes", id.len()))?;
        Ok(Self {
            client,
            url: url.to_owned(),
            blockchain_id,
            chain_id,
        })
    }

    /// The URL it was reached at.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its EVM chain ID.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    async fn call_quantity(&self, method: &str, params: serde_json::Value) -> Result<u64, String> {
        let Quantity(v) = self
            .client
            .call(method, params)
            .await
            .map_err(|e| format!("{method}: {e}"))?;
        Ok(v)
    }

    /// The Teleporter message in a `SendWarpMessage` log's data, if it is one this chain's
    /// messenger sent.
    fn decode(&self, data: &[u8]) -> Option<(UnsignedMessage, TeleporterMessage)> {
        let bytes = send_warp_message_bytes(data)?;
        let (unsigned, call) = call_from(bytes, &firn_devnet::teleporter::TELEPORTER_MESSENGER)?;
        if unsigned.source_chain_id.0 != self.blockchain_id.0 {
            return None;
        }
        let message = TeleporterMessage::decode(&call.payload)?;
        Some((unsigned, message))
    }
}

async fn eth_call(client: &EthClient, to: Address, input: Vec<u8>) -> Result<Bytes, String> {
    client
        .call(
            "eth_call",
            json!([{ "to": to, "data": Bytes::from(input) }, "latest"]),
        )
        .await
        .map_err(|e| e.to_string())
}

impl RelayChain for RpcChain {
    fn blockchain_id(&self) -> B256 {
        self.blockchain_id
    }

    async fn head(&self) -> Result<u64, String> {
        self.call_quantity("eth_blockNumber", json!([])).await
    }

    async fn sent(&self, from: u64, to: u64) -> Result<Vec<Sent>, String> {
        let topic = event_topic(events::SEND_WARP_MESSAGE);
        let mut source = [0u8; 32];
        source[12..].copy_from_slice(&firn_devnet::teleporter::TELEPORTER_MESSENGER);
        let filter = json!([{
            "fromBlock": format!("{from:#x}"),
            "toBlock": format!("{to:#x}"),
            "address": WARP_ADDRESS,
            "topics": [B256::from(topic), B256::from(source)],
        }]);
        let logs: Vec<Log> = self
            .client
            .call("eth_getLogs", filter)
            .await
            .map_err(|e| format!("eth_getLogs: {e}"))?;
        let mut out = Vec::new();
        for log in logs {
            let block = log.block_number;
            match self.decode(&log.data) {
                Some((unsigned, message)) if (from..=to).contains(&block) => out.push(Sent {
                    block,
                    unsigned,
                    message,
                }),
                _ => tracing::debug!(url = %self.url, block, "a SendWarpMessage log skipped"),
            }
        }
        Ok(out)
    }

    async fn received(&self, id: B256) -> bool {
        let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
        eth_call(&self.client, teleporter, received_input(id))
            .await
            .is_ok_and(|out| out.len() == 32 && out[31] == 1)
    }

    async fn pooled(&self, hash: B256) -> bool {
        // A tx the node knows with no block yet; an unreadable answer counts as not pooled,
        // so the relayer tries again rather than wait on it.
        let tx: Result<Option<Transaction>, _> =
            self.client.call("eth_getTransactionByHash", (hash,)).await;
        matches!(
            tx,
            Ok(Some(Transaction {
                block_number: None,
                ..
            }))
        )
    }

    async fn deliver(&self, key: &PrivateKey, signed: &Message) -> Result<B256, String> {
        let me = Address::from(key.public_key().eth_address());
        let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
        let input = Bytes::from(delivery_input(key));
        let access_list = predicate_list(signed);
        let call = json!({
            "from": me,
            "to": teleporter,
            "data": input,
            "accessList": access_list,
        });
        let gas = self.call_quantity("eth_estimateGas", json!([call])).await?;
        let nonce = self
            .call_quantity("eth_getTransactionCount", json!([me, "pending"]))
            .await?;
        let head: Block<B256> = self
            .client
            .call("eth_getBlockByNumber", json!(["latest", false]))
            .await
            .map_err(|e| format!("eth_getBlockByNumber: {e}"))?;
        let base_fee = head
            .base_fee_per_gas
            .map(|fee| u64::try_from(fee).map_err(|_| format!("base fee {fee} is over 64 bits")))
            .transpose()?
            .unwrap_or(0);
        let tx = TxEip1559 {
            chain_id: self.chain_id,
            nonce,
            gas_limit: gas.saturating_add(gas / 5),
            max_fee_per_gas: u128::from(base_fee) * 2 + SUGGESTED_TIP,
            max_priority_fee_per_gas: SUGGESTED_TIP,
            to: TxKind::Call(teleporter),
            value: U256::ZERO,
            access_list,
            input,
        };
        self.client
            .call(
                "eth_sendRawTransaction",
                json!([Bytes::from(signed_raw(key, tx))]),
            )
            .await
            .map_err(|e| format!("eth_sendRawTransaction: {e}"))
    }
}

/// A fixed set of chains behind RPC.
struct RpcChains(Vec<Arc<RpcChain>>);

impl RelayChains for RpcChains {
    type Chain = RpcChain;

    fn chains(&self) -> Vec<Arc<RpcChain>> {
        self.0.clone()
    }
}

/// Relays Teleporter messages between `chains`, signing with `signer` and paying with
/// `key`, from where `cursor_file` says it stopped ([`super::run`]); once it returns, every
/// chain's head is read, and messages sent after it are relayed.
pub async fn spawn(
    chains: Vec<RpcChain>,
    signer: Arc<dyn WarpSigner>,
    key: PrivateKey,
    cursor_file: std::path::PathBuf,
) -> Result<Relayer, String> {
    let mut heads = Vec::with_capacity(chains.len());
    for chain in &chains {
        let head = chain
            .head()
            .await
            .map_err(|e| format!("{}: {e}", chain.url))?;
        heads.push((chain.blockchain_id, head));
    }
    let chains = RpcChains(chains.into_iter().map(Arc::new).collect());
    Ok(super::run(chains, heads, signer, key, cursor_file))
}
