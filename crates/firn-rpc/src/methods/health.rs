//! `health.*` on `/ext/health` (AvalancheGo's `api/health`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::methods;

methods! {
    /// Every check.
    Health = "health.health" (TagsParams) -> HealthReply;
    /// The readiness checks.
    Readiness = "health.readiness" (TagsParams) -> HealthReply;
    /// The liveness checks.
    Liveness = "health.liveness" (TagsParams) -> HealthReply;
}

/// `{tags}`: only checks with these tags (firn's checks have none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TagsParams {
    /// The tags.
    pub tags: Vec<String>,
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// What the check reports; each check has its own shape (Go's `interface{}`).
    pub message: Value,
    /// When it ran, RFC 3339.
    pub timestamp: String,
    /// How long it took, nanoseconds.
    pub duration: u64,
}

/// `{checks, healthy}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HealthReply {
    /// By check name.
    pub checks: BTreeMap<String, Check>,
    /// Whether every check passed.
    pub healthy: bool,
}
