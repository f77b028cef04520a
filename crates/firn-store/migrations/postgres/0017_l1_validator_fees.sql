-- The continuous fee of L1 validators, replayed by the indexer block by block (version 17,
-- PostgreSQL).
--
-- `l1_fee_ledger` (one row) is the fee state after the last committed P-Chain block that
-- moved it: chain time, price excess, and the running total an always-active validator would
-- have paid (`accrued`, AvalancheGo's accrued fees). `l1_fee_active` holds each active
-- validator with the running total at which its balance runs out; `l1_fee_days` what each
-- validation paid per UTC day (the Metrics API's L1 validator metrics). u64 state is stored
-- bit-cast; fees are plain integers (every fee is a share of the AVAX supply).
CREATE TABLE l1_fee_ledger (
    id       BIGINT PRIMARY KEY CHECK (id = 0),
    height   BIGINT NOT NULL,
    time     BIGINT NOT NULL,
    excess   BIGINT NOT NULL,
    accrued  BIGINT NOT NULL
);

CREATE TABLE l1_fee_active (
    validation_id  BYTEA PRIMARY KEY,
    subnet_id      BYTEA NOT NULL,
    node_id        BYTEA NOT NULL,
    end_accrued    BIGINT NOT NULL
);

CREATE TABLE l1_fee_days (
    validation_id  BYTEA NOT NULL,
    day            BIGINT NOT NULL,
    subnet_id      BYTEA NOT NULL,
    node_id        BYTEA NOT NULL,
    fee            BIGINT NOT NULL,
    PRIMARY KEY (validation_id, day)
);

CREATE INDEX l1_fee_days_by_day ON l1_fee_days (day, fee);
CREATE INDEX l1_fee_days_by_subnet ON l1_fee_days (subnet_id, day, fee);
CREATE INDEX l1_fee_days_by_node ON l1_fee_days (node_id, day, fee);
