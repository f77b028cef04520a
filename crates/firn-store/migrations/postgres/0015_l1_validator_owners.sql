-- L1 validators' owners, and the followed node's word on their remaining balance (version 15,
-- PostgreSQL).
--
-- The owners come from the transaction that made the validator (ConvertSubnetToL1Tx or
-- RegisterL1ValidatorTx) and never change; a validator stored before this version has none
-- (threshold 0, no addresses). `l1_validator_observations` keeps, per validator, the balance
-- `platform.getCurrentValidators` reported for its L1 (fees drain it every second, which only
-- the node's fee state knows) and the P-Chain height of that reading.
ALTER TABLE l1_validators ADD COLUMN remaining_owner_threshold BIGINT NOT NULL DEFAULT 0;
ALTER TABLE l1_validators ADD COLUMN remaining_owner_addresses BYTEA NOT NULL DEFAULT '\x';
ALTER TABLE l1_validators ADD COLUMN deactivation_owner_threshold BIGINT NOT NULL DEFAULT 0;
ALTER TABLE l1_validators ADD COLUMN deactivation_owner_addresses BYTEA NOT NULL DEFAULT '\x';

-- listL1Validators by node, newest first.
CREATE INDEX l1_validators_by_node ON l1_validators (node_id, created_height, validation_id);

CREATE TABLE l1_validator_observations (
    validation_id  BYTEA PRIMARY KEY,
    balance        BIGINT NOT NULL,
    height         BIGINT NOT NULL,
    observed_at    BIGINT NOT NULL
);
