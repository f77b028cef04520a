-- What a P-Chain balance needs of each UTXO, on its owners' rows (version 33, PostgreSQL):
-- the balances of an address (getBalancesByAddresses) and its lists filtered by asset read
-- the owner's own rows, in its key range, instead of looking every UTXO up in `p_utxos`.
--
-- The columns are `p_utxos`' own (u64 bit patterns, NULL where it has NULL), and `exported`
-- is 1 for an output consumed on another chain (the P-Chain never holds it). Existing rows
-- are filled from `p_utxos`; new ones are written with them.
ALTER TABLE p_utxo_owners
    ADD COLUMN asset_id BYTEA,
    ADD COLUMN locktime BIGINT,
    ADD COLUMN stakeable_locktime BIGINT,
    ADD COLUMN staked BIGINT,
    ADD COLUMN start_ts BIGINT,
    ADD COLUMN end_ts BIGINT,
    ADD COLUMN exported BIGINT;

UPDATE p_utxo_owners SET asset_id = u.asset_id, locktime = u.locktime,
    stakeable_locktime = u.stakeable_locktime, staked = u.staked, start_ts = u.start_ts,
    end_ts = u.end_ts,
    exported = CASE WHEN u.consumed_on_chain = decode(repeat('00', 32), 'hex') THEN 0 ELSE 1 END
FROM p_utxos u WHERE u.utxo_id = p_utxo_owners.utxo_id;
