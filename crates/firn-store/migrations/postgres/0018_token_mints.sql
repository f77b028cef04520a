-- A token's mints and burns on a chain (version 18, PostgreSQL): transfers from and to the
-- zero address, for the Metrics API's BTC.b bridged amounts. Partial indexes, so the other
-- transfers cost nothing more to write.
CREATE INDEX evm_transfers_minted ON evm_transfers (chain_id, token, to_addr)
    WHERE from_addr = '\x0000000000000000000000000000000000000000'::bytea;
CREATE INDEX evm_transfers_burned ON evm_transfers (chain_id, token, from_addr)
    WHERE to_addr = '\x0000000000000000000000000000000000000000'::bytea;
