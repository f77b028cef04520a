-- X-Chain lookups by time and by owner (version 26, SQLite). Tx lists filtered by time turn
-- the window into heights through the blocks that open and close it. An owner's UTXOs spent
-- or not by creation, and its last spending, are read from its own index range.
CREATE INDEX x_blocks_by_time ON x_blocks (timestamp, height);
CREATE INDEX x_utxo_owners_by_height ON x_utxo_owners (address, height, utxo_id);
CREATE INDEX x_utxo_owners_by_spent ON x_utxo_owners (address, spent_height, utxo_id)
    WHERE spent_height IS NOT NULL;
