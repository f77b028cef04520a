-- The failed transactions of a chain (version 7, SQLite).
--
-- `status=failed` on a chain's latest transactions walked every transaction to find the
-- few that failed; this partial index holds only those. Successful ones need none: a walk
-- skips the failures it meets, a small share of any chain.
CREATE INDEX evm_txs_failed ON evm_txs (chain_id, number, tx_index) WHERE success = 0;
