//! `firn devnet`: the network `firn_node::spawn` runs (the P-Chain and its block producer,
//! the EVM chains, the node RPC, the validators answering `firn.requestWarpSignature`) on a
//! data dir, with its banner, until Ctrl-C.

use std::path::Path;

use anyhow::{Context, bail};
use firn_core::network::network_name;
use firn_devnet::{DevnetConfig, Profile};
use firn_node::{NodeConfig, NodeHandle};
use serde_json::{Value, json};
use tracing::info;

use crate::cli::{DevnetArgs, ProfileArg};

/// The configuration a data dir was created with.
const CONFIG_FILE: &str = "devnet.toml";

pub fn run(args: &DevnetArgs) -> anyhow::Result<()> {
    let config = load_config(&ChainChoice::of(args)?, DevnetConfig::starting_now)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("couldn't start the async runtime")?;
    runtime.block_on(serve(args, config))
}

/// What picks a data dir's chain: the dir, and for a new dir the profile, seed and config file.
pub(crate) struct ChainChoice<'a> {
    pub data_dir: &'a Path,
    pub profile: Option<ProfileArg>,
    pub seed: Option<&'a str>,
    /// A configuration given for a new dir, and whether it pins its genesis time.
    pub config: Option<(DevnetConfig, bool)>,
}

impl<'a> ChainChoice<'a> {
    fn of(args: &'a DevnetArgs) -> anyhow::Result<Self> {
        let config = match args.config.as_deref() {
            Some(path) => Some((read_config(path)?, names_genesis_time(path)?)),
            None => None,
        };
        Ok(Self {
            data_dir: &args.data_dir,
            profile: args.profile,
            seed: args.seed.as_deref(),
            config,
        })
    }
}

fn profile_of(p: ProfileArg) -> Profile {
    match p {
        ProfileArg::Fuji => Profile::Fuji,
        ProfileArg::Local => Profile::Local,
    }
}

/// Reads the saved configuration of an existing data dir, or makes and saves a new one;
/// `place_genesis` sets a new chain's genesis time unless the config file pins it.
pub(crate) fn load_config(
    args: &ChainChoice<'_>,
    place_genesis: impl FnOnce(DevnetConfig) -> DevnetConfig,
) -> anyhow::Result<DevnetConfig> {
    let saved_path = args.data_dir.join(CONFIG_FILE);
    if saved_path.exists() {
        let saved = read_config(&saved_path)?;
        if let Some((given, _)) = &args.config
            && *given != saved
        {
            bail!(
                "{} was created with a different configuration ({}); use a new --data-dir",
                args.data_dir.display(),
                saved_path.display()
            );
        }
        if let Some(p) = args.profile
            && profile_of(p) != saved.profile
        {
            bail!(
                "{} was created with profile {:?}",
                args.data_dir.display(),
                saved.profile
            );
        }
        if let Some(seed) = args.seed
            && seed != saved.seed
        {
            bail!("{} was created with another seed", args.data_dir.display());
        }
        return Ok(saved);
    }
    let mut config = match args.config.clone() {
        // A configuration that does not pin its genesis time gets one placed, as a new data
        // dir must (now for a live devnet, in the past for generated history).
        Some((c, false)) => place_genesis(c),
        Some((c, true)) => c,
        None => {
            let profile = args.profile.map(profile_of).unwrap_or_default();
            place_genesis(DevnetConfig::for_profile(profile))
        }
    };
    if let Some(p) = args.profile {
        config.profile = profile_of(p);
    }
    if let Some(seed) = args.seed {
        config.seed = seed.to_owned();
    }
    config.validate().context("invalid devnet configuration")?;
    super::create_dir_durably(args.data_dir)?;
    let text = toml::to_string_pretty(&config).context("couldn't serialize the configuration")?;
    super::write_durably(&saved_path, text.as_bytes())?;
    Ok(config)
}

/// Whether the TOML file at `path` sets `genesis_time`.
fn names_genesis_time(path: &Path) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("couldn't read {}", path.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("couldn't parse {}", path.display()))?;
    Ok(table.contains_key("genesis_time"))
}

fn read_config(path: &Path) -> anyhow::Result<DevnetConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("couldn't read {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("couldn't parse {}", path.display()))
}

async fn serve(args: &DevnetArgs, config: DevnetConfig) -> anyhow::Result<()> {
    let stop = shutdown_signal();
    let node = firn_node::spawn(NodeConfig {
        listen: args.rpc_addr,
        warp_off_chain_messages: args.warp_off_chain_messages.clone(),
        ..NodeConfig::new(config, &args.data_dir)
    })
    .await?;
    let banner = banner(&node);
    if args.json {
        println!("{}", serde_json::to_string(&banner)?);
    } else if !args.silent {
        print_banner(&banner, "firn devnet", &[]);
    }
    info!(
        url = node.url(),
        height = node.pchain().height(),
        "devnet started"
    );

    stop.await;
    let chain = node.pchain().clone();
    node.shutdown().await;
    info!(height = chain.height(), "devnet stopped");
    if !args.silent && !args.json {
        eprintln!("Shut down at height {}", chain.height());
    }
    Ok(())
}

/// Completes on Ctrl-C (SIGINT) or SIGTERM. The handlers are installed when this is called,
/// not when the future is first polled: a signal that comes just after (say, as soon as the
/// banner is printed) must not find the default action (exit) still in place.
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt()).ok();
        let terminate = signal(SignalKind::terminate()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {},
                () = wait(terminate) => {},
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Everything the banner shows, as JSON (what `--json` prints).
pub(crate) fn banner(node: &NodeHandle) -> Value {
    let chain = node.pchain();
    let url = node.url();
    let n = chain.network();
    let keys: Vec<Value> = chain
        .funded_keys()
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let public = k.public_key();
            json!({
                "index": i,
                "pChainAddress": n.p_address(&public.short_id()),
                "xChainAddress": firn_core::address::format_address("X", n.network_id, &public.short_id()),
                "evmAddress": public.eth_address_checksummed(),
                "privateKey": k.to_cb58_string(),
            })
        })
        .collect();
    json!({
        "localDevnet": true,
        "profile": n.profile,
        "networkName": network_name(n.network_id),
        "networkID": n.network_id,
        "dataDir": node.data_dir().display().to_string(),
        "height": chain.height(),
        "chains": {
            "P": n.p_chain_id,
            "X": n.x_chain_id,
            "C": n.c_chain_id,
            "evmChainID": n.evm_chain_id,
        },
        "avaxAssetID": n.avax_asset_id,
        "rpc": {
            "platform": format!("{url}/ext/bc/P"),
            "avm": format!("{url}/ext/bc/X"),
            "info": format!("{url}/ext/info"),
            "health": format!("{url}/ext/health"),
            "firn": format!("{url}/ext/firn"),
            "C": format!("{url}/ext/bc/C/rpc"),
        },
        "evmChains": subnet_evm_chains(node),
        "fundedKeys": keys,
        "listening": url,
    })
}

/// The subnet-EVM chains the devnet serves (the C-Chain is listed apart).
fn subnet_evm_chains(node: &NodeHandle) -> Vec<Value> {
    let created = node.pchain().blockchains();
    let url = node.url();
    node.evm_chains()
        .iter()
        .filter_map(|c| {
            let id = firn_core::ids::Id(c.blockchain_id().0);
            let info = created.iter().find(|b| b.id == id)?;
            Some(json!({
                "name": info.name,
                "blockchainID": id,
                "subnetID": info.subnet_id,
                "evmChainID": c.chain_id(),
                "rpc": format!("{url}/ext/bc/{id}/rpc"),
            }))
        })
        .collect()
}

/// Prints the banner under `title`, with `services` (already formatted lines) after the node's
/// endpoints and keys, and `Listening on …` last.
pub(crate) fn print_banner(b: &Value, title: &str, services: &[String]) {
    let s = |v: &Value| {
        v.as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| v.to_string())
    };
    println!("{title} {}", env!("CARGO_PKG_VERSION"));
    println!();
    println!(
        "Network      {} (ID {}), a local devnet: the {} profile's IDs, not the public network",
        s(&b["networkName"]),
        s(&b["networkID"]),
        s(&b["profile"])
    );
    println!(
        "Data dir     {} (height {})",
        s(&b["dataDir"]),
        s(&b["height"])
    );
    println!("AVAX asset   {}", s(&b["avaxAssetID"]));
    println!();
    println!("Chains");
    println!("  P  {}", s(&b["chains"]["P"]));
    println!("  X  {}", s(&b["chains"]["X"]));
    println!(
        "  C  {}  (EVM chain ID {})",
        s(&b["chains"]["C"]),
        s(&b["chains"]["evmChainID"])
    );
    let evm_chains = b["evmChains"].as_array().cloned().unwrap_or_default();
    for c in &evm_chains {
        println!(
            "  {}  {}  (EVM chain ID {}, subnet {})",
            s(&c["name"]),
            s(&c["blockchainID"]),
            s(&c["evmChainID"]),
            s(&c["subnetID"])
        );
    }
    println!();
    println!("Node RPC");
    for k in ["platform", "avm", "info", "health", "firn", "C"] {
        println!("  {:<9}{}", k, s(&b["rpc"][k]));
    }
    for c in &evm_chains {
        println!("  {:<9}{}", s(&c["name"]), s(&c["rpc"]));
    }
    println!();
    println!("Funded keys");
    if let Some(keys) = b["fundedKeys"].as_array() {
        for k in keys {
            // The private key stays alone on its line: scripts and tests read it so.
            println!(
                "({:>2}) {}  {}  {}\n     {}",
                s(&k["index"]),
                s(&k["pChainAddress"]),
                s(&k["xChainAddress"]),
                s(&k["evmAddress"]),
                s(&k["privateKey"]),
            );
        }
    }
    if !services.is_empty() {
        println!();
        for line in services {
            println!("{line}");
        }
    }
    println!();
    println!("Listening on {}", s(&b["listening"]));
}
