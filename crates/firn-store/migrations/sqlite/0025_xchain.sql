-- The X-Chain (version 25, SQLite): its linear blocks (since Cortina), their txs, the UTXOs
-- they create and consume, each UTXO under each of its owners, the txs each address and asset
-- took part in, and the assets created.
--
-- Amounts and locktimes are u64 bit patterns like every amount in the store. The genesis
-- CreateAssetTx (in no block) is stored at height 0 before block 0's txs, with `genesis` = 1.
-- Only UTXOs on the X-Chain are kept: outputs exported to another chain's shared memory and
-- UTXOs imported from one are for a later version (their IDs never collide with these).
CREATE TABLE x_blocks (
    height      INTEGER PRIMARY KEY,
    block_id    BLOB NOT NULL UNIQUE,
    parent_id   BLOB NOT NULL,
    timestamp   INTEGER NOT NULL,
    tx_count    INTEGER NOT NULL,
    size_bytes  INTEGER NOT NULL
);

CREATE TABLE x_txs (
    height             INTEGER NOT NULL,
    tx_index           INTEGER NOT NULL,
    tx_id              BLOB NOT NULL UNIQUE,
    tx_type            TEXT NOT NULL,
    timestamp          INTEGER NOT NULL,
    genesis            INTEGER NOT NULL,
    memo               BLOB NOT NULL,
    source_chain       BLOB,
    destination_chain  BLOB,
    bytes              BLOB NOT NULL,
    PRIMARY KEY (height, tx_index)
);

CREATE TABLE x_utxos (
    utxo_id             BLOB PRIMARY KEY,
    tx_id               BLOB NOT NULL,
    output_index        INTEGER NOT NULL,
    asset_id            BLOB NOT NULL,
    output_kind         TEXT NOT NULL,
    amount              INTEGER,
    group_id            INTEGER,
    payload             BLOB,
    threshold           INTEGER NOT NULL,
    locktime            INTEGER NOT NULL,
    owner_count         INTEGER NOT NULL,
    addresses           BLOB NOT NULL,
    height              INTEGER NOT NULL,
    timestamp           INTEGER NOT NULL,
    consumed_tx_id      BLOB,
    consumed_height     INTEGER,
    consumed_timestamp  INTEGER
);
CREATE INDEX x_utxos_by_tx ON x_utxos (tx_id);
CREATE INDEX x_utxos_by_consumer ON x_utxos (consumed_tx_id) WHERE consumed_tx_id IS NOT NULL;

CREATE TABLE x_utxo_owners (
    address       BLOB NOT NULL,
    utxo_id       BLOB NOT NULL,
    height        INTEGER NOT NULL,
    spent_height  INTEGER,
    PRIMARY KEY (address, utxo_id)
) WITHOUT ROWID;
CREATE INDEX x_utxo_owners_unspent ON x_utxo_owners (address, height, utxo_id)
    WHERE spent_height IS NULL;

-- An address took part in a tx when the tx consumed or produced a UTXO it owns (of `asset_id`).
CREATE TABLE x_tx_parties (
    address   BLOB NOT NULL,
    asset_id  BLOB NOT NULL,
    height    INTEGER NOT NULL,
    tx_index  INTEGER NOT NULL,
    PRIMARY KEY (address, asset_id, height, tx_index)
) WITHOUT ROWID;
CREATE INDEX x_tx_parties_by_position ON x_tx_parties (address, height, tx_index);

-- An asset took part in a tx when the tx created it or consumed or produced a UTXO of it.
CREATE TABLE x_tx_assets (
    asset_id  BLOB NOT NULL,
    height    INTEGER NOT NULL,
    tx_index  INTEGER NOT NULL,
    PRIMARY KEY (asset_id, height, tx_index)
) WITHOUT ROWID;

CREATE TABLE x_assets (
    asset_id      BLOB PRIMARY KEY,
    name          TEXT NOT NULL,
    symbol        TEXT NOT NULL,
    denomination  INTEGER NOT NULL,
    asset_kind    TEXT NOT NULL,
    tx_id         BLOB NOT NULL,
    height        INTEGER NOT NULL,
    timestamp     INTEGER NOT NULL
);
