-- What a webhook's matcher remembers between steps (version 24, PostgreSQL).
--
-- Threshold sub-events fire when a balance crosses below a threshold, once per crossing: the
-- matcher keeps the keys now below (JSON) and writes them with the cursor, in one transaction,
-- so a restart neither repeats nor loses a crossing. NULL: nothing remembered.
--
-- `match_epoch` counts the rollbacks of the webhook's chain: a rollback moves
-- `matched_through` back to the new tip and bumps it, and a matcher's write names the epoch it
-- read, so a step over blocks that were undone meanwhile writes nothing.
ALTER TABLE webhooks ADD COLUMN match_state TEXT;
ALTER TABLE webhooks ADD COLUMN match_epoch BIGINT NOT NULL DEFAULT 0;
