-- When a client last asked for an NFT's metadata to be read again: reindexNft queues a token
-- at most once an hour (version 10, SQLite).
ALTER TABLE evm_nft_metadata ADD COLUMN reindex_requested_at INTEGER;
