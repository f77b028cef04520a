-- What the C-Chain's atomic txs burned (version 30, SQLite): each tx's AVAX consumed less
-- produced (its fee, nAVAX; 0 for rows indexed before this version), and a running total per
-- chain (a 16-byte big-endian u128) that getAvaxSupply adds to the C-Chain's burned fees.
ALTER TABLE c_atomic_txs ADD COLUMN burned INTEGER NOT NULL DEFAULT 0;

CREATE TABLE c_atomic_burned (
    chain_id  INTEGER PRIMARY KEY,
    amount    BLOB NOT NULL
);
