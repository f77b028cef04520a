-- The current supply the followed node last reported (`platform.getCurrentSupply`), per subnet,
-- with the P-Chain height it named and when it was read (version 13, SQLite). The API's
-- staking ratio divides by it.
CREATE TABLE p_supply_readings (
    subnet_id    BLOB PRIMARY KEY,
    supply       INTEGER NOT NULL,
    height       INTEGER NOT NULL,
    observed_at  INTEGER NOT NULL
) WITHOUT ROWID;
