-- ICM (Teleporter) messages (version 31, SQLite): one row per message ID, filled from either
-- side as each chain's blocks are committed: the send on the source chain (`src_*`, the fee),
-- the delivery on the destination (`dst_*`), its execution or failure there, and the receipt
-- back at the source. Each part names the chain and block that showed it, so a rollback of
-- that chain clears it; a row with neither side left is deleted. `sort_ts` is the send's time
-- (the delivery's while the send is not indexed). uint256 values are 32-byte big-endian;
-- `receipts` is 52 bytes per receipt (nonce, reward address).
CREATE TABLE icm_messages (
    message_id                 BLOB PRIMARY KEY,
    contract                   BLOB NOT NULL,
    source_blockchain_id       BLOB NOT NULL,
    destination_blockchain_id  BLOB NOT NULL,
    nonce                      BLOB NOT NULL,
    sender                     BLOB NOT NULL,
    recipient                  BLOB NOT NULL,
    required_gas_limit         BLOB NOT NULL,
    payload                    BLOB NOT NULL,
    receipts                   BLOB NOT NULL,
    sort_ts                    INTEGER NOT NULL,
    fee_token                  BLOB,
    fee_amount                 BLOB,
    sent_fee_amount            BLOB,
    fee_block                  INTEGER,
    src_chain                  INTEGER,
    src_block                  INTEGER,
    src_tx_hash                BLOB,
    src_ts                     INTEGER,
    src_gas                    INTEGER,
    dst_chain                  INTEGER,
    dst_block                  INTEGER,
    dst_tx_hash                BLOB,
    dst_ts                     INTEGER,
    dst_gas                    INTEGER,
    deliverer                  BLOB,
    reward_redeemer            BLOB,
    executed_block             INTEGER,
    failed_block               INTEGER,
    receipt_block              INTEGER
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
