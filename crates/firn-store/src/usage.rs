//! [`UsageStore`] for [`Store`]: the request logs behind the usage routes.
//!
//! Logs are written in batches by one background flusher per process, never on a request's
//! path, and commit without moving the store generation (`WriteTx::commit_unindexed`): a
//! request being logged must not throw away the Data API's cached pages. Reads filter on the
//! time range first (the primary key), then on the API key when one is given (its index).

use crate::codec::{RowExt, int};
use crate::error::Result;
use crate::page::{LogCursor, Page, PageRequest};
use crate::row::{Row, corrupt};
use crate::rows::usage::{RequestLogFilter, RequestLogRecord, UsageGroup, UsageSample};
use crate::sql::{Sql, insert_many};
use crate::store::Store;
use crate::traits::UsageStore;

const COLUMNS: &str = "time_ms, log_id, api_key_id, request_type, path, chain_id, rpc_method, \
     primary_network, status, duration_ms, ip, host, user_agent";

fn status(r: &dyn Row) -> Result<u16> {
    let v = r.u32("status")?;
    u16::try_from(v).map_err(|_| corrupt("status", format!("value {v} out of range")))
}

fn decode(r: &dyn Row) -> Result<RequestLogRecord> {
    Ok(RequestLogRecord {
        time_ms: r.u64("time_ms")?,
        log_id: r.text("log_id")?,
        api_key_id: r.text("api_key_id")?,
        request_type: r.text("request_type")?,
        path: r.text("path")?,
        chain_id: r.text("chain_id")?,
        rpc_method: r.text("rpc_method")?,
        primary_network: r.bool("primary_network")?,
        status: status(r)?,
        duration_ms: r.u64("duration_ms")?,
        ip: r.text("ip")?,
        host: r.text("host")?,
        user_agent: r.text("user_agent")?,
    })
}

fn decode_sample(r: &dyn Row) -> Result<UsageSample> {
    Ok(UsageSample {
        time_ms: r.u64("time_ms")?,
        group: r.text("grp")?,
        status: status(r)?,
        duration_ms: r.u64("duration_ms")?,
    })
}

/// Appends `filter`'s conditions to `q`, which ends in a `WHERE` clause.
fn push_filter(q: &mut Sql, f: &RequestLogFilter) -> Result<()> {
    q.push(" time_ms >= ")
        .bind(int("from", f.from_ms)?)
        .push(" AND time_ms < ")
        .bind(int("to", f.to_ms)?);
    let texts = [
        ("api_key_id", &f.api_key_id),
        ("request_type", &f.request_type),
        ("chain_id", &f.chain_id),
        ("path", &f.path),
        ("rpc_method", &f.rpc_method),
        ("user_agent", &f.user_agent),
    ];
    for (column, value) in texts {
        if let Some(v) = value {
            q.push(&format!(" AND {column} = ")).bind(v.clone());
        }
    }
    if f.with_chain {
        q.push(" AND chain_id <> ''");
    }
    if let Some(primary) = f.primary_network {
        q.push(" AND primary_network = ").bind(i64::from(primary));
    }
    if let Some(s) = f.status {
        q.push(" AND status = ").bind(i64::from(s));
    }
    Ok(())
}

impl UsageStore for Store {
    async fn record_requests(&self, logs: &[RequestLogRecord]) -> Result<()> {
        if logs.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin_write().await?;
        insert_many(
            &mut tx.tx,
            &format!("INSERT INTO request_logs ({COLUMNS}) VALUES "),
            " ON CONFLICT DO NOTHING",
            13,
            logs,
            |q, l| {
                q.arg(int("time", l.time_ms)?)
                    .arg(l.log_id.clone())
                    .arg(l.api_key_id.clone())
                    .arg(l.request_type.clone())
                    .arg(l.path.clone())
                    .arg(l.chain_id.clone())
                    .arg(l.rpc_method.clone())
                    .arg(i64::from(l.primary_network))
                    .arg(i64::from(l.status))
                    .arg(int("duration", l.duration_ms)?)
                    .arg(l.ip.clone())
                    .arg(l.host.clone())
                    .arg(l.user_agent.clone());
                Ok(())
            },
        )
        .await?;
        tx.commit_unindexed().await
    }

    async fn list_request_logs(
        &self,
        filter: &RequestLogFilter,
        page: &PageRequest<LogCursor>,
    ) -> Result<Page<RequestLogRecord, LogCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new(&format!("SELECT {COLUMNS} FROM request_logs WHERE"));
        push_filter(&mut q, filter)?;
        if let Some(c) = &page.after {
            q.push(" AND (time_ms, log_id) < (")
                .bind(int("time", c.time_ms)?)
                .push(", ")
                .bind(c.log_id.clone())
                .push(")");
        }
        q.push(" ORDER BY time_ms DESC, log_id DESC")
            .limit(limit + 1);
        let rows = self.fetch(q, decode).await?;
        Ok(Page::from_rows(rows, limit, |l| LogCursor {
            time_ms: l.time_ms,
            log_id: l.log_id.clone(),
        }))
    }

    async fn list_usage_samples(
        &self,
        filter: &RequestLogFilter,
        group: UsageGroup,
        limit: u32,
    ) -> Result<Vec<UsageSample>> {
        let mut q = Sql::new(&format!(
            "SELECT time_ms, {} AS grp, status, duration_ms FROM request_logs WHERE",
            group.column()
        ));
        push_filter(&mut q, filter)?;
        q.push(" ORDER BY time_ms, log_id").limit(i64::from(limit));
        self.fetch(q, decode_sample).await
    }

    async fn prune_request_logs(&self, before_ms: u64, keep: u64) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let mut deleted = sqlx::query("DELETE FROM request_logs WHERE time_ms < $1")
            .bind(int("before", before_ms)?)
            .execute(&mut *tx.tx)
            .await?
            .rows_affected();
        // The time of the newest row past the cap: it and everything older go (rows sharing
        // that millisecond with kept rows too, so the table ends at or just under the cap).
        let edge = sqlx::query(
            "SELECT time_ms FROM request_logs ORDER BY time_ms DESC, log_id DESC LIMIT 1 OFFSET $1",
        )
        .bind(int("keep", keep)?)
        .fetch_optional(&mut *tx.tx)
        .await?;
        if let Some(edge) = edge {
            deleted += sqlx::query("DELETE FROM request_logs WHERE time_ms <= $1")
                .bind(edge.i64("time_ms")?)
                .execute(&mut *tx.tx)
                .await?
                .rows_affected();
        }
        tx.commit_unindexed().await?;
        Ok(deleted)
    }
}
