-- firn store schema, version 1 (PostgreSQL). Never edit once released: add a new migration.
--
-- Encodings (the same as in SQLite, with BIGINT/BYTEA/DOUBLE PRECISION in place of INTEGER/BLOB/DOUBLE):
--   heights, timestamps, counts, indexes  BIGINT (checked to fit a signed 64-bit value)
--   u64 amounts and weights               BIGINT holding the u64 bit pattern (exact, not summed in SQL)
--   uint256 values (wei, token amounts)   32-byte big-endian BYTEA (sorts numerically)
--   u128 running sums (staking weights)   16-byte big-endian BYTEA
--   IDs, hashes, addresses                raw bytes (32 or 20)
--   address lists                         concatenated 20-byte addresses
--   asset amount lists                    concatenated (32-byte asset ID, 8-byte big-endian amount)

CREATE TABLE cursors (
    chain  TEXT PRIMARY KEY,
    height BIGINT NOT NULL
);

-- P-Chain ------------------------------------------------------------------------------------

CREATE TABLE p_blocks (
    height                      BIGINT PRIMARY KEY,
    hash                        BYTEA NOT NULL UNIQUE,
    parent_hash                 BYTEA NOT NULL,
    timestamp                   BIGINT NOT NULL,
    block_type                  TEXT NOT NULL,
    tx_count                    BIGINT NOT NULL,
    tx_hashes                   BYTEA NOT NULL,
    size_bytes                  BIGINT NOT NULL,
    proposer_id                 BYTEA,
    proposer_parent_id          BYTEA,
    proposer_node_id            BYTEA,
    proposer_pchain_height      BIGINT,
    proposer_timestamp          BIGINT,
    l1_validators_accrued_fees  BIGINT,
    active_l1_validators        BIGINT,
    current_supply              BIGINT
);
CREATE INDEX p_blocks_by_timestamp ON p_blocks (timestamp, height);
CREATE INDEX p_blocks_by_proposer ON p_blocks (proposer_node_id, height);

CREATE TABLE p_txs (
    height                    BIGINT NOT NULL,
    tx_index                  BIGINT NOT NULL,
    tx_hash                   BYTEA NOT NULL UNIQUE,
    tx_type                   TEXT NOT NULL,
    timestamp                 BIGINT NOT NULL,
    block_hash                BYTEA NOT NULL,
    memo                      BYTEA NOT NULL,
    source_chain              BYTEA,
    destination_chain         BYTEA,
    value                     BYTEA NOT NULL,
    amount_burned             BYTEA NOT NULL,
    amount_staked             BYTEA NOT NULL,
    amount_l1_balance_burned  BYTEA NOT NULL,
    node_id                   BYTEA,
    subnet_id                 BYTEA,
    start_ts                  BIGINT,
    end_ts                    BIGINT,
    ends_staker               BYTEA,
    details                   TEXT NOT NULL,
    PRIMARY KEY (height, tx_index)
);

CREATE TABLE p_tx_addresses (
    address    BYTEA NOT NULL,
    height     BIGINT NOT NULL,
    tx_index   BIGINT NOT NULL,
    tx_type    TEXT NOT NULL,
    timestamp  BIGINT NOT NULL,
    PRIMARY KEY (address, height, tx_index)
);

CREATE TABLE p_tx_l1_validations (
    validation_id  BYTEA NOT NULL,
    height         BIGINT NOT NULL,
    tx_index       BIGINT NOT NULL,
    tx_type        TEXT NOT NULL,
    timestamp      BIGINT NOT NULL,
    PRIMARY KEY (validation_id, height, tx_index)
);

CREATE TABLE p_utxos (
    utxo_id              BYTEA PRIMARY KEY,
    tx_hash              BYTEA NOT NULL,
    output_index         BIGINT NOT NULL,
    emitted_by           BYTEA,
    emit_index           BIGINT NOT NULL,
    height               BIGINT NOT NULL,
    timestamp            BIGINT NOT NULL,
    asset_id             BYTEA NOT NULL,
    amount               BIGINT NOT NULL,
    addresses            BYTEA NOT NULL,
    threshold            BIGINT NOT NULL,
    locktime             BIGINT NOT NULL,
    stakeable_locktime   BIGINT,
    staked               BIGINT NOT NULL,
    utxo_type            TEXT NOT NULL,
    reward_type          TEXT,
    created_on_chain     BYTEA NOT NULL,
    consumed_on_chain    BYTEA NOT NULL,
    start_ts             BIGINT,
    end_ts               BIGINT,
    bytes                BYTEA NOT NULL,
    consuming_tx_hash    BYTEA,
    consuming_height     BIGINT,
    consuming_timestamp  BIGINT,
    consume_index        BIGINT
);
CREATE INDEX p_utxos_by_emitter ON p_utxos (emitted_by, emit_index);
CREATE INDEX p_utxos_by_consumer ON p_utxos (consuming_tx_hash, consume_index);

CREATE TABLE address_chains (
    address        BYTEA NOT NULL,
    blockchain_id  BYTEA NOT NULL,
    PRIMARY KEY (address, blockchain_id)
);

CREATE TABLE p_stakers (
    tx_hash           BYTEA PRIMARY KEY,
    height            BIGINT NOT NULL,
    tx_index          BIGINT NOT NULL,
    tx_type           TEXT NOT NULL,
    node_id           BYTEA NOT NULL,
    subnet_id         BYTEA NOT NULL,
    start_ts          BIGINT NOT NULL,
    end_ts            BIGINT NOT NULL,
    weight            BIGINT NOT NULL,
    is_delegator      BIGINT NOT NULL,
    delegation_fee    BIGINT NOT NULL,
    reward_addresses  BYTEA NOT NULL,
    estimated_reward  BIGINT,
    end_tx_hash       BYTEA,
    end_height        BIGINT,
    end_timestamp     BIGINT,
    gross_reward      BIGINT NOT NULL,
    net_reward        BIGINT NOT NULL
);
CREATE UNIQUE INDEX p_stakers_by_position ON p_stakers (height, tx_index);
CREATE INDEX p_stakers_by_node ON p_stakers (node_id, height, tx_index);
CREATE INDEX p_stakers_by_kind ON p_stakers (is_delegator, height, tx_index);

CREATE TABLE p_staker_reward_addresses (
    address   BYTEA NOT NULL,
    height    BIGINT NOT NULL,
    tx_index  BIGINT NOT NULL,
    PRIMARY KEY (address, height, tx_index)
);

CREATE TABLE p_rewards (
    height           BIGINT NOT NULL,
    tx_index         BIGINT NOT NULL,
    seq              BIGINT NOT NULL,
    utxo_id          BYTEA NOT NULL UNIQUE,
    output_index     BIGINT NOT NULL,
    reward_tx_hash   BYTEA NOT NULL,
    staking_tx_hash  BYTEA NOT NULL,
    reward_type      TEXT NOT NULL,
    node_id          BYTEA NOT NULL,
    amount_staked    BIGINT NOT NULL,
    start_ts         BIGINT NOT NULL,
    end_ts           BIGINT NOT NULL,
    asset_id         BYTEA NOT NULL,
    amount           BIGINT NOT NULL,
    addresses        BYTEA NOT NULL,
    PRIMARY KEY (height, tx_index, seq)
);
CREATE INDEX p_rewards_by_node ON p_rewards (node_id, height, tx_index, seq);

CREATE TABLE p_reward_addresses (
    address   BYTEA NOT NULL,
    height    BIGINT NOT NULL,
    tx_index  BIGINT NOT NULL,
    seq       BIGINT NOT NULL,
    PRIMARY KEY (address, height, tx_index, seq)
);

CREATE TABLE subnets (
    subnet_id           BYTEA PRIMARY KEY,
    height              BIGINT NOT NULL,
    tx_hash             BYTEA NOT NULL,
    timestamp           BIGINT NOT NULL,
    owner_locktime      BIGINT NOT NULL,
    owner_threshold     BIGINT NOT NULL,
    owner_addresses     BYTEA NOT NULL,
    l1_conversion_id    BYTEA,
    l1_manager_chain    BYTEA,
    l1_manager_address  BYTEA,
    l1_converted_at     BIGINT
);
CREATE UNIQUE INDEX subnets_by_creation ON subnets (height, subnet_id);

CREATE TABLE blockchains (
    blockchain_id  BYTEA PRIMARY KEY,
    subnet_id      BYTEA NOT NULL,
    name           TEXT NOT NULL,
    vm_id          BYTEA NOT NULL,
    height         BIGINT NOT NULL,
    tx_hash        BYTEA NOT NULL,
    timestamp      BIGINT NOT NULL,
    genesis        BYTEA NOT NULL,
    evm_chain_id   BIGINT
);
CREATE UNIQUE INDEX blockchains_by_creation ON blockchains (height, blockchain_id);
CREATE INDEX blockchains_by_subnet ON blockchains (subnet_id, height, blockchain_id);

CREATE TABLE l1_validators (
    validation_id      BYTEA PRIMARY KEY,
    subnet_id          BYTEA NOT NULL,
    node_id            BYTEA NOT NULL,
    weight             BIGINT NOT NULL,
    balance            BIGINT NOT NULL,
    bls_public_key     BYTEA NOT NULL,
    created_height     BIGINT NOT NULL,
    created_tx_hash    BYTEA NOT NULL,
    updated_height     BIGINT NOT NULL,
    active             BIGINT NOT NULL
);
CREATE UNIQUE INDEX l1_validators_by_creation ON l1_validators (created_height, validation_id);
CREATE INDEX l1_validators_by_subnet ON l1_validators (subnet_id, created_height, validation_id);

CREATE TABLE staking_totals (
    subnet_id         BYTEA PRIMARY KEY,
    validator_count   BIGINT NOT NULL,
    validator_weight  BYTEA NOT NULL,
    delegator_count   BIGINT NOT NULL,
    delegator_weight  BYTEA NOT NULL
);

CREATE TABLE staking_daily (
    subnet_id         BYTEA NOT NULL,
    day               BIGINT NOT NULL,
    validator_count   BIGINT NOT NULL,
    validator_weight  BYTEA NOT NULL,
    delegator_count   BIGINT NOT NULL,
    delegator_weight  BYTEA NOT NULL,
    PRIMARY KEY (subnet_id, day)
);

-- EVM chains (C-Chain and every L1) ------------------------------------------------------------

CREATE TABLE evm_chains (
    chain_id        BIGINT PRIMARY KEY,
    blockchain_id   BYTEA NOT NULL UNIQUE,
    subnet_id       BYTEA NOT NULL,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL,
    is_testnet      BIGINT NOT NULL,
    token_name      TEXT NOT NULL,
    token_symbol    TEXT NOT NULL,
    token_decimals  BIGINT NOT NULL,
    rpc_url         TEXT NOT NULL
);

CREATE TABLE evm_blocks (
    chain_id        BIGINT NOT NULL,
    number          BIGINT NOT NULL,
    hash            BYTEA NOT NULL,
    parent_hash     BYTEA NOT NULL,
    timestamp       BIGINT NOT NULL,
    tx_count        BIGINT NOT NULL,
    gas_used        BIGINT NOT NULL,
    gas_limit       BIGINT NOT NULL,
    base_fee        BYTEA,
    block_gas_cost  BYTEA,
    fees_spent      BYTEA NOT NULL,
    cumulative_txs  BIGINT NOT NULL,
    size_bytes      BIGINT NOT NULL,
    PRIMARY KEY (chain_id, number)
);
CREATE UNIQUE INDEX evm_blocks_by_hash ON evm_blocks (chain_id, hash);

CREATE TABLE evm_txs (
    chain_id          BIGINT NOT NULL,
    number            BIGINT NOT NULL,
    tx_index          BIGINT NOT NULL,
    hash              BYTEA NOT NULL,
    from_addr         BYTEA NOT NULL,
    to_addr           BYTEA,
    value             BYTEA NOT NULL,
    nonce             BIGINT NOT NULL,
    gas_limit         BIGINT NOT NULL,
    gas_used          BIGINT NOT NULL,
    gas_price         BYTEA NOT NULL,
    max_fee           BYTEA,
    max_priority_fee  BYTEA,
    tx_type           BIGINT NOT NULL,
    success           BIGINT NOT NULL,
    input             BYTEA NOT NULL,
    contract_address  BYTEA,
    timestamp         BIGINT NOT NULL,
    PRIMARY KEY (chain_id, number, tx_index)
);
CREATE UNIQUE INDEX evm_txs_by_hash ON evm_txs (chain_id, hash);
CREATE INDEX evm_txs_by_from ON evm_txs (chain_id, from_addr, number, tx_index);
CREATE INDEX evm_txs_by_to ON evm_txs (chain_id, to_addr, number, tx_index);

-- Transactions per party (sender, recipient, created contract), for per-address lists.
CREATE TABLE evm_tx_addresses (
    chain_id  BIGINT NOT NULL,
    address   BYTEA NOT NULL,
    number    BIGINT NOT NULL,
    tx_index  BIGINT NOT NULL,
    PRIMARY KEY (chain_id, address, number, tx_index)
);

CREATE TABLE evm_logs (
    chain_id   BIGINT NOT NULL,
    number     BIGINT NOT NULL,
    log_index  BIGINT NOT NULL,
    tx_index   BIGINT NOT NULL,
    address    BYTEA NOT NULL,
    topics     BYTEA NOT NULL,
    data       BYTEA NOT NULL,
    PRIMARY KEY (chain_id, number, log_index)
);

CREATE TABLE evm_internal_txs (
    chain_id     BIGINT NOT NULL,
    number       BIGINT NOT NULL,
    tx_index     BIGINT NOT NULL,
    trace_index  BIGINT NOT NULL,
    from_addr    BYTEA NOT NULL,
    to_addr      BYTEA NOT NULL,
    call_type    TEXT NOT NULL,
    value        BYTEA NOT NULL,
    gas_used     BIGINT NOT NULL,
    gas_limit    BIGINT NOT NULL,
    reverted     BIGINT NOT NULL,
    PRIMARY KEY (chain_id, number, tx_index, trace_index)
);

CREATE TABLE evm_transfers (
    chain_id     BIGINT NOT NULL,
    number       BIGINT NOT NULL,
    log_index    BIGINT NOT NULL,
    batch_index  BIGINT NOT NULL,
    tx_index     BIGINT NOT NULL,
    standard     BIGINT NOT NULL,
    token        BYTEA NOT NULL,
    from_addr    BYTEA NOT NULL,
    to_addr      BYTEA NOT NULL,
    token_id     BYTEA,
    value        BYTEA NOT NULL,
    PRIMARY KEY (chain_id, number, log_index, batch_index)
);

CREATE TABLE evm_transfer_addresses (
    chain_id     BIGINT NOT NULL,
    address      BYTEA NOT NULL,
    standard     BIGINT NOT NULL,
    number       BIGINT NOT NULL,
    log_index    BIGINT NOT NULL,
    batch_index  BIGINT NOT NULL,
    PRIMARY KEY (chain_id, address, standard, number, log_index, batch_index)
);

CREATE TABLE evm_tokens (
    chain_id  BIGINT NOT NULL,
    address   BYTEA NOT NULL,
    standard  BIGINT NOT NULL,
    name      TEXT NOT NULL,
    symbol    TEXT NOT NULL,
    decimals  BIGINT,
    PRIMARY KEY (chain_id, address)
);

CREATE TABLE evm_nft_metadata (
    chain_id       BIGINT NOT NULL,
    token          BYTEA NOT NULL,
    token_id       BYTEA NOT NULL,
    token_uri      TEXT NOT NULL,
    index_status   TEXT NOT NULL,
    updated_at     BIGINT,
    name           TEXT,
    symbol         TEXT,
    image_uri      TEXT,
    description    TEXT,
    animation_uri  TEXT,
    external_url   TEXT,
    background     TEXT,
    attributes     TEXT,
    properties     TEXT,
    decimals       BIGINT,
    PRIMARY KEY (chain_id, token, token_id)
);

CREATE TABLE evm_collectibles (
    chain_id  BIGINT NOT NULL,
    owner     BYTEA NOT NULL,
    token     BYTEA NOT NULL,
    token_id  BYTEA NOT NULL,
    standard  BIGINT NOT NULL,
    balance   BYTEA NOT NULL,
    PRIMARY KEY (chain_id, owner, token, token_id)
);

CREATE TABLE evm_contracts (
    chain_id     BIGINT NOT NULL,
    address      BYTEA NOT NULL,
    deployer     BYTEA NOT NULL,
    tx_hash      BYTEA NOT NULL,
    number       BIGINT NOT NULL,
    tx_index     BIGINT NOT NULL,
    trace_index  BIGINT,
    kind         TEXT NOT NULL,
    timestamp    BIGINT NOT NULL,
    PRIMARY KEY (chain_id, address)
);

-- Metrics: one row per chain, period length (3600 or 86400) and period start.
CREATE TABLE evm_metrics (
    chain_id              BIGINT NOT NULL,
    period                BIGINT NOT NULL,
    start_ts              BIGINT NOT NULL,
    block_count           BIGINT NOT NULL,
    tx_count              BIGINT NOT NULL,
    gas_used              BIGINT NOT NULL,
    fees_paid             BYTEA NOT NULL,
    sum_gas_price         BYTEA NOT NULL,
    max_gas_price         BYTEA NOT NULL,
    max_tps               DOUBLE PRECISION NOT NULL,
    max_gps               DOUBLE PRECISION NOT NULL,
    active_addresses      BIGINT NOT NULL,
    active_senders        BIGINT NOT NULL,
    contracts             BIGINT NOT NULL,
    deployers             BIGINT NOT NULL,
    span_start_ts         BIGINT NOT NULL,
    last_block_ts         BIGINT NOT NULL,
    cumulative_txs        BIGINT NOT NULL,
    cumulative_addresses  BIGINT NOT NULL,
    cumulative_contracts  BIGINT NOT NULL,
    cumulative_deployers  BIGINT NOT NULL,
    PRIMARY KEY (chain_id, period, start_ts)
);

-- Distinct addresses seen in one period (kind 0 active, 1 sender, 2 deployer).
CREATE TABLE evm_period_addresses (
    chain_id  BIGINT NOT NULL,
    period    BIGINT NOT NULL,
    start_ts  BIGINT NOT NULL,
    kind      BIGINT NOT NULL,
    address   BYTEA NOT NULL,
    PRIMARY KEY (chain_id, period, start_ts, kind, address)
);

-- Distinct addresses ever seen on a chain (kind 0 active, 2 deployer).
CREATE TABLE evm_chain_addresses (
    chain_id  BIGINT NOT NULL,
    kind      BIGINT NOT NULL,
    address   BYTEA NOT NULL,
    PRIMARY KEY (chain_id, kind, address)
);

CREATE TABLE evm_chain_totals (
    chain_id              BIGINT PRIMARY KEY,
    cumulative_txs        BIGINT NOT NULL,
    cumulative_addresses  BIGINT NOT NULL,
    cumulative_contracts  BIGINT NOT NULL,
    cumulative_deployers  BIGINT NOT NULL,
    last_block_ts         BIGINT NOT NULL
);
