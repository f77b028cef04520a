//! [`ExportStore`] for [`Store`]: transaction export jobs and their files.
//!
//! Export state is not index data: its writes commit without moving the store generation
//! (`WriteTx::commit_unindexed`), so a running export does not throw away the Data API's cached
//! pages. A file is kept as ordered pieces (`export_chunks`) in the database itself, so every
//! process on one PostgreSQL serves every download. A running job is worked by the process
//! holding its lease; the holder's writes check the lease in the same statement, so a process
//! that lost it (it stalled past the lease and another took over) writes nothing.

use crate::codec::{RowExt, int};
use crate::error::Result;
use crate::row::Row;
use crate::rows::exports::{
    ExportChunk, ExportJobRecord, ExportOutcome, ExportStatus, NewExportJob,
};
use crate::sql::Sql;
use crate::store::Store;
use crate::traits::ExportStore;

const COLUMNS: &str = "id, owner, job_type, request, download_url, status, code, message, \
     next_date, progress, created_at, updated_at, expires_at";

fn decode(r: &dyn Row) -> Result<ExportJobRecord> {
    Ok(ExportJobRecord {
        id: r.text("id")?,
        owner: r.text("owner")?,
        job_type: r.text("job_type")?,
        request: r.text("request")?,
        download_url: r.text("download_url")?,
        status: ExportStatus::decode("status", &r.text("status")?)?,
        code: r.opt_text("code")?,
        message: r.opt_text("message")?,
        next_date: r.opt_text("next_date")?,
        progress: r.u64("progress")?,
        created_at: r.u64("created_at")?,
        updated_at: r.u64("updated_at")?,
        expires_at: r.u64("expires_at")?,
    })
}

impl ExportStore for Store {
    async fn create_export_job(&self, new: &NewExportJob) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(&format!(
            "INSERT INTO export_jobs ({COLUMNS}) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL, NULL, 0, $7, $7, $8)"
        ))
        .bind(new.id.clone())
        .bind(new.owner.clone())
        .bind(new.job_type.clone())
        .bind(new.request.clone())
        .bind(new.download_url.clone())
        .bind(ExportStatus::Running.as_str())
        .bind(int("created at", new.created_at)?)
        .bind(int("expires at", new.expires_at)?)
        .execute(&mut *tx.tx)
        .await?;
        tx.commit_unindexed().await
    }

    async fn find_export_job(&self, owner: &str, id: &str) -> Result<Option<ExportJobRecord>> {
        let mut q = Sql::new(&format!("SELECT {COLUMNS} FROM export_jobs WHERE id = "));
        q.bind(id.to_owned())
            .push(" AND owner = ")
            .bind(owner.to_owned());
        self.fetch_optional(q, decode).await
    }

    async fn lease_export_job(
        &self,
        worker: &str,
        now: u64,
        until: u64,
    ) -> Result<Option<ExportJobRecord>> {
        let mut tx = self.begin_write().await?;
        // The lease condition stands at the top level as well as in the subquery: PostgreSQL
        // re-checks top-level conditions on a row another transaction just changed, so two
        // processes racing for one job cannot both get it.
        const FREE: &str = "status = 'RUNNING' AND \
             (lease_owner IS NULL OR lease_owner = $1 OR lease_until < $3)";
        let row = sqlx::query(&format!(
            "UPDATE export_jobs SET lease_owner = $1, lease_until = $2, progress = 0 \
             WHERE {FREE} AND id IN \
             (SELECT id FROM export_jobs WHERE {FREE} ORDER BY created_at, id LIMIT 1) \
             RETURNING {COLUMNS}"
        ))
        .bind(worker.to_owned())
        .bind(int("lease", until)?)
        .bind(int("now", now)?)
        .fetch_optional(&mut *tx.tx)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let job = decode(&row)?;
        // A previous holder's pieces are of a file this holder writes again from the start.
        sqlx::query("DELETE FROM export_chunks WHERE job_id = $1")
            .bind(job.id.clone())
            .execute(&mut *tx.tx)
            .await?;
        tx.commit_unindexed().await?;
        Ok(Some(job))
    }

    async fn append_export_chunk(
        &self,
        id: &str,
        worker: &str,
        chunk: &ExportChunk,
        progress: u64,
        until: u64,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let held = sqlx::query(
            "UPDATE export_jobs SET progress = $1, lease_until = $2 \
             WHERE id = $3 AND lease_owner = $4 AND status = 'RUNNING'",
        )
        .bind(int("progress", progress)?)
        .bind(int("lease", until)?)
        .bind(id.to_owned())
        .bind(worker.to_owned())
        .execute(&mut *tx.tx)
        .await?
        .rows_affected();
        if held == 0 {
            return Ok(false);
        }
        sqlx::query("INSERT INTO export_chunks (job_id, seq, data) VALUES ($1, $2, $3)")
            .bind(id.to_owned())
            .bind(int("seq", chunk.seq)?)
            .bind(chunk.data.clone())
            .execute(&mut *tx.tx)
            .await?;
        tx.commit_unindexed().await?;
        Ok(true)
    }

    async fn finish_export_job(
        &self,
        id: &str,
        worker: &str,
        outcome: &ExportOutcome,
        now: u64,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        let done = sqlx::query(
            "UPDATE export_jobs SET status = $1, code = $2, message = $3, next_date = $4, \
             updated_at = $5, expires_at = $6, lease_owner = NULL, lease_until = NULL \
             WHERE id = $7 AND lease_owner = $8 AND status = 'RUNNING'",
        )
        .bind(outcome.status.as_str())
        .bind(outcome.code.clone())
        .bind(outcome.message.clone())
        .bind(outcome.next_date.clone())
        .bind(int("now", now)?)
        .bind(int("expires at", outcome.expires_at)?)
        .bind(id.to_owned())
        .bind(worker.to_owned())
        .execute(&mut *tx.tx)
        .await?
        .rows_affected();
        tx.commit_unindexed().await?;
        Ok(done > 0)
    }

    async fn release_export_jobs(&self, worker: &str) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "UPDATE export_jobs SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1",
        )
        .bind(worker.to_owned())
        .execute(&mut *tx.tx)
        .await?;
        tx.commit_unindexed().await
    }

    async fn list_export_chunks(
        &self,
        id: &str,
        from: u64,
        limit: u32,
    ) -> Result<Vec<ExportChunk>> {
        let mut q = Sql::new("SELECT seq, data FROM export_chunks WHERE job_id = ");
        q.bind(id.to_owned())
            .push(" AND seq >= ")
            .bind(int("seq", from)?)
            .push(" ORDER BY seq")
            .limit(i64::from(limit));
        self.fetch(q, |r| {
            Ok(ExportChunk {
                seq: r.u64("seq")?,
                data: r.bytes("data")?,
            })
        })
        .await
    }

    async fn delete_expired_exports(&self, now: u64) -> Result<u64> {
        let mut tx = self.begin_write().await?;
        let now = int("now", now)?;
        sqlx::query(
            "DELETE FROM export_chunks WHERE job_id IN \
             (SELECT id FROM export_jobs WHERE expires_at < $1)",
        )
        .bind(now)
        .execute(&mut *tx.tx)
        .await?;
        let jobs = sqlx::query("DELETE FROM export_jobs WHERE expires_at < $1")
            .bind(now)
            .execute(&mut *tx.tx)
            .await?
            .rows_affected();
        tx.commit_unindexed().await?;
        Ok(jobs)
    }
}
