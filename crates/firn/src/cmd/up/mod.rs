//! `firn up`: the whole platform in one process, on a data directory.
//!
//! A new data directory starts `--days` days in the past: the devnet is opened on a frozen
//! clock, history is generated day by day (a progress bar on a terminal, a log line per day
//! otherwise), then the clock goes live and the services start: the node RPC (P-Chain, the
//! C-Chain and every subnet-EVM L1 the P-Chain created), the indexer following that RPC over
//! loopback exactly as it would follow a real node, the Data API (with the signature
//! aggregator asking the devnet's validators) and the Metrics API, reading the embedded store. A directory whose history was cut off resumes it; one whose
//! history is done (`history.done`) goes straight to serving.
//!
//! Ctrl-C (or SIGTERM) stops the listeners first (requests in flight finish), then live
//! activity, the indexer (its last batch is committed atomically or not at all), the block
//! producer, writes the queued request logs, and closes the store.

mod history;
mod indexers;
mod settings;

use firn_rpc::client::redact_url;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use firn_aggregator::{Aggregator, AggregatorConfig};
use firn_devnet::{Clock, DevnetConfig, PChain, Profile};
use firn_node::{ClockMode, Network, NodeConfig, NodeHandle, SignerKeys};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tracing::{info, warn};

use super::devnet::{self, ChainChoice};
use crate::cli::UpArgs;
use settings::UpSettings;

/// Written once generated history is complete; holds the plan it was generated with.
const HISTORY_DONE: &str = "history.done";
/// The embedded store inside the data dir (the same default as `firn index`).
const STORE_FILE: &str = "firn.db";

pub fn run(args: &UpArgs) -> anyhow::Result<()> {
    let settings = settings::resolve(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("couldn't start the async runtime")?;
    runtime.block_on(up(args, settings))
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// One shutdown signal many tasks can wait on.
#[derive(Clone)]
struct Shutdown(watch::Receiver<bool>);

impl Shutdown {
    fn wait(&self) -> impl Future<Output = ()> + Send + 'static {
        let mut rx = self.0.clone();
        async move {
            let _ = rx.wait_for(|stop| *stop).await;
        }
    }
}

async fn bind(addr: SocketAddr, what: &str) -> anyhow::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(addr)
        .await
        .with_context(|| format!("couldn't listen on {addr} for the {what}"))?;
    let local = listener.local_addr()?;
    Ok((listener, local))
}

async fn up(args: &UpArgs, settings: UpSettings) -> anyhow::Result<()> {
    // Signals are caught from the start, so Ctrl-C during history generation stops it
    // cleanly between two days too.
    let (stop_tx, stop_rx) = watch::channel(false);
    let shutdown = Shutdown(stop_rx);
    let signal = devnet::shutdown_signal();
    tokio::spawn(async move {
        signal.await;
        info!("shutting down");
        let _ = stop_tx.send(true);
    });
    let plan = settings.plan.clone();
    let choice = ChainChoice {
        data_dir: &settings.data_dir,
        profile: settings.profile,
        seed: settings.seed.as_deref(),
        config: settings.devnet.clone(),
    };
    let config = devnet::load_config(&choice, |c: DevnetConfig| {
        if plan.days == 0 {
            c.starting_now()
        } else {
            DevnetConfig {
                genesis_time: plan.genesis_time(unix_now()),
                ..c
            }
        }
    })?;
    // History is generated on a frozen clock, the EVM chains reading the P-Chain's, so their
    // blocks get virtual times too; the clock goes live before anything serves.
    // One usage log for the node RPC and the Data API; its flusher starts with the store.
    let (usage, usage_queue) =
        firn_api::usage::UsageRecorder::channel(firn_api::usage::QUEUE_CAPACITY);
    let mut network = Network::open(NodeConfig {
        listen: settings.rpc_addr,
        clock: ClockMode::Frozen,
        signers: SignerKeys::Plan(plan.clone()),
        warp_off_chain_messages: settings.warp_off_chain_messages.clone(),
        usage: Some(usage.clone()),
        ..NodeConfig::new(config, &settings.data_dir)
    })?;
    let done_path = settings.data_dir.join(HISTORY_DONE);
    if !done_path.exists() {
        let quiet = args.silent || args.json;
        let (complete, opened) = history::generate_history(
            network,
            plan.clone(),
            settings.evm_txs_per_day,
            quiet,
            shutdown.0.clone(),
        )
        .await?;
        network = opened;
        if !complete {
            if !quiet {
                eprintln!(
                    "Stopped during history generation at height {}; `firn up` resumes it",
                    network.pchain().height()
                );
            }
            return Ok(());
        }
        let record = json!({
            "days": plan.days,
            "transfersPerDay": plan.transfers_per_day,
            "evmTxsPerDay": settings.evm_txs_per_day,
        });
        super::write_durably(&done_path, record.to_string().as_bytes())?;
    }
    network.clock().go_live();
    let chain = network.pchain().clone();
    let clock = network.clock().clone();

    let database = match &settings.database {
        Some(url) => url.clone(),
        None => settings
            .data_dir
            .join(STORE_FILE)
            .to_str()
            .context("the data dir path is not UTF-8")?
            .to_owned(),
    };
    let options = firn_store::StoreOptions {
        cache_mib: settings.store_cache_mib,
        ..firn_store::StoreOptions::default()
    };
    let store = firn_store::Store::open_with(&database, &options)
        .await
        .with_context(|| format!("couldn't open the store {}", redact_url(&database)))?;

    let flusher = tokio::spawn(
        firn_api::usage::Flusher::new(
            store.clone(),
            usage_queue,
            firn_api::usage::Retention::default(),
        )
        .run(),
    );

    // Bind every listener before starting anything, so a taken port fails fast.
    let (rpc_listener, rpc_addr) = bind(settings.rpc_addr, "node RPC").await?;
    let (api_listener, api_addr) = bind(settings.api_addr, "Data API").await?;
    let (metrics_listener, metrics_addr) = bind(settings.metrics_addr, "Metrics API").await?;

    // The devnet's validators, each signing with its own key: for the aggregator in this
    // process, and over the node RPC (`firn.requestWarpSignature`) for a `firn serve --rpc`.
    let node = network.serve_on(rpc_listener)?;
    let signers = node
        .signers()
        .cloned()
        .context("the node runs without signers")?;

    let rpc_url = format!("http://{rpc_addr}");
    let indexer_task = indexers::spawn(
        &rpc_url,
        &store,
        args.metadata_private_urls,
        shutdown.wait(),
    )?;

    firn_api::load_method_directory();
    let api_config = firn_api::ApiConfig {
        network: network_profile(&chain),
        // A local devnet's webhook receivers are local too.
        webhooks: firn_api::webhooks::WebhookConfig {
            allow_private_targets: true,
            ..firn_api::webhooks::WebhookConfig::default()
        },
        ..firn_api::ApiConfig::default()
    };
    let aggregator = Arc::new(Aggregator::new(
        signers.clone(),
        AggregatorConfig::default(),
    ));
    let api_state = firn_api::AppState::new(store.clone(), api_config)
        .with_signature_aggregator(aggregator, signers)
        .with_usage(usage);
    // Page tokens expire on the devnet's clock: `firn.advanceTime` moves them on too.
    let metrics_state =
        firn_api::MetricsState::with_clock(api_state.clone(), Arc::new(DevnetClock(clock.clone())));
    let api_task = tokio::spawn(firn_api::serve(api_listener, api_state, shutdown.wait()));
    let metrics_task = tokio::spawn(firn_api::serve_metrics(
        metrics_listener,
        metrics_state,
        shutdown.wait(),
    ));

    let activity = (!settings.quiet_chain).then(|| {
        tokio::spawn(firn_node::history::live_activity(
            chain.clone(),
            node.xchain().clone(),
            plan.clone(),
            node.evm().cloned(),
            settings.activity_interval,
            shutdown.0.clone(),
        ))
    });

    let urls = Urls {
        api: format!("http://{api_addr}"),
        metrics: format!("http://{metrics_addr}"),
    };
    let banner = banner(&node, &settings, &urls, &database);
    if args.json {
        println!("{}", serde_json::to_string(&banner)?);
    } else if !args.silent {
        print_banner(&banner);
    }
    info!(%rpc_addr, %api_addr, %metrics_addr, height = chain.height(), "firn is up");

    shutdown.wait().await;
    for (what, task) in [("Data API", api_task), ("Metrics API", metrics_task)] {
        match task.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => warn!(error = %e, "the {what} stopped with an error"),
            Err(e) => warn!(error = %e, "the {what} task failed"),
        }
    }
    if let Some(task) = activity {
        let _ = task.await;
    }
    let _ = indexer_task.await;
    node.shutdown().await;
    // The servers and the node RPC are gone with their recorders: the flusher writes what is
    // queued and ends.
    if tokio::time::timeout(std::time::Duration::from_secs(5), flusher)
        .await
        .is_err()
    {
        warn!("gave up writing the queued request logs after 5 s");
    }
    store.close().await;
    info!(height = chain.height(), "firn stopped");
    if !args.silent && !args.json {
        eprintln!("Shut down at height {}", chain.height());
    }
    Ok(())
}

/// The Data API's view of the devnet's identity.
fn network_profile(chain: &PChain) -> firn_api::NetworkProfile {
    let n = chain.network();
    let kind = match n.profile {
        Profile::Fuji | Profile::Local => firn_api::NetworkKind::Fuji,
    };
    firn_api::NetworkProfile {
        kind,
        hrp: n.hrp.clone(),
        x_chain_id: n.x_chain_id,
        c_chain_id: n.c_chain_id,
        avax_asset_id: n.avax_asset_id,
    }
}

struct Urls {
    api: String,
    metrics: String,
}

/// Everything the banner shows, as JSON (what `--json` prints).
fn banner(node: &NodeHandle, settings: &UpSettings, urls: &Urls, database: &str) -> Value {
    let chain = node.pchain();
    let mut b = devnet::banner(node);
    b["history"] = json!({
        "days": settings.plan.days,
        "transfersPerDay": settings.plan.transfers_per_day,
        "evmTxsPerDay": settings.evm_txs_per_day,
        "liveActivitySecs": if settings.quiet_chain {
            Value::Null
        } else {
            json!(settings.activity_interval.as_secs())
        },
    });
    b["store"] = json!(redact_url(database));
    b["dataApi"] = json!({
        "url": urls.api,
        "reference": format!("{}/api", urls.api),
        "openapi": format!("{}/api-json", urls.api),
    });
    b["metricsApi"] = json!(urls.metrics);
    b["tryFirst"] = json!(format!(
        "curl -s {}/v1/networks/{}/blockchains/p-chain/blocks?pageSize=3",
        urls.api,
        if chain.network().profile == Profile::Fuji {
            "fuji"
        } else {
            "testnet"
        }
    ));
    b
}

fn print_banner(b: &Value) {
    let s = |v: &Value| {
        v.as_str()
            .map(str::to_owned)
            .unwrap_or_else(|| v.to_string())
    };
    let live = match b["history"]["liveActivitySecs"].as_u64() {
        Some(secs) => format!("every {secs}s"),
        None => "off (--quiet-chain)".to_owned(),
    };
    let services = [
        format!(
            "History      {} days generated ({} P-Chain transfers and {} EVM txs a day); live activity {live}",
            s(&b["history"]["days"]),
            s(&b["history"]["transfersPerDay"]),
            s(&b["history"]["evmTxsPerDay"]),
        ),
        format!("Store        {}", s(&b["store"])),
        format!(
            "Data API     {}  (reference {}, OpenAPI {})",
            s(&b["dataApi"]["url"]),
            s(&b["dataApi"]["reference"]),
            s(&b["dataApi"]["openapi"])
        ),
        format!("Metrics API  {}", s(&b["metricsApi"])),
        format!("Try          {}", s(&b["tryFirst"])),
    ];
    devnet::print_banner(b, "firn up", &services);
}

/// The devnet's virtual clock as the Metrics API's token clock.
#[derive(Debug)]
struct DevnetClock(Clock);

impl firn_api::metrics_api::Clock for DevnetClock {
    fn now(&self) -> u64 {
        self.0.now()
    }
}
