-- What a webhook's matcher remembers between steps (version 24, PostgreSQL).
--
-- Threshold sub-events fire when a balance crosses below a threshold, once per crossing: the
-- matcher keeps the keys now below (JSON) and writes them with the cursor, in one transaction,
-- so a restart neither repeats nor loses a crossing. NULL: nothing remembered.
ALTER TABLE webhooks ADD COLUMN match_state TEXT;
