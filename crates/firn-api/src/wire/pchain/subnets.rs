//! Subnets (`Subnet`) and the pages of subnets and blockchains.

use firn_store::rows::pchain::SubnetRecord;
use serde::Serialize;
use utoipa::ToSchema;

use super::{Blockchain, Ctx, L1ValidatorManagerDetails, SubnetOwnershipInfo};

/// A subnet or L1 (`Subnet`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subnet {
    /// Creating block time.
    pub create_block_timestamp: u64,
    /// Creating block height.
    pub create_block_index: String,
    /// Subnet ID.
    pub subnet_id: String,
    /// Owners (deprecated: `subnetOwnershipInfo`).
    pub owner_addresses: Vec<String>,
    /// Signatures needed (deprecated: `subnetOwnershipInfo`).
    pub threshold: u32,
    /// Locktime (deprecated: `subnetOwnershipInfo`).
    pub locktime: u64,
    /// The current owner.
    pub subnet_ownership_info: SubnetOwnershipInfo,
    /// Whether a `ConvertSubnetToL1Tx` made it an L1.
    #[serde(rename = "isL1")]
    pub is_l1: bool,
    /// The conversion transaction.
    #[serde(
        rename = "l1ConversionTransactionHash",
        skip_serializing_if = "Option::is_none"
    )]
    pub l1_conversion_transaction_hash: Option<String>,
    /// Where the L1's validator manager lives.
    #[serde(
        rename = "l1ValidatorManagerDetails",
        skip_serializing_if = "Option::is_none"
    )]
    pub l1_validator_manager_details: Option<L1ValidatorManagerDetails>,
    /// Its chains, oldest first.
    pub blockchains: Vec<Blockchain>,
}

impl Subnet {
    /// `r` with its chains and, for an L1, the hash of the transaction that converted it.
    pub fn new(
        ctx: Ctx<'_>,
        r: &SubnetRecord,
        conversion_tx: Option<String>,
        blockchains: Vec<Blockchain>,
    ) -> Self {
        let owner = SubnetOwnershipInfo {
            locktime: r.owner.locktime,
            threshold: r.owner.threshold,
            addresses: ctx.addresses(&r.owner.addresses),
        };
        Self {
            create_block_timestamp: r.timestamp,
            create_block_index: r.height.to_string(),
            subnet_id: r.subnet_id.to_string(),
            owner_addresses: owner.addresses.clone(),
            threshold: owner.threshold,
            locktime: owner.locktime,
            subnet_ownership_info: owner,
            is_l1: r.conversion.is_some(),
            l1_conversion_transaction_hash: conversion_tx,
            l1_validator_manager_details: r.conversion.as_ref().map(|c| {
                L1ValidatorManagerDetails {
                    blockchain_id: c.manager_chain.to_string(),
                    contract_address: format!("0x{}", hex::encode(&c.manager_address)),
                }
            }),
            blockchains,
        }
    }
}

/// A page of subnets (`ListSubnetsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListSubnetsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The subnets.
    pub subnets: Vec<Subnet>,
}

/// A page of blockchains (`ListBlockchainsResponse`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListBlockchainsResponse {
    /// Token of the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// The blockchains.
    pub blockchains: Vec<Blockchain>,
}
