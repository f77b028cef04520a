//! Query and path parameters: parsed by hand from the raw request so that every problem
//! becomes a 400 naming the parameter (never an extractor's plain-text rejection), and all
//! problems of one request are reported together (the `message` array).
//!
//! A handler takes [`Query`] and [`PathParams`], reads each parameter once with a typed
//! getter (which records a message on bad input), then calls [`Query::finish`].

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use firn_core::ids::{Id, NodeId, ShortId};
use firn_store::SortOrder;
use firn_store::types::{Address, B256, ParseText};

use crate::error::ApiError;

/// The longest list a comma-separated parameter may hold.
pub const MAX_LIST: usize = 64;

/// The query string of a request, with the problems found so far.
#[derive(Debug, Default)]
pub struct Query {
    pairs: Vec<(String, String)>,
    errors: Vec<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let raw = parts.uri.query().unwrap_or("");
        Ok(Query::parse(raw))
    }
}

impl Query {
    /// Parses a raw query string (`a=1&b=2`).
    pub fn parse(raw: &str) -> Self {
        let pairs = form_urlencoded::parse(raw.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Self {
            pairs,
            errors: Vec::new(),
        }
    }

    /// Every (name, value) pair, in request order.
    pub fn pairs(&self) -> &[(String, String)] {
        &self.pairs
    }

    /// Records a problem with the request.
    pub fn error(&mut self, message: impl Into<String>) {
        self.errors.push(message.into());
    }

    /// The first value of `name`, if present and not empty.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, v)| k == name && !v.is_empty())
            .map(|(_, v)| v.as_str())
    }

    /// Forgets `name=0`: some official lists take 0 for their default size.
    pub fn forget_zero(&mut self, name: &str) {
        self.pairs.retain(|(k, v)| !(k == name && v == "0"));
    }

    /// An owned copy of `str`.
    pub fn string(&self, name: &str) -> Option<String> {
        self.str(name).map(str::to_owned)
    }

    /// An integer in `min..=max`.
    pub fn u64_in(&mut self, name: &str, min: u64, max: u64) -> Option<u64> {
        let raw = self.str(name)?.to_owned();
        let Ok(n) = raw.parse::<i128>() else {
            self.error(format!("{name} must be an integer number"));
            return None;
        };
        if n < i128::from(min) {
            self.error(format!("{name} must not be less than {min}"));
            None
        } else if n > i128::from(max) {
            self.error(format!("{name} must not be greater than {max}"));
            None
        } else {
            u64::try_from(n).ok()
        }
    }

    /// A number in `min..=max`.
    pub fn f64_in(&mut self, name: &str, min: f64, max: f64) -> Option<f64> {
        let raw = self.str(name)?.to_owned();
        match raw.parse::<f64>() {
            Ok(n) if n.is_finite() && (min..=max).contains(&n) => Some(n),
            Ok(n) if n.is_finite() => {
                self.error(format!("{name} must be between {min} and {max}"));
                None
            }
            _ => {
                self.error(format!("{name} must be a number"));
                None
            }
        }
    }

    /// A Unix timestamp (an integer ≥ 0 that the store can hold).
    pub fn timestamp(&mut self, name: &str) -> Option<u64> {
        self.u64_in(name, 0, i64::MAX as u64)
    }

    /// `startTimestamp` and `endTimestamp`; a start after the end is recorded as a 400.
    pub fn time_window(&mut self) -> (Option<u64>, Option<u64>) {
        let start = self.timestamp("startTimestamp");
        let end = self.timestamp("endTimestamp");
        if let (Some(s), Some(e)) = (start, end)
            && s > e
        {
            self.error("startTimestamp must not be greater than endTimestamp");
        }
        (start, end)
    }

    /// One of `allowed`.
    pub fn one_of(&mut self, name: &str, allowed: &[&'static str]) -> Option<&'static str> {
        let raw = self.str(name)?.to_owned();
        match allowed.iter().find(|a| **a == raw) {
            Some(a) => Some(a),
            None => {
                self.error(format!(
                    "{name} must be one of the following values: {}",
                    allowed.join(", ")
                ));
                None
            }
        }
    }

    /// `sortOrder`: `asc` or `desc` (default `desc`).
    pub fn sort_order(&mut self) -> SortOrder {
        match self.one_of("sortOrder", &["asc", "desc"]) {
            Some("asc") => SortOrder::Asc,
            _ => SortOrder::Desc,
        }
    }

    /// Adds a parameter that came another way (a POST body's field), so that it is read, and
    /// binds page tokens, like one of the query string.
    pub fn add(&mut self, name: &str, value: String) {
        self.pairs.push((name.to_owned(), value));
    }

    /// Every value of a list parameter: repeated keys and comma-separated values both count.
    pub fn list(&mut self, name: &str) -> Vec<String> {
        self.list_up_to(name, MAX_LIST)
    }

    /// [`Query::list`] of at most `max` values.
    pub fn list_up_to(&mut self, name: &str, max: usize) -> Vec<String> {
        let items: Vec<String> = self
            .pairs
            .iter()
            .filter(|(k, _)| k == name)
            .flat_map(|(_, v)| v.split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if items.len() > max {
            self.error(format!("{name} must contain no more than {max} elements"));
            return Vec::new();
        }
        items
    }

    /// Each value of a list parameter must be one of `allowed`.
    pub fn enum_list(&mut self, name: &str, allowed: &[&str]) -> Vec<String> {
        let items = self.list(name);
        if let Some(bad) = items.iter().find(|i| !allowed.contains(&i.as_str())) {
            let msg = format!(
                "each value in {name} must be one of the following values: {} (got {bad:?})",
                allowed.join(", ")
            );
            self.error(msg);
            return Vec::new();
        }
        items
    }

    /// A list of primary-network addresses (`fuji1…`, `P-fuji1…`, `X-fuji1…`) of network `hrp`.
    pub fn pchain_addresses(&mut self, name: &str, hrp: &str) -> Vec<ShortId> {
        self.pchain_addresses_up_to(name, hrp, MAX_LIST)
    }

    /// [`Query::pchain_addresses`] of at most `max` addresses.
    pub fn pchain_addresses_up_to(&mut self, name: &str, hrp: &str, max: usize) -> Vec<ShortId> {
        let items = self.list_up_to(name, max);
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match parse_pchain_address(&item, hrp) {
                Some(a) => out.push(a),
                None => self.error(format!(
                    "{name} holds an invalid address {item:?}: expected a {hrp}1… bech32 address, optionally prefixed with P- or X-"
                )),
            }
        }
        out
    }

    /// A list of primary-network addresses where EVM `0x` addresses also count (the C-Chain's
    /// atomic transactions name either): the primary-network ones, and the EVM ones.
    pub fn atomic_addresses(&mut self, name: &str, hrp: &str) -> (Vec<ShortId>, Vec<Address>) {
        let items = self.list(name);
        let (mut primary, mut evm) = (Vec::new(), Vec::new());
        for item in items {
            if let Some(a) = parse_evm_address(&item) {
                evm.push(a);
            } else if let Some(a) = parse_pchain_address(&item, hrp) {
                primary.push(a);
            } else {
                self.error(format!(
                    "{name} holds an invalid address {item:?}: expected a {hrp}1… bech32 address (optionally prefixed with P-, X- or C-) or an EVM 0x address"
                ));
            }
        }
        (primary, evm)
    }

    /// A list of node IDs (`NodeID-…`).
    pub fn node_ids(&mut self, name: &str) -> Vec<NodeId> {
        let items = self.list(name);
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item.parse::<NodeId>() {
                Ok(n) => out.push(n),
                Err(_) => self.error(format!("{name} holds an invalid node ID {item:?}")),
            }
        }
        out
    }

    /// A cb58 ID.
    pub fn id(&mut self, name: &str) -> Option<Id> {
        let raw = self.str(name)?.to_owned();
        match raw.parse::<Id>() {
            Ok(id) => Some(id),
            Err(_) => {
                self.error(format!("{name} must be a cb58 ID"));
                None
            }
        }
    }

    /// An EVM address (`0x` and 40 hex digits).
    pub fn evm_address(&mut self, name: &str) -> Option<Address> {
        let raw = self.str(name)?.to_owned();
        match parse_evm_address(&raw) {
            Some(a) => Some(a),
            None => {
                self.error(format!(
                    "{name} must be an EVM address (0x and 40 hex digits)"
                ));
                None
            }
        }
    }

    /// `Err` with every recorded problem, or `Ok` when there were none.
    pub fn finish(&mut self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::BadRequest(std::mem::take(&mut self.errors)))
        }
    }
}

/// Parses `fuji1…`, `P-fuji1…` or `X-fuji1…` of network `hrp`.
pub fn parse_pchain_address(s: &str, hrp: &str) -> Option<ShortId> {
    let bare = s
        .strip_prefix("P-")
        .or_else(|| s.strip_prefix("X-"))
        .or_else(|| s.strip_prefix("C-"))
        .unwrap_or(s);
    let (got_hrp, id) = firn_core::address::bech32_decode(bare).ok()?;
    (got_hrp == hrp).then_some(id)
}

/// Parses an EVM address in any case.
pub fn parse_evm_address(s: &str) -> Option<Address> {
    let lower = s.to_ascii_lowercase();
    Address::parse_text(&lower).ok()
}

/// Parses a 32-byte hash (`0x` and 64 hex digits) in any case.
pub fn parse_hash(s: &str) -> Option<B256> {
    B256::parse_text(&s.to_ascii_lowercase()).ok()
}

/// The path parameters of the matched route, by name. Bad percent-encoding is a 400.
#[derive(Debug)]
pub struct PathParams(pub HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for PathParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map(|Path(m)| PathParams(m))
            .map_err(|e| ApiError::bad(format!("invalid path parameter: {}", e.body_text())))
    }
}

impl PathParams {
    /// The value of `name` (empty when the route has no such parameter).
    pub fn get(&self, name: &str) -> &str {
        self.0.get(name).map(String::as_str).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_ranges_and_enums() {
        let mut q = Query::parse("pageSize=0&startTimestamp=-1&sortOrder=up&x=abc");
        assert_eq!(q.u64_in("pageSize", 1, 100), None);
        assert_eq!(q.timestamp("startTimestamp"), None);
        q.sort_order();
        assert_eq!(q.u64_in("x", 0, 5), None);
        let Err(ApiError::BadRequest(m)) = q.finish() else {
            panic!("expected a bad request")
        };
        assert_eq!(m.len(), 4);
        assert!(m[0].contains("pageSize must not be less than 1"));
        assert!(m[1].contains("startTimestamp"));
        assert!(m[2].contains("sortOrder"));
        assert!(m[3].contains("x must be an integer"));
    }

    #[test]
    fn lists_split_on_commas_and_repeats() {
        let mut q = Query::parse("txTypes=BaseTx&txTypes=ImportTx,ExportTx");
        assert_eq!(q.list("txTypes"), ["BaseTx", "ImportTx", "ExportTx"]);
        assert!(q.finish().is_ok());
    }
}
