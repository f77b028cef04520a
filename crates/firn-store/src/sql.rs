//! Building SQL: a statement's text with `$n` (or `?`) placeholders and its bound [`Value`]s,
//! written once and run by either reader — sqlx (PostgreSQL, and every write) or rusqlite
//! (SQLite reads, see `sqlite_read`) — and multi-row inserts chunked under the parameter limit.
//!
//! Both backends take the same SQL: `$n` placeholders (SQLite accepts them too), `ON CONFLICT`
//! upserts, row-value comparisons for keyset paging, and only 64-bit integers, doubles, text
//! and bytes as column types — the four kinds of [`Value`].

use std::borrow::Cow;

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::{Any, AnyConnection, Arguments, Executor};

use crate::error::{Result, StoreError};

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

/// Bound values per statement: SQLite allows 32,766 and PostgreSQL 65,535.
const MAX_PARAMS: usize = 30_000;

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

    /// Appends a bound value inside a `( … )` row, after a comma unless it is the first.
    pub(crate) fn arg(&mut self, value: impl Into<Value>) -> &mut Self {
        if !self.text.ends_with('(') {
            self.text.push_str(", ");
        }
        self.bind(value)
    }

    /// Appends `v1, v2, …` placeholders.
    pub(crate) fn bind_list<T: Into<Value>>(
        &mut self,
        values: impl IntoIterator<Item = T>,
    ) -> &mut Self {
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.text.push_str(", ");
            }
            self.bind(v);
        }
        self
    }

    /// The SQL text and its bound values.
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
fn insert_statements<'a, T>(
    sqlite: bool,
    (head, tail): (&'a str, &'a str),
    columns: usize,
    items: &'a [T],
    mut row: impl FnMut(&mut Sql, &T) -> Result<()> + 'a,
) -> impl Iterator<Item = Result<Sql>> + 'a {
    items
        .chunks((MAX_PARAMS / columns.max(1)).max(1))
        .map(move |chunk| {
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
    let mut inserted = 0;
    for q in insert_statements(sqlite, (head, tail), columns, items, row) {
        inserted += q?.execute(conn).await?;
    }
    Ok(inserted)
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
    let mut out = Vec::new();
    for q in insert_statements(sqlite, (head, tail), columns, items, row) {
        out.extend(q?.fetch_all(&mut *conn).await?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let items = [1i64, 2];
        let mut statements =
            insert_statements(true, ("INSERT INTO t VALUES ", ""), 2, &items, |q, v| {
                q.arg(*v).arg(None::<Vec<u8>>);
                Ok(())
            });
        let (text, values) = statements.next().unwrap().unwrap().into_parts();
        assert_eq!(text, "INSERT INTO t VALUES (?, ?), (?, ?)");
        assert_eq!(values[1], Value::Blob(None));
    }

    #[test]
    fn inserts_split_under_the_parameter_limit() {
        let items: Vec<i64> = (0..25_000).collect();
        let statements =
            insert_statements(false, ("INSERT INTO t VALUES ", ""), 2, &items, |q, v| {
                q.arg(*v).arg(*v);
                Ok(())
            });
        let sizes: Vec<usize> = statements
            .map(|q| q.unwrap().into_parts().1.len())
            .collect();
        assert_eq!(sizes, vec![30_000, 20_000]);
    }
}
