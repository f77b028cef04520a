//! Vectors and properties of `firn_core::avm`: every X-Chain tx and UTXO vector decodes,
//! re-encodes byte-exactly and has the ID its source gives; hand-built txs of every type,
//! blocks and vertices round-trip.

use crate::props::round_trip_props;
use crate::vectors;
use arbitrary::{Arbitrary, Unstructured};
use firn_core::avax::UtxoId;
use firn_core::avax::secp256k1fx::{OutputOwners, SigIndices, TransferInput, TransferOutput};
use firn_core::avm::fx::{
    NftMintOperation, NftMintOutput, NftTransferOperation, NftTransferOutput,
    PropertyMintOperation, Secp256k1MintOperation,
};
use firn_core::avm::tx::{
    BaseTx, CreateAssetTx, ExportTx, ImportTx, InitialState, Operation, OperationTx,
};
use firn_core::avm::vertex::VertexKind;
use firn_core::avm::{
    Block, Credential, Fx, FxOperation, FxOutput, TransferableInput, TransferableOutput, Tx,
    UnsignedTx, Utxo, Vertex, type_id,
};
use firn_core::codec::{self, Bytes, CodecError};
use firn_core::ids::{Id, ShortId};
use firn_core::keys::secp256k1::{RecoverableSignature, recover};
use firn_core::network::{LOCAL, MAINNET, UNIT_TEST_ID};
use proptest::prelude::*;
use serde_json::Value;

fn index() -> Vec<Value> {
    vectors::json("avm/INDEX.json").as_array().unwrap().clone()
}

fn vector(entry: &Value) -> Vec<u8> {
    vectors::unhex(&vectors::text(&format!(
        "avm/{}",
        entry["file"].as_str().unwrap()
    )))
}

/// The decoded tx of the vector named `name`.
fn tx(name: &str) -> Tx {
    let entry = index().into_iter().find(|e| e["name"] == name).unwrap();
    codec::from_bytes(&vector(&entry)).unwrap()
}

/// Go's `ids.ID{a, b, c}`: the given bytes, then zeros.
fn id(prefix: &[u8]) -> Id {
    let mut bytes = [0u8; 32];
    bytes[..prefix.len()].copy_from_slice(prefix);
    Id(bytes)
}

#[test]
fn every_tx_vector_round_trips_with_its_id() {
    let mut checked = 0;
    for entry in index()
        .iter()
        .filter(|e| e["file"].as_str().unwrap().starts_with("txs/"))
    {
        let name = entry["name"].as_str().unwrap();
        let bytes = vector(entry);
        assert_eq!(
            bytes.len() as u64,
            entry["len"].as_u64().unwrap(),
            "{name}: length"
        );
        let tx: Tx = codec::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            u64::from(tx.unsigned().type_id()),
            entry["type_id"].as_u64().unwrap(),
            "{name}: type"
        );
        if let Some(n) = entry["credentials"].as_u64() {
            assert_eq!(tx.credentials().len() as u64, n, "{name}: credentials");
        }
        assert_eq!(tx.bytes(), bytes, "{name}: re-encoding differs");
        assert_eq!(
            tx.id(),
            Id::hash_of(&bytes),
            "{name}: ID is not the hash of the bytes"
        );
        if let Some(want) = entry["tx_id"].as_str() {
            assert_eq!(tx.id().to_string(), want, "{name}: tx ID");
        }
        checked += 1;
    }
    assert_eq!(checked, 10, "every tx vector was checked");
}

#[test]
fn base_tx_vector_fields() {
    let tx = tx("base_tx");
    let UnsignedTx::Base(base) = tx.unsigned() else {
        panic!("not a BaseTx")
    };
    assert_eq!(base.network_id, UNIT_TEST_ID);
    assert_eq!(base.blockchain_id, id(&[5, 4, 3, 2, 1]));
    assert_eq!(base.outputs.len(), 1);
    assert_eq!(base.outputs[0].asset_id, id(&[1, 2, 3]));
    assert_eq!(base.outputs[0].output.amount, 12345);
    assert_eq!(base.outputs[0].output.owners.threshold, 1);
    let input = &base.inputs[0];
    assert_eq!((input.output_index, input.input.amount), (1, 54321));
    assert_eq!(input.input.sig_indices, vec![2]);
    assert_eq!(input.utxo_id(), input.tx_id.prefix(1));
    assert_eq!(base.memo.as_slice(), &[0, 1, 2, 3]);
    assert!(tx.credentials().is_empty());
}

/// The signed vectors carry two credentials of two signatures each by `keys[0]`, the owner of
/// the BaseTx's output: every signature must recover to that address from the signing hash.
#[test]
fn signed_vectors_carry_signatures_by_the_output_owner() {
    let owner = tx("base_tx").unsigned().base().outputs[0]
        .output
        .owners
        .addresses[0];
    for name in ["base_tx.signed", "import_tx.signed", "export_tx.signed"] {
        let tx = tx(name);
        assert_eq!(tx.credentials().len(), 2, "{name}");
        for cred in tx.credentials() {
            assert_eq!(cred.fx, Fx::Secp256k1);
            assert_eq!(cred.signatures.len(), 2);
            for sig in &cred.signatures {
                let key = recover(&tx.signing_hash(), &RecoverableSignature(*sig)).unwrap();
                assert_eq!(key.short_id(), owner, "{name}: signer");
            }
        }
        // The unsigned vector is the signed one without its credentials.
        let unsigned = tx.unsigned().bytes();
        assert_eq!(&tx.bytes()[..unsigned.len()], unsigned.as_slice());
    }
}

#[test]
fn create_asset_tx_vector_fields() {
    let UnsignedTx::CreateAsset(simple) = tx("create_asset_tx.simple").into_parts().0 else {
        panic!("not a CreateAssetTx")
    };
    assert_eq!(
        (simple.name.as_str(), simple.symbol.as_str()),
        ("Volatility Index", "VIX")
    );
    assert_eq!(simple.denomination, 2);
    assert_eq!(simple.base.network_id, 2);
    assert_eq!(simple.base.inputs[0].input.sig_indices, vec![3, 7]);
    assert_eq!(simple.initial_states.len(), 1);
    let state = &simple.initial_states[0];
    assert_eq!(state.fx_index, 0);
    let FxOutput::Secp256k1Transfer(out) = &state.outputs[0] else {
        panic!("not a transfer output")
    };
    assert_eq!(
        (out.amount, out.owners.locktime, out.owners.addresses.len()),
        (12345, 54321, 2)
    );

    let UnsignedTx::CreateAsset(again) = tx("create_asset_tx.again").into_parts().0 else {
        panic!("not a CreateAssetTx")
    };
    assert_eq!(
        (
            again.name.as_str(),
            again.symbol.as_str(),
            again.denomination
        ),
        ("name", "symb", 0)
    );
    // Three outputs of 20 kiloAVAX, and a variable-cap asset: a secp256k1fx mint output.
    assert_eq!(again.base.outputs.len(), 3);
    assert!(
        again
            .base
            .outputs
            .iter()
            .all(|o| o.output.amount == 20_000 * 1_000_000_000)
    );
    assert!(
        matches!(&again.initial_states[0].outputs[..], [FxOutput::Secp256k1Mint(o)] if o.threshold == 1)
    );
}

#[test]
fn import_and_export_vector_fields() {
    let UnsignedTx::Import(import) = tx("import_tx").into_parts().0 else {
        panic!("not an ImportTx")
    };
    assert_eq!(import.imported_inputs.len(), 1);
    assert_eq!(import.imported_inputs[0].input.amount, 1000);
    assert!(import.base.inputs.is_empty() && import.base.outputs.is_empty());
    let UnsignedTx::Export(export) = tx("export_tx").into_parts().0 else {
        panic!("not an ExportTx")
    };
    assert_eq!(export.base.inputs[0].input.amount, 1000);
    assert!(export.exported_outputs.is_empty());
}

/// The index API's examples: an ExportTx on a local network and a BaseTx on mainnet's X-Chain.
#[test]
fn indexer_vectors_are_real_chain_txs() {
    let export = tx("indexer-6fXf5hnc");
    assert_eq!(export.unsigned().base().network_id, LOCAL.network_id);
    assert_eq!(export.unsigned().base().blockchain_id, LOCAL.x_chain_id);
    let UnsignedTx::Export(e) = export.unsigned() else {
        panic!("not an ExportTx")
    };
    assert_eq!(e.exported_outputs[0].asset_id, LOCAL.avax_asset_id);

    let base = tx("indexer-ZGYTSU8w");
    assert_eq!(base.unsigned().type_name(), "BaseTx");
    assert_eq!(base.unsigned().base().network_id, MAINNET.network_id);
    assert_eq!(base.unsigned().base().blockchain_id, MAINNET.x_chain_id);
    assert_eq!(
        base.credentials().len(),
        base.unsigned().consumed_utxos().len()
    );
}

#[test]
fn utxo_vectors_round_trip_with_their_ids() {
    let mut checked = 0;
    for entry in index()
        .iter()
        .filter(|e| e["file"].as_str().unwrap().starts_with("utxos/"))
    {
        let name = entry["name"].as_str().unwrap();
        let bytes = vector(entry);
        let utxo: Utxo = codec::from_bytes(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(codec::to_bytes(&utxo), bytes, "{name}");
        let FxOutput::Secp256k1Transfer(out) = &utxo.output else {
            panic!("{name}: not a transfer")
        };
        // The docs' addresses differ from the owners in their UTXOs; only the shape is checked.
        assert_eq!(
            (out.owners.threshold, out.owners.addresses.len()),
            (1, 1),
            "{name}"
        );
        if let Some(want) = entry["utxo_id"].as_str() {
            assert_eq!(utxo.id().to_string(), want, "{name}: UTXO ID");
        }
        checked += 1;
    }
    assert_eq!(checked, 10);
}

#[test]
fn utxos_of_one_asset_share_the_asset_id_bytes() {
    let first: Vec<Utxo> = (0..9)
        .map(|n| {
            let e = index()
                .into_iter()
                .find(|e| e["name"] == format!("getutxos-{n}"))
                .unwrap();
            codec::from_bytes(&vector(&e)).unwrap()
        })
        .collect();
    assert!(first.iter().all(|u| u.asset_id == first[0].asset_id));
    assert!(
        first
            .iter()
            .all(|u| u.output.type_name() == "secp256k1fx.TransferOutput")
    );
}

fn owners(n: u8) -> OutputOwners {
    OutputOwners {
        locktime: u64::from(n),
        threshold: 1,
        addresses: vec![ShortId([n; 20])],
    }
}

fn base(network_id: u32) -> BaseTx {
    BaseTx {
        network_id,
        blockchain_id: Id([7; 32]),
        outputs: vec![TransferableOutput {
            asset_id: Id([1; 32]),
            output: TransferOutput {
                amount: 5,
                owners: owners(1),
            },
        }],
        inputs: vec![TransferableInput {
            tx_id: Id([2; 32]),
            output_index: 3,
            asset_id: Id([1; 32]),
            input: TransferInput {
                amount: 6,
                sig_indices: vec![0],
            },
        }],
        memo: Bytes(b"firn".to_vec()),
    }
}

/// One tx of each type, using every output, operation and credential type of all three fxs.
fn hand_built_txs() -> Vec<Tx> {
    let create = CreateAssetTx {
        base: base(1),
        name: "Firn Snow".into(),
        symbol: "FIRN".into(),
        denomination: 9,
        initial_states: vec![
            InitialState {
                fx_index: 0,
                outputs: vec![FxOutput::Secp256k1Mint(owners(2))],
            },
            InitialState {
                fx_index: 1,
                outputs: vec![
                    FxOutput::NftMint(NftMintOutput {
                        group_id: 0,
                        owners: owners(3),
                    }),
                    FxOutput::NftTransfer(NftTransferOutput {
                        group_id: 1,
                        payload: Bytes(vec![0xab; 3]),
                        owners: owners(4),
                    }),
                ],
            },
            InitialState {
                fx_index: 2,
                outputs: vec![
                    FxOutput::PropertyMint(owners(5)),
                    FxOutput::PropertyOwned(owners(6)),
                ],
            },
        ],
    };
    let utxos = vec![UtxoId {
        tx_id: Id([9; 32]),
        output_index: 0,
    }];
    let sig = SigIndices {
        sig_indices: vec![0, 1],
    };
    let ops = [
        FxOperation::Secp256k1Mint(Secp256k1MintOperation {
            mint_input: sig.clone(),
            mint_output: owners(2),
            transfer_output: TransferOutput {
                amount: 1_000,
                owners: owners(7),
            },
        }),
        FxOperation::NftMint(NftMintOperation {
            mint_input: sig.clone(),
            group_id: 4,
            payload: Bytes(b"ipfs://firn".to_vec()),
            outputs: vec![owners(8), owners(9)],
        }),
        FxOperation::NftTransfer(NftTransferOperation {
            input: sig.clone(),
            output: NftTransferOutput {
                group_id: 4,
                payload: Bytes(vec![]),
                owners: owners(10),
            },
        }),
        FxOperation::PropertyMint(PropertyMintOperation {
            mint_input: sig.clone(),
            mint_output: owners(5),
            owned_output: owners(11),
        }),
        FxOperation::PropertyBurn(sig),
    ];
    let operation = OperationTx {
        base: base(5),
        operations: ops
            .into_iter()
            .map(|op| Operation {
                asset_id: Id([3; 32]),
                utxo_ids: utxos.clone(),
                op,
            })
            .collect(),
    };
    let import = ImportTx {
        base: base(12345),
        source_chain: Id::ZERO,
        imported_inputs: base(0).inputs,
    };
    let export = ExportTx {
        base: base(12345),
        destination_chain: LOCAL.c_chain_id,
        exported_outputs: base(0).outputs,
    };
    let creds = |fxs: &[Fx]| {
        fxs.iter()
            .enumerate()
            .map(|(i, fx)| Credential {
                fx: *fx,
                signatures: vec![[i as u8; 65]],
            })
            .collect::<Vec<_>>()
    };
    vec![
        Tx::new(UnsignedTx::Base(base(1)), creds(&[Fx::Secp256k1])),
        Tx::new(UnsignedTx::CreateAsset(create), creds(&[Fx::Secp256k1])),
        Tx::new(
            UnsignedTx::Operation(operation),
            creds(&[
                Fx::Secp256k1,
                Fx::Secp256k1,
                Fx::Nft,
                Fx::Nft,
                Fx::Property,
                Fx::Property,
            ]),
        ),
        Tx::new(
            UnsignedTx::Import(import),
            creds(&[Fx::Secp256k1, Fx::Secp256k1]),
        ),
        Tx::new(UnsignedTx::Export(export), creds(&[Fx::Secp256k1])),
    ]
}

#[test]
fn hand_built_txs_of_every_type_round_trip() {
    let txs = hand_built_txs();
    for (tx, want_type) in txs.iter().zip(0u32..) {
        let bytes = tx.bytes();
        assert_eq!(
            &bytes[..6],
            &[&[0u8, 0][..], &want_type.to_be_bytes()].concat()[..]
        );
        let back: Tx = codec::from_bytes(&bytes).unwrap();
        assert_eq!(&back, tx);
        assert_eq!(back.id(), Id::hash_of(&bytes));
        assert_eq!(
            back.credentials().len(),
            tx.unsigned().consumed_utxos().len()
        );
    }
    // Every fx type ID appears where the AVM codec puts it.
    let all: Vec<u8> = txs.iter().flat_map(|t| t.bytes()).collect();
    for id in 5u32..=19 {
        let needle = id.to_be_bytes();
        assert!(
            all.windows(4).any(|w| w == needle),
            "type {id} never written"
        );
    }
}

#[test]
fn unknown_and_foreign_type_ids_are_named_in_errors() {
    let mut bytes = tx("base_tx").bytes();
    bytes[2..6].copy_from_slice(&5u32.to_be_bytes());
    assert_eq!(
        codec::from_bytes::<Tx>(&bytes),
        Err(CodecError::UnknownTypeId {
            type_id: 5,
            context: "an X-Chain unsigned tx"
        })
    );
    // A P-Chain stakeable lock (22) is no X-Chain output.
    let mut bytes = tx("base_tx").bytes();
    let at = 2 + 4 + 4 + 32 + 4 + 32;
    assert_eq!(
        &bytes[at..at + 4],
        &type_id::SECP256K1FX_TRANSFER_OUTPUT.to_be_bytes()
    );
    bytes[at..at + 4].copy_from_slice(&22u32.to_be_bytes());
    assert_eq!(
        codec::from_bytes::<Tx>(&bytes),
        Err(CodecError::UnknownTypeId {
            type_id: 22,
            context: "a transferable output"
        })
    );
}

fn sample_block() -> Block {
    let txs = ["base_tx.signed", "import_tx.signed", "indexer-ZGYTSU8w"]
        .map(tx)
        .to_vec();
    Block::new(Id([4; 32]), 2022, 1_679_479_614, Id::ZERO, txs)
}

#[test]
fn blocks_round_trip_with_the_standard_block_layout() {
    let block = sample_block();
    let bytes = block.bytes();
    assert_eq!(
        &bytes[..6],
        &[0, 0, 0, 0, 0, 20],
        "codec version, then StandardBlock's type 20"
    );
    assert_eq!(&bytes[6..38], &[4; 32], "parent ID");
    assert_eq!(&bytes[38..46], &2022u64.to_be_bytes(), "height");
    assert_eq!(&bytes[46..54], &1_679_479_614u64.to_be_bytes(), "time");
    assert_eq!(&bytes[54..86], &[0; 32], "merkle root");
    assert_eq!(&bytes[86..90], &3u32.to_be_bytes(), "tx count");
    // Txs inside a block carry no codec version of their own.
    let first = block.txs()[0].bytes();
    assert_eq!(&bytes[90..90 + first.len() - 2], &first[2..]);
    let back: Block = codec::from_bytes(&bytes).unwrap();
    assert_eq!(back, block);
    assert_eq!(back.id(), Id::hash_of(&bytes));
    assert_eq!(
        back.txs()[2].id().to_string(),
        "ZGYTSU8w3zUP6VFseGC798vA2Vnxnfj6fz1QPfA9N93bhjJvo"
    );
    let mut other = bytes.clone();
    other[5] = 21;
    assert_eq!(
        codec::from_bytes::<Block>(&other),
        Err(CodecError::UnknownTypeId {
            type_id: 21,
            context: "an X-Chain block"
        })
    );
}

#[test]
fn vertices_round_trip_and_carry_whole_txs() {
    let txs: Vec<Tx> = ["base_tx.signed", "export_tx.signed"].map(tx).to_vec();
    let vertex = Vertex::new(
        LOCAL.x_chain_id,
        7,
        vec![Id([4; 32]), Id([5; 32])],
        VertexKind::Standard {
            epoch: 0,
            txs: txs.iter().map(|t| Bytes(t.bytes())).collect(),
        },
    );
    let bytes = vertex.bytes();
    assert_eq!(&bytes[..2], &[0, 0], "version 0: a standard vertex");
    assert_eq!(&bytes[2..34], LOCAL.x_chain_id.as_bytes());
    assert_eq!(&bytes[34..42], &7u64.to_be_bytes());
    assert_eq!(&bytes[42..46], &[0; 4], "epoch");
    assert_eq!(&bytes[46..50], &2u32.to_be_bytes(), "parent count");
    let back = Vertex::from_bytes(&bytes).unwrap();
    assert_eq!(back, vertex);
    assert_eq!(back.id(), Id::hash_of(&bytes));
    assert!(!back.is_stop_vertex());
    let ids: Vec<Id> = back.txs().unwrap().iter().map(Tx::id).collect();
    assert_eq!(ids, txs.iter().map(Tx::id).collect::<Vec<_>>());

    let stop = Vertex::new(LOCAL.x_chain_id, 8, vec![back.id()], VertexKind::Stop);
    let stop_back = Vertex::from_bytes(&stop.bytes()).unwrap();
    assert!(stop_back.is_stop_vertex() && stop_back.tx_bytes().is_empty());
    assert_eq!(stop_back.parent_ids(), &[back.id()]);
}

round_trip_props! {
    unsigned_txs_round_trip: UnsignedTx, 4096;
    signed_txs_round_trip: Tx, 4096;
    utxos_round_trip: Utxo, 1024;
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn encode_then_decode_is_the_identity_for_blocks(raw in proptest::collection::vec(any::<u8>(), 0..8192)) {
        let Ok(block) = Block::arbitrary(&mut Unstructured::new(&raw)) else { return Ok(()) };
        let bytes = block.bytes();
        let back: Block = codec::from_bytes_with_max(&bytes, usize::MAX).unwrap();
        prop_assert_eq!(back.id(), Id::hash_of(&bytes));
        prop_assert_eq!(back, block);
    }

    #[test]
    fn encode_then_decode_is_the_identity_for_vertices(raw in proptest::collection::vec(any::<u8>(), 0..4096)) {
        let Ok(vertex) = Vertex::arbitrary(&mut Unstructured::new(&raw)) else { return Ok(()) };
        let back = Vertex::from_bytes(&vertex.bytes()).unwrap();
        prop_assert_eq!(back, vertex);
    }
}
