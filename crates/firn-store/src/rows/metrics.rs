//! Metrics rows: per-chain counters per hour, day, week and month, and staking totals per
//! subnet per day.
//! The store keeps them exact and up to date in the same transaction as the blocks.

use firn_core::calendar::{DAY, HOUR, civil_from_days, days_from_civil};
use firn_core::ids::Id;

use crate::types::U256;

/// A metrics period: hours, UTC days, weeks starting Monday and calendar months. The store
/// keeps one counters row per chain and period of each granularity, so every metric (distinct
/// counts included) is exact at each of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Granularity {
    /// One hour, starting on the hour (UTC).
    Hour,
    /// One day, starting 00:00 UTC.
    Day,
    /// Seven days, starting Monday 00:00 UTC.
    Week,
    /// A calendar month, starting on the 1st, 00:00 UTC.
    Month,
}

/// The part an address plays in a period's distinct counts (`evm_period_addresses.kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressRole {
    /// Sender or recipient of a transaction (`activeAddresses`).
    Active,
    /// Sender of a transaction (`activeSenders`).
    Sender,
    /// Sender of a transaction that created a contract (`deployers`).
    Deployer,
}

impl AddressRole {
    /// The `kind` column's value.
    pub const fn code(self) -> i64 {
        match self {
            AddressRole::Active => 0,
            AddressRole::Sender => 1,
            AddressRole::Deployer => 2,
        }
    }
}

impl Granularity {
    /// Every granularity the store maintains.
    pub const ALL: [Granularity; 4] = [
        Granularity::Hour,
        Granularity::Day,
        Granularity::Week,
        Granularity::Month,
    ];

    /// Every name, as the Metrics API's `timeInterval` accepts them.
    pub const NAMES: [&'static str; 4] = ["hour", "day", "week", "month"];

    /// Parses a name (`hour`, `day`, `week`, `month`).
    pub fn from_name(name: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        Some(Self::ALL[i])
    }

    /// The `period` column's value: the length in seconds for hours, days and weeks, and
    /// 2,629,746 (the mean Gregorian month) as the code of calendar months.
    pub fn period_code(self) -> u64 {
        match self {
            Granularity::Hour => HOUR,
            Granularity::Day => DAY,
            Granularity::Week => 7 * DAY,
            Granularity::Month => 2_629_746,
        }
    }

    /// The granularity of a `period` column value.
    pub fn from_period_code(code: u64) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.period_code() == code)
    }

    /// Start of the period holding `ts`.
    pub fn start_of(self, ts: u64) -> u64 {
        match self {
            Granularity::Hour => ts - ts % HOUR,
            Granularity::Day => ts - ts % DAY,
            Granularity::Week => {
                // 1970-01-01 was a Thursday, three days after a Monday; that first week is
                // clamped to the epoch.
                let day = ts / DAY;
                day.saturating_sub((day + 3) % 7) * DAY
            }
            Granularity::Month => {
                let (y, m, _) = civil_from_days(ts / DAY);
                days_from_civil(y, m, 1) * DAY
            }
        }
    }

    /// Start of the period after the one starting at `start`.
    pub fn next(self, start: u64) -> u64 {
        match self {
            Granularity::Hour => start + HOUR,
            Granularity::Day => start + DAY,
            Granularity::Week => Self::Week.start_of(start + 7 * DAY),
            Granularity::Month => {
                let (y, m, _) = civil_from_days(start / DAY);
                let (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
                days_from_civil(y, m, 1) * DAY
            }
        }
    }

    /// Start of the period before the one starting at `start` (`None` before 1970).
    pub fn prev(self, start: u64) -> Option<u64> {
        start.checked_sub(1).map(|t| self.start_of(t))
    }
}

/// Counters of one chain over one period. Counters cover the blocks whose timestamp falls in
/// the period; `cumulative_*` are the chain totals at the period's last block.
///
/// Active addresses are the distinct senders and recipients of transactions; senders are the
/// distinct senders; contracts count deployments (creation transactions and internal
/// `CREATE`/`CREATE2` that did not revert); deployers are the distinct transaction senders
/// that caused them.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
    #[serde(with = "crate::codec::f64_bits")]
    pub max_tps: f64,
    /// Highest per-block gas per second, likewise.
    #[serde(with = "crate::codec::f64_bits")]
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
            f64::from(self.sum_gas_price) / self.tx_count as f64
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

#[cfg(test)]
mod tests {
    use super::Granularity;

    #[test]
    fn periods_start_where_the_calendar_says() {
        // 2023-11-14 22:13:20 UTC, a Tuesday.
        let t = 1_700_000_000;
        assert_eq!(Granularity::Hour.start_of(t), 1_699_999_200);
        assert_eq!(Granularity::Day.start_of(t), 1_699_920_000);
        assert_eq!(Granularity::Week.start_of(t), 1_699_833_600); // Monday 2023-11-13
        assert_eq!(Granularity::Month.start_of(t), 1_698_796_800); // 2023-11-01
        assert_eq!(Granularity::Month.next(1_698_796_800), 1_701_388_800); // 2023-12-01
        assert_eq!(Granularity::Month.next(1_701_388_800), 1_704_067_200); // 2024-01-01
        assert_eq!(Granularity::Month.prev(1_704_067_200), Some(1_701_388_800));
        assert_eq!(Granularity::Month.start_of(1_709_164_800), 1_706_745_600); // 2024-02-29 → 02-01
        // The week of 1970-01-01 began in 1969: clamped to the epoch, and the next one is a
        // whole Monday-started week.
        assert_eq!(Granularity::Week.start_of(0), 0);
        assert_eq!(Granularity::Week.next(0), 4 * 86_400);
        assert_eq!(Granularity::Week.next(1_699_833_600), 1_700_438_400);
    }

    #[test]
    fn names_and_period_codes_round_trip() {
        for (g, name) in Granularity::ALL.into_iter().zip(Granularity::NAMES) {
            assert_eq!(Granularity::from_name(name), Some(g));
            assert_eq!(Granularity::from_period_code(g.period_code()), Some(g));
        }
        assert_eq!(Granularity::from_name("year"), None);
        assert_eq!(Granularity::from_period_code(60), None);
    }
}

/// What one address received from and sent to the zero address of a token: its mints and
/// burns (for a bridged token, what it bridged in and out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetMint {
    /// The address.
    pub address: crate::types::Address,
    /// Minted to it.
    pub minted: U256,
    /// Burned from it.
    pub burned: U256,
}

impl NetMint {
    /// Minted less burned (0 when it burned more than was minted to it).
    pub fn net(&self) -> U256 {
        self.minted.saturating_sub(self.burned)
    }
}

/// Where a token's transfer stands in its chain: block, log, entry of an ERC-1155 batch. The
/// cursor of [`crate::MetricsReader::list_token_moves`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct TransferKey {
    /// Block number.
    pub number: u64,
    /// Log index in the block.
    pub log_index: u32,
    /// Entry in an ERC-1155 `TransferBatch` (0 otherwise).
    pub batch_index: u32,
}

/// One transfer of a token, as a replay of its holders' balances needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenMove {
    /// Where it stands.
    pub key: TransferKey,
    /// The token's standard.
    pub standard: crate::rows::evm::TokenStandard,
    /// Sender (zero address on mint).
    pub from: crate::types::Address,
    /// Recipient (zero address on burn).
    pub to: crate::types::Address,
    /// Token ID (ERC-721 and ERC-1155).
    pub token_id: Option<U256>,
    /// Amount (1 for ERC-721).
    pub value: U256,
}
