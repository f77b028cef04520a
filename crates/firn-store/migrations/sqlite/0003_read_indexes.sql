-- Read-side indexes for the Data API's lists (version 3, SQLite): none needed.
--
-- PostgreSQL's version 3 adds covering indexes for the per-address and per-L1-validation tx
-- lists. Here those tables are WITHOUT ROWID, so their primary keys already hold the filter
-- columns (tx_type, timestamp); this file keeps the two backends' version numbers in step.
SELECT 1;
