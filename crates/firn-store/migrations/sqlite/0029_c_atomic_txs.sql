-- The C-Chain's atomic txs (version 29, SQLite): coreth's ImportTx and ExportTx carried in
-- C-Chain blocks' extra data, by block height and position, with their signed bytes, and the
-- parties each names for the address filter: the X-/P-Chain owners of the UTXOs it imports or
-- exports (a 0 byte before the 20-byte short ID) and the EVM accounts it credits or debits (a 1
-- byte before the 20-byte address). Their UTXOs go to `atomic_exports` and `atomic_imports`
-- with the other chains'.
CREATE TABLE c_atomic_txs (
    chain_id    INTEGER NOT NULL,
    height      INTEGER NOT NULL,
    tx_index    INTEGER NOT NULL,
    tx_id       BLOB NOT NULL UNIQUE,
    tx_type     TEXT NOT NULL,
    timestamp   INTEGER NOT NULL,
    block_hash  BLOB NOT NULL,
    peer_chain  BLOB NOT NULL,
    bytes       BLOB NOT NULL,
    PRIMARY KEY (height, tx_index)
);

CREATE TABLE c_atomic_tx_parties (
    party      BLOB NOT NULL,
    height     INTEGER NOT NULL,
    tx_index   INTEGER NOT NULL,
    timestamp  INTEGER NOT NULL,
    PRIMARY KEY (party, height, tx_index)
) WITHOUT ROWID;
