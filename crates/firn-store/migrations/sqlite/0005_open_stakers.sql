-- Stakers still open (not yet rewarded or removed), by position and by kind: the active
-- staking txs list and the active or pending validator and delegator lists walk these
-- instead of every staker or transaction since genesis.
CREATE INDEX p_stakers_open ON p_stakers (height, tx_index) WHERE end_tx_hash IS NULL;
CREATE INDEX p_stakers_open_by_kind ON p_stakers (is_delegator, height, tx_index)
    WHERE end_tx_hash IS NULL;
