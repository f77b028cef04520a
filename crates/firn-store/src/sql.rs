//! Building SQL: a statement's text with `$n` (or `?`) placeholders and its bound [`Value`]s,
//! written once and run by either reader — sqlx (PostgreSQL, and every write) or rusqlite
//! (SQLite reads, see `sqlite_read`) — and multi-row inserts chunked under the parameter limit
//! (on PostgreSQL, one array per column expanded by `unnest`).
//!
//! Both backends take the same SQL: `$n` placeholders (SQLite accepts them too), `ON CONFLICT`
//! upserts, row-value comparisons for keyset paging, and only 64-bit integers, doubles, text
//! and bytes as column types — the four kinds of [`Value`].

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::task::Poll;

use firn_core::ids::ShortId;
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::{Any, AnyConnection, Arguments, Executor};

use crate::codec::int;
use crate::error::{Result, StoreError};
use crate::page::{SortOrder, TxCursor};

/// One bound value, typed even when null (PostgreSQL gives a parameter the type it is bound
/// with, so a null blob must stay a blob).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<Cow<'static, str>>),
    Blob(Option<Vec<u8>>),
}

/// `From<T>` and `From<Option<T>>` for each Rust type a column binds from.
macro_rules! bind_as {
    ($($t:ty => $kind:ident($wrap:expr);)*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Self {
                Value::$kind(Some(($wrap)(v)))
            }
        }
        impl From<Option<$t>> for Value {
            fn from(v: Option<$t>) -> Self {
                Value::$kind(v.map($wrap))
            }
        }
    )*};
}

bind_as! {
    i64 => Int(|v| v);
    f64 => Real(|v| v);
    &'static str => Text(Cow::Borrowed);
    String => Text(Cow::Owned);
    Vec<u8> => Blob(|v| v);
}

/// The values as sqlx's `Any` driver takes them.
fn any_arguments(values: Vec<Value>) -> Result<AnyArguments<'static>> {
    let mut args = AnyArguments::default();
    args.reserve(values.len(), 0);
    for v in values {
        let added = match v {
            Value::Int(n) => args.add(n),
            Value::Real(x) => args.add(x),
            Value::Text(Some(Cow::Borrowed(t))) => args.add(t),
            Value::Text(t) => args.add(t.map(Cow::into_owned)),
            Value::Blob(b) => args.add(b),
        };
        added.map_err(|e| StoreError::Database(sqlx::Error::Encode(e)))?;
    }
    Ok(args)
}

/// A SQL text with `$n` placeholders built alongside its arguments.
#[derive(Debug, Clone)]
pub(crate) struct Sql {
    text: String,
    values: Vec<Value>,
    /// `?` placeholders instead of `$n` (SQLite: see [`Sql::anonymous_placeholders`]).
    anonymous: bool,
}

/// IDs one `… IN (…)` read of a batch's keys asks for.
pub(crate) const IDS_PER_READ: usize = 1_000;

/// Bound values per statement: SQLite allows 32,766 and PostgreSQL 65,535.
const MAX_PARAMS: usize = 30_000;

/// `VALUES` rows per SQLite statement, a power of 4 (see [`runs`]). SQLite compiles each row
/// of a multi-row `VALUES` into its own bytecode, so a longer statement costs more to prepare
/// and to hold in the connection's statement cache while saving next to nothing per row; at
/// this length a table's inserts use at most five texts (256, 64, 16, 4 and 1 rows), short
/// enough to stay in that cache from batch to batch.
const SQLITE_MAX_ROWS: usize = 256;

impl Sql {
    pub(crate) fn new(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            values: Vec::new(),
            anonymous: false,
        }
    }

    /// Writes `?` rather than `$n` for the values bound from now on. SQLite looks numbered
    /// and named parameters up in a linear list, at prepare and at bind, so a statement with
    /// n `$n` placeholders costs O(n²); `?` costs O(n). Only for statements whose
    /// placeholders all come from [`Sql::bind`], in order.
    pub(crate) fn anonymous_placeholders(&mut self) -> &mut Self {
        self.anonymous = true;
        self
    }

    pub(crate) fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Appends a placeholder bound to `value`.
    pub(crate) fn bind(&mut self, value: impl Into<Value>) -> &mut Self {
        self.values.push(value.into());
        if self.anonymous {
            self.text.push('?');
        } else {
            self.text.push('$');
            self.text.push_str(&self.values.len().to_string());
        }
        self
    }

    /// Appends ` LIMIT n` with `n` written into the text, not bound: PostgreSQL plans a
    /// prepared statement generically only when the generic plan costs about what custom plans
    /// did, and a bound LIMIT (estimated at a tenth of the table) never does, so every
    /// execution was planned anew (~1 ms of a 0.2 ms page). Page sizes are few, so the
    /// statement caches stay small.
    pub(crate) fn limit(&mut self, n: i64) -> &mut Self {
        self.text.push_str(" LIMIT ");
        self.text.push_str(&n.to_string());
        self
    }

    /// Appends `AND (a.height, a.tx_index) <op> (h, i)`: the rows past a tx-position cursor
    /// in `order`, for keyset paging over `alias`.
    pub(crate) fn after_tx(
        &mut self,
        alias: &str,
        order: SortOrder,
        after: Option<TxCursor>,
    ) -> Result<&mut Self> {
        if let Some(c) = after {
            self.push(&format!(
                " AND ({alias}.height, {alias}.tx_index) {} (",
                order.after_op()
            ))
            .bind(int("cursor height", c.height)?)
            .push(", ")
            .bind(i64::from(c.index))
            .push(")");
        }
        Ok(self)
    }

    /// Appends ` ORDER BY a.height o, a.tx_index o`: the page order of tx positions.
    pub(crate) fn order_by_tx(&mut self, alias: &str, order: SortOrder) -> &mut Self {
        let ord = order.sql();
        self.push(&format!(
            " ORDER BY {alias}.height {ord}, {alias}.tx_index {ord}"
        ))
    }

    /// Appends `SELECT DISTINCT m.height, m.tx_index FROM (… UNION ALL …) m` in page order,
    /// `limit` rows at most: the merged page of one ordered walk per key, each written by
    /// `walk` (DISTINCT: one tx can be found by several keys).
    pub(crate) fn merged_walks<K>(
        &mut self,
        keys: &[K],
        order: SortOrder,
        limit: i64,
        mut walk: impl FnMut(&mut Self, &K) -> Result<()>,
    ) -> Result<&mut Self> {
        self.push("SELECT DISTINCT m.height, m.tx_index FROM (");
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                self.push(" UNION ALL ");
            }
            self.push("SELECT * FROM (");
            walk(self, key)?;
            self.push(&format!(") w{i}"));
        }
        self.push(") m").order_by_tx("m", order).limit(limit);
        Ok(self)
    }

    /// Appends a bound value inside a `( … )` row, after a comma unless it is the first.
    pub(crate) fn arg(&mut self, value: impl Into<Value>) -> &mut Self {
        if !self.text.ends_with('(') {
            self.text.push_str(", ");
        }
        self.bind(value)
    }

    /// Appends `v1, v2, …` placeholders, for an `IN ( … )` list. The list is padded to a
    /// power of two with its last value (the same set): each length is a new statement text
    /// for the database to prepare, and this keeps them few enough to stay cached.
    pub(crate) fn bind_list<T: Into<Value>>(
        &mut self,
        values: impl IntoIterator<Item = T>,
    ) -> &mut Self {
        let mut values: Vec<Value> = values.into_iter().map(Into::into).collect();
        if !values.len().is_power_of_two()
            && let Some(last) = values.last().cloned()
        {
            values.resize(values.len().next_power_of_two(), last);
        }
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.text.push_str(", ");
            }
            self.bind(v);
        }
        self
    }

    /// A statement from recorded text and values.
    #[cfg(feature = "testing")]
    pub(crate) fn from_parts(text: String, values: Vec<Value>) -> Self {
        Self {
            text,
            values,
            anonymous: false,
        }
    }

    /// Text and values, to run or record.
    pub(crate) fn into_parts(self) -> (String, Vec<Value>) {
        (self.text, self.values)
    }

    /// Runs the read through sqlx.
    pub(crate) async fn fetch_all<'c, E>(self, executor: E) -> Result<Vec<AnyRow>>
    where
        E: Executor<'c, Database = Any>,
    {
        let args = any_arguments(self.values)?;
        Ok(sqlx::query_with(&self.text, args)
            .fetch_all(executor)
            .await?)
    }

    /// Runs the statement; returns the number of rows it changed.
    pub(crate) async fn execute(self, conn: &mut AnyConnection) -> Result<u64> {
        let args = any_arguments(self.values)?;
        let done = sqlx::query_with(&self.text, args)
            .execute(&mut *conn)
            .await?;
        Ok(done.rows_affected())
    }
}

/// Multi-row `INSERT … VALUES (…), (…)` statements of at most [`MAX_PARAMS`] values each,
/// built one at a time as they run: `head` ends with `VALUES `, `tail` (e.g. an `ON CONFLICT`
/// clause) follows the rows, and `row` binds one item's `columns` values with [`Sql::arg`].
/// On PostgreSQL a chunk is one `unnest` statement instead where it can be ([`unnest_statement`]).
fn insert_statements<'a, T>(
    sqlite: bool,
    (head, tail): (&'a str, &'a str),
    columns: usize,
    items: &'a [T],
    mut row: impl FnMut(&mut Sql, &T) -> Result<()> + 'a,
) -> impl Iterator<Item = Result<Sql>> + 'a {
    let mut max_rows = (MAX_PARAMS / columns.max(1)).max(1);
    if sqlite {
        max_rows = max_rows.min(SQLITE_MAX_ROWS);
    }
    runs(items, max_rows, sqlite).map(move |chunk| {
        if !sqlite && let Some(q) = unnest_statement((head, tail), columns, chunk, &mut row)? {
            return Ok(q);
        }
        let mut q = Sql::new(head);
        if sqlite {
            q.anonymous_placeholders();
        }
        for (i, item) in chunk.iter().enumerate() {
            q.push(if i == 0 { "(" } else { ", (" });
            row(&mut q, item)?;
            q.push(")");
        }
        q.push(tail);
        Ok(q)
    })
}

/// `items` in runs of `max_rows`. With `powers_of_four` (SQLite) the rest, shorter than
/// `max_rows`, goes in runs of powers of 4, longest first: a statement of `n` `VALUES` rows has
/// one text per `n`, and SQLite prepares each text anew unless the connection's statement cache
/// holds it, so a table's inserts then share a few texts. PostgreSQL's `unnest` statements have
/// one text whatever their length, so there the last run is simply shorter.
fn runs<T>(items: &[T], max_rows: usize, powers_of_four: bool) -> impl Iterator<Item = &[T]> {
    let max_rows = max_rows.max(1);
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let len = if powers_of_four && rest.len() < max_rows {
            let mut power = 1;
            while power * 4 <= rest.len() {
                power *= 4;
            }
            power
        } else {
            max_rows.min(rest.len())
        };
        let (run, after) = rest.split_at(len);
        rest = after;
        Some(run)
    })
}

/// PostgreSQL's form of one chunk of [`insert_statements`]: each column's values bound as one
/// array and expanded by `unnest`, so the statement's text is the same however many rows it
/// carries (parsed and planned once per connection) and it binds `columns` values, not
/// `columns × rows`. `None` (the caller writes `VALUES` rows) when `head` does not end in
/// `VALUES ` or `row` writes anything but `columns` plain values of one kind per column.
fn unnest_statement<T>(
    (head, tail): (&str, &str),
    columns: usize,
    chunk: &[T],
    row: &mut impl FnMut(&mut Sql, &T) -> Result<()>,
) -> Result<Option<Sql>> {
    let Some(head) = head.strip_suffix("VALUES ") else {
        return Ok(None);
    };
    let plain_row = format!("({}", vec!["?"; columns].join(", "));
    let mut arrays: Vec<ArrayLiteral> = Vec::with_capacity(columns);
    for item in chunk {
        let mut one = Sql::new("(");
        one.anonymous_placeholders();
        row(&mut one, item)?;
        if one.text != plain_row {
            return Ok(None);
        }
        if arrays.is_empty() {
            arrays = one.values.iter().map(ArrayLiteral::of).collect();
        }
        for (array, value) in arrays.iter_mut().zip(one.values) {
            if !array.push(value) {
                return Ok(None);
            }
        }
    }
    if arrays.is_empty() {
        return Ok(None);
    }
    let mut q = Sql::new(head);
    q.push("SELECT * FROM unnest(");
    for (i, array) in arrays.into_iter().enumerate() {
        if i > 0 {
            q.push(", ");
        }
        let kind = array.kind;
        q.bind(array.finish()).push("::").push(kind).push("[]");
    }
    q.push(") AS u");
    q.push(tail);
    Ok(Some(q))
}

/// A PostgreSQL array literal (`{1,NULL,"\\x00ff"}`) of one column's values, all of one kind.
struct ArrayLiteral {
    /// The element type: `bigint`, `float8`, `text` or `bytea`.
    kind: &'static str,
    text: String,
}

impl ArrayLiteral {
    fn of(value: &Value) -> Self {
        let kind = match value {
            Value::Int(_) => "bigint",
            Value::Real(_) => "float8",
            Value::Text(_) => "text",
            Value::Blob(_) => "bytea",
        };
        Self {
            kind,
            text: String::from("{"),
        }
    }

    /// Appends `value`; false when it is of another kind than the column's.
    fn push(&mut self, value: Value) -> bool {
        use std::fmt::Write;
        if self.text.len() > 1 {
            self.text.push(',');
        }
        let t = &mut self.text;
        match (self.kind, value) {
            ("bigint", Value::Int(v)) => match v {
                Some(n) => {
                    let _ = write!(t, "{n}");
                }
                None => t.push_str("NULL"),
            },
            ("float8", Value::Real(v)) => match v {
                Some(x) if x.is_nan() => t.push_str("NaN"),
                Some(x) if x.is_infinite() => {
                    t.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" })
                }
                Some(x) => {
                    let _ = write!(t, "{x:?}");
                }
                None => t.push_str("NULL"),
            },
            ("text", Value::Text(v)) => match v {
                Some(s) => {
                    t.push('"');
                    for c in s.chars() {
                        if c == '"' || c == '\\' {
                            t.push('\\');
                        }
                        t.push(c);
                    }
                    t.push('"');
                }
                None => t.push_str("NULL"),
            },
            // `\x` + hex is bytea's input form; the array's quoting doubles the backslash.
            ("bytea", Value::Blob(v)) => match v {
                Some(b) => {
                    t.push_str("\"\\\\x");
                    t.push_str(&hex::encode(b));
                    t.push('"');
                }
                None => t.push_str("NULL"),
            },
            _ => return false,
        }
        true
    }

    fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

/// Inserts `items` in multi-row statements (see [`insert_statements`]). Returns the number of
/// rows inserted (conflicts skipped by `DO NOTHING` do not count).
pub(crate) async fn insert_many<T>(
    conn: &mut AnyConnection,
    head: &str,
    tail: &str,
    columns: usize,
    items: &[T],
    row: impl FnMut(&mut Sql, &T) -> Result<()>,
) -> Result<u64> {
    let sqlite = conn.backend_name() == "SQLite";
    let mut statements = insert_statements(sqlite, (head, tail), columns, items, row);
    let mut inserted = 0;
    let mut next = statements.next();
    while let Some(q) = next {
        let (done, built) = meanwhile(q?.execute(conn), || statements.next()).await;
        inserted += done?;
        next = built;
    }
    Ok(inserted)
}

/// Awaits `running`, a statement on its way to the database, and calls `build` (the next
/// statement) while the database runs it: `running` is polled once first, which sends it.
/// The writer's own work on a batch (building a statement's values, or PostgreSQL's array
/// literals) then overlaps the database's, on another thread or in another process.
async fn meanwhile<F: Future, B>(running: F, build: impl FnOnce() -> B) -> (F::Output, B) {
    let mut running = std::pin::pin!(running);
    let first = std::future::poll_fn(|cx| Poll::Ready(running.as_mut().poll(cx))).await;
    let built = build();
    let done = match first {
        Poll::Ready(done) => done,
        Poll::Pending => running.await,
    };
    (done, built)
}

/// [`insert_many`]'s statements, returning their rows: an `INSERT … RETURNING …` (with
/// `ON CONFLICT DO NOTHING`, only the rows actually inserted), or a read over a `VALUES` list
/// of keys (`head` `WITH k (…) AS (VALUES `, `tail` `) SELECT … FROM k JOIN …`).
pub(crate) async fn rows_returning<T>(
    conn: &mut AnyConnection,
    head: &str,
    tail: &str,
    columns: usize,
    items: &[T],
    row: impl FnMut(&mut Sql, &T) -> Result<()>,
) -> Result<Vec<AnyRow>> {
    let sqlite = conn.backend_name() == "SQLite";
    let mut statements = insert_statements(sqlite, (head, tail), columns, items, row);
    let mut out = Vec::new();
    let mut next = statements.next();
    while let Some(q) = next {
        let (rows, built) = meanwhile(q?.fetch_all(&mut *conn), || statements.next()).await;
        out.extend(rows?);
        next = built;
    }
    Ok(out)
}

/// Each row under each of its distinct owners, for the tables that list rows by address.
pub(crate) fn by_owner<'r, R>(
    rows: &'r [R],
    owners: impl Fn(&'r R) -> &'r [ShortId],
) -> Vec<(&'r ShortId, &'r R)> {
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let distinct: BTreeSet<&ShortId> = owners(r).iter().collect();
        out.extend(distinct.into_iter().map(|a| (a, r)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_chunks_are_powers_of_four_longest_first() {
        let items: Vec<u32> = (0..1_000).collect();
        let lengths: Vec<usize> = runs(&items, 300, true).map(<[u32]>::len).collect();
        assert_eq!(lengths, [300, 300, 300, 64, 16, 16, 4]);
        let joined: Vec<u32> = runs(&items, 300, true).flatten().copied().collect();
        assert_eq!(joined, items);
        assert_eq!(runs(&items[..3], 1, true).count(), 3);
        assert_eq!(runs(&items[..0], 64, true).count(), 0);
        let even: Vec<usize> = runs(&items, 300, false).map(<[u32]>::len).collect();
        assert_eq!(even, [300, 300, 300, 100]);
    }

    #[test]
    fn placeholders_number_or_follow_in_order() {
        let mut q = Sql::new("SELECT * FROM t WHERE a = ");
        q.bind(1i64)
            .push(" AND b IN (")
            .bind_list(["x", "y"])
            .push(")");
        let (text, values) = q.into_parts();
        assert_eq!(text, "SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)");
        assert_eq!(
            values,
            vec![Value::Int(Some(1)), "x".into(), String::from("y").into()]
        );
        let mut q = Sql::new("SELECT * FROM t WHERE b IN (");
        q.bind_list(["x", "y", "z"]).push(")");
        let (text, values) = q.into_parts();
        assert_eq!(text, "SELECT * FROM t WHERE b IN ($1, $2, $3, $4)");
        assert_eq!(values, vec!["x".into(), "y".into(), "z".into(), "z".into()]);
        let items = [1i64, 2, 3, 4];
        let mut statements =
            insert_statements(true, ("INSERT INTO t VALUES ", ""), 2, &items, |q, v| {
                q.arg(*v).arg(None::<Vec<u8>>);
                Ok(())
            });
        let (text, values) = statements.next().unwrap().unwrap().into_parts();
        assert_eq!(text, "INSERT INTO t VALUES (?, ?), (?, ?), (?, ?), (?, ?)");
        assert_eq!(values[1], Value::Blob(None));
    }

    #[test]
    fn postgres_inserts_bind_one_array_per_column() {
        let items = [(1i64, Some(vec![0u8, 0xff]), "a\"b\\c"), (-2, None, "NULL")];
        let mut statements = insert_statements(
            false,
            ("INSERT INTO t (a, b, c) VALUES ", " ON CONFLICT DO NOTHING"),
            3,
            &items,
            |q, (a, b, c)| {
                q.arg(*a).arg(b.clone()).arg(*c);
                Ok(())
            },
        );
        let (text, values) = statements.next().unwrap().unwrap().into_parts();
        assert!(statements.next().is_none());
        assert_eq!(
            text,
            "INSERT INTO t (a, b, c) SELECT * FROM unnest($1::bigint[], $2::bytea[], \
             $3::text[]) AS u ON CONFLICT DO NOTHING"
        );
        assert_eq!(
            values,
            vec![
                Value::from(String::from("{1,-2}")),
                Value::from(String::from(r#"{"\\x00ff",NULL}"#)),
                Value::from(String::from(r#"{"a\"b\\c","NULL"}"#)),
            ]
        );
    }

    #[test]
    fn postgres_rows_with_more_than_placeholders_stay_values() {
        let items = [1i64, 2];
        let mut statements =
            insert_statements(false, ("INSERT INTO t VALUES ", ""), 2, &items, |q, v| {
                q.arg(*v).push(", now()");
                Ok(())
            });
        let (text, _) = statements.next().unwrap().unwrap().into_parts();
        assert_eq!(text, "INSERT INTO t VALUES ($1, now()), ($2, now())");
    }

    #[test]
    fn inserts_split_under_the_parameter_limit() {
        let items: Vec<i64> = (0..25_000).collect();
        // Rows that are not plain values stay `VALUES` rows on PostgreSQL too: 15,000 rows of
        // two values, then the other 10,000.
        let sizes: Vec<usize> =
            insert_statements(false, ("INSERT INTO t VALUES ", ""), 2, &items, |q, v| {
                q.arg(*v).arg(*v).push(", now()");
                Ok(())
            })
            .map(|q| q.unwrap().into_parts().1.len())
            .collect();
        assert_eq!(sizes, [30_000, 20_000]);
    }

    #[test]
    fn sqlite_inserts_are_runs_of_at_most_256_rows() {
        let items: Vec<i64> = (0..25_000).collect();
        let rows: Vec<usize> =
            insert_statements(true, ("INSERT INTO t VALUES ", ""), 2, &items, |q, v| {
                q.arg(*v).arg(*v);
                Ok(())
            })
            .map(|q| q.unwrap().into_parts().1.len() / 2)
            .collect();
        // 97 × 256, then the other 168 as 64 × 2, 16 × 2 and 4 × 2.
        let mut expected = vec![256; 97];
        expected.extend([64, 64, 16, 16, 4, 4]);
        assert_eq!(rows, expected);
    }

    /// The next statement is built after the running one was first polled (sent), before it
    /// finished.
    #[tokio::test]
    async fn the_next_statement_is_built_while_one_runs() {
        use std::sync::Mutex;
        let events = Mutex::new(Vec::new());
        let mut polls = 0;
        let running = std::future::poll_fn(|cx| {
            polls += 1;
            events.lock().unwrap().push(format!("poll {polls}"));
            if polls == 1 {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(7)
        });
        let (done, built) = meanwhile(running, || {
            events.lock().unwrap().push("build".to_owned());
            "next"
        })
        .await;
        assert_eq!((done, built), (7, "next"));
        assert_eq!(*events.lock().unwrap(), ["poll 1", "build", "poll 2"]);
    }
}
