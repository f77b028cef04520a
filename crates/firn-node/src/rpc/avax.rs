//! `avax.*` on `/ext/bc/C/avax`: the C-Chain's atomic txs, the imports and exports that move
//! AVAX between the C-Chain and the X- and P-Chains. One function per method, as coreth's
//! `plugin/evm/atomic/vm/api.go`: `getUTXOs` lists only atomic UTXOs (`sourceChain` is
//! required), `getAtomicTx` answers encoded bytes and the accepting height.

use std::sync::Arc;

use firn_core::address::ChainAddress;
use firn_core::atomic::Tx;
use firn_core::codec;
use firn_core::encoding::Encoding;
use firn_core::ids::{Id, ShortId};
use firn_devnet::SharedMemory;
use firn_devnet::genesis::NetworkIdentity;
use firn_evm::{AtomicTxState, EvmChain};
use firn_rpc::methods::avax::*;
use firn_rpc::{AvaServer, AvaService};
use tokio::sync::Notify;

use super::utxos::{self, ListedUtxo};
use super::{MethodError, encoding, parse_chain_address, primary_chain_alias};

/// What the `avax` service works on: the C-Chain, the shared memory it imports from, and a
/// way to wake its block producer.
pub struct CAtomicNode {
    chain: Arc<EvmChain>,
    memory: SharedMemory,
    network: NetworkIdentity,
    waker: Option<Arc<Notify>>,
}

impl std::fmt::Debug for CAtomicNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CAtomicNode")
            .field("chain", &self.chain)
            .finish_non_exhaustive()
    }
}

impl CAtomicNode {
    /// The service state for the C-Chain `chain` of `network`; `waker` is notified when a tx
    /// is issued.
    pub fn new(
        chain: Arc<EvmChain>,
        memory: SharedMemory,
        network: NetworkIdentity,
        waker: Option<Arc<Notify>>,
    ) -> Self {
        Self {
            chain,
            memory,
            network,
            waker,
        }
    }
}

type N = Arc<CAtomicNode>;

/// The `avax` endpoint.
pub fn server(node: N) -> AvaServer<N> {
    AvaServer::new(node).service(service())
}

/// Every `avax.*` method.
pub fn service() -> AvaService<N> {
    AvaService::new("avax")
        .handle::<GetUtxos, _, _, _>(get_utxos)
        .handle::<IssueTx, _, _, _>(issue_tx)
        .handle::<GetAtomicTx, _, _, _>(get_atomic_tx)
        .handle::<GetAtomicTxStatus, _, _, _>(get_atomic_tx_status)
}

/// `avax.getUTXOs`: the UTXOs `sourceChain` exported to the C-Chain that `addresses` own.
async fn get_utxos(node: N, args: GetUtxosParams) -> Result<UtxosReply, MethodError> {
    let hrp = node.network.hrp.clone();
    let q = utxos::query(&args, |a| parse_chain_address(a, "C", &hrp))?;
    let source = match args.source_chain.as_str() {
        "" => return Err(MethodError::NoSourceChain),
        alias => primary_chain_alias(&node.network, alias)
            .ok_or_else(|| MethodError::UnknownSourceChain(alias.to_owned()))?,
    };
    let (page, next) = node.memory.list(
        &node.network.c_chain_id,
        &source,
        &q.addresses,
        q.start,
        q.limit,
    );
    let listed: Vec<ListedUtxo> = page
        .iter()
        .map(|u| ListedUtxo {
            bytes: codec::to_bytes(u),
            owners: u.output.owners.addresses.clone(),
            id: u.id(),
        })
        .collect();
    let network_id = node.network.network_id;
    Ok(utxos::reply(&q, &listed, next, |a: &ShortId| {
        ChainAddress::new("C", network_id, *a).to_string()
    }))
}

/// `avax.issueTx` `{tx, encoding}` → `{txID}`; a tx issued before is accepted quietly.
async fn issue_tx(node: N, args: IssueTxParams) -> Result<TxIdReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let bytes = enc
        .decode_bytes(&args.tx)
        .map_err(|e| MethodError::TxDecoding(e.to_string()))?;
    let tx: Tx =
        codec::from_bytes(&bytes).map_err(|e| MethodError::AtomicTxParse(e.to_string()))?;
    let tx_id = tx.id();
    match node.chain.submit_atomic(tx) {
        Ok(_) => {}
        Err(e) if e.starts_with("already known") => {}
        Err(e) => return Err(MethodError::AtomicTxRejected(e)),
    }
    if let Some(w) = &node.waker {
        w.notify_one();
    }
    Ok(TxIdReply { tx_id })
}

/// `avax.getAtomicTx` `{txID, encoding}` → `{tx, encoding, blockHeight}`.
async fn get_atomic_tx(node: N, args: TxParams) -> Result<AtomicTxReply, MethodError> {
    if args.tx_id == Id::ZERO {
        return Err(MethodError::NilTxId);
    }
    let enc = encoding(args.encoding.as_deref())?;
    let (tx, state) = node
        .chain
        .atomic_tx(&args.tx_id)
        .ok_or(MethodError::AtomicTxNotFound(args.tx_id))?;
    let height = match state {
        AtomicTxState::Accepted(h) => Some(h),
        AtomicTxState::Pooled | AtomicTxState::Dropped => None,
    };
    let text = match enc {
        Encoding::Json => None,
        enc => enc.encode_bytes(&tx.bytes()),
    };
    Ok(AtomicTxReply {
        tx: text.ok_or(MethodError::UnsupportedEncodingInMethod)?,
        encoding: enc.as_str().to_owned(),
        block_height: height,
    })
}

/// `avax.getAtomicTxStatus` `{txID}` → `{status, blockHeight?}`.
async fn get_atomic_tx_status(
    node: N,
    args: TxIdParams,
) -> Result<AtomicTxStatusReply, MethodError> {
    if args.tx_id == Id::ZERO {
        return Err(MethodError::NilTxId);
    }
    let (status, block_height) = match node.chain.atomic_tx(&args.tx_id) {
        Some((_, AtomicTxState::Accepted(h))) => (AtomicTxStatus::Accepted, Some(h)),
        Some((_, AtomicTxState::Pooled)) => (AtomicTxStatus::Processing, None),
        Some((_, AtomicTxState::Dropped)) => (AtomicTxStatus::Dropped, None),
        None => (AtomicTxStatus::Unknown, None),
    };
    Ok(AtomicTxStatusReply {
        status,
        block_height,
    })
}
