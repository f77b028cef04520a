-- The continuous fee of L1 validators, replayed by the indexer block by block (version 17,
-- SQLite).
--
-- `l1_fee_ledger` (one row) is the fee state after the last committed P-Chain block that
-- moved it: chain time, price excess, and the running total an always-active validator would
-- have paid (`accrued`, AvalancheGo's accrued fees). `l1_fee_active` holds each active
-- validator with the running total at which its balance runs out; `l1_fee_days` what each
-- validation paid per UTC day (the Metrics API's L1 validator metrics). u64 state is stored
-- bit-cast; fees are plain integers (every fee is a share of the AVAX supply).
CREATE TABLE l1_fee_ledger (
    id       INTEGER PRIMARY KEY CHECK (id = 0),
    height   INTEGER NOT NULL,
    time     INTEGER NOT NULL,
    excess   INTEGER NOT NULL,
    accrued  INTEGER NOT NULL
);

CREATE TABLE l1_fee_active (
    validation_id  BLOB PRIMARY KEY,
    subnet_id      BLOB NOT NULL,
    node_id        BLOB NOT NULL,
    end_accrued    INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE l1_fee_days (
    validation_id  BLOB NOT NULL,
    day            INTEGER NOT NULL,
    subnet_id      BLOB NOT NULL,
    node_id        BLOB NOT NULL,
    fee            INTEGER NOT NULL,
    PRIMARY KEY (validation_id, day)
) WITHOUT ROWID;

CREATE INDEX l1_fee_days_by_day ON l1_fee_days (day, fee);
CREATE INDEX l1_fee_days_by_subnet ON l1_fee_days (subnet_id, day, fee);
CREATE INDEX l1_fee_days_by_node ON l1_fee_days (node_id, day, fee);
