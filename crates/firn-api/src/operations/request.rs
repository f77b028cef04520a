//! Export requests: the two official bodies (`CreateEvmTransactionExportRequest`,
//! `CreatePrimaryNetworkTransactionExportRequest`) checked into an [`ExportSpec`], the job the
//! worker runs. Every problem is collected and answered at once as a 400 naming the field.

use firn_core::calendar::{civil_from_days, days_from_civil};
use firn_store::EvmReader;
use firn_store::rows::evm::ChainRef;
use serde::{Deserialize, Serialize};

use super::ExportConfig;
use crate::error::{ApiError, ApiResult};
use crate::params::{parse_evm_address, parse_pchain_address};
use crate::state::AppState;

/// `TRANSACTION_EXPORT_EVM`.
pub const EVM: &str = "TRANSACTION_EXPORT_EVM";
/// `TRANSACTION_EXPORT_PRIMARY_NETWORK`.
pub const PRIMARY_NETWORK: &str = "TRANSACTION_EXPORT_PRIMARY_NETWORK";
/// `TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING`.
pub const PRIMARY_NETWORK_STAKING: &str = "TRANSACTION_EXPORT_PRIMARY_NETWORK_STAKING";
/// `TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE`.
pub const PRIMARY_NETWORK_SIMPLE: &str = "TRANSACTION_EXPORT_PRIMARY_NETWORK_SIMPLE";

/// The P-Chain transaction types a staking export holds.
pub const STAKING_TX_TYPES: [&str; 4] = [
    "AddValidatorTx",
    "AddDelegatorTx",
    "AddPermissionlessValidatorTx",
    "AddPermissionlessDelegatorTx",
];

/// The names `includeChains` may give the P-Chain: its alias and its blockchain ID.
const P_CHAIN_NAMES: [&str; 2] = ["p-chain", "11111111111111111111111111111111LpoYY"];

/// Either request body, as sent (both share their fields; `type` tells them apart).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateExportRequest {
    #[serde(rename = "type")]
    kind: Option<String>,
    first_date: Option<String>,
    last_date: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
    options: Option<ExportOptions>,
}

/// `EvmNetworkOptions` or `PrimaryNetworkOptions`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExportOptions {
    addresses: Option<Vec<String>>,
    include_chains: Option<Vec<String>>,
}

/// A checked request: what the worker runs, stored with the job as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExportSpec {
    /// The `operationType`.
    pub kind: String,
    /// First day, inclusive (days since 1970-01-01, UTC).
    pub first_day: u64,
    /// Last day, inclusive.
    pub last_day: u64,
    /// EVM addresses (lower-case hex) or P-Chain addresses (bech32), in request order.
    pub addresses: Vec<String>,
    /// EVM chain IDs, in request order (empty for the Primary Network).
    pub chains: Vec<u64>,
}

/// `YYYY-MM-DD` as a day count, if it is a real date from 1970 on.
pub fn parse_day(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if y < 1970 || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m, d);
    // A day past the month's end (2023-02-30) comes back as another date.
    (civil_from_days(days) == (y, m, d)).then_some(days)
}

/// The `YYYY-MM-DD` of a day count.
pub fn format_day(days: u64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// One of the date fields, or its deprecated name.
fn day(
    errors: &mut Vec<String>,
    (name, value): (&str, Option<String>),
    (old, old_value): (&str, Option<String>),
) -> Option<u64> {
    let (name, value) = match (value, old_value) {
        (Some(v), _) => (name, v),
        (None, Some(v)) => (old, v),
        (None, None) => {
            errors.push(format!("{name} is required (YYYY-MM-DD)"));
            return None;
        }
    };
    let parsed = parse_day(&value);
    if parsed.is_none() {
        errors.push(format!("{name} must be a date YYYY-MM-DD"));
    }
    parsed
}

/// Checks `body` against what this server indexes and `config`'s bounds.
pub async fn check(
    state: &AppState,
    config: &ExportConfig,
    body: CreateExportRequest,
) -> ApiResult<ExportSpec> {
    let mut errors = Vec::new();
    let kind = match body.kind.as_deref() {
        Some(k @ (EVM | PRIMARY_NETWORK | PRIMARY_NETWORK_STAKING | PRIMARY_NETWORK_SIMPLE)) => {
            k.to_owned()
        }
        Some(_) => {
            errors.push(format!(
                "type must be one of {EVM}, {PRIMARY_NETWORK}, {PRIMARY_NETWORK_STAKING}, \
                 {PRIMARY_NETWORK_SIMPLE}"
            ));
            String::new()
        }
        None => {
            errors.push("type is required".to_owned());
            String::new()
        }
    };
    let first = day(
        &mut errors,
        ("firstDate", body.first_date),
        ("startDate", body.start_date),
    );
    let last = day(
        &mut errors,
        ("lastDate", body.last_date),
        ("endDate", body.end_date),
    );
    if let (Some(f), Some(l)) = (first, last) {
        if l < f {
            errors.push("lastDate must be on or after firstDate".to_owned());
        } else if l - f + 1 > config.max_days {
            errors.push(format!(
                "firstDate to lastDate must span at most {} days",
                config.max_days
            ));
        }
    }
    let Some(options) = body.options else {
        errors.push("options is required".to_owned());
        return Err(ApiError::BadRequest(errors));
    };
    let raw = options.addresses.unwrap_or_default();
    if raw.is_empty() {
        errors.push("options.addresses must name at least one address".to_owned());
    } else if raw.len() > config.max_addresses {
        errors.push(format!(
            "options.addresses must name at most {} addresses",
            config.max_addresses
        ));
    }
    let include = options.include_chains.unwrap_or_default();
    if include.is_empty() {
        errors.push("options.includeChains must name at least one chain".to_owned());
    }
    let mut addresses = Vec::new();
    let mut chains = Vec::new();
    if kind == EVM {
        for a in raw.iter().take(config.max_addresses) {
            match parse_evm_address(a) {
                Some(parsed) => addresses.push(format!("{parsed:#x}")),
                None => errors.push(format!("options.addresses: {a:?} is not an EVM address")),
            }
        }
        for c in &include {
            match c.parse::<u64>() {
                Ok(id)
                    if state
                        .store
                        .find_evm_chain(ChainRef::Evm(id))
                        .await?
                        .is_some() =>
                {
                    chains.push(id)
                }
                _ => errors.push(format!(
                    "options.includeChains: {c:?} is not an EVM chain this server indexes"
                )),
            }
        }
    } else if !kind.is_empty() {
        let hrp = &state.config.network.hrp;
        for a in raw.iter().take(config.max_addresses) {
            match parse_pchain_address(a, hrp) {
                Some(_) => addresses.push(a.clone()),
                None => errors.push(format!(
                    "options.addresses: {a:?} is not a P-Chain address of this network"
                )),
            }
        }
        for c in &include {
            if !P_CHAIN_NAMES.contains(&c.as_str()) {
                errors.push(format!(
                    "options.includeChains: {c:?} is not indexed by this server (only p-chain is)"
                ));
            }
        }
    }
    match (errors.is_empty(), first, last) {
        (true, Some(first_day), Some(last_day)) => Ok(ExportSpec {
            kind,
            first_day,
            last_day,
            addresses,
            chains,
        }),
        _ => Err(ApiError::BadRequest(errors)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_parse_only_real_dates() {
        assert_eq!(parse_day("1970-01-01"), Some(0));
        assert_eq!(
            parse_day("2024-02-29").map(format_day).as_deref(),
            Some("2024-02-29")
        );
        for bad in [
            "2023-02-29",
            "2023-13-01",
            "2023-00-10",
            "2023-1-01",
            "+023-01-01",
            "1969-12-31",
            "2023-01-01T00",
        ] {
            assert_eq!(parse_day(bad), None, "{bad}");
        }
    }
}
