-- Transaction lists filtered by type walk one (source, type) range each (version 6, SQLite).
--
-- A txTypes filter used to be tested row by row while walking an address's (or an L1
-- validation's, or every) transaction in order: an address with a million BaseTxs walked all
-- of them to find a page of ImportTxs. With the type ahead of the position, each requested
-- type is its own ordered range that stops after a page, and the pages merge. The block
-- time is a trailing column so the time window is tested inside the index.
CREATE INDEX p_txs_by_type ON p_txs (tx_type, height, tx_index, timestamp);
CREATE INDEX p_tx_addresses_by_type
    ON p_tx_addresses (address, tx_type, height, tx_index, timestamp);
CREATE INDEX p_tx_l1_validations_by_type
    ON p_tx_l1_validations (validation_id, tx_type, height, tx_index, timestamp);
