-- Version 4: NFT metadata queues, and what it takes to roll an EVM chain back.

-- NFT metadata still to index, one queue per step: rows whose tokenURI is still to read
-- (URI_UNREAD), and rows whose document is still to fetch (UNINDEXED). The indexer's
-- background worker pages through each; partial indexes keep that cheap however many NFTs are
-- indexed.
CREATE INDEX evm_nft_metadata_uri_unread
    ON evm_nft_metadata (chain_id, token, token_id)
    WHERE index_status = 'URI_UNREAD';
CREATE INDEX evm_nft_metadata_unindexed
    ON evm_nft_metadata (chain_id, token, token_id)
    WHERE index_status = 'UNINDEXED';

-- The block that first showed each distinct address (NULL: stored before version 4), so that a
-- rollback can take back what the blocks it removes added.
ALTER TABLE evm_chain_addresses ADD COLUMN number BIGINT;
ALTER TABLE evm_period_addresses ADD COLUMN number BIGINT;

-- What each recent commit overwrote (metrics rows, chain totals, collectible balances), to
-- restore when a node shows a different history above it: one row per committed batch,
-- kept for the last few thousand blocks of each chain.
CREATE TABLE evm_undo (
    chain_id      BIGINT NOT NULL,
    first_number  BIGINT NOT NULL,
    last_number   BIGINT NOT NULL,
    data          BYTEA NOT NULL,
    PRIMARY KEY (chain_id, first_number)
);
