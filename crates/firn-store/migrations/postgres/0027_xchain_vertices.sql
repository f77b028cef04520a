-- The X-Chain's DAG before Cortina (version 27, PostgreSQL): the vertices in the order the node's
-- index API accepted them (`vertex_index`, its `index`) with the IDs of the txs each carried
-- (`tx_ids`, 32 bytes each, in order), and under each tx the vertices that carried it.
--
-- Txs carried by vertices are rows of `x_txs` like any other (so UTXOs, balances, assets and tx
-- lists see them), at height 0 after the genesis txs and before linear block 0's own txs (see
-- `firn_store::rows::xchain`); `x_txs.vertex_index` is the first vertex that carried a tx, NULL
-- for txs of linear blocks. A tx in several vertices keeps its first position; every vertex it
-- was in is in `x_vertex_txs`.
CREATE TABLE x_vertices (
    vertex_index  BIGINT PRIMARY KEY,
    vertex_id     BYTEA NOT NULL UNIQUE,
    height        BIGINT NOT NULL,
    parent_ids    BYTEA NOT NULL,
    timestamp     BIGINT NOT NULL,
    tx_count      BIGINT NOT NULL,
    size_bytes    BIGINT NOT NULL,
    tx_ids        BYTEA NOT NULL
);
CREATE INDEX x_vertices_by_height ON x_vertices (height, vertex_index);

CREATE TABLE x_vertex_txs (
    vertex_index  BIGINT NOT NULL,
    position      BIGINT NOT NULL,
    tx_id         BYTEA NOT NULL,
    PRIMARY KEY (vertex_index, position)
);
CREATE INDEX x_vertex_txs_by_tx ON x_vertex_txs (tx_id, vertex_index);

ALTER TABLE x_txs ADD COLUMN vertex_index BIGINT;
