//! Avalanche primitives for firn, byte-compatible with AvalancheGo. Pure Rust: no I/O, no async.
//!
//! The key types, from the bottom up:
//! - [`ids::Id`], [`ids::ShortId`], [`ids::NodeId`] and the text [`encoding`]s (cb58, hex with
//!   and without checksum) and chain-prefixed bech32 [`address`]es;
//! - [`text`]: the strict text forms of EVM values (hashes, addresses, amounts, bytes) read
//!   from nodes and clients, in place;
//! - [`network`]: well-known facts (network IDs, HRPs, the primary network's chain and asset
//!   IDs on mainnet, Fuji and local, VM IDs, AVAX's denomination), defined once;
//! - the linear [`codec`]: a bounded [`codec::Reader`] for untrusted bytes, a [`codec::Writer`],
//!   and the [`codec::Encode`] / [`codec::Decode`] traits every wire type implements;
//! - [`keys`]: secp256k1 (recoverable signatures, addresses) and BLS12-381 (min_pk) keys;
//! - [`avax`]: what the chains share on the wire (secp256k1fx outputs, inputs, owners and
//!   credentials; UTXO IDs; transferable inputs and outputs; the signed tx and its ID; the JSON
//!   rules and shapes the chains' APIs share);
//! - [`pchain`]: every P-Chain tx and block type, their IDs and their `platform.getBlock` JSON;
//! - [`avm`]: X-Chain txs (with the nftfx and propertyfx types), blocks, pre-Cortina vertices and
//!   the genesis (which fixes AVAX's asset ID), and their `avm.getTx` / `avm.getBlock` JSON;
//! - [`atomic`]: the C-Chain's atomic ImportTx and ExportTx, as blocks' extra data carries them;
//! - [`proposervm`]: the wrapper (proposer, timestamp, P-Chain height) around chain blocks that
//!   the network and the index API carry;
//! - [`warp`]: Warp messages, payloads, the P-Chain L1 messages and quorum verification over the
//!   canonical validator set;
//! - [`teleporter`]: ICM's Teleporter v1 messages (the Warp payload) and the messenger's events,
//!   as the indexer reads them.
//!
//! Data flows bytes → [`codec::Reader`] → typed value → ([`codec::Writer`] → bytes | JSON).
//! Decoding is canonical: bytes that decode re-encode to exactly themselves, which is why a
//! decoded block's ID (sha256 of its bytes, computed on first use) needs no copy of the input.
//!
//! ```
//! use firn_core::codec;
//! use firn_core::encoding::Encoding;
//! use firn_core::pchain::Block;
//! use firn_core::pchain::json::{block_to_json, JsonContext};
//!
//! // `platform.getBlock` answers with checksummed hex.
//! let reply = include_str!("../tests/vectors/pchain/blocks/mainnet-height-1000001.getBlock-hex-response.txt");
//! let bytes = Encoding::Hex.decode_bytes(reply.trim())?;
//! let block: Block = codec::from_bytes(&bytes)?;
//! assert_eq!(block.id().to_string(), "d7WYmb8VeZNHsny3EJCwMm6QA37s1EHwMxw1Y71V3FqPZ5EFG");
//! assert_eq!(block.bytes(), bytes);
//!
//! let json = block_to_json(&JsonContext::pchain(1), &block);
//! assert_eq!(json["height"], 1_000_001);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod address;
pub mod atomic;
pub mod avax;
pub mod avm;
pub mod calendar;
pub mod codec;
pub mod encoding;
pub mod evm;
pub mod ids;
pub mod keys;
pub mod network;
pub mod pchain;
pub mod proposervm;
pub mod teleporter;
pub mod text;
pub mod warp;
