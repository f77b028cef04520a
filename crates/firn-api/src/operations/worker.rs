//! The export worker: leases one running job at a time, writes its CSV into the store in
//! pieces, and ends it; between jobs it deletes expired ones.
//!
//! Rows come from the same store reads the list endpoints page through, oldest first: per EVM
//! chain and per address, the address's transactions (`EvmReader::list_evm_txs`, any party, the
//! blocks of the UTC days asked for); on the P-Chain, the transactions of all the addresses at
//! once (`PChainReader::list_pchain_txs`). A piece is written when it reaches
//! [`PIECE_BYTES`], which also renews the lease. A failure ends the job FAILED (`ErrInternal`);
//! a lost lease (another process took the job over) ends this process's work on it silently.

use std::future::Future;
use std::time::Duration;

use firn_core::calendar::DAY;
use firn_store::page::TxCursor;
use firn_store::rows::exports::{ExportChunk, ExportJobRecord, ExportOutcome, ExportStatus};
use firn_store::{
    EvmReader, EvmTxFilter, ExportStore, PChainReader, PTxFilter, PageRequest, SortOrder,
    StoreError, TxParties,
};

use super::csv;
use super::request::{self, ExportSpec};
use crate::metrics_api::clock::unix_ms as now_ms;
use crate::params::{parse_evm_address, parse_pchain_address};
use crate::state::AppState;
use crate::wire::pchain::Ctx;

/// Bytes of CSV gathered before they are written as one piece.
const PIECE_BYTES: usize = 256 * 1024;
/// Rows read per store page.
const PAGE: u32 = 100;
/// How often expired jobs are deleted.
const SWEEP: Duration = Duration::from_secs(60);

/// Why a job stopped before its end.
#[derive(Debug, thiserror::Error)]
enum JobError {
    #[error("another process took the job over")]
    LostLease,
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("the stored request is unreadable: {0}")]
    BadSpec(String),
}

/// Runs the worker over `state`'s store until `shutdown` completes, then gives up its lease.
pub async fn run(state: AppState, shutdown: impl Future<Output = ()>) {
    let worker = uuid::Uuid::new_v4().to_string();
    let config = state.config.exports.clone();
    let mut poll = tokio::time::interval(config.poll);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut swept: Option<tokio::time::Instant> = None;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            _ = poll.tick() => {}
        }
        if swept.is_none_or(|at| at.elapsed() >= SWEEP) {
            swept = Some(tokio::time::Instant::now());
            if let Err(e) = state.store.delete_expired_exports(now_ms()).await {
                tracing::warn!(target: "operations", error = %e, "deleting expired exports failed");
            }
        }
        // Work every job waiting before polling again.
        loop {
            let now = now_ms();
            let until = now.saturating_add(config.lease.as_millis() as u64);
            let job = match state.store.lease_export_job(&worker, now, until).await {
                Ok(Some(job)) => job,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!(target: "operations", error = %e, "leasing an export job failed");
                    break;
                }
            };
            tokio::select! {
                () = &mut shutdown => {
                    release(&state, &worker).await;
                    return;
                }
                () = work(&state, &worker, job) => {}
            }
        }
    }
    release(&state, &worker).await;
}

async fn release(state: &AppState, worker: &str) {
    if let Err(e) = state.store.release_export_jobs(worker).await {
        tracing::warn!(target: "operations", error = %e, "releasing export jobs failed");
    }
}

/// Runs `job` to its end and records the outcome.
async fn work(state: &AppState, worker: &str, job: ExportJobRecord) {
    let id = job.id.clone();
    tracing::info!(target: "operations", id, kind = job.job_type, "export started");
    let mut file = File::new(state, worker, &id);
    let outcome = match export(state, &job, &mut file).await {
        Ok(next_date) => Ok(next_date),
        Err(JobError::LostLease) => {
            tracing::info!(target: "operations", id, "export taken over by another process");
            return;
        }
        Err(e) => {
            tracing::warn!(target: "operations", id, error = %e, "export failed");
            // Store failures are logged, not shown: their text is the server's business.
            Err(match e {
                JobError::Store(_) => "an internal error (the server's log has it)".to_owned(),
                other => other.to_string(),
            })
        }
    };
    let expires_at = now_ms().saturating_add(state.config.exports.keep.as_millis() as u64);
    let outcome = match outcome {
        Ok(None) => ExportOutcome {
            status: ExportStatus::Completed,
            code: None,
            message: None,
            next_date: None,
            expires_at,
        },
        Ok(Some(next)) => ExportOutcome {
            status: ExportStatus::CompletedWithWarning,
            code: Some("WarnTruncatedExport".to_owned()),
            message: Some(format!(
                "the export holds its first {} rows; export again from nextDate for the rest \
                 (rows of that day already in this file are repeated)",
                file.rows
            )),
            next_date: Some(next),
            expires_at,
        },
        Err(why) => ExportOutcome {
            status: ExportStatus::Failed,
            code: Some("ErrInternal".to_owned()),
            message: Some(format!("the export failed: {why}")),
            next_date: None,
            expires_at,
        },
    };
    match state
        .store
        .finish_export_job(&id, worker, &outcome, now_ms())
        .await
    {
        Ok(true) => {
            tracing::info!(target: "operations", id, status = outcome.status.as_str(), rows = file.rows, "export ended");
        }
        Ok(false) => {
            tracing::info!(target: "operations", id, "export taken over by another process");
        }
        Err(e) => {
            tracing::warn!(target: "operations", id, error = %e, "recording an export's end failed; it runs again");
        }
    }
}

/// The CSV being written: rows gathered in memory, written as pieces.
struct File<'a> {
    state: &'a AppState,
    worker: &'a str,
    id: &'a str,
    buf: Vec<u8>,
    seq: u64,
    rows: u64,
}

impl<'a> File<'a> {
    fn new(state: &'a AppState, worker: &'a str, id: &'a str) -> Self {
        Self {
            state,
            worker,
            id,
            buf: Vec::new(),
            seq: 0,
            rows: 0,
        }
    }

    fn full(&self) -> bool {
        self.rows >= self.state.config.exports.max_rows
    }

    fn header(&mut self, fields: &[&str]) {
        csv::write_record(&mut self.buf, fields);
    }

    async fn row(&mut self, fields: &[String]) -> Result<(), JobError> {
        csv::write_record(&mut self.buf, fields);
        self.rows += 1;
        if self.buf.len() >= PIECE_BYTES {
            self.flush().await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> Result<(), JobError> {
        let chunk = ExportChunk {
            seq: self.seq,
            data: std::mem::take(&mut self.buf),
        };
        let until = now_ms().saturating_add(self.state.config.exports.lease.as_millis() as u64);
        let held = self
            .state
            .store
            .append_export_chunk(self.id, self.worker, &chunk, self.rows, until)
            .await?;
        if !held {
            return Err(JobError::LostLease);
        }
        self.seq += 1;
        Ok(())
    }
}

/// Writes the whole file of `job`; the day to continue from if it was truncated.
async fn export(
    state: &AppState,
    job: &ExportJobRecord,
    file: &mut File<'_>,
) -> Result<Option<String>, JobError> {
    let spec: ExportSpec =
        serde_json::from_str(&job.request).map_err(|e| JobError::BadSpec(e.to_string()))?;
    let next = if spec.kind == request::EVM {
        file.header(&csv::EVM_HEADER);
        export_evm(state, &spec, file).await?
    } else if spec.kind == request::PRIMARY_NETWORK_SIMPLE {
        file.header(&csv::PCHAIN_SIMPLE_HEADER);
        export_pchain(state, &spec, file).await?
    } else {
        file.header(&csv::PCHAIN_HEADER);
        export_pchain(state, &spec, file).await?
    };
    // The last piece, or the header alone of an export without rows.
    file.flush().await?;
    Ok(next.map(|ts| request::format_day(ts / DAY)))
}

/// The EVM rows; the time of the first row left out if the file filled up.
async fn export_evm(
    state: &AppState,
    spec: &ExportSpec,
    file: &mut File<'_>,
) -> Result<Option<u64>, JobError> {
    let (from_ts, to_ts) = (spec.first_day * DAY, (spec.last_day + 1) * DAY);
    for &chain_id in &spec.chains {
        // Blocks of the days asked for: after the last block before the first day, up to the
        // last block before the day after the last.
        let first_block = |ts| async move {
            let before = state.store.find_last_evm_block_before(chain_id, ts).await?;
            Ok::<_, StoreError>(before.map_or(0, |n| n + 1))
        };
        let (start, end) = (first_block(from_ts).await?, first_block(to_ts).await?);
        if start >= end {
            continue;
        }
        for text in &spec.addresses {
            let address = parse_evm_address(text)
                .ok_or_else(|| JobError::BadSpec(format!("address {text:?}")))?;
            let filter = EvmTxFilter {
                chain_id,
                address: Some(address),
                parties: TxParties::Any,
                start_block: Some(start),
                end_block: Some(end),
                order: SortOrder::Asc,
                ..EvmTxFilter::default()
            };
            let mut page = PageRequest::<TxCursor>::first(PAGE);
            loop {
                let got = state.store.list_evm_txs(&filter, &page).await?;
                for tx in &got.items {
                    if file.full() {
                        return Ok(Some(tx.timestamp));
                    }
                    file.row(&csv::evm_row(text, tx)).await?;
                }
                match got.next {
                    Some(next) => page = PageRequest::after(PAGE, next),
                    None => break,
                }
            }
        }
    }
    Ok(None)
}

/// The P-Chain rows; the time of the first row left out if the file filled up.
async fn export_pchain(
    state: &AppState,
    spec: &ExportSpec,
    file: &mut File<'_>,
) -> Result<Option<u64>, JobError> {
    let hrp = &state.config.network.hrp;
    let addresses = spec
        .addresses
        .iter()
        .map(|a| {
            parse_pchain_address(a, hrp).ok_or_else(|| JobError::BadSpec(format!("address {a:?}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let tx_types = if spec.kind == request::PRIMARY_NETWORK_STAKING {
        request::STAKING_TX_TYPES
            .iter()
            .map(|t| (*t).to_owned())
            .collect()
    } else {
        Vec::new()
    };
    let filter = PTxFilter {
        addresses,
        tx_types,
        start_ts: Some(spec.first_day * DAY),
        end_ts: Some((spec.last_day + 1) * DAY - 1),
        ..PTxFilter::default()
    };
    let simple = spec.kind == request::PRIMARY_NETWORK_SIMPLE;
    let ctx = Ctx::new(&state.config.network, &state.avax_asset_cb58);
    let mut page = PageRequest::<TxCursor>::first(PAGE);
    loop {
        let got = state
            .store
            .list_pchain_txs(&filter, SortOrder::Asc, &page)
            .await?;
        for tx in &got.items {
            if file.full() {
                return Ok(Some(tx.timestamp));
            }
            file.row(&csv::pchain_row(ctx, tx, simple)).await?;
        }
        match got.next {
            Some(next) => page = PageRequest::after(PAGE, next),
            None => return Ok(None),
        }
    }
}
