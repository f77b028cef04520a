-- Transaction export jobs and their files (version 22, SQLite).
--
-- `export_jobs` holds each job with its owner (a digest of the API key that made it; '' for
-- requests without one), its type and request (JSON, as validated), where its file is served
-- (`download_url`), its state (`status` RUNNING, COMPLETED, COMPLETED_WITH_WARNING or FAILED,
-- with `code`, `message` and `next_date`), the rows written so far (`progress`), its times
-- (Unix ms) and when it and its file are deleted (`expires_at`). A running job is worked by the
-- process holding it (`lease_owner` until `lease_until`): one at a time, and another takes it
-- over when that process dies.
-- `export_chunks` holds the CSV file in order, in pieces of a few hundred kilobytes, so every
-- process on the database serves the download.
CREATE TABLE export_jobs (
    id            TEXT PRIMARY KEY,
    owner         TEXT NOT NULL,
    job_type      TEXT NOT NULL,
    request       TEXT NOT NULL,
    download_url  TEXT NOT NULL,
    status        TEXT NOT NULL,
    code          TEXT,
    message       TEXT,
    next_date     TEXT,
    progress      INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL,
    lease_owner   TEXT,
    lease_until   INTEGER
);
CREATE INDEX export_jobs_runnable ON export_jobs (status, created_at, id);
CREATE INDEX export_jobs_by_expiry ON export_jobs (expires_at);

CREATE TABLE export_chunks (
    job_id  TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    data    BLOB NOT NULL,
    PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;
