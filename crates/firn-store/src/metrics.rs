//! Metrics rows: storing the per-period counters (written by the EVM commit) and
//! [`crate::MetricsReader`].

use std::collections::BTreeMap;

use firn_core::calendar::DAY;
use firn_core::ids::Id;
use sqlx::AnyConnection;

use crate::codec::{RowExt, int, u256};
use crate::error::{Result, StoreError};
use crate::page::{HeightCursor, Page, PageRequest, SortOrder};
use crate::row::Row;
use crate::rows::evm::TokenStandard;
use crate::rows::l1_fees::{L1FeeDayTotal, L1FeeScope};
use crate::rows::metrics::{
    AddressRole, ChainMetrics, Granularity, NetMint, StakingMetrics, TokenMove, TransferKey,
};
use crate::sql::Sql;
use crate::store::{Backend, Store};
use crate::traits::MetricsReader;
use crate::types::{Address, U256};

pub(crate) fn decode_metrics(r: &dyn Row) -> Result<ChainMetrics> {
    let period = r.u64("period")?;
    let granularity = Granularity::from_period_code(period).ok_or_else(|| StoreError::Corrupt {
        column: "period",
        reason: format!("unknown period {period}"),
    })?;
    Ok(ChainMetrics {
        chain_id: r.u64("chain_id")?,
        granularity,
        start_ts: r.u64("start_ts")?,
        block_count: r.u64("block_count")?,
        tx_count: r.u64("tx_count")?,
        gas_used: r.u64("gas_used")?,
        fees_paid: r.u256("fees_paid")?,
        sum_gas_price: r.u256("sum_gas_price")?,
        max_gas_price: r.u256("max_gas_price")?,
        max_tps: r.f64("max_tps")?,
        max_gps: r.f64("max_gps")?,
        active_addresses: r.u64("active_addresses")?,
        active_senders: r.u64("active_senders")?,
        contracts: r.u64("contracts")?,
        deployers: r.u64("deployers")?,
        span_start_ts: r.u64("span_start_ts")?,
        last_block_ts: r.u64("last_block_ts")?,
        cumulative_txs: r.u64("cumulative_txs")?,
        cumulative_addresses: r.u64("cumulative_addresses")?,
        cumulative_contracts: r.u64("cumulative_contracts")?,
        cumulative_deployers: r.u64("cumulative_deployers")?,
    })
}

pub(crate) async fn upsert_metrics(conn: &mut AnyConnection, m: &ChainMetrics) -> Result<()> {
    sqlx::query(
        "INSERT INTO evm_metrics (chain_id, period, start_ts, block_count, tx_count, gas_used, \
         fees_paid, sum_gas_price, max_gas_price, max_tps, max_gps, active_addresses, \
         active_senders, contracts, deployers, span_start_ts, last_block_ts, cumulative_txs, \
         cumulative_addresses, cumulative_contracts, cumulative_deployers) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
         $19, $20, $21) \
         ON CONFLICT (chain_id, period, start_ts) DO UPDATE SET block_count = excluded.block_count, \
         tx_count = excluded.tx_count, gas_used = excluded.gas_used, fees_paid = excluded.fees_paid, \
         sum_gas_price = excluded.sum_gas_price, max_gas_price = excluded.max_gas_price, \
         max_tps = excluded.max_tps, max_gps = excluded.max_gps, \
         active_addresses = excluded.active_addresses, active_senders = excluded.active_senders, \
         contracts = excluded.contracts, deployers = excluded.deployers, \
         span_start_ts = excluded.span_start_ts, last_block_ts = excluded.last_block_ts, \
         cumulative_txs = excluded.cumulative_txs, cumulative_addresses = excluded.cumulative_addresses, \
         cumulative_contracts = excluded.cumulative_contracts, \
         cumulative_deployers = excluded.cumulative_deployers",
    )
    .bind(int("chain id", m.chain_id)?)
    .bind(int("period", m.granularity.period_code())?)
    .bind(int("period start", m.start_ts)?)
    .bind(int("block count", m.block_count)?)
    .bind(int("tx count", m.tx_count)?)
    .bind(int("gas used", m.gas_used)?)
    .bind(u256(&m.fees_paid))
    .bind(u256(&m.sum_gas_price))
    .bind(u256(&m.max_gas_price))
    .bind(m.max_tps)
    .bind(m.max_gps)
    .bind(int("active addresses", m.active_addresses)?)
    .bind(int("active senders", m.active_senders)?)
    .bind(int("contracts", m.contracts)?)
    .bind(int("deployers", m.deployers)?)
    .bind(int("span start", m.span_start_ts)?)
    .bind(int("last block time", m.last_block_ts)?)
    .bind(int("cumulative txs", m.cumulative_txs)?)
    .bind(int("cumulative addresses", m.cumulative_addresses)?)
    .bind(int("cumulative contracts", m.cumulative_contracts)?)
    .bind(int("cumulative deployers", m.cumulative_deployers)?)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

fn decode_staking(r: &dyn Row) -> Result<StakingMetrics> {
    Ok(StakingMetrics {
        subnet_id: r.id("subnet_id")?,
        day: r.u64("day")?,
        validator_count: r.u64("validator_count")?,
        validator_weight: r.u128("validator_weight")?,
        delegator_count: r.u64("delegator_count")?,
        delegator_weight: r.u128("delegator_weight")?,
    })
}

impl MetricsReader for Store {
    async fn list_chain_metrics(
        &self,
        chain_id: u64,
        granularity: Granularity,
        start_ts: Option<u64>,
        end_ts: Option<u64>,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<ChainMetrics, HeightCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT * FROM evm_metrics WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?)
            .push(" AND period = ")
            .bind(int("period", granularity.period_code())?);
        if let Some(t) = start_ts {
            q.push(" AND start_ts >= ").bind(int("start time", t)?);
        }
        if let Some(t) = end_ts {
            q.push(" AND start_ts <= ").bind(int("end time", t)?);
        }
        if let Some(c) = page.after {
            q.push(&format!(" AND start_ts {} ", order.after_op()))
                .bind(int("cursor", c.height)?);
        }
        q.push(&format!(" ORDER BY start_ts {}", order.sql()))
            .limit(limit + 1);
        let items = self.fetch(q, decode_metrics).await?;
        Ok(Page::from_rows(items, limit, |m| HeightCursor {
            height: m.start_ts,
        }))
    }

    async fn find_first_tx_period(
        &self,
        chain_id: u64,
        granularity: Granularity,
    ) -> Result<Option<u64>> {
        let mut q = Sql::new("SELECT start_ts FROM evm_metrics WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?)
            .push(" AND period = ")
            .bind(int("period", granularity.period_code())?)
            .push(" AND cumulative_txs > 0 ORDER BY start_ts");
        q.limit(1);
        self.fetch_optional(q, |r| r.u64("start_ts")).await
    }

    async fn count_distinct_addresses(
        &self,
        chain_id: u64,
        granularity: Granularity,
        role: AddressRole,
        from_ts: u64,
    ) -> Result<u64> {
        let mut q = Sql::new(
            "SELECT COUNT(DISTINCT address) AS n FROM evm_period_addresses WHERE chain_id = ",
        );
        q.bind(int("chain id", chain_id)?)
            .push(" AND period = ")
            .bind(int("period", granularity.period_code())?)
            .push(" AND start_ts >= ")
            .bind(int("start time", from_ts)?)
            .push(" AND kind = ")
            .bind(role.code());
        let n = self.fetch_optional(q, |r| r.u64("n")).await?;
        Ok(n.unwrap_or(0))
    }

    async fn list_staking_metrics(
        &self,
        subnet_id: Id,
        start_ts: Option<u64>,
        end_ts: Option<u64>,
        order: SortOrder,
        page: &PageRequest<HeightCursor>,
    ) -> Result<Page<StakingMetrics, HeightCursor>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new(
            "SELECT MIN(day) AS first_day, MAX(day) AS last_day FROM staking_daily WHERE subnet_id = ",
        );
        q.bind(subnet_id.0.to_vec());
        let bounds = self
            .fetch_optional(q, |r| Ok((r.opt_u64("first_day")?, r.opt_u64("last_day")?)))
            .await?;
        let Some((Some(first), Some(last))) = bounds else {
            return Ok(Page {
                items: Vec::new(),
                next: None,
            });
        };
        let lo = first.max(start_ts.map_or(0, |t| t.div_ceil(DAY).saturating_mul(DAY)));
        let hi = end_ts.map_or(last, |t| t - t % DAY);
        // The days of this page, in order, plus one to tell whether more exist.
        let want = usize::try_from(limit + 1).unwrap_or(usize::MAX);
        let mut days = Vec::new();
        match order {
            SortOrder::Asc => {
                let mut d = page
                    .after
                    .map_or(lo, |c| c.height.saturating_add(DAY))
                    .max(lo);
                while d <= hi && days.len() < want {
                    days.push(d);
                    match d.checked_add(DAY) {
                        Some(next) => d = next,
                        None => break,
                    }
                }
            }
            SortOrder::Desc => {
                let mut d = page
                    .after
                    .map_or(Some(hi), |c| c.height.checked_sub(DAY))
                    .map(|d| d.min(hi));
                while let Some(day) = d.filter(|day| *day >= lo) {
                    if days.len() >= want {
                        break;
                    }
                    days.push(day);
                    d = day.checked_sub(DAY);
                }
            }
        }
        let (Some(min_day), Some(max_day)) =
            (days.iter().min().copied(), days.iter().max().copied())
        else {
            return Ok(Page {
                items: Vec::new(),
                next: None,
            });
        };
        // Stored rows in range, and the last one before it (the totals carried into the range).
        let mut q = Sql::new("SELECT * FROM staking_daily WHERE subnet_id = ");
        q.bind(subnet_id.0.to_vec())
            .push(" AND day <= ")
            .bind(int("day", max_day)?)
            .push(" AND day >= COALESCE((SELECT MAX(day) FROM staking_daily WHERE subnet_id = ")
            .bind(subnet_id.0.to_vec())
            .push(" AND day <= ")
            .bind(int("day", min_day)?)
            .push("), 0) ORDER BY day");
        let stored = self.fetch(q, decode_staking).await?;
        let mut items = Vec::with_capacity(days.len());
        for day in days {
            if let Some(s) = stored.iter().rev().find(|s| s.day <= day) {
                items.push(StakingMetrics { day, ..*s });
            }
        }
        Ok(Page::from_rows(items, limit, |m| HeightCursor {
            height: m.day,
        }))
    }

    async fn list_l1_fee_days(
        &self,
        scope: L1FeeScope,
        from_day: u64,
        to_day: u64,
    ) -> Result<Vec<L1FeeDayTotal>> {
        crate::pchain::list_l1_fee_days(self, scope, from_day, to_day).await
    }

    async fn list_net_mints(
        &self,
        chain_id: u64,
        token: Address,
        max_transfers: u64,
    ) -> Result<Option<Vec<NetMint>>> {
        let mut sums: BTreeMap<Address, NetMint> = BTreeMap::new();
        let mut read = 0u64;
        // Mints by recipient, then burns by sender: each served by its partial index.
        for (side, zero_side) in [("to_addr", "from_addr"), ("from_addr", "to_addr")] {
            let zero = match self.backend() {
                Backend::Sqlite => "x'0000000000000000000000000000000000000000'",
                Backend::Postgres => "'\\x0000000000000000000000000000000000000000'::bytea",
            };
            let mut q = Sql::new(&format!(
                "SELECT {side} AS address, value FROM evm_transfers WHERE {zero_side} = {zero} \
                 AND chain_id = "
            ));
            q.bind(int("chain id", chain_id)?)
                .push(" AND token = ")
                .bind(token.0.to_vec())
                .push(" AND standard = ")
                .bind(TokenStandard::Erc20.code())
                .limit(
                    i64::try_from(max_transfers.saturating_sub(read)).map_or(i64::MAX, |n| n + 1),
                );
            let rows = self
                .fetch(q, |r| Ok((r.address("address")?, r.u256("value")?)))
                .await?;
            read += rows.len() as u64;
            if read > max_transfers {
                return Ok(None);
            }
            for (address, value) in rows {
                let sum = sums.entry(address).or_insert(NetMint {
                    address,
                    minted: U256::ZERO,
                    burned: U256::ZERO,
                });
                if side == "to_addr" {
                    sum.minted = sum.minted.saturating_add(value);
                } else {
                    sum.burned = sum.burned.saturating_add(value);
                }
            }
        }
        Ok(Some(sums.into_values().collect()))
    }

    async fn list_token_moves(
        &self,
        chain_id: u64,
        token: Address,
        to_block: u64,
        page: &PageRequest<TransferKey>,
    ) -> Result<Vec<TokenMove>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new(
            "SELECT number, log_index, batch_index, standard, from_addr, to_addr, token_id, value \
             FROM evm_transfers WHERE chain_id = ",
        );
        q.bind(int("chain id", chain_id)?)
            .push(" AND token = ")
            .bind(token.0.to_vec())
            .push(" AND number <= ")
            .bind(int("block", to_block)?);
        if let Some(k) = page.after {
            q.push(" AND (number, log_index, batch_index) > (")
                .bind(int("cursor block", k.number)?)
                .push(", ")
                .bind(i64::from(k.log_index))
                .push(", ")
                .bind(i64::from(k.batch_index))
                .push(")");
        }
        q.push(" ORDER BY number, log_index, batch_index")
            .limit(limit);
        self.fetch(q, decode_move).await
    }

    async fn list_chain_addresses(
        &self,
        chain_id: u64,
        page: &PageRequest<Address>,
    ) -> Result<Vec<Address>> {
        let limit = page.checked_limit()?;
        let mut q = Sql::new("SELECT address FROM evm_chain_addresses WHERE chain_id = ");
        q.bind(int("chain id", chain_id)?)
            .push(" AND kind = ")
            .bind(AddressRole::Active.code());
        if let Some(a) = page.after {
            q.push(" AND address > ").bind(a.0.to_vec());
        }
        q.push(" ORDER BY address").limit(limit);
        self.fetch(q, |r| r.address("address")).await
    }
}

fn decode_move(r: &dyn Row) -> Result<TokenMove> {
    Ok(TokenMove {
        key: TransferKey {
            number: r.u64("number")?,
            log_index: r.u32("log_index")?,
            batch_index: r.u32("batch_index")?,
        },
        standard: TokenStandard::from_code("standard", r.i64("standard")?)?,
        from: r.address("from_addr")?,
        to: r.address("to_addr")?,
        token_id: r.opt_u256("token_id")?,
        value: r.u256("value")?,
    })
}
