-- The X-Chain (version 25, PostgreSQL): its linear blocks (since Cortina), their txs, the UTXOs
-- they create and consume, each UTXO under each of its owners, the txs each address and asset
-- took part in, and the assets created.
--
-- Amounts and locktimes are u64 bit patterns like every amount in the store. The genesis
-- CreateAssetTx (in no block) is stored at height 0 before block 0's txs, with `genesis` = 1.
-- Only UTXOs on the X-Chain are kept: outputs exported to another chain's shared memory and
-- UTXOs imported from one are for a later version (their IDs never collide with these).
CREATE TABLE x_blocks (
    height      BIGINT PRIMARY KEY,
    block_id    BYTEA NOT NULL UNIQUE,
    parent_id   BYTEA NOT NULL,
    timestamp   BIGINT NOT NULL,
    tx_count    BIGINT NOT NULL,
    size_bytes  BIGINT NOT NULL
);

CREATE TABLE x_txs (
    height             BIGINT NOT NULL,
    tx_index           BIGINT NOT NULL,
    tx_id              BYTEA NOT NULL UNIQUE,
    tx_type            TEXT NOT NULL,
    timestamp          BIGINT NOT NULL,
    genesis            BIGINT NOT NULL,
    memo               BYTEA NOT NULL,
    source_chain       BYTEA,
    destination_chain  BYTEA,
    bytes              BYTEA NOT NULL,
    PRIMARY KEY (height, tx_index)
);

CREATE TABLE x_utxos (
    utxo_id             BYTEA PRIMARY KEY,
    tx_id               BYTEA NOT NULL,
    output_index        BIGINT NOT NULL,
    asset_id            BYTEA NOT NULL,
    output_kind         TEXT NOT NULL,
    amount              BIGINT,
    group_id            BIGINT,
    payload             BYTEA,
    threshold           BIGINT NOT NULL,
    locktime            BIGINT NOT NULL,
    owner_count         BIGINT NOT NULL,
    addresses           BYTEA NOT NULL,
    height              BIGINT NOT NULL,
    timestamp           BIGINT NOT NULL,
    consumed_tx_id      BYTEA,
    consumed_height     BIGINT,
    consumed_timestamp  BIGINT
);
CREATE INDEX x_utxos_by_tx ON x_utxos (tx_id);
CREATE INDEX x_utxos_by_consumer ON x_utxos (consumed_tx_id) WHERE consumed_tx_id IS NOT NULL;

CREATE TABLE x_utxo_owners (
    address       BYTEA NOT NULL,
    utxo_id       BYTEA NOT NULL,
    height        BIGINT NOT NULL,
    spent_height  BIGINT,
    PRIMARY KEY (address, utxo_id)
);
CREATE INDEX x_utxo_owners_unspent ON x_utxo_owners (address, height, utxo_id)
    WHERE spent_height IS NULL;

-- An address took part in a tx when the tx consumed or produced a UTXO it owns (of `asset_id`).
CREATE TABLE x_tx_parties (
    address   BYTEA NOT NULL,
    asset_id  BYTEA NOT NULL,
    height    BIGINT NOT NULL,
    tx_index  BIGINT NOT NULL,
    PRIMARY KEY (address, asset_id, height, tx_index)
);
CREATE INDEX x_tx_parties_by_position ON x_tx_parties (address, height, tx_index);

-- An asset took part in a tx when the tx created it or consumed or produced a UTXO of it.
CREATE TABLE x_tx_assets (
    asset_id  BYTEA NOT NULL,
    height    BIGINT NOT NULL,
    tx_index  BIGINT NOT NULL,
    PRIMARY KEY (asset_id, height, tx_index)
);

CREATE TABLE x_assets (
    asset_id      BYTEA PRIMARY KEY,
    name          TEXT NOT NULL,
    symbol        TEXT NOT NULL,
    denomination  BIGINT NOT NULL,
    asset_kind    TEXT NOT NULL,
    tx_id         BYTEA NOT NULL,
    height        BIGINT NOT NULL,
    timestamp     BIGINT NOT NULL
);
