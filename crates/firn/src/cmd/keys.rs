//! `firn keys`: deterministic keys and their addresses.

use super::decode::parse_network;
use crate::cli::KeysArgs;
use firn_core::address::format_address;
use firn_core::keys::secp256k1::PrivateKey;
use serde_json::json;

pub fn run(args: &KeysArgs) -> anyhow::Result<()> {
    let network_id = parse_network(&args.network)?;
    let keys: Vec<_> = (0..args.count)
        .map(|i| {
            let key = PrivateKey::from_seed(args.seed.as_bytes(), i);
            let public = key.public_key();
            json!({
                "index": i,
                "pChainAddress": format_address("P", network_id, &public.short_id()),
                "evmAddress": public.eth_address_checksummed(),
                "privateKey": key.to_cb58_string(),
                "privateKeyHex": format!("0x{}", hex::encode(key.to_bytes())),
            })
        })
        .collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&keys)?);
        return Ok(());
    }
    for k in &keys {
        println!(
            "({:>2}) {}  {}\n     {}  {}",
            k["index"],
            k["pChainAddress"].as_str().unwrap_or_default(),
            k["evmAddress"].as_str().unwrap_or_default(),
            k["privateKey"].as_str().unwrap_or_default(),
            k["privateKeyHex"].as_str().unwrap_or_default(),
        );
    }
    Ok(())
}
