-- An address's whole activity, a token's transfers, a deployer's contracts, and blocks by
-- time (version 8, PostgreSQL).
--
-- `evm_address_activity` lists each transaction under every address that took part in it:
-- its sender, recipient or created contract, the sender or recipient of one of its token
-- transfers, and the caller or callee of one of its internal transactions that moves value
-- (a CALL or CALLCODE with value, a CREATE or CREATE2). It is filled here from what is
-- stored, and by every commit after.
CREATE TABLE evm_address_activity (
    chain_id  BIGINT NOT NULL,
    address   BYTEA NOT NULL,
    number    BIGINT NOT NULL,
    tx_index  BIGINT NOT NULL,
    PRIMARY KEY (chain_id, address, number, tx_index)
);

INSERT INTO evm_address_activity (chain_id, address, number, tx_index)
SELECT chain_id, address, number, tx_index FROM evm_tx_addresses
UNION SELECT chain_id, from_addr, number, tx_index FROM evm_transfers
UNION SELECT chain_id, to_addr, number, tx_index FROM evm_transfers
UNION SELECT chain_id, from_addr, number, tx_index FROM evm_internal_txs
    WHERE call_type IN ('CREATE', 'CREATE2')
       OR (call_type IN ('CALL', 'CALLCODE') AND value <> '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea)
UNION SELECT chain_id, to_addr, number, tx_index FROM evm_internal_txs
    WHERE call_type IN ('CREATE', 'CREATE2')
       OR (call_type IN ('CALL', 'CALLCODE') AND value <> '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea);

-- The internal transactions an address's list shows (those that move value), by caller and
-- by callee. Partial: most internal calls move nothing. A query must repeat this condition
-- word for word for PostgreSQL to prove it uses them.
CREATE INDEX evm_internal_txs_by_from ON evm_internal_txs (chain_id, from_addr, number, tx_index, trace_index)
    WHERE call_type IN ('CREATE', 'CREATE2')
       OR (call_type IN ('CALL', 'CALLCODE') AND value <> '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea);
CREATE INDEX evm_internal_txs_by_to ON evm_internal_txs (chain_id, to_addr, number, tx_index, trace_index)
    WHERE call_type IN ('CREATE', 'CREATE2')
       OR (call_type IN ('CALL', 'CALLCODE') AND value <> '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea);

CREATE INDEX evm_transfers_by_token ON evm_transfers (chain_id, token, number, log_index, batch_index);
CREATE INDEX evm_contracts_by_deployer ON evm_contracts (chain_id, deployer, number, tx_index, address);
CREATE INDEX evm_blocks_by_time ON evm_blocks (chain_id, timestamp, number);
