-- Each fee a Teleporter message's sender added (`AddFeeAmount`, version 32, PostgreSQL): the fee as
-- it stood after the block's last addition. A rollback of the source chain deletes the
-- additions above the kept block and sets the message's fee back to the last one left (the
-- sent fee if none), so additions below the rollback are not lost. Existing rows seed it with
-- the fee each message holds.
CREATE TABLE icm_fee_additions (
    message_id  BYTEA NOT NULL,
    src_chain   BIGINT NOT NULL,
    fee_block   BIGINT NOT NULL,
    fee_amount  BYTEA NOT NULL,
    PRIMARY KEY (message_id, fee_block)
);
CREATE INDEX icm_fee_additions_by_chain ON icm_fee_additions (src_chain, fee_block);

INSERT INTO icm_fee_additions (message_id, src_chain, fee_block, fee_amount)
SELECT message_id, src_chain, fee_block, fee_amount FROM icm_messages
WHERE fee_block IS NOT NULL AND src_chain IS NOT NULL AND fee_amount IS NOT NULL;
