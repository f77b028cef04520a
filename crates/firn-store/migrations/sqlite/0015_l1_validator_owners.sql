-- L1 validators' owners, and the followed node's word on their remaining balance (version 15,
-- SQLite).
--
-- The owners come from the transaction that made the validator (ConvertSubnetToL1Tx or
-- RegisterL1ValidatorTx) and never change; a validator stored before this version has none
-- (threshold 0, no addresses). `l1_validator_observations` keeps, per validator, the balance
-- `platform.getCurrentValidators` reported for its L1 (fees drain it every second, which only
-- the node's fee state knows) and the P-Chain height of that reading.
ALTER TABLE l1_validators ADD COLUMN remaining_owner_threshold INTEGER NOT NULL DEFAULT 0;
ALTER TABLE l1_validators ADD COLUMN remaining_owner_addresses BLOB NOT NULL DEFAULT x'';
ALTER TABLE l1_validators ADD COLUMN deactivation_owner_threshold INTEGER NOT NULL DEFAULT 0;
ALTER TABLE l1_validators ADD COLUMN deactivation_owner_addresses BLOB NOT NULL DEFAULT x'';

-- listL1Validators by node, newest first.
CREATE INDEX l1_validators_by_node ON l1_validators (node_id, created_height, validation_id);

CREATE TABLE l1_validator_observations (
    validation_id  BLOB PRIMARY KEY,
    balance        INTEGER NOT NULL,
    height         INTEGER NOT NULL,
    observed_at    INTEGER NOT NULL
) WITHOUT ROWID;
