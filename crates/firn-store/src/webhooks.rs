//! [`WebhookStore`] for [`Store`]: webhooks, their addresses and secrets, and the outbox.
//!
//! Webhook state is not index data: its writes commit without moving the store generation
//! (`WriteTx::commit_unindexed`), so deliveries do not throw away the Data API's cached pages.
//! A webhook is matched and delivered by the process holding its lease; every write a holder
//! makes checks the lease in the same statement, so a process that lost it writes nothing.

use sqlx::AnyConnection;

use crate::codec::{RowExt, int};
use crate::error::{Result, StoreError};
use crate::page::{Page, PageRequest, TokenCursor, WebhookCursor};
use crate::row::Row;
use crate::rows::webhooks::{
    MatchedStep, NewEvent, NewWebhook, OutboxEvent, Retry, WebhookRecord, WebhookUpdate,
};
use crate::sql::{Sql, insert_many};
use crate::store::Store;
use crate::traits::WebhookStore;
use crate::types::Address;

const COLUMNS: &str = "id, owner, event_type, chain_id, evm_chain_id, url, name, description, \
     status, created_at, metadata, include_internal_txs, include_logs, matched_through, failures, \
     inactive_reason, match_state, match_epoch";

fn decode(r: &dyn Row) -> Result<WebhookRecord> {
    Ok(WebhookRecord {
        id: r.text("id")?,
        owner: r.text("owner")?,
        event_type: r.text("event_type")?,
        chain_id: r.text("chain_id")?,
        evm_chain_id: r.opt_u64("evm_chain_id")?,
        url: r.text("url")?,
        name: r.text("name")?,
        description: r.text("description")?,
        active: r.text("status")? == "active",
        created_at: r.u64("created_at")?,
        metadata: r.text("metadata")?,
        include_internal_txs: r.bool("include_internal_txs")?,
        include_logs: r.bool("include_logs")?,
        matched_through: r.u64("matched_through")?,
        failures: r.u32("failures")?,
        inactive_reason: r.opt_text("inactive_reason")?,
        match_state: r.opt_text("match_state")?,
        match_epoch: r.u64("match_epoch")?,
    })
}

fn decode_event(r: &dyn Row) -> Result<OutboxEvent> {
    Ok(OutboxEvent {
        seq: r.u64("seq")?,
        message_id: r.text("message_id")?,
        body: r.bytes("body")?,
        attempts: r.u32("attempts")?,
        next_attempt_at: r.u64("next_attempt_at")?,
        enqueued_at: r.u64("enqueued_at")?,
    })
}

fn status(active: bool) -> &'static str {
    if active { "active" } else { "inactive" }
}

/// The webhook `id` of `owner`, read inside a write transaction.
async fn load(conn: &mut AnyConnection, owner: &str, id: &str) -> Result<Option<WebhookRecord>> {
    let row = sqlx::query(&format!(
        "SELECT {COLUMNS} FROM webhooks WHERE id = $1 AND owner = $2"
    ))
    .bind(id.to_owned())
    .bind(owner.to_owned())
    .fetch_optional(&mut *conn)
    .await?;
    row.as_ref().map(|r| decode(r)).transpose()
}

impl WebhookStore for Store {
    async fn create_webhook(&self, new: &NewWebhook) -> Result<()> {
        let w = &new.webhook;
        let mut tx = self.begin_write().await?;
        sqlx::query(&format!(
            "INSERT INTO webhooks ({COLUMNS}, next_seq) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', $9, $10, $11, $12, $13, 0, NULL, NULL, 0, 0)"
        ))
        .bind(w.id.clone())
        .bind(w.owner.clone())
        .bind(w.event_type.clone())
        .bind(w.chain_id.clone())
        .bind(w.evm_chain_id.map(|c| int("chain id", c)).transpose()?)
        .bind(w.url.clone())
        .bind(w.name.clone())
        .bind(w.description.clone())
        .bind(int("created at", w.created_at)?)
        .bind(w.metadata.clone())
        .bind(i64::from(w.include_internal_txs))
        .bind(i64::from(w.include_logs))
        .bind(int("matched through", w.matched_through)?)
        .execute(&mut *tx.tx)
        .await?;
        insert_addresses(&mut tx.tx, &w.id, &new.addresses).await?;
        tx.commit_unindexed().await
    }

    async fn find_webhook(&self, owner: &str, id: &str) -> Result<Option<WebhookRecord>> {
        let mut q = Sql::new(&format!("SELECT {COLUMNS} FROM webhooks WHERE id = "));
        q.bind(id.to_owned())
            .push(" AND owner = ")
            .bind(owner.to_owned());
        self.fetch_optional(q, decode).await
    }

    async fn list_webhooks(
        &self,
        owner: &str,
        active: Option<bool>,
        page: &PageRequest<WebhookCursor>,
    ) -> Result<Page<WebhookRecord, WebhookCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new(&format!("SELECT {COLUMNS} FROM webhooks WHERE owner = "));
        q.bind(owner.to_owned());
        if let Some(active) = active {
            q.push(" AND status = ").bind(status(active));
        }
        if let Some(c) = &page.after {
            q.push(" AND (created_at, id) > (")
                .bind(int("created at", c.created_at)?)
                .push(", ")
                .bind(c.id.clone())
                .push(")");
        }
        q.push(" ORDER BY created_at, id").limit(limit + 1);
        let rows = self.fetch(q, decode).await?;
        Ok(Page::from_rows(rows, limit, |w| WebhookCursor {
            created_at: w.created_at,
            id: w.id.clone(),
        }))
    }

    async fn update_webhook(
        &self,
        owner: &str,
        id: &str,
        update: &WebhookUpdate,
    ) -> Result<Option<WebhookRecord>> {
        let mut tx = self.begin_write().await?;
        let Some(mut w) = load(&mut tx.tx, owner, id).await? else {
            return Ok(None);
        };
        let reactivated = update.active == Some(true) && !w.active;
        if let Some(name) = &update.name {
            w.name.clone_from(name);
        }
        if let Some(description) = &update.description {
            w.description.clone_from(description);
        }
        if let Some(url) = &update.url {
            w.url.clone_from(url);
        }
        if let Some(v) = update.include_internal_txs {
            w.include_internal_txs = v;
        }
        if let Some(v) = update.include_logs {
            w.include_logs = v;
        }
        if let Some(active) = update.active {
            w.active = active;
        }
        if reactivated {
            // Activity while it was off is not sent; what waits in the outbox still is.
            w.matched_through = w.matched_through.max(update.resume_after);
            w.failures = 0;
            w.inactive_reason = None;
        }
        if update.active == Some(false) {
            w.inactive_reason = None;
        }
        sqlx::query(
            "UPDATE webhooks SET name = $1, description = $2, url = $3, status = $4, \
             include_internal_txs = $5, include_logs = $6, matched_through = $7, failures = $8, \
             inactive_reason = $9 WHERE id = $10",
        )
        .bind(w.name.clone())
        .bind(w.description.clone())
        .bind(w.url.clone())
        .bind(status(w.active))
        .bind(i64::from(w.include_internal_txs))
        .bind(i64::from(w.include_logs))
        .bind(int("matched through", w.matched_through)?)
        .bind(i64::from(w.failures))
        .bind(w.inactive_reason.clone())
        .bind(id.to_owned())
        .execute(&mut *tx.tx)
        .await?;
        tx.commit_unindexed().await?;
        Ok(Some(w))
    }

    async fn change_webhook_addresses(
        &self,
        owner: &str,
        id: &str,
        addresses: &[Address],
        add: bool,
        max: u64,
    ) -> Result<bool> {
        let mut tx = self.begin_write().await?;
        if load(&mut tx.tx, owner, id).await?.is_none() {
            return Ok(false);
        }
        if add {
            insert_addresses(&mut tx.tx, id, addresses).await?;
            let row =
                sqlx::query("SELECT COUNT(*) AS n FROM webhook_addresses WHERE webhook_id = $1")
                    .bind(id.to_owned())
                    .fetch_one(&mut *tx.tx)
                    .await?;
            let n = row.u64("n")?;
            if n > max {
                return Err(StoreError::LimitExceeded(format!(
                    "a webhook watches at most {max} addresses; this change would make it {n}"
                )));
            }
        } else {
            for a in addresses {
                sqlx::query("DELETE FROM webhook_addresses WHERE webhook_id = $1 AND address = $2")
                    .bind(id.to_owned())
                    .bind(a.0.to_vec())
                    .execute(&mut *tx.tx)
                    .await?;
            }
        }
        tx.commit_unindexed().await?;
        Ok(true)
    }

    async fn list_webhook_addresses(
        &self,
        id: &str,
        page: &PageRequest<TokenCursor>,
    ) -> Result<Page<Address, TokenCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT address FROM webhook_addresses WHERE webhook_id = ");
        q.bind(id.to_owned());
        if let Some(c) = &page.after {
            q.push(" AND address > ").bind(c.token.0.to_vec());
        }
        q.push(" ORDER BY address").limit(limit + 1);
        let rows = self.fetch(q, |r| r.address("address")).await?;
        Ok(Page::from_rows(rows, limit, |a| TokenCursor { token: *a }))
    }

    async fn count_webhook_addresses(&self, id: &str) -> Result<u64> {
        let mut q = Sql::new("SELECT COUNT(*) AS n FROM webhook_addresses WHERE webhook_id = ");
        q.bind(id.to_owned());
        Ok(self.fetch_optional(q, |r| r.u64("n")).await?.unwrap_or(0))
    }

    async fn find_webhook_secret(&self, owner: &str) -> Result<Option<String>> {
        let mut q = Sql::new("SELECT secret FROM webhook_secrets WHERE owner = ");
        q.bind(owner.to_owned());
        self.fetch_optional(q, |r| r.text("secret")).await
    }

    async fn put_webhook_secret(&self, owner: &str, secret: &str, replace: bool) -> Result<String> {
        let mut tx = self.begin_write().await?;
        let conflict = if replace {
            "DO UPDATE SET secret = excluded.secret"
        } else {
            "DO NOTHING"
        };
        sqlx::query(&format!(
            "INSERT INTO webhook_secrets (owner, secret) VALUES ($1, $2) ON CONFLICT (owner) {conflict}"
        ))
        .bind(owner.to_owned())
        .bind(secret.to_owned())
        .execute(&mut *tx.tx)
        .await?;
        let row = sqlx::query("SELECT secret FROM webhook_secrets WHERE owner = $1")
            .bind(owner.to_owned())
            .fetch_one(&mut *tx.tx)
            .await?;
        let secret = row.text("secret")?;
        tx.commit_unindexed().await?;
        Ok(secret)
    }

    async fn lease_webhooks(
        &self,
        worker: &str,
        now: u64,
        until: u64,
        max: u32,
    ) -> Result<Vec<WebhookRecord>> {
        let mut tx = self.begin_write().await?;
        // The lease condition stands at the top level as well as in the subquery: PostgreSQL
        // re-checks top-level conditions on a row another transaction just changed, so two
        // processes racing for one webhook cannot both get it.
        const FREE: &str =
            "status = 'active' AND (lease_owner IS NULL OR lease_owner = $1 OR lease_until < $3)";
        let rows = sqlx::query(&format!(
            "UPDATE webhooks SET lease_owner = $1, lease_until = $2 WHERE {FREE} AND id IN \
             (SELECT id FROM webhooks WHERE {FREE} ORDER BY created_at, id LIMIT {max}) \
             RETURNING {COLUMNS}"
        ))
        .bind(worker.to_owned())
        .bind(int("lease", until)?)
        .bind(int("now", now)?)
        .fetch_all(&mut *tx.tx)
        .await?;
        let leased = rows.iter().map(|r| decode(r)).collect::<Result<Vec<_>>>()?;
        tx.commit_unindexed().await?;
        Ok(leased)
    }

    async fn release_webhooks(&self, worker: &str) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query(
            "UPDATE webhooks SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1",
        )
        .bind(worker.to_owned())
        .execute(&mut *tx.tx)
        .await?;
        tx.commit_unindexed().await
    }

    async fn list_webhook_matches(
        &self,
        id: &str,
        chain_id: u64,
        from: u64,
        to: u64,
        limit: u32,
    ) -> Result<Vec<(u64, u32)>> {
        let mut q = Sql::new(
            "SELECT DISTINCT a.number, a.tx_index FROM webhook_addresses w \
             JOIN evm_address_activity a ON a.address = w.address AND a.chain_id = ",
        );
        q.bind(int("chain id", chain_id)?)
            .push(" AND a.number >= ")
            .bind(int("from", from)?)
            .push(" AND a.number <= ")
            .bind(int("to", to)?)
            .push(" WHERE w.webhook_id = ")
            .bind(id.to_owned())
            .push(" ORDER BY a.number, a.tx_index")
            .limit(i64::from(limit));
        self.fetch(q, |r| Ok((r.u64("number")?, r.u32("tx_index")?)))
            .await
    }

    async fn enqueue_webhook_events(
        &self,
        id: &str,
        worker: &str,
        step: &MatchedStep<'_>,
        now: u64,
    ) -> Result<bool> {
        let MatchedStep {
            from,
            epoch,
            through,
            events,
            state,
        } = *step;
        let mut tx = self.begin_write().await?;
        let n = int("events", events.len() as u64)?;
        let row = sqlx::query(
            "UPDATE webhooks SET matched_through = $1, next_seq = next_seq + $2, \
             match_state = COALESCE($6, match_state) \
             WHERE id = $3 AND lease_owner = $4 AND matched_through = $5 AND match_epoch = $7 \
             AND status = 'active' RETURNING next_seq",
        )
        .bind(int("matched through", through)?)
        .bind(n)
        .bind(id.to_owned())
        .bind(worker.to_owned())
        .bind(int("matched through", from)?)
        .bind(state.map(str::to_owned))
        .bind(int("match epoch", epoch)?)
        .fetch_optional(&mut *tx.tx)
        .await?;
        let Some(row) = row else {
            return Ok(false);
        };
        let first = row.u64("next_seq")? - events.len() as u64;
        let at = int("now", now)?;
        let numbered: Vec<(u64, &NewEvent)> = (first..).zip(events).collect();
        insert_many(
            &mut tx.tx,
            "INSERT INTO webhook_outbox (webhook_id, seq, message_id, body, attempts, \
             next_attempt_at, enqueued_at) VALUES ",
            "",
            7,
            &numbered,
            |q, (seq, e)| {
                q.arg(id.to_owned())
                    .arg(int("seq", *seq)?)
                    .arg(e.message_id.clone())
                    .arg(e.body.clone())
                    .arg(0i64)
                    .arg(at)
                    .arg(at);
                Ok(())
            },
        )
        .await?;
        tx.commit_unindexed().await?;
        Ok(true)
    }

    async fn list_webhook_outbox(&self, id: &str, limit: u32) -> Result<Vec<OutboxEvent>> {
        // Joined with the webhook's status: a dispatcher holding settings read just before
        // a deactivation finds nothing to post.
        let mut q = Sql::new(
            "SELECT o.seq, o.message_id, o.body, o.attempts, o.next_attempt_at, o.enqueued_at \
             FROM webhook_outbox o JOIN webhooks w ON w.id = o.webhook_id \
             WHERE w.status = 'active' AND o.webhook_id = ",
        );
        q.bind(id.to_owned())
            .push(" ORDER BY o.seq")
            .limit(i64::from(limit));
        self.fetch(q, decode_event).await
    }

    async fn count_webhook_outbox(&self, id: &str) -> Result<u64> {
        let mut q = Sql::new("SELECT COUNT(*) AS n FROM webhook_outbox WHERE webhook_id = ");
        q.bind(id.to_owned());
        Ok(self.fetch_optional(q, |r| r.u64("n")).await?.unwrap_or(0))
    }

    async fn ack_webhook_events(&self, id: &str, seq: u64) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query("DELETE FROM webhook_outbox WHERE webhook_id = $1 AND seq <= $2")
            .bind(id.to_owned())
            .bind(int("seq", seq)?)
            .execute(&mut *tx.tx)
            .await?;
        sqlx::query("UPDATE webhooks SET failures = 0 WHERE id = $1 AND failures <> 0")
            .bind(id.to_owned())
            .execute(&mut *tx.tx)
            .await?;
        tx.commit_unindexed().await
    }

    async fn fail_webhook_event(&self, id: &str, seq: u64, retry: &Retry) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let next = match retry {
            Retry::At(at) => int("retry at", *at)?,
            Retry::GiveUp(_) => 0,
        };
        sqlx::query(
            "UPDATE webhook_outbox SET attempts = attempts + 1, next_attempt_at = $1 \
             WHERE webhook_id = $2 AND seq = $3",
        )
        .bind(next)
        .bind(id.to_owned())
        .bind(int("seq", seq)?)
        .execute(&mut *tx.tx)
        .await?;
        let reason = match retry {
            Retry::At(_) => None,
            Retry::GiveUp(why) => Some(why.clone()),
        };
        sqlx::query(
            "UPDATE webhooks SET failures = failures + 1, \
             status = CASE WHEN $1 IS NULL THEN status ELSE 'inactive' END, \
             inactive_reason = COALESCE($1, inactive_reason) WHERE id = $2",
        )
        .bind(reason)
        .bind(id.to_owned())
        .execute(&mut *tx.tx)
        .await?;
        tx.commit_unindexed().await
    }
}

async fn insert_addresses(conn: &mut AnyConnection, id: &str, addresses: &[Address]) -> Result<()> {
    insert_many(
        conn,
        "INSERT INTO webhook_addresses (webhook_id, address) VALUES ",
        " ON CONFLICT DO NOTHING",
        2,
        addresses,
        |q, a| {
            q.arg(id.to_owned()).arg(a.0.to_vec());
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// After chain `chain_id` was rolled back to block `to`: its webhooks that matched past it go
/// back to it, and every one of its webhooks moves to a new match epoch, so a matcher's step
/// begun before the rollback writes nothing.
pub(crate) async fn rewind_webhooks(
    conn: &mut AnyConnection,
    chain_id: u64,
    to: u64,
) -> Result<()> {
    sqlx::query(
        "UPDATE webhooks SET match_epoch = match_epoch + 1, \
         matched_through = CASE WHEN matched_through > $2 THEN $2 ELSE matched_through END \
         WHERE evm_chain_id = $1",
    )
    .bind(int("chain id", chain_id)?)
    .bind(int("rollback height", to)?)
    .execute(&mut *conn)
    .await?;
    Ok(())
}
