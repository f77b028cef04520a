//! Vectors and properties of `firn_core::atomic`: the C-Chain's atomic txs decode from a
//! block's extra data and from `avax.getAtomicTx`, re-encode byte-exactly, have their IDs and
//! signatures; hand-built txs round-trip, alone and in Apricot Phase 5 batches.

use crate::props::round_trip_props;
use crate::vectors;
use firn_core::atomic::{
    EvmInput, EvmOutput, ExportTx, ImportTx, TransferableInput, TransferableOutput, Tx, UnsignedTx,
    Utxo, ext_data_from_txs, txs_from_ext_data,
};
use firn_core::avax::secp256k1fx::{Credential, OutputOwners, TransferInput, TransferOutput};
use firn_core::codec::{self, CodecError};
use firn_core::ids::{Id, ShortId};
use firn_core::keys::secp256k1::{RecoverableSignature, recover};
use firn_core::network::LOCAL;
use serde_json::Value;

fn entry(name: &str) -> Value {
    vectors::json("atomic/INDEX.json")
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no vector {name}"))
        .clone()
}

fn vector(entry: &Value) -> Vec<u8> {
    vectors::unhex(&vectors::text(&format!(
        "atomic/{}",
        entry["file"].as_str().unwrap()
    )))
}

/// The short ID of AvalancheGo's well-known local key ("ewoq"), which funds local networks.
fn ewoq() -> ShortId {
    ShortId::from_slice(&vectors::unhex("3cb7d3842e8cee6a0ebd09f1fe884f6861e1b29c")).unwrap()
}

fn signers(tx: &Tx) -> Vec<ShortId> {
    tx.credentials()
        .iter()
        .flat_map(|c| &c.signatures)
        .map(|sig| {
            recover(&tx.signing_hash(), &RecoverableSignature(*sig))
                .unwrap()
                .short_id()
        })
        .collect()
}

/// Before Apricot Phase 5 a block's extra data is one signed tx, as in coreth's block test.
#[test]
fn coreth_block_extra_data_holds_one_import_tx() {
    let bytes = vector(&entry("coreth-block-extdata"));
    let txs = txs_from_ext_data(&bytes, false).unwrap();
    assert_eq!(txs.len(), 1);
    let tx = &txs[0];
    assert_eq!(tx.bytes(), bytes);
    assert_eq!(ext_data_from_txs(&txs, false), bytes);
    let UnsignedTx::Import(import) = tx.unsigned() else {
        panic!("not an ImportTx")
    };
    assert_eq!(import.network_id, LOCAL.network_id);
    assert_eq!(import.source_chain, LOCAL.x_chain_id);
    assert_eq!(import.imported_inputs.len(), 2);
    assert!(
        import
            .imported_inputs
            .iter()
            .all(|i| i.asset_id == LOCAL.avax_asset_id && i.input.amount == 50_000 * 1_000_000_000)
    );
    assert_eq!(
        import.outputs,
        vec![EvmOutput {
            address: "0x6dc8ea73dd39ab12fa2ecbc3427abaeb87d56fd8"
                .parse()
                .unwrap(),
            amount: 100_000 * 1_000_000_000,
            asset_id: LOCAL.avax_asset_id,
        }]
    );
    assert_eq!(signers(tx), vec![ewoq(), ewoq()]);
    // Two inputs of 50,000 AVAX make an output of 100,000: no fee before Apricot Phase 3.
    assert_eq!(tx.unsigned().burned(LOCAL.avax_asset_id), 0);
    // The same bytes are not a batch: a batch starts with a count after the codec version.
    assert!(txs_from_ext_data(&bytes, true).is_err());
}

#[test]
fn get_atomic_tx_example_decodes_with_its_id() {
    let e = entry("docs-getatomictx");
    let bytes = vector(&e);
    let tx: Tx = codec::from_bytes(&bytes).unwrap();
    assert_eq!(tx.bytes(), bytes);
    assert_eq!(tx.id().to_string(), e["tx_id"].as_str().unwrap());
    let UnsignedTx::Import(import) = tx.unsigned() else {
        panic!("not an ImportTx")
    };
    assert_eq!(
        (import.network_id, import.blockchain_id),
        (LOCAL.network_id, LOCAL.c_chain_id)
    );
    assert_eq!(import.source_chain, LOCAL.x_chain_id);
    assert_eq!(import.imported_inputs.len(), tx.credentials().len());
    assert_eq!(
        import.outputs[0].address,
        "0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc"
            .parse::<alloy_primitives::Address>()
            .unwrap()
    );
    assert_eq!(signers(&tx), vec![ewoq()]);
}

#[test]
fn get_utxos_examples_decode() {
    for name in ["docs-getutxos-0", "docs-getutxos-1", "docs-getutxos-2"] {
        let bytes = vector(&entry(name));
        let utxo: Utxo = codec::from_bytes(&bytes).unwrap();
        assert_eq!(codec::to_bytes(&utxo), bytes, "{name}");
        assert_eq!(utxo.asset_id, LOCAL.avax_asset_id);
        assert_eq!(utxo.output.owners.addresses, vec![ewoq()]);
    }
    // The example asks for the page after this UTXO, and it comes first: the docs' quirk.
    let first: Utxo = codec::from_bytes(&vector(&entry("docs-getutxos-0"))).unwrap();
    assert_eq!(
        first.id().to_string(),
        "22RXW7SWjBrrxu2vzDkd8uza7fuEmNpgbj58CxBob9UbP37HSB"
    );
}

fn hand_built() -> Vec<Tx> {
    let owners = OutputOwners {
        locktime: 0,
        threshold: 1,
        addresses: vec![ewoq()],
    };
    let import = ImportTx {
        network_id: LOCAL.network_id,
        blockchain_id: LOCAL.c_chain_id,
        source_chain: Id::ZERO,
        imported_inputs: vec![TransferableInput {
            tx_id: Id([1; 32]),
            output_index: 2,
            asset_id: LOCAL.avax_asset_id,
            input: TransferInput {
                amount: 3,
                sig_indices: vec![0],
            },
        }],
        outputs: vec![EvmOutput {
            address: [7; 20].into(),
            amount: 3,
            asset_id: LOCAL.avax_asset_id,
        }],
    };
    let export = ExportTx {
        network_id: LOCAL.network_id,
        blockchain_id: LOCAL.c_chain_id,
        destination_chain: LOCAL.x_chain_id,
        inputs: vec![EvmInput {
            address: [8; 20].into(),
            amount: 10,
            asset_id: LOCAL.avax_asset_id,
            nonce: 42,
        }],
        exported_outputs: vec![TransferableOutput {
            asset_id: LOCAL.avax_asset_id,
            output: TransferOutput { amount: 9, owners },
        }],
    };
    let cred = || {
        vec![Credential {
            signatures: vec![[5; 65]],
        }]
    };
    vec![
        Tx::new(UnsignedTx::Import(import), cred()),
        Tx::new(UnsignedTx::Export(export), cred()),
    ]
}

#[test]
fn hand_built_import_and_export_round_trip() {
    for (tx, type_id) in hand_built().iter().zip(0u8..) {
        let bytes = tx.bytes();
        assert_eq!(&bytes[..6], &[0, 0, 0, 0, 0, type_id]);
        let back: Tx = codec::from_bytes(&bytes).unwrap();
        assert_eq!(&back, tx);
        assert_eq!(back.id(), Id::hash_of(&bytes));
    }
    // The import pays no fee, the export one nAVAX; other assets burn nothing.
    let burned: Vec<u64> = hand_built()
        .iter()
        .map(|t| t.unsigned().burned(LOCAL.avax_asset_id))
        .collect();
    assert_eq!(burned, [0, 1]);
    assert_eq!(hand_built()[1].unsigned().burned(Id([9; 32])), 0);
    // The ExportTx's EVM input is address, amount, asset, nonce: 20 + 8 + 32 + 8 bytes.
    let export = hand_built()[1].unsigned().bytes();
    let input_at = 2 + 4 + 4 + 32 + 32 + 4;
    assert_eq!(&export[input_at..input_at + 20], &[8; 20]);
    assert_eq!(&export[input_at + 60..input_at + 68], &42u64.to_be_bytes());
}

#[test]
fn apricot_phase5_blocks_carry_a_list_of_txs() {
    let txs = hand_built();
    let ext = ext_data_from_txs(&txs, true);
    assert_eq!(
        &ext[..6],
        &[0, 0, 0, 0, 0, 2],
        "codec version, then the tx count"
    );
    assert_eq!(txs_from_ext_data(&ext, true).unwrap(), txs);
    assert_eq!(txs_from_ext_data(&[], true).unwrap(), vec![]);
    assert_eq!(
        txs_from_ext_data(&[0, 0, 0, 0, 0, 0], true),
        Err(CodecError::Invalid(
            "a block's extra data lists no atomic txs"
        ))
    );
}

#[test]
fn only_secp256k1fx_credentials_decode() {
    let mut bytes = hand_built()[0].bytes();
    let cred_at = bytes.len() - 65 - 4 - 4;
    assert_eq!(&bytes[cred_at..cred_at + 4], &[0, 0, 0, 9]);
    bytes[cred_at + 3] = 11;
    assert_eq!(
        codec::from_bytes::<Tx>(&bytes),
        Err(CodecError::UnknownTypeId {
            type_id: 11,
            context: "a credential"
        })
    );
}

round_trip_props! {
    atomic_txs_round_trip: Tx, 4096;
    atomic_utxos_round_trip: Utxo, 1024;
}
