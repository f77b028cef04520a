//! `firn relay`: the ICM relayer of `firn up`, over any nodes' RPC; messages signed by a firn
//! node's validators (`--node`) or by a Data API ([`data_api`], `--aggregator`).

mod data_api;

use std::sync::Arc;

use anyhow::{Context, bail};
use firn_aggregator::{Aggregator, AggregatorConfig};
use firn_core::keys::secp256k1::PrivateKey;
use firn_node::relayer::WarpSigner;
use firn_node::relayer::rpc::{RpcChain, spawn};
use firn_rpc::{RpcNetworkConfig, RpcValidatorNetwork};

use crate::cli::RelayArgs;
use crate::cmd::devnet::shutdown_signal;

/// `PrivateKey-…` (cb58) or 32 bytes of hex, with or without `0x`.
fn parse_key(text: &str) -> anyhow::Result<PrivateKey> {
    let text = text.trim();
    if text.starts_with("PrivateKey-") {
        return text
            .parse()
            .map_err(|e| anyhow::anyhow!("the relayer key is not a valid PrivateKey-…: {e}"));
    }
    let bytes = firn_core::encoding::hex_decode_lenient(text)
        .context("the relayer key is neither PrivateKey-… nor hex")?;
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|b: Vec<u8>| anyhow::anyhow!("the relayer key is {} bytes, not 32", b.len()))?;
    PrivateKey::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("the relayer key: {e}"))
}

/// Connects to every chain and the signing node, then relays until Ctrl-C or SIGTERM.
pub fn run(args: &RelayArgs) -> anyhow::Result<()> {
    let key = parse_key(&args.key)?;
    if args.chains.len() < 2 {
        bail!("give at least two --chain URLs to relay between");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("couldn't start the async runtime")?;
    runtime.block_on(async {
        let mut chains = Vec::new();
        for url in &args.chains {
            let chain = RpcChain::connect(url)
                .await
                .map_err(|e| anyhow::anyhow!("couldn't reach the chain at {url}: {e}"))?;
            println!(
                "Chain        {} (EVM chain ID {}, blockchain {})",
                chain.url(),
                chain.chain_id(),
                firn_core::ids::Id(firn_node::relayer::RelayChain::blockchain_id(&chain).0)
            );
            chains.push(chain);
        }
        let signer = signer(args).await?;
        println!(
            "Relayer      0x{} (cursor {})",
            hex::encode(key.public_key().eth_address()),
            args.cursor.display()
        );
        let relayer = spawn(chains, signer, key, args.cursor.clone())
            .await
            .map_err(|e| anyhow::anyhow!("couldn't read a chain's head: {e}"))?;
        println!("Relaying");
        shutdown_signal().await;
        relayer.stop().await;
        Ok(())
    })
}

/// What signs: the Data API of `--aggregator`, or firn's aggregator over the validators of
/// `--node`.
async fn signer(args: &RelayArgs) -> anyhow::Result<Arc<dyn WarpSigner>> {
    if let Some(url) = &args.aggregator {
        let signer = data_api::DataApiSigner::new(url, args.aggregator_api_key.clone())
            .map_err(|e| anyhow::anyhow!("--aggregator: {e}"))?;
        println!("Signers      the Data API at {url}");
        return Ok(Arc::new(signer));
    }
    let Some(node) = &args.node else {
        bail!("give --node or --aggregator");
    };
    let network = Arc::new(
        RpcValidatorNetwork::connect(node, RpcNetworkConfig::default())
            .await
            .with_context(|| format!("couldn't reach the node at {node} (--node)"))?,
    );
    println!(
        "Signers      the validators of the node at {}",
        network.url()
    );
    Ok(Arc::new(Aggregator::new(
        network,
        AggregatorConfig::default(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_from_cb58_and_hex_and_say_what_is_wrong() {
        let key = PrivateKey::from_seed(b"firn", 0);
        let hex = format!("0x{}", hex::encode(key.to_bytes()));
        let cb58 = key.to_cb58_string();
        assert_eq!(parse_key(&hex).unwrap().to_bytes(), key.to_bytes());
        assert_eq!(parse_key(&cb58).unwrap().to_bytes(), key.to_bytes());
        let short = parse_key("0xabcd").unwrap_err().to_string();
        assert!(short.contains("2 bytes, not 32"), "{short}");
        let garbage = parse_key("hello").unwrap_err().to_string();
        assert!(garbage.contains("neither PrivateKey"), "{garbage}");
    }
}
