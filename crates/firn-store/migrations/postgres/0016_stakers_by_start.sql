-- The validators of a subnet by start time (version 16): the Metrics API's Looking Glass lists
-- those whose period overlaps a time frame, walking starts from a year before it.
CREATE INDEX p_stakers_by_start ON p_stakers (subnet_id, is_delegator, start_ts, height, tx_index);
