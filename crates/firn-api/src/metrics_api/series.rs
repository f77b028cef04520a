//! One page of a chain metric's series, newest bucket first, built from the store's counter
//! rows: the bucket range runs from the first period with a transaction (a genesis block's
//! timestamp is configuration, often 0) to the last stored period; empty buckets inside it
//! are points too (zero, or the carried total for cumulative metrics), and only the rows of
//! the page's buckets are read. A network-wide series (several chains) runs over the buckets
//! from the oldest chain's first period to the newest one's last, each point combining the
//! chains' values as [`Metric::across`] says.

use firn_store::page::{HeightCursor, MAX_PAGE_LIMIT, PageRequest};
use firn_store::rows::metrics::{ChainMetrics, Granularity};
use firn_store::{MetricsReader, SortOrder, Store};

use super::metric::{Combine, Metric};
use crate::error::ApiResult;
use crate::params::Query;

/// What a series page asks for.
#[derive(Debug, Clone, Copy)]
pub struct SeriesQuery<'a> {
    /// EVM chain IDs: one, or every chain a network-wide series covers.
    pub chains: &'a [u64],
    /// The metric.
    pub metric: Metric,
    /// The buckets of the page (one stored row per bucket).
    pub bounds: Bounds,
}

/// One page of points, newest first.
#[derive(Debug, Clone, Default)]
pub struct SeriesPage {
    /// (bucket start, value).
    pub points: Vec<(u64, f64)>,
    /// Start of the last point, when more points follow.
    pub next: Option<u64>,
    /// Time of the chain's last counted block (`None` without blocks).
    pub last_block_ts: Option<u64>,
}

pub(super) async fn one(
    store: &Store,
    chain_id: u64,
    granularity: Granularity,
    end_ts: Option<u64>,
    order: SortOrder,
) -> ApiResult<Option<ChainMetrics>> {
    let page = store
        .list_chain_metrics(
            chain_id,
            granularity,
            None,
            end_ts,
            order,
            &PageRequest::first(1),
        )
        .await?;
    Ok(page.items.into_iter().next())
}

/// Every stored row of `granularity` with a period start in `from..=to`, ascending.
pub async fn rows_between(
    store: &Store,
    chain_id: u64,
    granularity: Granularity,
    from: u64,
    to: u64,
) -> ApiResult<Vec<ChainMetrics>> {
    let mut out = Vec::new();
    let mut request = PageRequest::<HeightCursor>::first(MAX_PAGE_LIMIT);
    loop {
        let page = store
            .list_chain_metrics(
                chain_id,
                granularity,
                Some(from),
                Some(to),
                SortOrder::Asc,
                &request,
            )
            .await?;
        out.extend(page.items);
        match page.next {
            Some(c) => request = PageRequest::after(MAX_PAGE_LIMIT, c),
            None => return Ok(out),
        }
    }
}

/// Which buckets of a series a page covers.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Bucket size.
    pub interval: Granularity,
    /// Buckets starting before the one holding this time are left out.
    pub start_ts: Option<u64>,
    /// Buckets starting after this time are left out.
    pub end_ts: Option<u64>,
    /// Start of the last bucket of the previous page.
    pub after: Option<u64>,
    /// Points per page.
    pub size: usize,
}

impl Bounds {
    /// A series' `timeInterval` (default `day`), `startTimestamp`, `endTimestamp` and
    /// `pageSize`, and its `pageToken` for [`Bounds::continue_after`] once the query checks.
    pub(super) fn parse(q: &mut Query) -> (Self, Option<String>) {
        let interval = q
            .one_of("timeInterval", &Granularity::NAMES)
            .and_then(Granularity::from_name)
            .unwrap_or(Granularity::Day);
        let (start_ts, end_ts) = q.time_window();
        let bounds = Self {
            interval,
            start_ts,
            end_ts,
            after: None,
            size: super::page_size(q),
        };
        (bounds, q.string("pageToken"))
    }

    /// Continues after the page `token` (issued for the query `key`) ended, if any.
    pub(super) fn continue_after(
        mut self,
        state: &super::MetricsState,
        key: &str,
        token: Option<&str>,
    ) -> ApiResult<Self> {
        self.after = match token {
            Some(t) => Some(state.tokens.redeem(key, t)?),
            None => None,
        };
        Ok(self)
    }
}

/// The bucket starts of the page, newest first, of a series whose data runs from `oldest` to
/// `newest`: up to `size + 1` (the extra one only tells that more exist).
pub(super) fn bucket_starts(q: Bounds, oldest: u64, newest: u64) -> Vec<u64> {
    let iv = q.interval;
    let lo = iv
        .start_of(oldest)
        .max(q.start_ts.map_or(0, |t| iv.start_of(t)));
    let mut hi = iv.start_of(newest);
    if let Some(end) = q.end_ts {
        hi = hi.min(iv.start_of(end));
    }
    let mut top = Some(hi);
    if let Some(after) = q.after {
        top = iv.prev(after).map(|p| p.min(hi));
    }
    let mut starts = Vec::new();
    while let Some(b) = top.filter(|b| *b >= lo) {
        if starts.len() > q.size {
            break;
        }
        starts.push(b);
        top = iv.prev(b);
    }
    starts
}

/// Reads one page of the series `q` describes.
pub async fn page(store: &Store, q: &SeriesQuery<'_>) -> ApiResult<SeriesPage> {
    let g = q.bounds.interval;
    // (oldest period start, newest period start, last block time) over the chains.
    let mut range: Option<(u64, u64, u64)> = None;
    for &chain in q.chains {
        let Some(newest) = one(store, chain, g, None, SortOrder::Desc).await? else {
            continue;
        };
        let Some(oldest) = store.find_first_tx_period(chain, g).await? else {
            continue;
        };
        let (lo, hi, ts) = range.unwrap_or((oldest, newest.start_ts, 0));
        range = Some((
            lo.min(oldest),
            hi.max(newest.start_ts),
            ts.max(newest.last_block_ts),
        ));
    }
    let Some((oldest, newest, last_ts)) = range else {
        return Ok(SeriesPage::default());
    };
    let mut starts = bucket_starts(q.bounds, oldest, newest);
    let more = starts.len() > q.bounds.size;
    starts.truncate(q.bounds.size);
    let last_block_ts = Some(last_ts);
    let Some(&bottom) = starts.last() else {
        return Ok(SeriesPage {
            last_block_ts,
            ..SeriesPage::default()
        });
    };
    // Oldest first, so the cumulative carry moves forward.
    starts.reverse();
    let metrics = q.metric.read_with(q.chains.len());
    let mut values = Vec::with_capacity(q.chains.len());
    let mut txs = Vec::new();
    for &chain in q.chains {
        let mut read = chain_values(store, chain, &metrics, g, &starts)
            .await?
            .into_iter();
        values.extend(read.next());
        txs.extend(read.next());
    }
    let mut points: Vec<(u64, f64)> = starts
        .iter()
        .enumerate()
        .map(|(i, &start)| (start, q.metric.across_at(&values, &txs, i)))
        .collect();
    points.reverse();
    Ok(SeriesPage {
        next: more.then_some(bottom),
        points,
        last_block_ts,
    })
}

/// One chain's values of each of `metrics` in the buckets starting at `starts` (ascending,
/// consecutive), from one read of its rows.
async fn chain_values(
    store: &Store,
    chain_id: u64,
    metrics: &[Metric],
    g: Granularity,
    starts: &[u64],
) -> ApiResult<Vec<Vec<f64>>> {
    let (Some(&bottom), Some(&top)) = (starts.first(), starts.last()) else {
        return Ok(vec![Vec::new(); metrics.len()]);
    };
    let rows = rows_between(store, chain_id, g, bottom, g.next(top) - 1).await?;
    let cumulative = metrics.iter().any(|m| m.combine() == Combine::Cumulative);
    let mut carry = if cumulative && bottom > 0 {
        one(store, chain_id, g, Some(bottom - 1), SortOrder::Desc).await?
    } else {
        None
    };
    let mut values = vec![Vec::with_capacity(starts.len()); metrics.len()];
    let mut i = 0;
    for &start in starts {
        let next = g.next(start);
        let mut in_bucket = Vec::new();
        while let Some(r) = rows.get(i).filter(|r| r.start_ts < next) {
            if r.start_ts >= start {
                in_bucket.push(r);
            }
            i += 1;
        }
        for (m, v) in metrics.iter().zip(&mut values) {
            v.push(m.value(&in_bucket, carry.as_ref()));
        }
        if let Some(last) = in_bucket.last() {
            carry = Some((*last).clone());
        }
    }
    Ok(values)
}
