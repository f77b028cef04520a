//! What the state methods beyond reads answer, as subnet-evm's geth writes them:
//! `eth_getProof` ([`AccountResult`]), `eth_createAccessList` ([`AccessListResult`]) and
//! coreth's `eth_callDetailed` ([`DetailedExecutionResult`]).
//!
//! ```
//! use firn_rpc::methods::state::StorageResult;
//!
//! let text = r#"{"key":"0x0","value":"0x2a","proof":[]}"#;
//! let slot: StorageResult = serde_json::from_str(text).unwrap();
//! assert_eq!(slot.value, alloy_primitives::U256::from(42));
//! assert_eq!(serde_json::to_string(&slot).unwrap(), text);
//! ```

use alloy_primitives::{Address, B256, Bytes, U256};
use serde::{Deserialize, Serialize};

use super::eth::{AccessListItem, quantity};

/// `eth_getProof`: an account at a block with the state trie's nodes proving it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccountResult {
    /// The account.
    pub address: Address,
    /// The state trie's nodes on its path, root first.
    pub account_proof: Vec<Bytes>,
    /// Balance.
    pub balance: U256,
    /// Code hash (zero when the account does not exist).
    pub code_hash: B256,
    /// Nonce.
    #[serde(with = "quantity")]
    pub nonce: u64,
    /// Storage root (zero when the account does not exist).
    pub storage_hash: B256,
    /// Each asked slot, in the order asked.
    pub storage_proof: Vec<StorageResult>,
}

/// One slot of [`AccountResult`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageResult {
    /// The slot as asked: 32 bytes as given, shorter ones as a quantity.
    pub key: String,
    /// Its value.
    pub value: U256,
    /// The storage trie's nodes on its path, root first.
    pub proof: Vec<Bytes>,
}

/// `eth_createAccessList`: what the call touches and the gas it uses with that list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessListResult {
    /// The accounts and slots.
    pub access_list: Vec<AccessListItem>,
    /// Why the call fails, if it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Gas used with the list.
    #[serde(with = "quantity")]
    pub gas_used: u64,
}

/// coreth's `eth_callDetailed`: how a call ended, failures included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedExecutionResult {
    /// Gas used (a plain number).
    pub gas: u64,
    /// 3 for a revert with data, 0 otherwise.
    pub err_code: i64,
    /// Why it failed (empty on success).
    pub err: String,
    /// The output, or the revert data.
    pub return_data: Bytes,
}
