//! Metrics rows: per-chain counters per hour and day, and staking totals per subnet per day.
//! The store keeps them exact and up to date in the same transaction as the blocks.

use firn_core::ids::Id;

use crate::types::U256;

/// Length of a metrics period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Granularity {
    /// One hour, starting on the hour (UTC).
    Hour,
    /// One day, starting 00:00 UTC.
    Day,
}

impl Granularity {
    /// Every granularity the store maintains.
    pub const ALL: [Granularity; 2] = [Granularity::Hour, Granularity::Day];

    /// Period length in seconds.
    pub fn seconds(self) -> u64 {
        match self {
            Granularity::Hour => 3_600,
            Granularity::Day => 86_400,
        }
    }

    /// Start of the period holding `ts`.
    pub fn start_of(self, ts: u64) -> u64 {
        ts - ts % self.seconds()
    }
}

/// Counters of one chain over one period. Counters cover the blocks whose timestamp falls in
/// the period; `cumulative_*` are the chain totals at the period's last block.
///
/// Active addresses are the distinct senders and recipients of transactions; senders are the
/// distinct senders; contracts count deployments (creation transactions and internal
/// `CREATE`/`CREATE2` that did not revert); deployers are the distinct transaction senders
/// that caused them.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainMetrics {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Period length.
    pub granularity: Granularity,
    /// Period start, Unix seconds.
    pub start_ts: u64,
    /// Blocks in the period.
    pub block_count: u64,
    /// Transactions.
    pub tx_count: u64,
    /// Gas used.
    pub gas_used: u64,
    /// Sum of `gas_used * gas_price`, wei.
    pub fees_paid: U256,
    /// Sum of effective gas prices (for the average).
    pub sum_gas_price: U256,
    /// Highest effective gas price.
    pub max_gas_price: U256,
    /// Highest per-block transactions per second (block txs ÷ seconds since the previous block,
    /// at least one second).
    pub max_tps: f64,
    /// Highest per-block gas per second, likewise.
    pub max_gps: f64,
    /// Distinct active addresses.
    pub active_addresses: u64,
    /// Distinct senders.
    pub active_senders: u64,
    /// Contracts deployed.
    pub contracts: u64,
    /// Distinct deployers.
    pub deployers: u64,
    /// Time of the last block before the period (or of its first block, at genesis).
    pub span_start_ts: u64,
    /// Time of the period's last block.
    pub last_block_ts: u64,
    /// Chain transactions up to the period's last block.
    pub cumulative_txs: u64,
    /// Distinct active addresses ever, up to the period's last block.
    pub cumulative_addresses: u64,
    /// Contracts ever.
    pub cumulative_contracts: u64,
    /// Distinct deployers ever.
    pub cumulative_deployers: u64,
}

impl ChainMetrics {
    /// A period with no blocks yet, starting at `start_ts`, whose span runs from `span_start_ts`
    /// (the last block before it) to `last_block_ts`.
    pub fn empty(
        chain_id: u64,
        granularity: Granularity,
        start_ts: u64,
        span_start_ts: u64,
        last_block_ts: u64,
    ) -> Self {
        Self {
            chain_id,
            granularity,
            start_ts,
            block_count: 0,
            tx_count: 0,
            gas_used: 0,
            fees_paid: U256::ZERO,
            sum_gas_price: U256::ZERO,
            max_gas_price: U256::ZERO,
            max_tps: 0.0,
            max_gps: 0.0,
            active_addresses: 0,
            active_senders: 0,
            contracts: 0,
            deployers: 0,
            span_start_ts,
            last_block_ts,
            cumulative_txs: 0,
            cumulative_addresses: 0,
            cumulative_contracts: 0,
            cumulative_deployers: 0,
        }
    }

    fn span(&self) -> u64 {
        self.last_block_ts.saturating_sub(self.span_start_ts).max(1)
    }

    /// Transactions ÷ seconds from the last block before the period to the period's last block.
    pub fn avg_tps(&self) -> f64 {
        self.tx_count as f64 / self.span() as f64
    }

    /// Gas ÷ the same span.
    pub fn avg_gps(&self) -> f64 {
        self.gas_used as f64 / self.span() as f64
    }

    /// Mean effective gas price over the period's transactions (0 without transactions).
    pub fn avg_gas_price(&self) -> f64 {
        if self.tx_count == 0 {
            0.0
        } else {
            self.sum_gas_price.to_f64() / self.tx_count as f64
        }
    }
}

/// Staking totals of one subnet at the end of one day (UTC). Stakers count from the block
/// that adds them to the block that rewards or removes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StakingMetrics {
    /// Subnet (the Primary Network is 32 zero bytes).
    pub subnet_id: Id,
    /// Day start, Unix seconds.
    pub day: u64,
    /// Validators.
    pub validator_count: u64,
    /// Sum of validator weights.
    pub validator_weight: u128,
    /// Delegators.
    pub delegator_count: u64,
    /// Sum of delegator weights.
    pub delegator_weight: u128,
}
