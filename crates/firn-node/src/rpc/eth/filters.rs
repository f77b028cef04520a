//! geth's polling filters: `eth_newFilter`, `eth_newBlockFilter`,
//! `eth_newPendingTransactionFilter`, `eth_getFilterChanges`, `eth_getFilterLogs` and
//! `eth_uninstallFilter` (what ethers' `JsonRpcProvider` event listeners and viem's polling
//! `watchBlocks`/`watchContractEvent` call).
//!
//! A filter reports what happened after it was installed: block hashes, matching logs, or the
//! hashes of transactions that entered the pool. As in geth, a filter not polled for
//! [`FILTER_TIMEOUT`] is gone ("filter not found"), and its ID is 128 random bits in hex.
//! Unlike geth, a chain holds at most [`MAX_FILTERS`] (so no client can grow memory without
//! bound) and one poll reports at most [`MAX_LOG_RANGE`] blocks (the next poll goes on).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use alloy_primitives::B256;
use firn_evm::LogFilter;
use firn_rpc::EthServer;
use firn_rpc::methods::eth::{FilterChanges, Log};

use super::blocks::{get_logs, height_of};
use super::params::FilterArgs;
use super::shapes::log_json;
use super::{EthError, MAX_LOG_RANGE, State};

/// How long a filter lives without being polled (geth's `filterTimeout`).
pub const FILTER_TIMEOUT: Duration = Duration::from_secs(5 * 60);
/// Filters one chain holds at most.
pub const MAX_FILTERS: usize = 1_024;

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("eth_newFilter", new_filter)
        .method("eth_newBlockFilter", new_block_filter)
        .method(
            "eth_newPendingTransactionFilter",
            new_pending_transaction_filter,
        )
        .method("eth_getFilterChanges", get_filter_changes)
        .method("eth_getFilterLogs", get_filter_logs)
        .method("eth_uninstallFilter", uninstall_filter)
}

#[derive(Debug, Clone)]
enum Kind {
    /// Reports block hashes from block `next` on.
    Blocks { next: u64 },
    /// Reports the logs `criteria` match from block `next` on.
    Logs { criteria: FilterArgs, next: u64 },
    /// Reports the pool's arrivals from arrival number `next` on.
    Pending { next: u64 },
}

#[derive(Debug)]
struct Installed {
    kind: Kind,
    deadline: Instant,
}

/// One chain's installed filters.
#[derive(Debug, Default)]
pub struct Filters {
    installed: Mutex<HashMap<String, Installed>>,
}

impl Filters {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Installed>> {
        self.installed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Installs `kind`; its ID.
    fn install(&self, kind: Kind) -> Result<String, EthError> {
        let mut installed = self.lock();
        let now = Instant::now();
        installed.retain(|_, f| f.deadline > now);
        if installed.len() >= MAX_FILTERS {
            return Err(EthError::server(format!(
                "too many filters installed ({MAX_FILTERS}): uninstall some, or let them expire \
                 ({} s without a poll)",
                FILTER_TIMEOUT.as_secs()
            )));
        }
        let id = firn_rpc::eth::new_id();
        installed.insert(
            id.clone(),
            Installed {
                kind,
                deadline: now + FILTER_TIMEOUT,
            },
        );
        Ok(id)
    }

    /// The filter `id`, its deadline moved on; "filter not found" when it expired or never was.
    fn poll(&self, id: &str) -> Result<Kind, EthError> {
        let mut installed = self.lock();
        let now = Instant::now();
        match installed.get_mut(id) {
            Some(f) if f.deadline > now => {
                f.deadline = now + FILTER_TIMEOUT;
                Ok(f.kind.clone())
            }
            Some(_) => {
                installed.remove(id);
                Err(not_found())
            }
            None => Err(not_found()),
        }
    }

    /// Records where `id` is to go on from (unless it was uninstalled meanwhile).
    fn advance(&self, id: &str, kind: Kind) {
        if let Some(f) = self.lock().get_mut(id) {
            f.kind = kind;
        }
    }
}

fn not_found() -> EthError {
    EthError::server("filter not found")
}

/// `eth_newFilter(criteria)`: the logs of blocks accepted from now on that match.
async fn new_filter(node: State, (criteria,): (FilterArgs,)) -> Result<String, EthError> {
    if criteria.block_hash.is_some() {
        return Err(EthError::server(
            "cannot specify blockHash in a filter: use eth_getLogs",
        ));
    }
    let next = node.chain.height() + 1;
    node.filters.install(Kind::Logs { criteria, next })
}

/// `eth_newBlockFilter()`: the hashes of blocks accepted from now on.
async fn new_block_filter(node: State, (): ()) -> Result<String, EthError> {
    let next = node.chain.height() + 1;
    node.filters.install(Kind::Blocks { next })
}

/// `eth_newPendingTransactionFilter()`: the hashes of transactions pooled from now on.
async fn new_pending_transaction_filter(node: State, (): ()) -> Result<String, EthError> {
    let next = node.chain.pool_arrivals();
    node.filters.install(Kind::Pending { next })
}

/// `eth_getFilterChanges(id)`: what happened since the last poll.
async fn get_filter_changes(node: State, (id,): (String,)) -> Result<FilterChanges, EthError> {
    let kind = node.filters.poll(&id)?;
    let head = node.chain.height();
    // Blocks `next..=last`, at most a log range's worth a poll.
    let span = |next: u64| (next, head.min(next.saturating_add(MAX_LOG_RANGE - 1)));
    let (changes, kind) = match kind {
        Kind::Blocks { next } => {
            let (first, last) = span(next);
            let hashes: Vec<B256> = (first..=last)
                .filter_map(|n| node.chain.block_by_number(n))
                .map(|b| b.hash)
                .collect();
            (
                FilterChanges::Hashes(hashes),
                Kind::Blocks {
                    next: next.max(last + 1),
                },
            )
        }
        Kind::Logs { criteria, next } => {
            let (first, last) = span(next);
            let logs = logs_between(&node, &criteria, first, last);
            (
                FilterChanges::Logs(logs),
                Kind::Logs {
                    criteria,
                    next: next.max(last + 1),
                },
            )
        }
        Kind::Pending { next } => {
            let (hashes, next) = node.chain.pooled_since(next);
            (FilterChanges::Hashes(hashes), Kind::Pending { next })
        }
    };
    node.filters.advance(&id, kind);
    Ok(changes)
}

/// The logs `criteria` match in blocks `first..=last`, within its own block range.
fn logs_between(node: &State, criteria: &FilterArgs, first: u64, last: u64) -> Vec<Log> {
    let from = criteria
        .from
        .map_or(first, |t| height_of(node, t).max(first));
    let to = criteria.to.map_or(last, |t| height_of(node, t).min(last));
    if from > to {
        return Vec::new();
    }
    let filter = LogFilter {
        from,
        to,
        addresses: criteria.addresses.clone(),
        topics: criteria.topics.clone(),
    };
    node.chain.logs(&filter).iter().map(log_json).collect()
}

/// `eth_getFilterLogs(id)`: every log a log filter's criteria match, as `eth_getLogs`.
async fn get_filter_logs(node: State, (id,): (String,)) -> Result<Vec<Log>, EthError> {
    match node.filters.poll(&id)? {
        Kind::Logs { criteria, .. } => get_logs(node, (criteria,)).await,
        _ => Err(not_found()),
    }
}

/// `eth_uninstallFilter(id)`: whether it was installed.
async fn uninstall_filter(node: State, (id,): (String,)) -> Result<bool, EthError> {
    Ok(node.filters.lock().remove(&id).is_some())
}
