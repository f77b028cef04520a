-- ERC-20 balances derived from transfers, and collectible holdings by standard (version 9,
-- SQLite).
--
-- `evm_erc20_balances` holds each holder's current balance of each ERC-20 token, folded from
-- its transfers by every commit (and undone by rollback like the collectibles). An older
-- store's balances are derived once, at open, from the transfers it holds (the
-- `evm_erc20_balances` upgrade). Holders with nothing are not stored.
CREATE TABLE evm_erc20_balances (
    chain_id  INTEGER NOT NULL,
    owner     BLOB NOT NULL,
    token     BLOB NOT NULL,
    balance   BLOB NOT NULL,
    PRIMARY KEY (chain_id, owner, token)
) WITHOUT ROWID;

-- An owner's ERC-721 or ERC-1155 holdings alone (listErc721Balances, listErc1155Balances).
CREATE INDEX evm_collectibles_by_standard
    ON evm_collectibles (chain_id, owner, standard, token, token_id);

INSERT INTO store_upgrades (name) VALUES ('evm_erc20_balances');
