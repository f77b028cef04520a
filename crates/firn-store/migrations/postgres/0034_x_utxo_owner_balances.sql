-- What an X-Chain balance needs of each UTXO, on its owners' rows (version 34, PostgreSQL):
-- the balances of an address and its UTXO lists filtered by asset or amount read the owner's
-- own rows, in its key range, instead of looking every UTXO up in `x_utxos`.
--
-- The columns are `x_utxos`' own (amounts u64 bit patterns, NULL for outputs without one).
-- Existing rows are filled from `x_utxos`; new ones are written with them.
ALTER TABLE x_utxo_owners
    ADD COLUMN asset_id BYTEA,
    ADD COLUMN output_kind TEXT,
    ADD COLUMN amount BIGINT,
    ADD COLUMN locktime BIGINT,
    ADD COLUMN owner_count BIGINT;

UPDATE x_utxo_owners SET asset_id = u.asset_id, output_kind = u.output_kind, amount = u.amount,
    locktime = u.locktime, owner_count = u.owner_count
FROM x_utxos u WHERE u.utxo_id = x_utxo_owners.utxo_id;
