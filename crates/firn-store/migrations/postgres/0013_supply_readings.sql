-- The current supply the followed node last reported (`platform.getCurrentSupply`), per subnet,
-- with the P-Chain height it named and when it was read (version 13, PostgreSQL). The API's
-- staking ratio divides by it.
CREATE TABLE p_supply_readings (
    subnet_id    BYTEA PRIMARY KEY,
    supply       BIGINT NOT NULL,
    height       BIGINT NOT NULL,
    observed_at  BIGINT NOT NULL
);
