-- Request logs (version 23, PostgreSQL).
--
-- One row per request the Data API or the node RPC answered, for the usage routes
-- (`/v1/apiLogs`, `/v1/apiUsageMetrics`, the RPC usage metrics). `api_key_id` is the hex
-- SHA-256 of the API key sent ('' without one, and for node RPC); `request_type` is `data` or
-- `rpc`; `chain_id` and `rpc_method` are '' when the request has none; `primary_network` is 1
-- for node RPC to a primary-network endpoint (P, X, C, info, health, …). Times are Unix ms.
-- The rows are not index data: writing them does not move the store generation. The flusher
-- deletes rows past the retention age and the row cap.
CREATE TABLE request_logs (
    time_ms          BIGINT NOT NULL,
    log_id           TEXT NOT NULL,
    api_key_id       TEXT NOT NULL,
    request_type     TEXT NOT NULL,
    path             TEXT NOT NULL,
    chain_id         TEXT NOT NULL,
    rpc_method       TEXT NOT NULL,
    primary_network  BIGINT NOT NULL,
    status           BIGINT NOT NULL,
    duration_ms      BIGINT NOT NULL,
    ip               TEXT NOT NULL,
    host             TEXT NOT NULL,
    user_agent       TEXT NOT NULL,
    PRIMARY KEY (time_ms, log_id)
);
-- An API key's logs, newest first.
CREATE INDEX request_logs_by_key ON request_logs (api_key_id, time_ms, log_id);
