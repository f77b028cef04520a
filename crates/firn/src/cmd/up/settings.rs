//! `firn up`'s settings, each from the first place that has it: flag, environment variable
//! (both through clap), the `--config` TOML file, then the default.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use firn_devnet::DevnetConfig;
use firn_devnet::history::HistoryPlan;
use serde::Deserialize;

use crate::cli::{ProfileArg, UpArgs, parse_hex_bytes};

/// EVM txs per day of history by default: enough to fill every EVM endpoint over a month
/// while keeping the first start short.
pub const DEFAULT_EVM_TXS_PER_DAY: u32 = 48;

/// The `--config` file: the flags' names in snake_case, and an optional `[devnet]` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    data_dir: Option<PathBuf>,
    profile: Option<ProfileArg>,
    seed: Option<String>,
    days: Option<u32>,
    transfers_per_day: Option<u32>,
    evm_txs_per_day: Option<u32>,
    activity_interval: Option<u64>,
    quiet_chain: Option<bool>,
    rpc_addr: Option<SocketAddr>,
    api_addr: Option<SocketAddr>,
    metrics_addr: Option<SocketAddr>,
    database: Option<String>,
    store_cache_mib: Option<u32>,
    warp_off_chain_messages: Option<Vec<String>>,
    devnet: Option<toml::Table>,
}

/// Everything `firn up` runs with.
#[derive(Debug)]
pub struct UpSettings {
    pub data_dir: PathBuf,
    pub profile: Option<ProfileArg>,
    pub seed: Option<String>,
    pub plan: HistoryPlan,
    /// EVM txs per day of history, across the EVM chains.
    pub evm_txs_per_day: u32,
    pub activity_interval: Duration,
    pub quiet_chain: bool,
    pub rpc_addr: SocketAddr,
    pub api_addr: SocketAddr,
    pub metrics_addr: SocketAddr,
    /// The store's URL; `None`: SQLite in the data dir.
    pub database: Option<String>,
    /// SQLite page cache budget in MiB.
    pub store_cache_mib: u32,
    /// Devnet settings for a new data dir, and whether they pin the genesis time.
    pub devnet: Option<(DevnetConfig, bool)>,
    /// Unsigned Warp messages the EVM chains' validators also sign.
    pub warp_off_chain_messages: Vec<Vec<u8>>,
}

pub fn resolve(args: &UpArgs) -> anyhow::Result<UpSettings> {
    let file = match &args.config {
        Some(path) => read_file(path)?,
        None => FileSettings::default(),
    };
    let defaults = HistoryPlan::default();
    let devnet = match file.devnet {
        Some(table) => {
            let pins_genesis = table.contains_key("genesis_time");
            let config: DevnetConfig = table
                .try_into()
                .context("the [devnet] table of the --config file is not a devnet configuration")?;
            Some((config, pins_genesis))
        }
        None => None,
    };
    let interval = args
        .activity_interval
        .or(file.activity_interval)
        .unwrap_or(5);
    let warp_off_chain_messages = if args.warp_off_chain_messages.is_empty() {
        file.warp_off_chain_messages
            .unwrap_or_default()
            .iter()
            .enumerate()
            .map(|(i, m)| {
                parse_hex_bytes(m).map_err(|e| {
                    anyhow::anyhow!("warp_off_chain_messages[{i}] of the --config file: {e}")
                })
            })
            .collect::<anyhow::Result<_>>()?
    } else {
        args.warp_off_chain_messages.clone()
    };
    if interval == 0 {
        anyhow::bail!("--activity-interval must be at least 1 second (use --quiet-chain for none)");
    }
    Ok(UpSettings {
        data_dir: args
            .data_dir
            .clone()
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from("./.firn")),
        profile: args.profile.or(file.profile),
        seed: args.seed.clone().or(file.seed),
        plan: HistoryPlan {
            days: args.days.or(file.days).unwrap_or(defaults.days),
            transfers_per_day: args
                .transfers_per_day
                .or(file.transfers_per_day)
                .unwrap_or(defaults.transfers_per_day),
            ..defaults
        },
        evm_txs_per_day: args
            .evm_txs_per_day
            .or(file.evm_txs_per_day)
            .unwrap_or(DEFAULT_EVM_TXS_PER_DAY),
        activity_interval: Duration::from_secs(interval),
        quiet_chain: args.quiet_chain || file.quiet_chain.unwrap_or(false),
        rpc_addr: args
            .rpc_addr
            .or(file.rpc_addr)
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 9650))),
        api_addr: args
            .api_addr
            .or(file.api_addr)
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 8080))),
        metrics_addr: args
            .metrics_addr
            .or(file.metrics_addr)
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 8081))),
        database: args.database.clone().or(file.database),
        store_cache_mib: args
            .store_cache_mib
            .or(file.store_cache_mib)
            .unwrap_or(firn_store::DEFAULT_CACHE_MIB)
            .max(1),
        devnet,
        warp_off_chain_messages,
    })
}

fn read_file(path: &Path) -> anyhow::Result<FileSettings> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("couldn't read {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("couldn't parse {}", path.display()))
}
