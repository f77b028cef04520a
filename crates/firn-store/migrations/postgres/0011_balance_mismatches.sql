-- ERC-20 tokens whose `balanceOf` disagrees with the balances folded from their transfers
-- (rebasing and fee-on-transfer tokens), with the first evidence the indexer found: one
-- holder's folded and reported balance at one block (version 11, PostgreSQL). The API reads
-- these tokens' balances from the node. A rollback below `block_number` forgets the row.
CREATE TABLE evm_balance_mismatches (
    chain_id      BIGINT NOT NULL,
    token         BYTEA NOT NULL,
    block_number  BIGINT NOT NULL,
    holder        BYTEA NOT NULL,
    derived       BYTEA NOT NULL,
    reported      BYTEA NOT NULL,
    PRIMARY KEY (chain_id, token)
);
