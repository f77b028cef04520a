//! L1 validators (`ListL1ValidatorsResponse`).

use firn_core::ids::{Id, NodeId};
use firn_store::rows::pchain::{L1Observation, L1ValidatorRecord, Owner};
use serde::Serialize;
use utoipa::ToSchema;

use super::Ctx;

/// Who owns a balance, or may disable a validator (`BalanceOwner`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BalanceOwner {
    /// Addresses (bech32, no chain prefix).
    pub addresses: Vec<String>,
    /// Signatures needed.
    pub threshold: u32,
}

impl BalanceOwner {
    fn of(ctx: Ctx<'_>, o: &Owner) -> Self {
        Self {
            addresses: ctx.addresses(&o.addresses),
            threshold: o.threshold,
        }
    }
}

/// A validator's BLS key.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlsPublicKey {
    /// Compressed public key, `0x`-hex.
    pub public_key: String,
}

/// What every L1 validator shape starts with: the validation, its node, L1, weight and
/// remaining balance.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct L1Validation {
    /// Validation ID, cb58.
    pub validation_id: String,
    /// Validation ID, `0x`-hex.
    pub validation_id_hex: String,
    /// Node.
    pub node_id: String,
    /// L1.
    pub subnet_id: String,
    /// Weight (0 once removed).
    pub weight: u64,
    /// Remaining balance, nAVAX.
    pub remaining_balance: u64,
}

impl L1Validation {
    /// The wire form of a validation's IDs and amounts.
    pub fn new(
        validation_id: Id,
        node_id: NodeId,
        subnet_id: Id,
        weight: u64,
        remaining_balance: u64,
    ) -> Self {
        Self {
            validation_id: validation_id.to_string(),
            validation_id_hex: format!("0x{}", hex::encode(validation_id.0)),
            node_id: node_id.to_string(),
            subnet_id: subnet_id.to_string(),
            weight,
            remaining_balance,
        }
    }
}

/// One L1 validation (`L1ValidatorDetailsFull`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct L1ValidatorDetailsFull {
    /// The validation, its weight and remaining balance (0 once inactive).
    #[serde(flatten)]
    pub validation: L1Validation,
    /// Time of the block that created it.
    pub creation_timestamp: u64,
    /// BLS key.
    pub bls_credentials: BlsPublicKey,
    /// Who gets the remaining balance back.
    pub remaining_balance_owner: BalanceOwner,
    /// Who may disable it.
    pub deactivation_owner: BalanceOwner,
}

impl L1ValidatorDetailsFull {
    /// From a stored validator and the node's newest word on its balance: an inactive
    /// validator has none; an active one has the node's reading unless it changed since
    /// (then the balance its last transaction left it).
    pub fn from_record(ctx: Ctx<'_>, r: &L1ValidatorRecord, seen: Option<&L1Observation>) -> Self {
        let v = &r.validator;
        let remaining_balance = match seen {
            _ if !v.active => 0,
            Some(o) if o.height >= r.updated_height => o.balance,
            _ => v.balance,
        };
        Self {
            validation: L1Validation::new(
                v.validation_id,
                v.node_id,
                v.subnet_id,
                v.weight,
                remaining_balance,
            ),
            creation_timestamp: r.created_timestamp,
            bls_credentials: BlsPublicKey {
                public_key: format!("0x{}", hex::encode(&v.bls_public_key)),
            },
            remaining_balance_owner: BalanceOwner::of(ctx, &v.remaining_balance_owner),
            deactivation_owner: BalanceOwner::of(ctx, &v.deactivation_owner),
        }
    }
}

/// A page of L1 validators (`ListL1ValidatorsResponse`).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListL1ValidatorsResponse {
    /// Token of the next page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The validators.
    pub validators: Vec<L1ValidatorDetailsFull>,
    /// The P-Chain height the remaining balances are read at.
    pub block_height: String,
}
