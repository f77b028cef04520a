//! `firn serve`: the Data API over a store, aggregating signatures through a node's RPC
//! (`--rpc`) when given one.

use firn_rpc::client::redact_url;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use firn_aggregator::{Aggregator, AggregatorConfig};
use firn_api::{ApiConfig, AppState, NetworkProfile, PriceTable, RateLimit, TokenLogos};
use firn_rpc::{RpcNetworkConfig, RpcValidatorNetwork};

use crate::cli::{NetworkArg, ServeArgs};
use crate::cmd::devnet::shutdown_signal;

/// Builds the API configuration from the command line.
fn config(args: &ServeArgs) -> anyhow::Result<ApiConfig> {
    let per_minute = |requests| RateLimit {
        requests,
        window: Duration::from_secs(60),
    };
    let prices = match &args.prices {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("couldn't read the price table {}", path.display()))?;
            PriceTable::from_toml(&text)
                .with_context(|| format!("invalid price table {}", path.display()))?
        }
        None => PriceTable::default(),
    };
    let token_logos = match &args.token_list {
        Some(path) => read_token_list(path)?,
        None => TokenLogos::default(),
    };
    let api_keys: Vec<String> = args
        .api_keys
        .iter()
        .filter(|k| !k.is_empty())
        .cloned()
        .collect();
    if args.require_api_key && api_keys.is_empty() {
        anyhow::bail!("--require-api-key needs at least one --api-key (or FIRN_API_KEYS)");
    }
    Ok(ApiConfig {
        network: match args.network {
            NetworkArg::Fuji => NetworkProfile::fuji(),
            NetworkArg::Mainnet => NetworkProfile::mainnet(),
        },
        request_timeout: Duration::from_secs(args.request_timeout),
        api_keys,
        require_api_key: args.require_api_key,
        page_token_key: match &args.page_token_secret {
            Some(secret) => firn_api::signing::TokenKey::from_secret(secret),
            None => firn_api::signing::TokenKey::random(),
        },
        key_rate_limit: args.rate_limit_per_key.map(per_minute),
        ip_rate_limit: args.rate_limit_per_ip.map(per_minute),
        prices,
        token_logos,
        btcb_token: args.btcb_token.unwrap_or(firn_api::BTCB_MAINNET),
        response_cache_bytes: args.response_cache_mb.saturating_mul(1024 * 1024),
        webhooks: firn_api::webhooks::WebhookConfig {
            deliver: !args.no_webhook_delivery,
            allow_private_targets: args.webhook_private_targets,
            ..firn_api::webhooks::WebhookConfig::default()
        },
        ..ApiConfig::default()
    })
}

/// Largest token list read: the big public lists are a few megabytes.
const MAX_TOKEN_LIST_BYTES: u64 = 64 * 1024 * 1024;

fn read_token_list(path: &std::path::Path) -> anyhow::Result<TokenLogos> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .with_context(|| format!("couldn't read the token list {}", path.display()))?;
    let mut text = String::new();
    file.take(MAX_TOKEN_LIST_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("couldn't read the token list {}", path.display()))?;
    if text.len() as u64 > MAX_TOKEN_LIST_BYTES {
        anyhow::bail!(
            "the token list {} is larger than {} MiB",
            path.display(),
            MAX_TOKEN_LIST_BYTES / (1024 * 1024)
        );
    }
    let logos = TokenLogos::from_token_list(&text).with_context(|| {
        format!(
            "invalid token list {} (expected {{\"tokens\": [...]}})",
            path.display()
        )
    })?;
    tracing::info!(path = %path.display(), logos = logos.len(), "loaded the token list");
    Ok(logos)
}

/// Opens the store, binds the listener and serves until Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let config = config(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("couldn't start the async runtime")?;
    runtime.block_on(async {
        // A read never outlives the request that asked for it.
        let options = firn_store::StoreOptions {
            read_timeout: config.request_timeout,
            cache_mib: args.store_cache_mib,
            ..firn_store::StoreOptions::default()
        };
        let store = firn_store::Store::open_with(&args.database, &options)
            .await
            .with_context(|| format!("couldn't open the store at {}", redact_url(&args.database)))?;
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("couldn't listen on {}", args.listen))?;
        let addr = listener.local_addr()?;
        let metrics_listener = tokio::net::TcpListener::bind(args.metrics_listen)
            .await
            .with_context(|| format!("couldn't listen on {}", args.metrics_listen))?;
        let metrics_addr = metrics_listener.local_addr()?;
        println!("firn Data API ({} network, local store)", config.network.wire_name());
        println!("OpenAPI: http://{addr}/api-json  reference: http://{addr}/api  metrics: http://{addr}/metrics");
        println!("Metrics API: http://{metrics_addr}");
        if !args.no_method_directory {
            firn_api::load_method_directory();
        }
        let (usage, flusher) =
            firn_api::usage::start(store.clone(), firn_api::usage::Retention::default());
        let state = AppState::new(store.clone(), config).with_usage(usage);
        let state = match &args.rpc {
            Some(url) => {
                let network = Arc::new(
                    RpcValidatorNetwork::connect(url, RpcNetworkConfig::default())
                        .await
                        .with_context(|| {
                            format!("couldn't reach the node at {url} (--rpc) for signature aggregation")
                        })?,
                );
                println!("Signature aggregation: the validators of the node at {}", network.url());
                let aggregator = Arc::new(Aggregator::new(network.clone(), AggregatorConfig::default()));
                state.with_signature_aggregator(aggregator, network)
            }
            None => {
                println!("Signature aggregation: off (no --rpc node to ask validators through)");
                state
            }
        };
        println!("Listening on http://{addr}");
        let metrics_state = firn_api::MetricsState::new(state.clone());
        // One signal stops both listeners; each finishes its requests in flight.
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let stopped = |mut rx: tokio::sync::watch::Receiver<bool>| async move {
            let _ = rx.wait_for(|stop| *stop).await;
        };
        let signal = shutdown_signal();
        tokio::spawn(async move {
            signal.await;
            let _ = stop_tx.send(true);
        });
        let (api, metrics) = tokio::join!(
            firn_api::serve(listener, state, stopped(stop_rx.clone())),
            firn_api::serve_metrics(metrics_listener, metrics_state, stopped(stop_rx)),
        );
        api?;
        metrics?;
        // The servers are gone with their recorders: the flusher writes what is queued and ends.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), flusher).await;
        store.close().await;
        Ok(())
    })
}
