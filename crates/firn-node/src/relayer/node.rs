//! The relayer's in-process chains: the node's own EVM chains, read block by block and
//! written through their pools, as `firn up` and `firn devnet` relay.

use std::sync::Arc;

use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_primitives::{Address, B256, U256};
use firn_aggregator::Aggregator;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::teleporter::TeleporterMessage;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::{AddressedCall, Payload};
use firn_core::warp::predicate::pack;
use firn_evm::{EvmChain, WARP_ADDRESS, sent_messages};

use super::{RelayChain, RelayChains, Relayer, Sent};
use crate::evm_chains::EvmChainsHandle;
use crate::history::evm_tx::{Arg, address_of, call_uint, calldata, send_with_access_list};

/// Relays Teleporter messages between `evm`'s chains, signing with `aggregator` and paying
/// with `key`, from where `cursor_file` says it stopped ([`super::run`]).
pub fn spawn(
    evm: Arc<EvmChainsHandle>,
    aggregator: Arc<Aggregator>,
    key: PrivateKey,
    cursor_file: std::path::PathBuf,
) -> Relayer {
    let heads = evm
        .served()
        .iter()
        .map(|c| (c.blockchain_id(), c.height()))
        .collect();
    super::run(NodeChains(evm), heads, aggregator, key, cursor_file)
}

/// The node's served EVM chains.
struct NodeChains(Arc<EvmChainsHandle>);

impl RelayChains for NodeChains {
    type Chain = EvmChain;

    fn chains(&self) -> Vec<Arc<EvmChain>> {
        self.0.served()
    }
}

impl RelayChain for EvmChain {
    fn blockchain_id(&self) -> B256 {
        EvmChain::blockchain_id(self)
    }

    async fn head(&self) -> Result<u64, String> {
        Ok(self.height())
    }

    async fn sent(&self, from: u64, to: u64) -> Result<Vec<Sent>, String> {
        let mut out = Vec::new();
        for number in from..=to {
            let block = self
                .block_by_number(number)
                .ok_or_else(|| format!("block {number} is not stored"))?;
            out.extend(
                teleporter_messages(&block)
                    .into_iter()
                    .map(|(unsigned, message)| Sent {
                        block: number,
                        unsigned,
                        message,
                    }),
            );
        }
        Ok(out)
    }

    async fn received(&self, id: B256) -> bool {
        let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
        call_uint(self, teleporter, received_input(id)) == U256::from(1)
    }

    async fn pooled(&self, hash: B256) -> bool {
        self.transaction(&hash).is_some_and(|t| t.block.is_none())
    }

    async fn deliver(
        &self,
        key: &PrivateKey,
        signed: &firn_core::warp::Message,
    ) -> Result<B256, String> {
        submit_delivery(self, key, signed)
    }
}

/// The Warp messages the messenger sent in `block`, with the Teleporter message each carries.
pub(crate) fn teleporter_messages(
    block: &firn_evm::Block,
) -> Vec<(UnsignedMessage, TeleporterMessage)> {
    let messenger = firn_devnet::teleporter::TELEPORTER_MESSENGER;
    calls_from(block, &messenger)
        .into_iter()
        .filter_map(|(unsigned, call)| Some((unsigned, TeleporterMessage::decode(&call.payload)?)))
        .collect()
}

/// The Warp messages `block` sent from the contract at `source`, with the `AddressedCall`
/// each carries.
pub(crate) fn calls_from(
    block: &firn_evm::Block,
    source: &[u8],
) -> Vec<(UnsignedMessage, AddressedCall)> {
    sent_messages(block)
        .into_iter()
        .filter_map(|(_, bytes)| call_from(&bytes, source))
        .collect()
}

/// The unsigned Warp message `bytes`, if it is an `AddressedCall` from the contract at
/// `source`, with that call.
pub(crate) fn call_from(bytes: &[u8], source: &[u8]) -> Option<(UnsignedMessage, AddressedCall)> {
    let unsigned = UnsignedMessage::from_bytes(bytes).ok()?;
    let Ok(Payload::AddressedCall(call)) = Payload::from_bytes(&unsigned.payload) else {
        return None;
    };
    (call.source_address == source).then_some((unsigned, call))
}

/// Pools `receiveCrossChainMessage(0, relayer)` on `chain` from `key`, the signed Warp
/// message carried as its predicate; the tx's hash.
pub(crate) fn submit_delivery(
    chain: &EvmChain,
    key: &PrivateKey,
    signed: &firn_core::warp::Message,
) -> Result<B256, String> {
    let teleporter = Address::from(firn_devnet::teleporter::TELEPORTER_MESSENGER);
    send_with_predicate(chain, key, teleporter, delivery_input(key), signed)
}

/// `receiveCrossChainMessage(0, relayer)`: the message at predicate index 0, fees to `key`.
pub(crate) fn delivery_input(key: &PrivateKey) -> Vec<u8> {
    calldata(
        "receiveCrossChainMessage(uint32,address)",
        &[Arg::Uint(U256::ZERO), Arg::Addr(address_of(key))],
    )
}

/// Teleporter's `messageReceived(id)`: whether a chain received the message.
pub(crate) fn received_input(id: B256) -> Vec<u8> {
    calldata("messageReceived(bytes32)", &[Arg::Word(id)])
}

/// The access list carrying `signed` as a tx's only Warp predicate.
pub(crate) fn predicate_list(signed: &firn_core::warp::Message) -> AccessList {
    AccessList(vec![AccessListItem {
        address: WARP_ADDRESS,
        storage_keys: pack(&signed.bytes()).into_iter().map(B256::from).collect(),
    }])
}

/// Sends `input` to `to` from `key` with `signed` as the tx's only Warp predicate (message
/// index 0); returns the tx's hash, or why it was not sent.
pub(crate) fn send_with_predicate(
    chain: &EvmChain,
    key: &PrivateKey,
    to: Address,
    input: Vec<u8>,
    signed: &firn_core::warp::Message,
) -> Result<B256, String> {
    send_with_access_list(
        chain,
        key,
        Some(to),
        U256::ZERO,
        input,
        predicate_list(signed),
    )
}
