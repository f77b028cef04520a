//! The annotated examples of avalanche-docs' X-Chain and C-Chain transaction-format pages.
//! They are written by hand, and some are wrong; INDEX.json records which, and why, in
//! `docs_erratum`. Every example without one must decode and re-encode to itself; every
//! example with one must fail to decode.

use crate::vectors;
use firn_core::avax::Typed;
use firn_core::avax::secp256k1fx::TransferInput;
use firn_core::codec::{self, CodecError, Decode, Encode, Reader, Writer};
use firn_core::{atomic, avm};

/// Decodes a fragment (no codec version) of type `T` and re-encodes it.
fn fragment<T: Decode + Encode>(bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    let mut r = Reader::new(bytes);
    let value = T::decode(&mut r)?;
    r.finish()?;
    let mut w = Writer::new();
    value.encode(&mut w);
    Ok(w.into_bytes())
}

/// Decodes a whole value (codec version first) of type `T` and re-encodes it.
fn whole<T: Decode + Encode>(bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    codec::from_bytes::<T>(bytes).map(|v| codec::to_bytes(&v))
}

fn typed_transfer_input(bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    let mut r = Reader::new(bytes);
    let value = TransferInput::decode_typed(&mut r)?;
    r.finish()?;
    let mut w = Writer::new();
    value.encode_typed(&mut w);
    Ok(w.into_bytes())
}

fn decode_avm(kind: &str, bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    match kind {
        "transferable_output" => fragment::<avm::TransferableOutput>(bytes),
        "transferable_input" => fragment::<avm::TransferableInput>(bytes),
        "operation" => fragment::<avm::tx::Operation>(bytes),
        "fx_output" => fragment::<avm::FxOutput>(bytes),
        "fx_operation" => fragment::<avm::FxOperation>(bytes),
        "typed_transfer_input" => typed_transfer_input(bytes),
        "initial_state" => fragment::<avm::tx::InitialState>(bytes),
        "credential" => fragment::<avm::Credential>(bytes),
        "unsigned_tx" => fragment::<avm::UnsignedTx>(bytes),
        "signed_tx" => whole::<avm::Tx>(bytes),
        "utxo" => whole::<avm::Utxo>(bytes),
        other => panic!("no decoder for {other}"),
    }
}

fn decode_atomic(kind: &str, bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    match kind {
        "transferable_output" => fragment::<atomic::TransferableOutput>(bytes),
        "transferable_input" => fragment::<atomic::TransferableInput>(bytes),
        "evm_input" => fragment::<atomic::EvmInput>(bytes),
        "evm_output" => fragment::<atomic::EvmOutput>(bytes),
        "typed_transfer_input" => typed_transfer_input(bytes),
        "typed_transfer_output" => {
            let mut r = Reader::new(bytes);
            let value = firn_core::avax::secp256k1fx::TransferOutput::decode_typed(&mut r)?;
            r.finish()?;
            let mut w = Writer::new();
            value.encode_typed(&mut w);
            Ok(w.into_bytes())
        }
        "credential" => fragment::<firn_core::avax::secp256k1fx::Credential>(bytes),
        "unsigned_tx" => fragment::<atomic::UnsignedTx>(bytes),
        "signed_tx" => whole::<atomic::Tx>(bytes),
        "utxo" => whole::<atomic::Utxo>(bytes),
        other => panic!("no decoder for {other}"),
    }
}

fn check(top: &str, decode: fn(&str, &[u8]) -> Result<Vec<u8>, CodecError>) -> (usize, usize) {
    let index = vectors::json(&format!("{top}/INDEX.json"));
    let (mut good, mut bad) = (0, 0);
    for e in index
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"].is_string())
    {
        let name = e["name"].as_str().unwrap();
        let bytes = vectors::unhex(&vectors::text(&format!(
            "{top}/{}",
            e["file"].as_str().unwrap()
        )));
        let result = decode(e["kind"].as_str().unwrap(), &bytes);
        match e.get("docs_erratum") {
            None => {
                let again = result.unwrap_or_else(|err| panic!("{top}/{name}: {err}"));
                assert_eq!(again, bytes, "{top}/{name}: re-encoding differs");
                good += 1;
            }
            Some(why) => {
                assert!(
                    result.is_err(),
                    "{top}/{name} decodes, though the index says: {why}"
                );
                bad += 1;
            }
        }
    }
    (good, bad)
}

#[test]
fn x_chain_format_examples_decode_unless_the_docs_are_wrong() {
    let (good, bad) = check("avm", decode_avm);
    assert_eq!(good + bad, 23);
}

#[test]
fn c_chain_format_examples_decode_unless_the_docs_are_wrong() {
    let (good, bad) = check("atomic", decode_atomic);
    assert_eq!(good + bad, 11);
}
