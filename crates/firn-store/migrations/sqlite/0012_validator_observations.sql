-- What the followed node last said of each node validating the primary network: its uptime
-- (percent × 10,000) and whether it was connected, when (version 12, SQLite). The indexer
-- refreshes these at the tip; the API shows them as uptimePerformance and validatorHealth.
CREATE TABLE p_validator_observations (
    node_id      BLOB PRIMARY KEY,
    uptime       INTEGER NOT NULL,
    connected    INTEGER NOT NULL,
    observed_at  INTEGER NOT NULL
) WITHOUT ROWID;

