//! `firn serve`: the Data API over a store.

use std::time::Duration;

use anyhow::Context;
use firn_api::{ApiConfig, AppState, NetworkProfile, PriceTable, RateLimit};

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
    Ok(ApiConfig {
        network: match args.network {
            NetworkArg::Fuji => NetworkProfile::fuji(),
            NetworkArg::Mainnet => NetworkProfile::mainnet(),
        },
        request_timeout: Duration::from_secs(args.request_timeout),
        api_keys: args
            .api_keys
            .iter()
            .filter(|k| !k.is_empty())
            .cloned()
            .collect(),
        key_rate_limit: args.rate_limit_per_key.map(per_minute),
        ip_rate_limit: args.rate_limit_per_ip.map(per_minute),
        prices,
        ..ApiConfig::default()
    })
}

/// Opens the store, binds the listener and serves until Ctrl-C or SIGTERM.
pub fn run(args: &ServeArgs) -> anyhow::Result<()> {
    let config = config(args)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("couldn't start the async runtime")?;
    runtime.block_on(async {
        let store = firn_store::open(&args.database)
            .await
            .with_context(|| format!("couldn't open the store at {}", args.database))?;
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .with_context(|| format!("couldn't listen on {}", args.listen))?;
        let addr = listener.local_addr()?;
        println!("firn Data API ({} network, local store)", config.network.wire_name());
        println!("OpenAPI: http://{addr}/api-json  reference: http://{addr}/api  metrics: http://{addr}/metrics");
        println!("Listening on http://{addr}");
        let state = AppState::new(store.clone(), config);
        firn_api::serve(listener, state, shutdown_signal()).await?;
        store.close().await;
        Ok(())
    })
}
