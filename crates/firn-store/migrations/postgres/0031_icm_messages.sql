-- ICM (Teleporter) messages (version 31, PostgreSQL): one row per message ID, filled from either
-- side as each chain's blocks are committed: the send on the source chain (`src_*`, the fee),
-- the delivery on the destination (`dst_*`), its execution or failure there, and the receipt
-- back at the source. Each part names the chain and block that showed it, so a rollback of
-- that chain clears it; a row with neither side left is deleted. `sort_ts` is the send's time
-- (the delivery's while the send is not indexed). uint256 values are 32-byte big-endian;
-- `receipts` is 52 bytes per receipt (nonce, reward address).
CREATE TABLE icm_messages (
    message_id                 BYTEA PRIMARY KEY,
    contract                   BYTEA NOT NULL,
    source_blockchain_id       BYTEA NOT NULL,
    destination_blockchain_id  BYTEA NOT NULL,
    nonce                      BYTEA NOT NULL,
    sender                     BYTEA NOT NULL,
    recipient                  BYTEA NOT NULL,
    required_gas_limit         BYTEA NOT NULL,
    payload                    BYTEA NOT NULL,
    receipts                   BYTEA NOT NULL,
    sort_ts                    BIGINT NOT NULL,
    fee_token                  BYTEA,
    fee_amount                 BYTEA,
    sent_fee_amount            BYTEA,
    fee_block                  BIGINT,
    src_chain                  BIGINT,
    src_block                  BIGINT,
    src_tx_hash                BYTEA,
    src_ts                     BIGINT,
    src_gas                    BIGINT,
    dst_chain                  BIGINT,
    dst_block                  BIGINT,
    dst_tx_hash                BYTEA,
    dst_ts                     BIGINT,
    dst_gas                    BIGINT,
    deliverer                  BYTEA,
    reward_redeemer            BYTEA,
    executed_block             BIGINT,
    failed_block               BIGINT,
    receipt_block              BIGINT
);
CREATE INDEX icm_messages_by_time ON icm_messages (sort_ts, message_id);
CREATE INDEX icm_messages_by_source ON icm_messages (source_blockchain_id, sort_ts, message_id);
CREATE INDEX icm_messages_by_destination ON icm_messages (destination_blockchain_id, sort_ts, message_id);
CREATE INDEX icm_messages_by_sender ON icm_messages (sender, sort_ts, message_id);
CREATE INDEX icm_messages_by_recipient ON icm_messages (recipient, sort_ts, message_id);
CREATE INDEX icm_messages_by_src_tx ON icm_messages (src_tx_hash);
CREATE INDEX icm_messages_by_dst_tx ON icm_messages (dst_tx_hash);
CREATE INDEX icm_messages_by_src_block ON icm_messages (src_chain, src_block);
CREATE INDEX icm_messages_by_dst_block ON icm_messages (dst_chain, dst_block);
