//! Keyset paging: [`PageRequest`] in, [`Page`] out, with one cursor type per sort key.
//!
//! A cursor holds the sort key of the last row of a page; the next page starts strictly after
//! it. Every sort key is unique (it ends in a position such as the transaction index), so a page
//! never repeats or skips a row, even when new blocks land between two requests. Cursors print
//! as short dotted text ([`PageCursor::to_token`]); the API layer wraps them into opaque tokens.

use crate::error::{Result, StoreError};
use crate::types::{Address, ParseText, U256};
use firn_core::ids::Id;

/// The largest page the store serves.
pub const MAX_PAGE_LIMIT: u32 = 10_000;

/// Direction of a list. Lists are sorted by their key (block height, then position).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortOrder {
    /// Oldest first.
    Asc,
    /// Newest first (the default).
    #[default]
    Desc,
}

impl SortOrder {
    pub(crate) fn sql(self) -> &'static str {
        match self {
            SortOrder::Asc => "ASC",
            SortOrder::Desc => "DESC",
        }
    }

    /// The comparison that selects rows after the cursor.
    pub(crate) fn after_op(self) -> &'static str {
        match self {
            SortOrder::Asc => ">",
            SortOrder::Desc => "<",
        }
    }
}

/// One page's worth of request: how many rows, and where the previous page stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest<C> {
    /// At most this many rows (1..=[`MAX_PAGE_LIMIT`]).
    pub limit: u32,
    /// The `next` cursor of the previous page; `None` for the first page.
    pub after: Option<C>,
}

impl<C> PageRequest<C> {
    /// The first page of `limit` rows.
    pub fn first(limit: u32) -> Self {
        Self { limit, after: None }
    }

    /// The page of `limit` rows after `cursor`.
    pub fn after(limit: u32, cursor: C) -> Self {
        Self {
            limit,
            after: Some(cursor),
        }
    }

    pub(crate) fn checked_limit(&self) -> Result<i64> {
        if self.limit == 0 || self.limit > MAX_PAGE_LIMIT {
            return Err(StoreError::BadLimit(self.limit));
        }
        Ok(i64::from(self.limit))
    }
}

/// A page of rows and, when more rows exist, the cursor of the next page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<T, C> {
    /// The rows, in the requested order.
    pub items: Vec<T>,
    /// Present only when another page exists.
    pub next: Option<C>,
}

impl<T, C> Page<T, C> {
    /// Builds a page from up to `limit + 1` fetched rows: the extra row only signals "more".
    pub(crate) fn from_rows(mut items: Vec<T>, limit: i64, key: impl Fn(&T) -> C) -> Self {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let next = if items.len() > limit {
            items.truncate(limit);
            items.last().map(key)
        } else {
            None
        };
        Self { items, next }
    }
}

/// A cursor that can travel through the API as text.
pub trait PageCursor: Sized {
    /// The text form: dotted fields, no secrets, stable across releases.
    fn to_token(&self) -> String;
    /// Parses [`PageCursor::to_token`]'s output; anything else is [`StoreError::BadCursor`].
    fn from_token(token: &str) -> Result<Self>;
}

fn fields<const N: usize>(token: &str) -> Result<[&str; N]> {
    let parts: Vec<&str> = token.split('.').collect();
    parts
        .try_into()
        .map_err(|_| StoreError::BadCursor(token.to_owned()))
}

fn num<T: std::str::FromStr>(token: &str, s: &str) -> Result<T> {
    s.parse()
        .map_err(|_| StoreError::BadCursor(token.to_owned()))
}

fn hex_id(token: &str, s: &str) -> Result<Id> {
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(s, &mut bytes).map_err(|_| StoreError::BadCursor(token.to_owned()))?;
    Ok(Id(bytes))
}

/// Cursor of lists keyed by one height or timestamp (blocks, metric periods).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct HeightCursor {
    /// Block height (or period start, for metrics) of the last row.
    pub height: u64,
}

impl PageCursor for HeightCursor {
    fn to_token(&self) -> String {
        self.height.to_string()
    }
    fn from_token(token: &str) -> Result<Self> {
        let [h] = fields(token)?;
        Ok(Self {
            height: num(token, h)?,
        })
    }
}

/// Cursor of lists keyed by a transaction's position (P-Chain transactions, stakers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TxCursor {
    /// Block height.
    pub height: u64,
    /// Index of the transaction in its block.
    pub index: u32,
}

/// Merges pages of rows read by several statements, each in page order, into one page of
/// `limit` rows at most: sorted again, each position once.
pub(crate) fn merge_tx_pages<T>(
    rows: &mut Vec<T>,
    order: SortOrder,
    limit: i64,
    position: impl Fn(&T) -> TxCursor,
) {
    rows.sort_by_key(&position);
    rows.dedup_by_key(|r| position(r));
    if order == SortOrder::Desc {
        rows.reverse();
    }
    rows.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
}

impl PageCursor for TxCursor {
    fn to_token(&self) -> String {
        format!("{}.{}", self.height, self.index)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [h, i] = fields(token)?;
        Ok(Self {
            height: num(token, h)?,
            index: num(token, i)?,
        })
    }
}

/// Cursor of lists ranked by a value worked out per row, then by the row's transaction
/// position (validators sorted by delegation capacity, uptime, …): the last row's key (0 when
/// the list is in transaction order) and position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RankCursor {
    /// The sort key.
    pub key: u64,
    /// Block height.
    pub height: u64,
    /// Index of the transaction in its block.
    pub index: u32,
}

impl PageCursor for RankCursor {
    fn to_token(&self) -> String {
        format!("{}.{}.{}", self.key, self.height, self.index)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [k, h, i] = fields(token)?;
        Ok(Self {
            key: num(token, k)?,
            height: num(token, h)?,
            index: num(token, i)?,
        })
    }
}

/// Cursor of lists keyed by an event inside a block (token transfers, rewards).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct EventCursor {
    /// Block height.
    pub height: u64,
    /// Log index (transfers) or transaction index (rewards).
    pub index: u32,
    /// Position inside that log or transaction (ERC-1155 batch entry, reward UTXO).
    pub sub: u32,
}

impl PageCursor for EventCursor {
    fn to_token(&self) -> String {
        format!("{}.{}.{}", self.height, self.index, self.sub)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [h, i, s] = fields(token)?;
        Ok(Self {
            height: num(token, h)?,
            index: num(token, i)?,
            sub: num(token, s)?,
        })
    }
}

/// Cursor of lists keyed by creation height and an ID (subnets, blockchains, L1 validators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CreatedCursor {
    /// Height of the block that created the row.
    pub height: u64,
    /// The row's ID.
    pub id: Id,
}

impl PageCursor for CreatedCursor {
    fn to_token(&self) -> String {
        format!("{}.{}", self.height, hex::encode(self.id.0))
    }
    fn from_token(token: &str) -> Result<Self> {
        let [h, id] = fields(token)?;
        Ok(Self {
            height: num(token, h)?,
            id: hex_id(token, id)?,
        })
    }
}

/// Cursor of UTXO lists, keyed by the sort key (creating height, or amount) and the UTXO's ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtxoCursor {
    /// The sort key.
    pub key: u64,
    /// The UTXO.
    pub utxo_id: Id,
}

impl PageCursor for UtxoCursor {
    fn to_token(&self) -> String {
        format!("{}.{}", self.key, hex::encode(self.utxo_id.0))
    }
    fn from_token(token: &str) -> Result<Self> {
        let [k, id] = fields(token)?;
        Ok(Self {
            key: num(token, k)?,
            utxo_id: hex_id(token, id)?,
        })
    }
}

/// Cursor of deployed contracts, keyed by the deploying transaction's position and the
/// contract's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct DeploymentCursor {
    /// Block height.
    pub height: u64,
    /// Index of the deploying transaction in its block.
    pub index: u32,
    /// The contract.
    pub address: Address,
}

impl PageCursor for DeploymentCursor {
    fn to_token(&self) -> String {
        format!("{}.{}.{:#x}", self.height, self.index, self.address)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [h, i, a] = fields(token)?;
        Ok(Self {
            height: num(token, h)?,
            index: num(token, i)?,
            address: Address::parse_text(a).map_err(|_| StoreError::BadCursor(token.into()))?,
        })
    }
}

/// Cursor of lists that merge every chain's rows newest first: the last row's block time,
/// chain, block and index (0 for blocks). Ordered as the lists sort, descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChainsCursor {
    /// Block time.
    pub timestamp: u64,
    /// EVM chain ID.
    pub chain_id: u64,
    /// Block height.
    pub height: u64,
    /// Index of the transaction in its block (0 for blocks).
    pub index: u32,
}

impl PageCursor for ChainsCursor {
    fn to_token(&self) -> String {
        format!(
            "{}.{}.{}.{}",
            self.timestamp, self.chain_id, self.height, self.index
        )
    }
    fn from_token(token: &str) -> Result<Self> {
        let [t, c, h, i] = fields(token)?;
        Ok(Self {
            timestamp: num(token, t)?,
            chain_id: num(token, c)?,
            height: num(token, h)?,
            index: num(token, i)?,
        })
    }
}

/// Cursor of collectible balances, keyed by contract then token ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct CollectibleCursor {
    /// Token contract.
    pub contract: Address,
    /// Token ID.
    pub token_id: U256,
}

impl PageCursor for CollectibleCursor {
    fn to_token(&self) -> String {
        format!("{:#x}.{}", self.contract, self.token_id)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [c, t] = fields(token)?;
        Ok(Self {
            contract: Address::parse_text(c).map_err(|_| StoreError::BadCursor(token.into()))?,
            token_id: U256::parse_text(t).map_err(|_| StoreError::BadCursor(token.into()))?,
        })
    }
}

/// Cursor of an owner's ERC-20 balances, keyed by token contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TokenCursor {
    /// Token contract.
    pub token: Address,
}

impl PageCursor for TokenCursor {
    fn to_token(&self) -> String {
        format!("{:#x}", self.token)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [t] = fields(token)?;
        Ok(Self {
            token: Address::parse_text(t).map_err(|_| StoreError::BadCursor(token.into()))?,
        })
    }
}

/// Cursor of webhook lists, keyed by creation time and ID.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct WebhookCursor {
    /// Creation time of the last row, Unix seconds.
    pub created_at: u64,
    /// Its ID.
    pub id: String,
}

impl PageCursor for WebhookCursor {
    fn to_token(&self) -> String {
        format!("{}.{}", self.created_at, self.id)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [t, id] = fields(token)?;
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
            return Err(StoreError::BadCursor(token.into()));
        }
        Ok(Self {
            created_at: num(token, t)?,
            id: id.to_owned(),
        })
    }
}

/// Cursor of request log lists (newest first), keyed by time and log ID.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LogCursor {
    /// Time of the last row, Unix ms.
    pub time_ms: u64,
    /// Its log ID.
    pub log_id: String,
}

impl PageCursor for LogCursor {
    fn to_token(&self) -> String {
        format!("{}.{}", self.time_ms, self.log_id)
    }
    fn from_token(token: &str) -> Result<Self> {
        let [t, id] = fields(token)?;
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
            return Err(StoreError::BadCursor(token.into()));
        }
        Ok(Self {
            time_ms: num(token, t)?,
            log_id: id.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_junk() {
        let t = TxCursor {
            height: u64::MAX,
            index: 7,
        };
        assert_eq!(TxCursor::from_token(&t.to_token()).unwrap(), t);
        let e = EventCursor {
            height: 1,
            index: 2,
            sub: 3,
        };
        assert_eq!(EventCursor::from_token(&e.to_token()).unwrap(), e);
        let c = CollectibleCursor {
            contract: Address::new([9; 20]),
            token_id: U256::MAX,
        };
        assert_eq!(CollectibleCursor::from_token(&c.to_token()).unwrap(), c);
        let t = TokenCursor {
            token: Address::new([5; 20]),
        };
        assert_eq!(TokenCursor::from_token(&t.to_token()).unwrap(), t);
        assert!(TokenCursor::from_token("0x12").is_err());
        let d = DeploymentCursor {
            height: 3,
            index: 1,
            address: Address::new([7; 20]),
        };
        assert_eq!(DeploymentCursor::from_token(&d.to_token()).unwrap(), d);
        let m = ChainsCursor {
            timestamp: 9,
            chain_id: 43113,
            height: 4,
            index: 2,
        };
        assert_eq!(ChainsCursor::from_token(&m.to_token()).unwrap(), m);
        assert!(ChainsCursor::from_token("1.2.3").is_err());
        let k = CreatedCursor {
            height: 5,
            id: Id([3; 32]),
        };
        assert_eq!(CreatedCursor::from_token(&k.to_token()).unwrap(), k);
        let r = RankCursor {
            key: u64::MAX,
            height: 6,
            index: 1,
        };
        assert_eq!(RankCursor::from_token(&r.to_token()).unwrap(), r);
        assert!(RankCursor::from_token("1.2").is_err());
        let u = UtxoCursor {
            key: u64::MAX,
            utxo_id: Id([8; 32]),
        };
        assert_eq!(UtxoCursor::from_token(&u.to_token()).unwrap(), u);
        assert!(UtxoCursor::from_token("1.abc").is_err());
        for bad in ["", "1.2.3.4", "x.1", "-1.0", "1..2"] {
            assert!(TxCursor::from_token(bad).is_err(), "{bad}");
        }
        assert!(HeightCursor::from_token("1.2").is_err());
    }

    #[test]
    fn pages_signal_more_with_the_extra_row() {
        let p = Page::from_rows(vec![1, 2, 3], 2, |x| *x);
        assert_eq!(p.items, vec![1, 2]);
        assert_eq!(p.next, Some(2));
        let p = Page::from_rows(vec![1, 2], 2, |x| *x);
        assert_eq!(p.next, None);
    }
}
