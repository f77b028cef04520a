-- X-Chain tx lists filtered by time (version 26, SQLite): a time window becomes a height window
-- through the block that opens or closes it, found on this index.
CREATE INDEX x_blocks_by_time ON x_blocks (timestamp, height);
