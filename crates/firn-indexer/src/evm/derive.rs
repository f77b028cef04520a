//! A fetched EVM block → its rows: transactions joined with receipts, logs, internal calls
//! flattened from the `callTracer` trees, and token transfers decoded from the logs.

use firn_core::ids::Id;
use firn_store::rows::evm::{EvmBlock, EvmBlockRows, EvmInternalTx, EvmLog, EvmTx};
use firn_store::types::{Address, U256};

use super::source::FetchedEvmBlock;
use super::transfers;
use crate::error::{IndexerError, Result};
use firn_rpc::methods::eth::CallFrame;

/// The rows of `f` on chain `chain_id`, blockchain `blockchain_id` (token metadata is added by
/// the caller).
pub fn block_rows(chain_id: u64, blockchain_id: Id, f: &FetchedEvmBlock) -> Result<EvmBlockRows> {
    let b = &f.block;
    let what = || format!("evm block {}", b.number);
    let mut txs = Vec::with_capacity(b.transactions.len());
    let mut logs = Vec::new();
    for (i, (tx, r)) in b.transactions.iter().zip(&f.receipts).enumerate() {
        let index = u32::try_from(i).map_err(|e| IndexerError::decode(what(), e))?;
        let tx_type =
            u8::try_from(tx.tx_type.unwrap_or(0)).map_err(|e| IndexerError::decode(what(), e))?;
        txs.push(EvmTx {
            index,
            hash: tx.hash,
            from: tx.from,
            to: tx.to,
            value: tx.value,
            nonce: tx.nonce,
            gas_limit: tx.gas,
            gas_used: r.gas_used,
            gas_price: r.effective_gas_price,
            max_fee: tx.max_fee_per_gas,
            max_priority_fee: tx.max_priority_fee_per_gas,
            tx_type,
            success: r.status.is_none_or(|s| s == 1),
            input: tx.input.to_vec(),
            contract_address: r.contract_address,
        });
        for l in &r.logs {
            logs.push(EvmLog {
                tx_index: index,
                log_index: u32::try_from(l.log_index)
                    .map_err(|e| IndexerError::decode(what(), e))?,
                address: l.address,
                topics: l.topics.clone(),
                data: l.data.to_vec(),
            });
        }
    }
    let mut internal_txs = Vec::new();
    for (i, t) in f.traces.iter().enumerate() {
        let index = u32::try_from(i).map_err(|e| IndexerError::decode(what(), e))?;
        let reverted = t.result.error.is_some();
        let mut next = 0u32;
        for c in &t.result.calls {
            flatten(c, index, reverted, &mut next, &mut internal_txs);
        }
    }
    let transfers = logs.iter().flat_map(transfers::decode).collect();
    let icm = logs
        .iter()
        .filter_map(|l| super::icm::decode(blockchain_id, l))
        .collect();
    Ok(EvmBlockRows {
        chain_id,
        block: EvmBlock {
            number: b.number,
            hash: b.hash,
            parent_hash: b.parent_hash,
            timestamp: b.timestamp,
            gas_used: b.gas_used,
            gas_limit: b.gas_limit,
            base_fee: b.base_fee_per_gas,
            block_gas_cost: b.block_gas_cost,
            receipts_root: Some(b.receipts_root),
            size_bytes: b.size.unwrap_or(0),
        },
        txs,
        logs,
        internal_txs,
        transfers,
        tokens: Vec::new(),
        atomic_txs: match &b.block_extra_data {
            Some(ext) if !ext.is_empty() => super::atomic::atomic_txs(b.number, ext),
            _ => Vec::new(),
        },
        icm,
    })
}

/// Appends `frame` and its sub-calls depth-first. A call under a reverted one is reverted too:
/// nothing it did stays.
fn flatten(
    frame: &CallFrame,
    tx_index: u32,
    parent_reverted: bool,
    next: &mut u32,
    out: &mut Vec<EvmInternalTx>,
) {
    let reverted = parent_reverted || frame.error.is_some();
    out.push(EvmInternalTx {
        tx_index,
        trace_index: *next,
        from: frame.from,
        // A creation that failed has no address.
        to: frame.to.unwrap_or(Address::ZERO),
        call_type: frame.kind.clone(),
        value: frame.value.unwrap_or(U256::ZERO),
        gas_used: frame.gas_used,
        gas_limit: frame.gas,
        reverted,
    });
    *next += 1;
    for c in &frame.calls {
        flatten(c, tx_index, reverted, next, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: &str, to: u8, error: bool, calls: Vec<CallFrame>) -> CallFrame {
        CallFrame {
            kind: kind.to_owned(),
            from: Address::new([0xaa; 20]),
            to: Some(Address::new([to; 20])),
            value: Some(U256::from(u64::from(to))),
            gas: 100,
            gas_used: 50,
            input: Default::default(),
            output: Default::default(),
            error: error.then(|| "execution reverted".to_owned()),
            revert_reason: None,
            calls,
            logs: Vec::new(),
        }
    }

    #[test]
    fn call_trees_flatten_depth_first_and_reverts_propagate() {
        let top = frame(
            "CALL",
            1,
            false,
            vec![
                frame(
                    "CALL",
                    2,
                    true,
                    vec![frame("CREATE2", 3, false, Vec::new())],
                ),
                frame("DELEGATECALL", 4, false, Vec::new()),
            ],
        );
        let mut out = Vec::new();
        let mut next = 0;
        for c in &top.calls {
            flatten(c, 5, false, &mut next, &mut out);
        }
        let got: Vec<_> = out
            .iter()
            .map(|i| (i.trace_index, i.call_type.as_str(), i.to.0[0], i.reverted))
            .collect();
        assert_eq!(
            got,
            vec![
                (0, "CALL", 2, true),
                (1, "CREATE2", 3, true),
                (2, "DELEGATECALL", 4, false)
            ]
        );
        assert!(out.iter().all(|i| i.tx_index == 5));
    }
}
