-- Shared memory between the primary network's chains (version 28, SQLite): the UTXOs an
-- ExportTx put in another chain's atomic memory, each under each owner and its destination,
-- and the ImportTxs that took them out. A UTXO is in atomic memory while it is exported and
-- not imported; the two sides are written by the indexers of different chains, in either
-- order, so neither table refers to the other.
--
-- Amounts and locktimes are u64 bit patterns like every amount in the store.
CREATE TABLE atomic_exports (
    utxo_id            BLOB PRIMARY KEY,
    tx_id              BLOB NOT NULL,
    output_index       INTEGER NOT NULL,
    source_chain       BLOB NOT NULL,
    destination_chain  BLOB NOT NULL,
    asset_id           BLOB NOT NULL,
    amount             INTEGER NOT NULL,
    threshold          INTEGER NOT NULL,
    locktime           INTEGER NOT NULL,
    addresses          BLOB NOT NULL,
    timestamp          INTEGER NOT NULL
);

CREATE TABLE atomic_export_owners (
    address            BLOB NOT NULL,
    destination_chain  BLOB NOT NULL,
    utxo_id            BLOB NOT NULL,
    PRIMARY KEY (address, destination_chain, utxo_id)
) WITHOUT ROWID;

CREATE TABLE atomic_imports (
    utxo_id            BLOB PRIMARY KEY,
    source_chain       BLOB NOT NULL,
    tx_id              BLOB NOT NULL,
    timestamp          INTEGER NOT NULL
);

-- What the X-Chain's txs burned, per asset (their inputs less their outputs, exports
-- included): a running total, a 16-byte big-endian u128.
CREATE TABLE x_burned (
    asset_id  BLOB PRIMARY KEY,
    amount    BLOB NOT NULL
);
