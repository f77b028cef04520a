-- A counter every write transaction moves (version 20): a reader in any process learns that
-- the index changed by reading this one row, so the Data API can answer a request again with
-- the bytes it rendered before for as long as the counter has not moved.
CREATE TABLE store_generation (
    id          SMALLINT PRIMARY KEY CHECK (id = 1),
    generation  BIGINT NOT NULL
);
INSERT INTO store_generation (id, generation) VALUES (1, 0);
