//! End-to-end tests of the `firn` binary.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod aggregator_evm;
mod aggregator_rpc;
mod aggregator_sdk;
mod cli;
mod composite;
mod data_api;
mod devnet;
mod e2e;
mod evm_viem;
mod foundry;
mod hardhat;
mod index;
mod js;
mod js_pchain;
mod l1_fees;
mod l1_manager;
mod metrics;
mod registry;
mod supply;
mod teleporter;
mod up;
mod warp_receive;
mod webhooks;
