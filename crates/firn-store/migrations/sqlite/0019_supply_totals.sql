-- What the P-Chain burned and paid in staking rewards, per asset, since the first indexed
-- block (version 19, SQLite): getAvaxSupply's burned and rewarded AVAX, kept with every
-- commit instead of summed over every transaction at each request. Amounts are u64 bit
-- patterns, saturating. An older store's totals are derived once, at open, from `p_txs` and
-- `p_rewards`, and the fees accrued from the delegators of validators still open (the
-- `p_asset_totals` upgrade).
CREATE TABLE p_asset_totals (
    asset_id  BLOB PRIMARY KEY,
    burned    INTEGER NOT NULL,
    rewarded  INTEGER NOT NULL
) WITHOUT ROWID;

-- Unspent UTXOs with a lock (a locktime or a stakeable lock): what is locked now is read
-- from these rows only (locktimes are u64 bit patterns: one past 2^63 reads negative).
CREATE INDEX p_utxos_locked ON p_utxos (asset_id)
    WHERE consuming_tx_hash IS NULL AND (locktime <> 0 OR stakeable_locktime IS NOT NULL);

-- The delegation fees a validator accrued from its delegators already rewarded, which its own
-- reward pays (AvalancheGo since Cortina): minted into the supply, not paid yet.
ALTER TABLE p_stakers ADD COLUMN accrued_fees INTEGER NOT NULL DEFAULT 0;
-- A node's validators not yet rewarded: where a rewarded delegator's fee accrues.
CREATE INDEX p_stakers_open_validators ON p_stakers (node_id)
    WHERE end_tx_hash IS NULL AND is_delegator = 0;

INSERT INTO store_upgrades (name) VALUES ('p_asset_totals');
