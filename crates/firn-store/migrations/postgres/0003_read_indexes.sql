-- Read-side indexes for the Data API's lists (version 3, PostgreSQL).
--
-- The per-address and per-L1-validation tx lists filter on tx type and time while walking
-- (address, height, tx_index) in order. Their primary keys carry only the key columns, so
-- each step of the walk fetched a heap row to test the filter: a txTypes filter read every
-- heap page of a busy address before its LIMIT applied. With the filter columns included
-- the walk is an index-only scan that stops after a page. (SQLite's tables are WITHOUT ROWID:
-- their primary key already holds every column.)
CREATE INDEX p_tx_addresses_covering ON p_tx_addresses (address, height, tx_index)
    INCLUDE (tx_type, timestamp);
CREATE INDEX p_tx_l1_validations_covering ON p_tx_l1_validations (validation_id, height, tx_index)
    INCLUDE (tx_type, timestamp);
