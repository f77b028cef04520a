//! The JSON AvalancheGo gives the types every chain shares (`vms/components/avax`,
//! `vms/secp256k1fx`), used by each chain's own JSON module ([`crate::pchain::json`],
//! [`crate::avm::json`]).
//!
//! The rules follow Go's `encoding/json` over AvalancheGo's structs:
//! - struct fields in declaration order, embedded structs inlined (a transferable input's UTXO
//!   ID and asset ID come first);
//! - numbers as raw JSON numbers, u64 included (they may exceed 2^53);
//! - IDs as cb58, `types.JSONByteSlice` and signatures as `0x` hex without checksum, plain Go
//!   `[]byte` as standard base64;
//! - objects built by a `MarshalJSON` from a Go map (secp256k1fx outputs and owners, and the
//!   NFT outputs that reuse them) with keys in alphabetical order, as Go sorts map keys;
//! - addresses as `<chain alias>-<hrp>1…`, which needs a [`JsonContext`].
//!
//! Decoded values always hold non-nil slices (Go's codec makes them), so an empty list is
//! `[]` and an empty byte slice `"0x"`, never `null`.

use super::UtxoId;
use super::secp256k1fx::{Credential, OutputOwners, SigIndices, TransferInput, TransferOutput};
use crate::address::ChainAddress;
use crate::encoding::hex_encode_nc;
use crate::ids::ShortId;
use crate::network::hrp_for_network;
use serde_json::{Map, Value, json};

/// What addresses are formatted with: the chain's alias and the network's HRP, as AvalancheGo
/// takes them from the chain's context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonContext {
    /// The chain alias addresses carry: `P` for the P-Chain, `X` for the X-Chain.
    pub chain_alias: String,
    /// The bech32 HRP of the node's network.
    pub hrp: String,
}

impl JsonContext {
    /// The chain aliased `chain_alias` on network `network_id`.
    pub fn new(chain_alias: &str, network_id: u32) -> Self {
        Self {
            chain_alias: chain_alias.into(),
            hrp: hrp_for_network(network_id).into(),
        }
    }

    /// The P-Chain of network `network_id`.
    pub fn pchain(network_id: u32) -> Self {
        Self::new("P", network_id)
    }

    /// The X-Chain of network `network_id`.
    pub fn xchain(network_id: u32) -> Self {
        Self::new("X", network_id)
    }

    /// An address as this chain shows it, e.g. `X-avax1…`.
    pub fn address(&self, id: &ShortId) -> Value {
        let addr = ChainAddress {
            chain: self.chain_alias.clone(),
            hrp: self.hrp.clone(),
            id: *id,
        };
        Value::String(addr.to_string())
    }
}

/// Go's `encoding/json` form of a `[]byte`: standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `secp256k1fx.OutputOwners.Fields`: the map that owners, and every output embedding them,
/// start their JSON from. Outputs add their own keys, then the map is sorted.
pub fn owners_fields(ctx: &JsonContext, o: &OutputOwners) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "addresses".into(),
        Value::Array(o.addresses.iter().map(|a| ctx.address(a)).collect()),
    );
    m.insert("locktime".into(), json!(o.locktime));
    m.insert("threshold".into(), json!(o.threshold));
    m
}

/// A map-built object with its keys in Go's order for maps: sorted.
pub fn sorted(mut m: Map<String, Value>) -> Value {
    m.sort_keys();
    Value::Object(m)
}

/// OutputOwners (and the outputs that are only owners: secp256k1fx.MintOutput, propertyfx's
/// MintOutput and OwnedOutput, which inherit its `MarshalJSON`).
pub fn owners(ctx: &JsonContext, o: &OutputOwners) -> Value {
    sorted(owners_fields(ctx, o))
}

/// secp256k1fx.TransferOutput: the owners' fields plus `amount`.
pub fn transfer_output(ctx: &JsonContext, o: &TransferOutput) -> Value {
    let mut m = owners_fields(ctx, &o.owners);
    m.insert("amount".into(), json!(o.amount));
    sorted(m)
}

/// secp256k1fx.Input: `{"signatureIndices": […]}`.
pub fn sig_indices(s: &SigIndices) -> Value {
    json!({ "signatureIndices": s.sig_indices })
}

/// secp256k1fx.TransferInput: `amount`, then the embedded Input's `signatureIndices`.
pub fn transfer_input(i: &TransferInput) -> Value {
    json!({ "amount": i.amount, "signatureIndices": i.sig_indices })
}

/// secp256k1fx.Credential: `{"signatures": ["0x…", …]}`.
pub fn credential(c: &Credential) -> Value {
    signatures(&c.signatures)
}

/// The `{"signatures": […]}` object of a secp256k1fx credential, also embedded (and so
/// inherited) by the nftfx and propertyfx credentials.
pub fn signatures(sigs: &[super::secp256k1fx::SignatureBytes]) -> Value {
    json!({ "signatures": sigs.iter().map(|s| hex_encode_nc(s)).collect::<Vec<_>>() })
}

/// avax.UTXOID: `{"txID", "outputIndex"}`.
pub fn utxo_id(u: &UtxoId) -> Value {
    json!({ "txID": u.tx_id, "outputIndex": u.output_index })
}

/// avax.TransferableOutput: `assetID`, `fxID`, `output`.
pub fn transferable_output<O>(
    o: &super::TransferableOutput<O>,
    fx_id: Value,
    output: Value,
) -> Value {
    json!({ "assetID": o.asset_id, "fxID": fx_id, "output": output })
}

/// avax.TransferableInput: the UTXO ID's and asset's fields inlined, then `fxID`, `input`.
pub fn transferable_input<I>(i: &super::TransferableInput<I>, fx_id: Value, input: Value) -> Value {
    json!({
        "txID": i.tx_id,
        "outputIndex": i.output_index,
        "assetID": i.asset_id,
        "fxID": fx_id,
        "input": input,
    })
}

/// A signed tx (the `Tx` structs of every chain): `unsignedTx`, `credentials`, then the `id`
/// AvalancheGo computes on parsing.
pub fn signed_tx(unsigned: Value, credentials: Vec<Value>, id: crate::ids::Id) -> Value {
    json!({ "unsignedTx": unsigned, "credentials": credentials, "id": id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_go_std_encoding() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }

    #[test]
    fn map_built_objects_sort_their_keys() {
        let out = TransferOutput {
            amount: 7,
            owners: OutputOwners::default(),
        };
        let json = transfer_output(&JsonContext::xchain(1), &out);
        let keys: Vec<_> = json
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
            .collect();
        assert_eq!(keys, ["addresses", "amount", "locktime", "threshold"]);
    }
}
