//! `firn decode`: bytes in, AvalancheGo's JSON out.

use crate::cli::{DecodeArgs, DecodeKind};
use anyhow::{Context, bail};
use firn_core::codec;
use firn_core::encoding::{checksum, hex_decode_lenient};
use firn_core::network::{FUJI_ID, LOCAL_ID, MAINNET_ID};
use firn_core::pchain::json::{JsonContext, block_to_json, tx_to_json, unsigned_tx_to_json};
use firn_core::pchain::{Block, Tx, UnsignedTx};
use firn_core::warp::json::message_to_json;
use firn_core::warp::{Message, UnsignedMessage};
use std::io::Read;

pub fn run(args: &DecodeArgs) -> anyhow::Result<()> {
    let text = read_input(&args.input)?;
    let bytes = parse_hex(&text)?;
    let ctx = JsonContext::pchain(parse_network(&args.network)?);
    let json = match args.kind {
        DecodeKind::Block => {
            let block: Block = codec::from_bytes(&bytes).context("not a P-Chain block")?;
            block_to_json(&ctx, &block)
        }
        DecodeKind::Tx => {
            let tx: Tx = codec::from_bytes(&bytes).context("not a signed P-Chain tx")?;
            tx_to_json(&ctx, &tx)
        }
        DecodeKind::UnsignedTx => {
            let tx: UnsignedTx = codec::from_bytes(&bytes).context("not an unsigned P-Chain tx")?;
            unsigned_tx_to_json(&ctx, &tx)
        }
        DecodeKind::WarpMessage => {
            let msg = Message::from_bytes(&bytes).context("not a signed Warp message")?;
            message_to_json(&msg.unsigned, Some(&msg.signature))
        }
        DecodeKind::WarpUnsigned => {
            let msg =
                UnsignedMessage::from_bytes(&bytes).context("not an unsigned Warp message")?;
            message_to_json(&msg, None)
        }
    };
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}

fn read_input(input: &str) -> anyhow::Result<String> {
    if input == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading standard input")?;
        return Ok(s);
    }
    let path = std::path::Path::new(input);
    if path.is_file() {
        return std::fs::read_to_string(path)
            .with_context(|| format!("reading {}", path.display()));
    }
    Ok(input.to_string())
}

/// Hex with or without `0x`; a trailing AvalancheGo checksum is recognised and dropped.
fn parse_hex(text: &str) -> anyhow::Result<Vec<u8>> {
    let mut bytes = hex_decode_lenient(text.trim()).context("input is not hex")?;
    if bytes.len() > 4 {
        let split = bytes.len() - 4;
        if checksum(&bytes[..split]) == bytes[split..] {
            bytes.truncate(split);
        }
    }
    Ok(bytes)
}

pub fn parse_network(name: &str) -> anyhow::Result<u32> {
    Ok(match name.to_ascii_lowercase().as_str() {
        "mainnet" | "avax" => MAINNET_ID,
        "fuji" | "testnet" => FUJI_ID,
        "local" => LOCAL_ID,
        other => match other.parse() {
            Ok(id) => id,
            Err(_) => bail!("unknown network {name:?}: use mainnet, fuji, local or a network ID"),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_with_and_without_checksum_decodes_the_same() {
        let raw = parse_hex("0x00010203").unwrap();
        assert_eq!(raw, [0, 1, 2, 3]);
        let mut with_sum = raw.clone();
        with_sum.extend_from_slice(&checksum(&raw));
        assert_eq!(parse_hex(&hex::encode(&with_sum)).unwrap(), raw);
        assert!(parse_hex("xyz").is_err());
    }

    #[test]
    fn networks_by_name_or_id() {
        assert_eq!(parse_network("Fuji").unwrap(), 5);
        assert_eq!(parse_network("12345").unwrap(), 12345);
        assert!(parse_network("moon").is_err());
    }
}
