//! Result rows of either backend, read by column name: sqlx's `AnyRow` (PostgreSQL, and
//! reads inside write transactions) and `sqlite_read`'s rows read in place. Typed decoding
//! of the columns is in `codec`.

use sqlx::Row as _;
use sqlx::any::AnyRow;

use crate::error::{Result, StoreError};

/// A result row of either backend, read by column name; values borrow the row.
pub(crate) trait Row {
    fn get_i64(&self, col: &'static str) -> Result<Option<i64>>;
    fn get_f64(&self, col: &'static str) -> Result<Option<f64>>;
    fn get_blob(&self, col: &'static str) -> Result<Option<&[u8]>>;
    fn get_str(&self, col: &'static str) -> Result<Option<&str>>;
}

impl Row for AnyRow {
    fn get_i64(&self, col: &'static str) -> Result<Option<i64>> {
        self.try_get::<Option<i64>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
    fn get_f64(&self, col: &'static str) -> Result<Option<f64>> {
        self.try_get::<Option<f64>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
    fn get_blob(&self, col: &'static str) -> Result<Option<&[u8]>> {
        self.try_get::<Option<&[u8]>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
    fn get_str(&self, col: &'static str) -> Result<Option<&str>> {
        self.try_get::<Option<&str>, _>(col)
            .map_err(|e| corrupt(col, e.to_string()))
    }
}

/// A column whose stored value cannot be what the schema says.
pub(crate) fn corrupt(column: &'static str, reason: impl Into<String>) -> StoreError {
    StoreError::Corrupt {
        column,
        reason: reason.into(),
    }
}
