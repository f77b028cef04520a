-- Each P-Chain UTXO under each of its owners (version 14, SQLite): the UTXO lists, balances
-- and last activity of addresses (getUtxosByAddresses, getBalancesByAddresses,
-- getLastActivityTimestampByAddresses) walk an owner's rows in the order they page in.
--
-- Amounts are u64 bit patterns like every amount in the store (an amount at or above 2^63
-- would order as negative; the P-Chain's supply is below 2^60). `spent_*` is set when a
-- transaction consumes the UTXO. An older store's rows are derived once, at open, from
-- `p_utxos` (the `p_utxo_owners` upgrade).
CREATE TABLE p_utxo_owners (
    address          BLOB NOT NULL,
    utxo_id          BLOB NOT NULL,
    height           INTEGER NOT NULL,
    timestamp        INTEGER NOT NULL,
    amount           INTEGER NOT NULL,
    spent_height     INTEGER,
    spent_timestamp  INTEGER,
    PRIMARY KEY (address, utxo_id)
) WITHOUT ROWID;

-- Every UTXO of an owner by creation (includeSpent, the last UTXO created).
CREATE INDEX p_utxo_owners_by_height ON p_utxo_owners (address, height, utxo_id);
-- Unspent UTXOs by creation and by amount (the default lists).
CREATE INDEX p_utxo_owners_unspent_by_height ON p_utxo_owners (address, height, utxo_id)
    WHERE spent_height IS NULL;
CREATE INDEX p_utxo_owners_unspent_by_amount ON p_utxo_owners (address, amount, utxo_id)
    WHERE spent_height IS NULL;
-- The last UTXO an owner spent.
CREATE INDEX p_utxo_owners_by_spent ON p_utxo_owners (address, spent_height, utxo_id)
    WHERE spent_height IS NOT NULL;

INSERT INTO store_upgrades (name) VALUES ('p_utxo_owners');
