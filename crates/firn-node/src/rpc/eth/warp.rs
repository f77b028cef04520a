//! subnet-EVM's `warp_*` methods: the unsigned messages the chain sent (`warp_getMessage`),
//! this node's BLS signature of one or of a block's hash (`warp_getMessageSignature`,
//! `warp_getBlockSignature`), and a quorum of the signing subnet's validators aggregated into a
//! signed message (`warp_getMessageAggregateSignature`, `warp_getBlockAggregateSignature`).
//!
//! Signing goes through the devnet's validators ([`WarpSigning`]), which apply the chain's
//! rules (it sent the message, or accepted the block) before they sign; this node signs as the
//! devnet's first validator. A node started without signers answers that warp signing is off.

use std::sync::{Arc, OnceLock};

use alloy_primitives::{B256, Bytes};
use firn_aggregator::{AggregationRequest, Aggregator, NetworkError, Quorum, ValidatorNetwork};
use firn_core::ids::{Id, NodeId};
use firn_core::warp::UnsignedMessage;
use firn_core::warp::acp118::SignatureRequest;
use firn_core::warp::payload::Payload;
use firn_rpc::EthServer;

use super::{EthError, State};

/// What the `warp_*` methods sign with: the devnet's validators, as the node `node_id`, and an
/// aggregator over them.
#[derive(Debug)]
pub struct WarpSigning {
    /// The validators.
    pub network: Arc<dyn ValidatorNetwork>,
    /// This node.
    pub node_id: NodeId,
    /// Aggregates their signatures.
    pub aggregator: Arc<Aggregator>,
}

/// Set once the node's signers start; shared by every chain's endpoint.
pub type WarpSlot = Arc<OnceLock<WarpSigning>>;

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("warp_getMessage", get_message)
        .method("warp_getMessageSignature", get_message_signature)
        .method("warp_getBlockSignature", get_block_signature)
        .method(
            "warp_getMessageAggregateSignature",
            get_message_aggregate_signature,
        )
        .method(
            "warp_getBlockAggregateSignature",
            get_block_aggregate_signature,
        )
}

fn parse_id(text: &str, what: &str) -> Result<Id, EthError> {
    text.parse()
        .map_err(|e| EthError::server(format!("invalid {what}: {e}")))
}

fn signing(node: &State) -> Result<&WarpSigning, EthError> {
    node.warp
        .get()
        .ok_or_else(|| EthError::server("warp signing is off: this node runs without signers"))
}

/// The unsigned message the chain sent with ID `id`: `Err` with the store's "not found".
fn message(node: &State, id: Id) -> Result<UnsignedMessage, String> {
    let bytes = node
        .chain
        .warp_message(&B256::from(*id.as_bytes()))
        .ok_or_else(|| "not found".to_owned())?;
    UnsignedMessage::from_bytes(&bytes)
        .map_err(|e| format!("failed to parse unsigned message {id}: {e}"))
}

/// The message of a block's hash from this chain.
fn block_message(node: &State, block: Id) -> UnsignedMessage {
    UnsignedMessage::new(
        node.chain.network_id(),
        Id(node.chain.blockchain_id().0),
        Payload::Hash(block).bytes(),
    )
}

/// This node's signature of `message`, once the chain's rules allow it.
async fn own_signature(node: &State, message: &UnsignedMessage) -> Result<Bytes, String> {
    let warp = signing(node).map_err(|e| e.0.message)?;
    let request = SignatureRequest {
        message: message.bytes(),
        justification: Vec::new(),
    };
    match warp.network.request_signature(warp.node_id, &request).await {
        Ok(response) => Ok(Bytes::from(response.signature)),
        Err(NetworkError::Refused { error, .. }) => Err(error.message),
        Err(e) => Err(e.to_string()),
    }
}

/// A quorum of `quorum_num`/100 of the subnet's (`subnet`, or the chain's) validators.
async fn aggregate(
    node: &State,
    message: UnsignedMessage,
    quorum_num: u64,
    subnet: &str,
) -> Result<Bytes, EthError> {
    let warp = signing(node)?;
    let signing_subnet = if subnet.is_empty() {
        None
    } else {
        Some(
            subnet
                .parse()
                .map_err(|_| EthError::server(format!("failed to parse subnetID: {subnet:?}")))?,
        )
    };
    let quorum = Quorum::new(quorum_num, 0).map_err(|e| EthError::server(e.to_string()))?;
    let request = AggregationRequest {
        signing_subnet,
        quorum,
        ..AggregationRequest::new(message)
    };
    let aggregated = warp
        .aggregator
        .aggregate(request)
        .await
        .map_err(|e| EthError::server(e.to_string()))?;
    Ok(Bytes::from(aggregated.message.bytes()))
}

/// `warp_getMessage [messageID]` (cb58) → the unsigned message bytes.
async fn get_message(node: State, (id,): (String,)) -> Result<Bytes, EthError> {
    let id = parse_id(&id, "message ID")?;
    let message = message(&node, id)
        .map_err(|e| EthError::server(format!("failed to get message {id} with error {e}")))?;
    Ok(Bytes::from(message.bytes()))
}

/// `warp_getMessageSignature [messageID]` → this node's 96-byte BLS signature of it.
async fn get_message_signature(node: State, (id,): (String,)) -> Result<Bytes, EthError> {
    let id = parse_id(&id, "message ID")?;
    let message = message(&node, id)
        .map_err(|e| EthError::server(format!("failed to get message {id} with error {e}")))?;
    own_signature(&node, &message).await.map_err(|e| {
        EthError::server(format!(
            "failed to get signature for message {id} with error {e}"
        ))
    })
}

/// `warp_getBlockSignature [blockID]` → this node's signature of the block's hash message.
async fn get_block_signature(node: State, (id,): (String,)) -> Result<Bytes, EthError> {
    let block = parse_id(&id, "block ID")?;
    let message = block_message(&node, block);
    own_signature(&node, &message).await.map_err(|e| {
        EthError::server(format!(
            "failed to get signature for block {block} with error {e}"
        ))
    })
}

/// `warp_getMessageAggregateSignature [messageID, quorumNum, subnetID?]` → the signed message.
async fn get_message_aggregate_signature(
    node: State,
    (id, quorum_num, subnet): (String, u64, Option<String>),
) -> Result<Bytes, EthError> {
    let id = parse_id(&id, "message ID")?;
    let message = message(&node, id).map_err(EthError::server)?;
    aggregate(&node, message, quorum_num, subnet.as_deref().unwrap_or("")).await
}

/// `warp_getBlockAggregateSignature [blockID, quorumNum, subnetID?]` → the signed message of
/// the block's hash.
async fn get_block_aggregate_signature(
    node: State,
    (id, quorum_num, subnet): (String, u64, Option<String>),
) -> Result<Bytes, EthError> {
    let block = parse_id(&id, "block ID")?;
    let message = block_message(&node, block);
    aggregate(&node, message, quorum_num, subnet.as_deref().unwrap_or("")).await
}
