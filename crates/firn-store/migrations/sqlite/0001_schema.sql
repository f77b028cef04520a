-- firn store schema, version 1 (SQLite). Never edit once released: add a new migration.
--
-- Encodings (the same in PostgreSQL, with BIGINT/BYTEA/DOUBLE PRECISION):
--   heights, timestamps, counts, indexes  INTEGER (checked to fit a signed 64-bit value)
--   u64 amounts and weights               INTEGER holding the u64 bit pattern (exact, not summed in SQL)
--   uint256 values (wei, token amounts)   32-byte big-endian BLOB (sorts numerically)
--   u128 running sums (staking weights)   16-byte big-endian BLOB
--   IDs, hashes, addresses                raw bytes (32 or 20)
--   address lists                         concatenated 20-byte addresses
--   asset amount lists                    concatenated (32-byte asset ID, 8-byte big-endian amount)

CREATE TABLE cursors (
    chain  TEXT PRIMARY KEY,
    height INTEGER NOT NULL
);

-- P-Chain ------------------------------------------------------------------------------------

CREATE TABLE p_blocks (
    height                      INTEGER PRIMARY KEY,
    hash                        BLOB NOT NULL UNIQUE,
    parent_hash                 BLOB NOT NULL,
    timestamp                   INTEGER NOT NULL,
    block_type                  TEXT NOT NULL,
    tx_count                    INTEGER NOT NULL,
    tx_hashes                   BLOB NOT NULL,
    size_bytes                  INTEGER NOT NULL,
    proposer_id                 BLOB,
    proposer_parent_id          BLOB,
    proposer_node_id            BLOB,
    proposer_pchain_height      INTEGER,
    proposer_timestamp          INTEGER,
    l1_validators_accrued_fees  INTEGER,
    active_l1_validators        INTEGER,
    current_supply              INTEGER
);
CREATE INDEX p_blocks_by_timestamp ON p_blocks (timestamp, height);
CREATE INDEX p_blocks_by_proposer ON p_blocks (proposer_node_id, height);

CREATE TABLE p_txs (
    height                    INTEGER NOT NULL,
    tx_index                  INTEGER NOT NULL,
    tx_hash                   BLOB NOT NULL UNIQUE,
    tx_type                   TEXT NOT NULL,
    timestamp                 INTEGER NOT NULL,
    block_hash                BLOB NOT NULL,
    memo                      BLOB NOT NULL,
    source_chain              BLOB,
    destination_chain         BLOB,
    value                     BLOB NOT NULL,
    amount_burned             BLOB NOT NULL,
    amount_staked             BLOB NOT NULL,
    amount_l1_balance_burned  BLOB NOT NULL,
    node_id                   BLOB,
    subnet_id                 BLOB,
    start_ts                  INTEGER,
    end_ts                    INTEGER,
    ends_staker               BLOB,
    details                   TEXT NOT NULL,
    PRIMARY KEY (height, tx_index)
) WITHOUT ROWID;

CREATE TABLE p_tx_addresses (
    address    BLOB NOT NULL,
    height     INTEGER NOT NULL,
    tx_index   INTEGER NOT NULL,
    tx_type    TEXT NOT NULL,
    timestamp  INTEGER NOT NULL,
    PRIMARY KEY (address, height, tx_index)
) WITHOUT ROWID;

CREATE TABLE p_tx_l1_validations (
    validation_id  BLOB NOT NULL,
    height         INTEGER NOT NULL,
    tx_index       INTEGER NOT NULL,
    tx_type        TEXT NOT NULL,
    timestamp      INTEGER NOT NULL,
    PRIMARY KEY (validation_id, height, tx_index)
) WITHOUT ROWID;

CREATE TABLE p_utxos (
    utxo_id              BLOB PRIMARY KEY,
    tx_hash              BLOB NOT NULL,
    output_index         INTEGER NOT NULL,
    emitted_by           BLOB,
    emit_index           INTEGER NOT NULL,
    height               INTEGER NOT NULL,
    timestamp            INTEGER NOT NULL,
    asset_id             BLOB NOT NULL,
    amount               INTEGER NOT NULL,
    addresses            BLOB NOT NULL,
    threshold            INTEGER NOT NULL,
    locktime             INTEGER NOT NULL,
    stakeable_locktime   INTEGER,
    staked               INTEGER NOT NULL,
    utxo_type            TEXT NOT NULL,
    reward_type          TEXT,
    created_on_chain     BLOB NOT NULL,
    consumed_on_chain    BLOB NOT NULL,
    start_ts             INTEGER,
    end_ts               INTEGER,
    bytes                BLOB NOT NULL,
    consuming_tx_hash    BLOB,
    consuming_height     INTEGER,
    consuming_timestamp  INTEGER,
    consume_index        INTEGER
);
CREATE INDEX p_utxos_by_emitter ON p_utxos (emitted_by, emit_index);
CREATE INDEX p_utxos_by_consumer ON p_utxos (consuming_tx_hash, consume_index);

CREATE TABLE address_chains (
    address        BLOB NOT NULL,
    blockchain_id  BLOB NOT NULL,
    PRIMARY KEY (address, blockchain_id)
) WITHOUT ROWID;

CREATE TABLE p_stakers (
    tx_hash           BLOB PRIMARY KEY,
    height            INTEGER NOT NULL,
    tx_index          INTEGER NOT NULL,
    tx_type           TEXT NOT NULL,
    node_id           BLOB NOT NULL,
    subnet_id         BLOB NOT NULL,
    start_ts          INTEGER NOT NULL,
    end_ts            INTEGER NOT NULL,
    weight            INTEGER NOT NULL,
    is_delegator      INTEGER NOT NULL,
    delegation_fee    INTEGER NOT NULL,
    reward_addresses  BLOB NOT NULL,
    estimated_reward  INTEGER,
    end_tx_hash       BLOB,
    end_height        INTEGER,
    end_timestamp     INTEGER,
    gross_reward      INTEGER NOT NULL,
    net_reward        INTEGER NOT NULL
);
CREATE UNIQUE INDEX p_stakers_by_position ON p_stakers (height, tx_index);
CREATE INDEX p_stakers_by_node ON p_stakers (node_id, height, tx_index);
CREATE INDEX p_stakers_by_kind ON p_stakers (is_delegator, height, tx_index);

CREATE TABLE p_staker_reward_addresses (
    address   BLOB NOT NULL,
    height    INTEGER NOT NULL,
    tx_index  INTEGER NOT NULL,
    PRIMARY KEY (address, height, tx_index)
) WITHOUT ROWID;

CREATE TABLE p_rewards (
    height           INTEGER NOT NULL,
    tx_index         INTEGER NOT NULL,
    seq              INTEGER NOT NULL,
    utxo_id          BLOB NOT NULL UNIQUE,
    output_index     INTEGER NOT NULL,
    reward_tx_hash   BLOB NOT NULL,
    staking_tx_hash  BLOB NOT NULL,
    reward_type      TEXT NOT NULL,
    node_id          BLOB NOT NULL,
    amount_staked    INTEGER NOT NULL,
    start_ts         INTEGER NOT NULL,
    end_ts           INTEGER NOT NULL,
    asset_id         BLOB NOT NULL,
    amount           INTEGER NOT NULL,
    addresses        BLOB NOT NULL,
    PRIMARY KEY (height, tx_index, seq)
) WITHOUT ROWID;
CREATE INDEX p_rewards_by_node ON p_rewards (node_id, height, tx_index, seq);

CREATE TABLE p_reward_addresses (
    address   BLOB NOT NULL,
    height    INTEGER NOT NULL,
    tx_index  INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    PRIMARY KEY (address, height, tx_index, seq)
) WITHOUT ROWID;

CREATE TABLE subnets (
    subnet_id           BLOB PRIMARY KEY,
    height              INTEGER NOT NULL,
    tx_hash             BLOB NOT NULL,
    timestamp           INTEGER NOT NULL,
    owner_locktime      INTEGER NOT NULL,
    owner_threshold     INTEGER NOT NULL,
    owner_addresses     BLOB NOT NULL,
    l1_conversion_id    BLOB,
    l1_manager_chain    BLOB,
    l1_manager_address  BLOB,
    l1_converted_at     INTEGER
);
CREATE UNIQUE INDEX subnets_by_creation ON subnets (height, subnet_id);

CREATE TABLE blockchains (
    blockchain_id  BLOB PRIMARY KEY,
    subnet_id      BLOB NOT NULL,
    name           TEXT NOT NULL,
    vm_id          BLOB NOT NULL,
    height         INTEGER NOT NULL,
    tx_hash        BLOB NOT NULL,
    timestamp      INTEGER NOT NULL,
    genesis        BLOB NOT NULL,
    evm_chain_id   INTEGER
);
CREATE UNIQUE INDEX blockchains_by_creation ON blockchains (height, blockchain_id);
CREATE INDEX blockchains_by_subnet ON blockchains (subnet_id, height, blockchain_id);

CREATE TABLE l1_validators (
    validation_id      BLOB PRIMARY KEY,
    subnet_id          BLOB NOT NULL,
    node_id            BLOB NOT NULL,
    weight             INTEGER NOT NULL,
    balance            INTEGER NOT NULL,
    bls_public_key     BLOB NOT NULL,
    created_height     INTEGER NOT NULL,
    created_tx_hash    BLOB NOT NULL,
    updated_height     INTEGER NOT NULL,
    active             INTEGER NOT NULL
);
CREATE UNIQUE INDEX l1_validators_by_creation ON l1_validators (created_height, validation_id);
CREATE INDEX l1_validators_by_subnet ON l1_validators (subnet_id, created_height, validation_id);

CREATE TABLE staking_totals (
    subnet_id         BLOB PRIMARY KEY,
    validator_count   INTEGER NOT NULL,
    validator_weight  BLOB NOT NULL,
    delegator_count   INTEGER NOT NULL,
    delegator_weight  BLOB NOT NULL
);

CREATE TABLE staking_daily (
    subnet_id         BLOB NOT NULL,
    day               INTEGER NOT NULL,
    validator_count   INTEGER NOT NULL,
    validator_weight  BLOB NOT NULL,
    delegator_count   INTEGER NOT NULL,
    delegator_weight  BLOB NOT NULL,
    PRIMARY KEY (subnet_id, day)
) WITHOUT ROWID;

-- EVM chains (C-Chain and every L1) ------------------------------------------------------------

CREATE TABLE evm_chains (
    chain_id        INTEGER PRIMARY KEY,
    blockchain_id   BLOB NOT NULL UNIQUE,
    subnet_id       BLOB NOT NULL,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL,
    is_testnet      INTEGER NOT NULL,
    token_name      TEXT NOT NULL,
    token_symbol    TEXT NOT NULL,
    token_decimals  INTEGER NOT NULL,
    rpc_url         TEXT NOT NULL
);

CREATE TABLE evm_blocks (
    chain_id        INTEGER NOT NULL,
    number          INTEGER NOT NULL,
    hash            BLOB NOT NULL,
    parent_hash     BLOB NOT NULL,
    timestamp       INTEGER NOT NULL,
    tx_count        INTEGER NOT NULL,
    gas_used        INTEGER NOT NULL,
    gas_limit       INTEGER NOT NULL,
    base_fee        BLOB,
    block_gas_cost  BLOB,
    fees_spent      BLOB NOT NULL,
    cumulative_txs  INTEGER NOT NULL,
    size_bytes      INTEGER NOT NULL,
    PRIMARY KEY (chain_id, number)
) WITHOUT ROWID;
CREATE UNIQUE INDEX evm_blocks_by_hash ON evm_blocks (chain_id, hash);

CREATE TABLE evm_txs (
    chain_id          INTEGER NOT NULL,
    number            INTEGER NOT NULL,
    tx_index          INTEGER NOT NULL,
    hash              BLOB NOT NULL,
    from_addr         BLOB NOT NULL,
    to_addr           BLOB,
    value             BLOB NOT NULL,
    nonce             INTEGER NOT NULL,
    gas_limit         INTEGER NOT NULL,
    gas_used          INTEGER NOT NULL,
    gas_price         BLOB NOT NULL,
    max_fee           BLOB,
    max_priority_fee  BLOB,
    tx_type           INTEGER NOT NULL,
    success           INTEGER NOT NULL,
    input             BLOB NOT NULL,
    contract_address  BLOB,
    timestamp         INTEGER NOT NULL,
    PRIMARY KEY (chain_id, number, tx_index)
) WITHOUT ROWID;
CREATE UNIQUE INDEX evm_txs_by_hash ON evm_txs (chain_id, hash);
CREATE INDEX evm_txs_by_from ON evm_txs (chain_id, from_addr, number, tx_index);
CREATE INDEX evm_txs_by_to ON evm_txs (chain_id, to_addr, number, tx_index);

-- Transactions per party (sender, recipient, created contract), for per-address lists.
CREATE TABLE evm_tx_addresses (
    chain_id  INTEGER NOT NULL,
    address   BLOB NOT NULL,
    number    INTEGER NOT NULL,
    tx_index  INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address, number, tx_index)
) WITHOUT ROWID;

CREATE TABLE evm_logs (
    chain_id   INTEGER NOT NULL,
    number     INTEGER NOT NULL,
    log_index  INTEGER NOT NULL,
    tx_index   INTEGER NOT NULL,
    address    BLOB NOT NULL,
    topics     BLOB NOT NULL,
    data       BLOB NOT NULL,
    PRIMARY KEY (chain_id, number, log_index)
) WITHOUT ROWID;

CREATE TABLE evm_internal_txs (
    chain_id     INTEGER NOT NULL,
    number       INTEGER NOT NULL,
    tx_index     INTEGER NOT NULL,
    trace_index  INTEGER NOT NULL,
    from_addr    BLOB NOT NULL,
    to_addr      BLOB NOT NULL,
    call_type    TEXT NOT NULL,
    value        BLOB NOT NULL,
    gas_used     INTEGER NOT NULL,
    gas_limit    INTEGER NOT NULL,
    reverted     INTEGER NOT NULL,
    PRIMARY KEY (chain_id, number, tx_index, trace_index)
) WITHOUT ROWID;

CREATE TABLE evm_transfers (
    chain_id     INTEGER NOT NULL,
    number       INTEGER NOT NULL,
    log_index    INTEGER NOT NULL,
    batch_index  INTEGER NOT NULL,
    tx_index     INTEGER NOT NULL,
    standard     INTEGER NOT NULL,
    token        BLOB NOT NULL,
    from_addr    BLOB NOT NULL,
    to_addr      BLOB NOT NULL,
    token_id     BLOB,
    value        BLOB NOT NULL,
    PRIMARY KEY (chain_id, number, log_index, batch_index)
) WITHOUT ROWID;

CREATE TABLE evm_transfer_addresses (
    chain_id     INTEGER NOT NULL,
    address      BLOB NOT NULL,
    standard     INTEGER NOT NULL,
    number       INTEGER NOT NULL,
    log_index    INTEGER NOT NULL,
    batch_index  INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address, standard, number, log_index, batch_index)
) WITHOUT ROWID;

CREATE TABLE evm_tokens (
    chain_id  INTEGER NOT NULL,
    address   BLOB NOT NULL,
    standard  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    symbol    TEXT NOT NULL,
    decimals  INTEGER,
    PRIMARY KEY (chain_id, address)
) WITHOUT ROWID;

CREATE TABLE evm_nft_metadata (
    chain_id       INTEGER NOT NULL,
    token          BLOB NOT NULL,
    token_id       BLOB NOT NULL,
    token_uri      TEXT NOT NULL,
    index_status   TEXT NOT NULL,
    updated_at     INTEGER,
    name           TEXT,
    symbol         TEXT,
    image_uri      TEXT,
    description    TEXT,
    animation_uri  TEXT,
    external_url   TEXT,
    background     TEXT,
    attributes     TEXT,
    properties     TEXT,
    decimals       INTEGER,
    PRIMARY KEY (chain_id, token, token_id)
) WITHOUT ROWID;

CREATE TABLE evm_collectibles (
    chain_id  INTEGER NOT NULL,
    owner     BLOB NOT NULL,
    token     BLOB NOT NULL,
    token_id  BLOB NOT NULL,
    standard  INTEGER NOT NULL,
    balance   BLOB NOT NULL,
    PRIMARY KEY (chain_id, owner, token, token_id)
) WITHOUT ROWID;

CREATE TABLE evm_contracts (
    chain_id     INTEGER NOT NULL,
    address      BLOB NOT NULL,
    deployer     BLOB NOT NULL,
    tx_hash      BLOB NOT NULL,
    number       INTEGER NOT NULL,
    tx_index     INTEGER NOT NULL,
    trace_index  INTEGER,
    kind         TEXT NOT NULL,
    timestamp    INTEGER NOT NULL,
    PRIMARY KEY (chain_id, address)
) WITHOUT ROWID;

-- Metrics: one row per chain, period length (3600 or 86400) and period start.
CREATE TABLE evm_metrics (
    chain_id              INTEGER NOT NULL,
    period                INTEGER NOT NULL,
    start_ts              INTEGER NOT NULL,
    block_count           INTEGER NOT NULL,
    tx_count              INTEGER NOT NULL,
    gas_used              INTEGER NOT NULL,
    fees_paid             BLOB NOT NULL,
    sum_gas_price         BLOB NOT NULL,
    max_gas_price         BLOB NOT NULL,
    max_tps               DOUBLE NOT NULL,
    max_gps               DOUBLE NOT NULL,
    active_addresses      INTEGER NOT NULL,
    active_senders        INTEGER NOT NULL,
    contracts             INTEGER NOT NULL,
    deployers             INTEGER NOT NULL,
    span_start_ts         INTEGER NOT NULL,
    last_block_ts         INTEGER NOT NULL,
    cumulative_txs        INTEGER NOT NULL,
    cumulative_addresses  INTEGER NOT NULL,
    cumulative_contracts  INTEGER NOT NULL,
    cumulative_deployers  INTEGER NOT NULL,
    PRIMARY KEY (chain_id, period, start_ts)
) WITHOUT ROWID;

-- Distinct addresses seen in one period (kind 0 active, 1 sender, 2 deployer).
CREATE TABLE evm_period_addresses (
    chain_id  INTEGER NOT NULL,
    period    INTEGER NOT NULL,
    start_ts  INTEGER NOT NULL,
    kind      INTEGER NOT NULL,
    address   BLOB NOT NULL,
    PRIMARY KEY (chain_id, period, start_ts, kind, address)
) WITHOUT ROWID;

-- Distinct addresses ever seen on a chain (kind 0 active, 2 deployer).
CREATE TABLE evm_chain_addresses (
    chain_id  INTEGER NOT NULL,
    kind      INTEGER NOT NULL,
    address   BLOB NOT NULL,
    PRIMARY KEY (chain_id, kind, address)
) WITHOUT ROWID;

CREATE TABLE evm_chain_totals (
    chain_id              INTEGER PRIMARY KEY,
    cumulative_txs        INTEGER NOT NULL,
    cumulative_addresses  INTEGER NOT NULL,
    cumulative_contracts  INTEGER NOT NULL,
    cumulative_deployers  INTEGER NOT NULL,
    last_block_ts         INTEGER NOT NULL
);
