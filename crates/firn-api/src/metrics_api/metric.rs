//! The chain metrics (`ChainMetric` on the wire) and how one bucket's value is computed from
//! the store's hourly or daily counter rows that fall in it.
//!
//! Sums, maxima, averages and cumulative totals combine exactly across rows. Distinct counts
//! (active addresses, senders, deployers) do not, so they are served only where one store row
//! is one bucket (hour and day).

use firn_store::rows::metrics::{AddressRole, ChainMetrics};

/// A chain metric, by its wire name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Distinct senders and recipients.
    ActiveAddresses,
    /// Distinct senders.
    ActiveSenders,
    /// Transactions since genesis.
    CumulativeTxCount,
    /// Distinct addresses since genesis.
    CumulativeAddresses,
    /// Contracts since genesis.
    CumulativeContracts,
    /// Distinct deployers since genesis.
    CumulativeDeployers,
    /// Contracts deployed.
    Contracts,
    /// Distinct deployers.
    Deployers,
    /// Gas used.
    GasUsed,
    /// Transactions.
    TxCount,
    /// Gas per second over the bucket's span.
    AvgGps,
    /// Highest per-block gas per second.
    MaxGps,
    /// Transactions per second over the bucket's span.
    AvgTps,
    /// Highest per-block transactions per second.
    MaxTps,
    /// Mean effective gas price, wei.
    AvgGasPrice,
    /// Highest effective gas price, wei.
    MaxGasPrice,
    /// Fees paid, wei.
    FeesPaid,
}

/// How the chains' values of one bucket make a network-wide value (`total`, `mainnet`,
/// `testnet`): counts, rates and totals add up (an address active on two chains counts on
/// each), maxima take the highest chain's, the average gas price weighs each chain's by its
/// transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Across {
    /// The chains' values added.
    Add,
    /// The highest chain's value.
    Max,
    /// The chains' values weighted by their transaction counts.
    TxWeighted,
}

/// How a bucket's rows combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// Add the rows up.
    Sum,
    /// The highest row.
    Max,
    /// A total over the rows' time span (or tx count).
    Average,
    /// The chain total at the bucket's last block, carried over empty buckets.
    Cumulative,
    /// A distinct count: exact only for a single row.
    Distinct,
}

impl Metric {
    /// Every metric with its wire name.
    pub const ALL: [(Metric, &'static str); 17] = [
        (Metric::ActiveAddresses, "activeAddresses"),
        (Metric::ActiveSenders, "activeSenders"),
        (Metric::CumulativeTxCount, "cumulativeTxCount"),
        (Metric::CumulativeAddresses, "cumulativeAddresses"),
        (Metric::CumulativeContracts, "cumulativeContracts"),
        (Metric::CumulativeDeployers, "cumulativeDeployers"),
        (Metric::Contracts, "contracts"),
        (Metric::Deployers, "deployers"),
        (Metric::GasUsed, "gasUsed"),
        (Metric::TxCount, "txCount"),
        (Metric::AvgGps, "avgGps"),
        (Metric::MaxGps, "maxGps"),
        (Metric::AvgTps, "avgTps"),
        (Metric::MaxTps, "maxTps"),
        (Metric::AvgGasPrice, "avgGasPrice"),
        (Metric::MaxGasPrice, "maxGasPrice"),
        (Metric::FeesPaid, "feesPaid"),
    ];

    /// Parses a wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().find(|(_, n)| *n == name).map(|(m, _)| *m)
    }

    /// The wire names, for error messages.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|(_, n)| *n).collect()
    }

    /// Whether the rolling-window route serves it (`ChainRollingWindowMetric`).
    pub fn has_rolling_window(self) -> bool {
        self.combine() != Combine::Cumulative
    }

    /// How the chains' values combine.
    pub fn across_chains(self) -> Across {
        match self {
            Metric::MaxGps | Metric::MaxTps | Metric::MaxGasPrice => Across::Max,
            Metric::AvgGasPrice => Across::TxWeighted,
            _ => Across::Add,
        }
    }

    /// The network-wide value of chains whose values are `values`, with `txs` transactions
    /// each (read only for [`Across::TxWeighted`]).
    pub fn across(self, values: &[f64], txs: &[f64]) -> f64 {
        match self.across_chains() {
            Across::Add => values.iter().fold(0.0, |a, b| a + b),
            Across::Max => values.iter().copied().fold(0.0, f64::max),
            Across::TxWeighted => {
                let total: f64 = txs.iter().sum();
                if total == 0.0 {
                    return 0.0;
                }
                values.iter().zip(txs).map(|(v, n)| v * n).sum::<f64>() / total
            }
        }
    }

    /// What one chain's rows must be read for to combine this metric across `chains` chains:
    /// itself, then the transaction counts it is weighted by when several chains are combined.
    pub fn read_with(self, chains: usize) -> Vec<Metric> {
        if chains > 1 && self.across_chains() == Across::TxWeighted {
            vec![self, Metric::TxCount]
        } else {
            vec![self]
        }
    }

    /// The network-wide value at position `i` of each chain's values (one chain: its own, as
    /// it is); `txs` are the chains' transaction counts at the same positions (read only for
    /// [`Across::TxWeighted`]).
    pub fn across_at<V: AsRef<[f64]>>(self, values: &[V], txs: &[V], i: usize) -> f64 {
        let at = |chains: &[V]| chains.iter().map(|v| v.as_ref()[i]).collect::<Vec<_>>();
        match values {
            [one] => one.as_ref()[i],
            many => self.across(&at(many), &at(txs)),
        }
    }

    /// The addresses a distinct-count metric counts (`None` for the others).
    pub fn address_role(self) -> Option<AddressRole> {
        match self {
            Metric::ActiveAddresses => Some(AddressRole::Active),
            Metric::ActiveSenders => Some(AddressRole::Sender),
            Metric::Deployers => Some(AddressRole::Deployer),
            _ => None,
        }
    }

    /// How rows combine.
    pub fn combine(self) -> Combine {
        match self {
            Metric::ActiveAddresses | Metric::ActiveSenders | Metric::Deployers => {
                Combine::Distinct
            }
            Metric::CumulativeTxCount
            | Metric::CumulativeAddresses
            | Metric::CumulativeContracts
            | Metric::CumulativeDeployers => Combine::Cumulative,
            Metric::Contracts | Metric::GasUsed | Metric::TxCount | Metric::FeesPaid => {
                Combine::Sum
            }
            Metric::MaxGps | Metric::MaxTps | Metric::MaxGasPrice => Combine::Max,
            Metric::AvgGps | Metric::AvgTps | Metric::AvgGasPrice => Combine::Average,
        }
    }

    /// The value one row holds (for sums, maxima, distinct and cumulative metrics).
    fn of_row(self, r: &ChainMetrics) -> f64 {
        match self {
            Metric::ActiveAddresses => r.active_addresses as f64,
            Metric::ActiveSenders => r.active_senders as f64,
            Metric::Deployers => r.deployers as f64,
            Metric::CumulativeTxCount => r.cumulative_txs as f64,
            Metric::CumulativeAddresses => r.cumulative_addresses as f64,
            Metric::CumulativeContracts => r.cumulative_contracts as f64,
            Metric::CumulativeDeployers => r.cumulative_deployers as f64,
            Metric::Contracts => r.contracts as f64,
            Metric::GasUsed => r.gas_used as f64,
            Metric::TxCount => r.tx_count as f64,
            Metric::FeesPaid => f64::from(r.fees_paid),
            Metric::MaxGps => r.max_gps,
            Metric::MaxTps => r.max_tps,
            Metric::MaxGasPrice => f64::from(r.max_gas_price),
            Metric::AvgGps => r.avg_gps(),
            Metric::AvgTps => r.avg_tps(),
            Metric::AvgGasPrice => r.avg_gas_price(),
        }
    }

    /// The value of a bucket whose rows (ascending, possibly none) are `rows`; `carry` is the
    /// last row before the bucket (for cumulative metrics over empty buckets).
    pub fn value(self, rows: &[&ChainMetrics], carry: Option<&ChainMetrics>) -> f64 {
        match self.combine() {
            // Folded from +0.0: an empty f64 sum is -0.0, which would reach the wire.
            Combine::Sum => rows.iter().map(|r| self.of_row(r)).fold(0.0, |a, b| a + b),
            Combine::Max | Combine::Distinct => {
                rows.iter().map(|r| self.of_row(r)).fold(0.0, f64::max)
            }
            Combine::Cumulative => rows
                .last()
                .copied()
                .or(carry)
                .map_or(0.0, |r| self.of_row(r)),
            Combine::Average => {
                let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
                    return 0.0;
                };
                let txs: u64 = rows.iter().map(|r| r.tx_count).sum();
                if self == Metric::AvgGasPrice {
                    if txs == 0 {
                        return 0.0;
                    }
                    let sum: f64 = rows.iter().map(|r| f64::from(r.sum_gas_price)).sum();
                    return sum / txs as f64;
                }
                // From the last block before the bucket to the bucket's last block.
                let span = last
                    .last_block_ts
                    .saturating_sub(first.span_start_ts)
                    .max(1) as f64;
                let total = if self == Metric::AvgTps {
                    txs as f64
                } else {
                    rows.iter().map(|r| r.gas_used as f64).sum()
                };
                total / span
            }
        }
    }
}
