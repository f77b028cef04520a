//! geth's `txpool` namespace: what the pool holds, by sender and nonce. A sender's run of
//! nonces from its account nonce is pending (the next block may take it); txs behind a gap
//! are queued.

use std::collections::BTreeMap;

use alloy_consensus::Transaction as _;
use alloy_primitives::Address;
use firn_evm::SignedTx;
use firn_rpc::EthServer;
use firn_rpc::methods::eth::{
    Quantity, Transaction, TxpoolContent, TxpoolContentFrom, TxpoolStatus, TxsByNonce,
};

use super::params::Addr;
use super::shapes::tx_json;
use super::{EthError, State};

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("txpool_status", status)
        .method("txpool_content", content)
        .method("txpool_contentFrom", content_from)
        .method("txpool_inspect", inspect)
}

/// Pooled txs by sender and nonce, each sender's split into (pending, queued).
fn split(node: &State) -> BTreeMap<Address, (Vec<SignedTx>, Vec<SignedTx>)> {
    let mut by_sender: BTreeMap<Address, (Vec<SignedTx>, Vec<SignedTx>)> = BTreeMap::new();
    // `pooled` lists each sender's txs by nonce.
    for tx in node.chain.pooled() {
        let (pending, queued) = by_sender.entry(tx.sender).or_default();
        let next = pending
            .last()
            .map_or_else(|| node.chain.nonce(&tx.sender), |t| t.envelope.nonce() + 1);
        if queued.is_empty() && tx.envelope.nonce() == next {
            pending.push(tx);
        } else {
            queued.push(tx);
        }
    }
    by_sender
}

fn by_nonce<T>(txs: &[SignedTx], f: impl Fn(&SignedTx) -> T) -> TxsByNonce<T> {
    txs.iter()
        .map(|t| (t.envelope.nonce().to_string(), f(t)))
        .collect()
}

fn content_of<T>(node: &State, f: impl Fn(&SignedTx) -> T) -> TxpoolContent<T> {
    let mut content = TxpoolContent {
        pending: BTreeMap::new(),
        queued: BTreeMap::new(),
    };
    for (sender, (pending, queued)) in split(node) {
        let key = format!("{sender:#x}");
        if !pending.is_empty() {
            content.pending.insert(key.clone(), by_nonce(&pending, &f));
        }
        if !queued.is_empty() {
            content.queued.insert(key, by_nonce(&queued, &f));
        }
    }
    content
}

/// `txpool_status` → how many txs are pending and queued.
async fn status(node: State, (): ()) -> Result<TxpoolStatus, EthError> {
    let (pending, queued) = split(&node)
        .values()
        .fold((0, 0), |(p, q), (pe, qu)| (p + pe.len(), q + qu.len()));
    Ok(TxpoolStatus {
        pending: Quantity(pending as u64),
        queued: Quantity(queued as u64),
    })
}

/// `txpool_content` → every pooled tx.
async fn content(node: State, (): ()) -> Result<TxpoolContent<Transaction>, EthError> {
    Ok(content_of(&node, |t| tx_json(t, None)))
}

/// `txpool_contentFrom [address]` → one sender's pooled txs.
async fn content_from(node: State, (addr,): (Addr,)) -> Result<TxpoolContentFrom, EthError> {
    let (pending, queued) = split(&node).remove(&addr.0).unwrap_or_default();
    Ok(TxpoolContentFrom {
        pending: by_nonce(&pending, |t| tx_json(t, None)),
        queued: by_nonce(&queued, |t| tx_json(t, None)),
    })
}

/// `txpool_inspect` → every pooled tx as geth summarizes it: `to: value wei + gas gas × price
/// wei` (`contract creation: …` for a deployment).
async fn inspect(node: State, (): ()) -> Result<TxpoolContent<String>, EthError> {
    Ok(content_of(&node, |t| {
        let e = &t.envelope;
        let to = match e.to() {
            Some(to) => to.to_checksum(None),
            None => "contract creation".to_owned(),
        };
        format!(
            "{to}: {} wei + {} gas × {} wei",
            e.value(),
            e.gas_limit(),
            e.max_fee_per_gas()
        )
    }))
}
