-- What the followed node last said of each node validating the primary network: its uptime
-- (percent × 10,000) and whether it was connected, when (version 12, PostgreSQL). The indexer
-- refreshes these at the tip; the API shows them as uptimePerformance and validatorHealth.
CREATE TABLE p_validator_observations (
    node_id      BYTEA PRIMARY KEY,
    uptime       BIGINT NOT NULL,
    connected    BIGINT NOT NULL,
    observed_at  BIGINT NOT NULL
);

