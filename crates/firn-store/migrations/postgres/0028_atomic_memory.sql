-- Shared memory between the primary network's chains (version 28, PostgreSQL): the UTXOs an
-- ExportTx put in another chain's atomic memory, each under each owner and its destination,
-- and the ImportTxs that took them out. A UTXO is in atomic memory while it is exported and
-- not imported; the two sides are written by the indexers of different chains, in either
-- order, so neither table refers to the other.
--
-- Amounts and locktimes are u64 bit patterns like every amount in the store.
CREATE TABLE atomic_exports (
    utxo_id            BYTEA PRIMARY KEY,
    tx_id              BYTEA NOT NULL,
    output_index       BIGINT NOT NULL,
    source_chain       BYTEA NOT NULL,
    destination_chain  BYTEA NOT NULL,
    asset_id           BYTEA NOT NULL,
    amount             BIGINT NOT NULL,
    threshold          BIGINT NOT NULL,
    locktime           BIGINT NOT NULL,
    addresses          BYTEA NOT NULL,
    timestamp          BIGINT NOT NULL
);

CREATE TABLE atomic_export_owners (
    address            BYTEA NOT NULL,
    destination_chain  BYTEA NOT NULL,
    utxo_id            BYTEA NOT NULL,
    PRIMARY KEY (address, destination_chain, utxo_id)
);

CREATE TABLE atomic_imports (
    utxo_id            BYTEA PRIMARY KEY,
    source_chain       BYTEA NOT NULL,
    tx_id              BYTEA NOT NULL,
    timestamp          BIGINT NOT NULL
);

-- What the X-Chain's txs burned, per asset (their inputs less their outputs, exports
-- included): a running total, a 16-byte big-endian u128.
CREATE TABLE x_burned (
    asset_id  BYTEA PRIMARY KEY,
    amount    BYTEA NOT NULL
);
