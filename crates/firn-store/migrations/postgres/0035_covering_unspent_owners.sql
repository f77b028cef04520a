-- The owners' unspent-UTXO indexes carry what a balance and the default UTXO lists read (version
-- 35, PostgreSQL), so those can be index-only scans instead of visiting the table per row.
DROP INDEX p_utxo_owners_unspent_by_height;
CREATE INDEX p_utxo_owners_unspent_by_height ON p_utxo_owners (address, height, utxo_id)
    INCLUDE (spent_height, exported, asset_id, amount, staked, locktime, stakeable_locktime,
    start_ts, end_ts) WHERE spent_height IS NULL;

DROP INDEX x_utxo_owners_unspent;
CREATE INDEX x_utxo_owners_unspent ON x_utxo_owners (address, height, utxo_id)
    INCLUDE (spent_height, output_kind, asset_id, amount, locktime, owner_count)
    WHERE spent_height IS NULL;
