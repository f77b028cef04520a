//! Avalanche primitives for firn, byte-compatible with AvalancheGo. Pure Rust: no I/O, no async.
//!
//! The key types, from the bottom up:
//! - [`ids::Id`], [`ids::ShortId`], [`ids::NodeId`] and the text [`encoding`]s (cb58, hex with
//!   and without checksum) and chain-prefixed bech32 [`address`]es;
//! - the linear [`codec`]: a bounded [`codec::Reader`] for untrusted bytes, a [`codec::Writer`],
//!   and the [`codec::Encode`] / [`codec::Decode`] traits every wire type implements;
//! - [`keys`]: secp256k1 (recoverable signatures, addresses) and BLS12-381 (min_pk) keys;
//! - [`pchain`]: every P-Chain tx and block type, their IDs and their `platform.getBlock` JSON;
//! - [`warp`]: Warp messages, payloads, the P-Chain L1 messages and quorum verification over the
//!   canonical validator set.
//!
//! Data flows bytes → [`codec::Reader`] → typed value → ([`codec::Writer`] → bytes | JSON).

pub mod address;
pub mod codec;
pub mod encoding;
pub mod ids;
pub mod keys;
pub mod pchain;
pub mod warp;
