-- Webhooks and their outbox (version 21, SQLite).
--
-- `webhooks` holds each webhook with its owner (a digest of the API key that made it; '' for
-- requests without one), what it watches, and its delivery state: the last block its matcher
-- read (`matched_through`), the next outbox sequence number, consecutive failed attempts, why
-- it was deactivated, and which process holds it (`lease_owner` until `lease_until`, Unix ms):
-- one process at a time matches and delivers a webhook, so its events go out once and in order.
-- `webhook_outbox` holds the events found and not yet delivered, unsigned (the secret is
-- applied when sent, so a rotation covers them); a delivered event is deleted.
CREATE TABLE webhooks (
    id                    TEXT PRIMARY KEY,
    owner                 TEXT NOT NULL,
    event_type            TEXT NOT NULL,
    chain_id              TEXT NOT NULL,
    evm_chain_id          INTEGER,
    url                   TEXT NOT NULL,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL,
    status                TEXT NOT NULL,
    created_at            INTEGER NOT NULL,
    metadata              TEXT NOT NULL,
    include_internal_txs  INTEGER NOT NULL,
    include_logs          INTEGER NOT NULL,
    matched_through       INTEGER NOT NULL,
    next_seq              INTEGER NOT NULL,
    failures              INTEGER NOT NULL,
    inactive_reason       TEXT,
    lease_owner           TEXT,
    lease_until           INTEGER
);
CREATE INDEX webhooks_by_owner ON webhooks (owner, created_at, id);

CREATE TABLE webhook_addresses (
    webhook_id  TEXT NOT NULL,
    address     BLOB NOT NULL,
    PRIMARY KEY (webhook_id, address)
) WITHOUT ROWID;

CREATE TABLE webhook_secrets (
    owner   TEXT PRIMARY KEY,
    secret  TEXT NOT NULL
);

CREATE TABLE webhook_outbox (
    webhook_id       TEXT NOT NULL,
    seq              INTEGER NOT NULL,
    message_id       TEXT NOT NULL,
    body             BLOB NOT NULL,
    attempts         INTEGER NOT NULL,
    next_attempt_at  INTEGER NOT NULL,
    enqueued_at      INTEGER NOT NULL,
    PRIMARY KEY (webhook_id, seq)
) WITHOUT ROWID;

-- Blocks keep their receipts root (a webhook's transaction carries it); null for blocks
-- indexed before this version.
ALTER TABLE evm_blocks ADD COLUMN receipts_root BLOB;
