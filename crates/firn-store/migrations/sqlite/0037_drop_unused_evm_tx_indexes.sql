-- Two indexes no query reads (version 37, SQLite): an address's transactions are listed from
-- `evm_tx_addresses` and `evm_address_activity`, never by walking `evm_txs` on its sender or
-- recipient. Each cost every stored transaction an insert at a random place in a B-tree, two
-- of the dozen or so a transaction makes.
DROP INDEX IF EXISTS evm_txs_by_from;
DROP INDEX IF EXISTS evm_txs_by_to;
