//! X-Chain JSON against AvalancheGo's `avm.getTx` expectations (`vms/avm/service_test.go`).
//!
//! Those tests pin the exact JSON text of 9 txs, with `%q` holes for what changes from run to
//! run (blockchain ID, signature, tx ID, created asset ID). Each template is filled with fixed
//! values, read back into a [`Tx`] by the small reader below, and our JSON of that tx must
//! equal the template, key order included, with the tx ID we compute in the `id` hole.
//!
//! The `avm.getTx` example of `vms/avm/service.md` (a mainnet ExportTx) is rebuilt the same
//! way, and there the ID is checked too: sha256 of the rebuilt bytes is the example's `id`.
//!
//! One known difference: the templates show `"memo": null`, because the Go test serves the tx
//! object it built in memory (a nil memo). A tx decoded from bytes, as on any node serving it
//! from disk and as here, has an empty non-nil memo, which Go shows as `"0x"`.

use crate::vectors;
use firn_core::address::ChainAddress;
use firn_core::avax::json::JsonContext;
use firn_core::avax::secp256k1fx::{OutputOwners, SigIndices, TransferInput, TransferOutput};
use firn_core::avax::{TransferableInput, TransferableOutput, UtxoId};
use firn_core::avm::fx::{
    Credential, Fx, FxOperation, FxOutput, NftMintOperation, NftMintOutput, NftTransferOperation,
    NftTransferOutput, PropertyMintOperation, Secp256k1MintOperation,
};
use firn_core::avm::json::{block_to_json, tx_to_json};
use firn_core::avm::tx::{
    BaseTx, CreateAssetTx, ExportTx, ImportTx, InitialState, Operation, OperationTx,
};
use firn_core::avm::{Block, Tx, UnsignedTx};
use firn_core::codec;
use firn_core::ids::Id;
use serde_json::{Value, json};

const BLOCKCHAIN_ID: Id = Id::from_padded_str("x-chain under test");
const ASSET_ID: Id = Id::from_padded_str("created asset");
const TX_ID_HOLE: &str = "<the tx id>";
const SIGNATURE: [u8; 65] = [0x5a; 65];

/// Fills Go's `%q` / `%[n]q` holes with JSON strings for the template's arguments.
fn fill(template: &str, args: &[String]) -> String {
    let mut out = String::new();
    let mut rest = template;
    let mut next = 0;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        let index = if let Some(r) = rest.strip_prefix('[') {
            let close = r.find(']').unwrap();
            let n: usize = r[..close].parse().unwrap();
            rest = &r[close + 1..];
            n - 1
        } else {
            next += 1;
            next - 1
        };
        rest = rest.strip_prefix('q').expect("only %q holes");
        out.push_str(&json!(args[index]).to_string());
    }
    out.push_str(rest);
    out
}

fn id(v: &Value) -> Id {
    v.as_str().unwrap().parse().unwrap()
}

fn u64_of(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

fn u32_of(v: &Value) -> u32 {
    u32::try_from(u64_of(v)).unwrap()
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array().unwrap().iter().map(u32_of).collect()
}

fn hex_bytes(v: &Value) -> Vec<u8> {
    match v {
        Value::Null => Vec::new(),
        v => vectors::unhex(v.as_str().unwrap()),
    }
}

fn owners(v: &Value) -> OutputOwners {
    let addresses = v["addresses"].as_array().unwrap().iter().map(|a| {
        let addr: ChainAddress = a.as_str().unwrap().parse().unwrap();
        assert_eq!(addr.chain, "X");
        addr.id
    });
    OutputOwners {
        locktime: u64_of(&v["locktime"]),
        threshold: u32_of(&v["threshold"]),
        addresses: addresses.collect(),
    }
}

fn transfer_output(v: &Value) -> TransferOutput {
    TransferOutput {
        amount: u64_of(&v["amount"]),
        owners: owners(v),
    }
}

fn sig_indices(v: &Value) -> SigIndices {
    SigIndices {
        sig_indices: u32s(&v["signatureIndices"]),
    }
}

fn nft_transfer_output(v: &Value) -> NftTransferOutput {
    NftTransferOutput {
        group_id: u32_of(&v["groupID"]),
        payload: hex_bytes(&v["payload"]).into(),
        owners: owners(v),
    }
}

/// An output of an initial state: the keys tell most types apart; an owners-only output is
/// the mint output of its state's fx.
fn fx_output(fx: Fx, v: &Value) -> FxOutput {
    if v.get("amount").is_some() {
        FxOutput::Secp256k1Transfer(transfer_output(v))
    } else if v.get("payload").is_some() {
        FxOutput::NftTransfer(nft_transfer_output(v))
    } else if v.get("groupID").is_some() {
        FxOutput::NftMint(NftMintOutput {
            group_id: u32_of(&v["groupID"]),
            owners: owners(v),
        })
    } else if fx == Fx::Property {
        FxOutput::PropertyMint(owners(v))
    } else {
        FxOutput::Secp256k1Mint(owners(v))
    }
}

fn fx_of(fx_id: &Value) -> Fx {
    let fx_id = id(fx_id);
    [Fx::Secp256k1, Fx::Nft, Fx::Property]
        .into_iter()
        .find(|fx| fx.id() == fx_id)
        .unwrap()
}

fn fx_operation(fx: Fx, v: &Value) -> FxOperation {
    match fx {
        Fx::Secp256k1 => FxOperation::Secp256k1Mint(Secp256k1MintOperation {
            mint_input: sig_indices(&v["mintInput"]),
            mint_output: owners(&v["mintOutput"]),
            transfer_output: transfer_output(&v["transferOutput"]),
        }),
        Fx::Nft if v.get("mintInput").is_some() => FxOperation::NftMint(NftMintOperation {
            mint_input: sig_indices(&v["mintInput"]),
            group_id: u32_of(&v["groupID"]),
            payload: hex_bytes(&v["payload"]).into(),
            outputs: v["outputs"]
                .as_array()
                .unwrap()
                .iter()
                .map(owners)
                .collect(),
        }),
        Fx::Nft => FxOperation::NftTransfer(NftTransferOperation {
            input: sig_indices(&v["input"]),
            output: nft_transfer_output(&v["output"]),
        }),
        Fx::Property if v.get("mintInput").is_some() => {
            FxOperation::PropertyMint(PropertyMintOperation {
                mint_input: sig_indices(&v["mintInput"]),
                mint_output: owners(&v["mintOutput"]),
                owned_output: owners(&v["ownedOutput"]),
            })
        }
        Fx::Property => FxOperation::PropertyBurn(sig_indices(v)),
    }
}

fn outputs(v: &Value) -> Vec<TransferableOutput<TransferOutput>> {
    let outs = v.as_array().unwrap().iter().map(|o| {
        assert_eq!(fx_of(&o["fxID"]), Fx::Secp256k1);
        TransferableOutput {
            asset_id: id(&o["assetID"]),
            output: transfer_output(&o["output"]),
        }
    });
    outs.collect()
}

fn inputs(v: &Value) -> Vec<TransferableInput<TransferInput>> {
    let ins = v.as_array().unwrap().iter().map(|i| {
        assert_eq!(fx_of(&i["fxID"]), Fx::Secp256k1);
        TransferableInput {
            tx_id: id(&i["txID"]),
            output_index: u32_of(&i["outputIndex"]),
            asset_id: id(&i["assetID"]),
            input: TransferInput {
                amount: u64_of(&i["input"]["amount"]),
                sig_indices: u32s(&i["input"]["signatureIndices"]),
            },
        }
    });
    ins.collect()
}

fn unsigned_tx(v: &Value) -> UnsignedTx {
    let base = BaseTx {
        network_id: u32_of(&v["networkID"]),
        blockchain_id: id(&v["blockchainID"]),
        outputs: outputs(&v["outputs"]),
        inputs: inputs(&v["inputs"]),
        memo: hex_bytes(&v["memo"]).into(),
    };
    if let Some(states) = v.get("initialStates") {
        let states = states.as_array().unwrap().iter().map(|s| {
            let fx = fx_of(&s["fxID"]);
            assert_eq!(Fx::from_index(u32_of(&s["fxIndex"])), Some(fx));
            let outs = s["outputs"].as_array().unwrap();
            InitialState {
                fx_index: u32_of(&s["fxIndex"]),
                outputs: outs.iter().map(|o| fx_output(fx, o)).collect(),
            }
        });
        UnsignedTx::CreateAsset(CreateAssetTx {
            base,
            name: v["name"].as_str().unwrap().into(),
            symbol: v["symbol"].as_str().unwrap().into(),
            denomination: u8::try_from(u64_of(&v["denomination"])).unwrap(),
            initial_states: states.collect(),
        })
    } else if let Some(ops) = v.get("operations") {
        let ops = ops.as_array().unwrap().iter().map(|op| {
            let utxos = op["inputIDs"].as_array().unwrap().iter().map(|u| UtxoId {
                tx_id: id(&u["txID"]),
                output_index: u32_of(&u["outputIndex"]),
            });
            Operation {
                asset_id: id(&op["assetID"]),
                utxo_ids: utxos.collect(),
                op: fx_operation(fx_of(&op["fxID"]), &op["operation"]),
            }
        });
        UnsignedTx::Operation(OperationTx {
            base,
            operations: ops.collect(),
        })
    } else if let Some(chain) = v.get("destinationChain") {
        UnsignedTx::Export(ExportTx {
            base,
            destination_chain: id(chain),
            exported_outputs: outputs(&v["exportedOutputs"]),
        })
    } else if let Some(chain) = v.get("sourceChain") {
        UnsignedTx::Import(ImportTx {
            base,
            source_chain: id(chain),
            imported_inputs: inputs(&v["importedInputs"]),
        })
    } else {
        UnsignedTx::Base(base)
    }
}

fn tx(v: &Value) -> Tx {
    let creds = v["credentials"].as_array().unwrap().iter().map(|c| {
        let sigs = c["credential"]["signatures"].as_array().unwrap().iter();
        Credential {
            fx: fx_of(&c["fxID"]),
            signatures: sigs.map(|s| hex_bytes(s).try_into().unwrap()).collect(),
        }
    });
    Tx::new(unsigned_tx(&v["unsignedTx"]), creds.collect())
}

/// The templates, filled, with the memo difference (module docs) applied.
fn filled_templates() -> Vec<(String, Value)> {
    let index = vectors::json("avm/json/INDEX.json");
    let index: Vec<&Value> = index
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e.get("arg_roles").is_some())
        .collect();
    assert_eq!(index.len(), 9);
    let values = |role: &Value| match role.as_str().unwrap() {
        "blockchain_id" => BLOCKCHAIN_ID.to_string(),
        "signature_hex" => format!("0x{}", hex::encode(SIGNATURE)),
        "tx_id" => TX_ID_HOLE.to_string(),
        "asset_id" => ASSET_ID.to_string(),
        other => panic!("unknown role {other}"),
    };
    let fill_one = |entry: &Value| {
        let args: Vec<String> = entry["arg_roles"]
            .as_array()
            .unwrap()
            .iter()
            .map(values)
            .collect();
        let text = fill(
            &vectors::text(&format!("avm/{}", entry["file"].as_str().unwrap())),
            &args,
        );
        let mut json: Value = serde_json::from_str(&text).unwrap();
        if json["unsignedTx"]["memo"].is_null() {
            json["unsignedTx"]["memo"] = json!("0x");
        }
        (entry["name"].as_str().unwrap().to_string(), json)
    };
    index.into_iter().map(fill_one).collect()
}

#[test]
fn every_get_tx_template_matches_our_json_with_go_key_order() {
    let ctx = JsonContext::xchain(firn_core::network::UNIT_TEST_ID);
    for (name, mut expected) in filled_templates() {
        let tx = tx(&expected);
        // The tx survives its bytes, as a node would have stored it.
        let tx: Tx = codec::from_bytes(&tx.bytes()).unwrap();
        expected["id"] = json!(tx.id());
        let ours = tx_to_json(&ctx, &tx);
        assert_eq!(ours, expected, "{name}: values");
        // serde_json keeps insertion order, so equal text means equal key order everywhere.
        assert_eq!(
            serde_json::to_string_pretty(&ours).unwrap(),
            serde_json::to_string_pretty(&expected).unwrap(),
            "{name}: key order"
        );
    }
}

/// The docs' example is a real mainnet ExportTx: rebuilt from its JSON, its bytes must hash to
/// the example's ID, and our JSON must be the example's.
#[test]
fn service_md_get_tx_example_rebuilds_to_its_id_and_json() {
    let index = vectors::json("avm/json/INDEX.json");
    let entry = index
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "service_md_getTx")
        .unwrap();
    let response = vectors::json(&format!("avm/{}", entry["file"].as_str().unwrap()));
    let expected = &response["result"]["tx"];
    let tx = tx(expected);
    assert_eq!(tx.id().to_string(), entry["tx_id"].as_str().unwrap());
    let ctx = JsonContext::xchain(u32_of(&entry["network_id"]));
    let ours = tx_to_json(&ctx, &tx);
    assert_eq!(&ours, expected);
    assert_eq!(
        serde_json::to_string(&ours).unwrap(),
        serde_json::to_string(expected).unwrap(),
        "key order"
    );
}

#[test]
fn fx_ids_follow_the_fx_of_each_credential_and_operation() {
    let templates = filled_templates();
    let (_, nft) = templates
        .iter()
        .find(|(name, _)| name == "OperationTxWithNftxMintOp")
        .unwrap();
    let ours = tx_to_json(&JsonContext::xchain(10), &tx(nft));
    assert_eq!(ours["credentials"][1]["fxID"], json!(Fx::Nft.id()));
    assert_eq!(
        ours["unsignedTx"]["operations"][0]["fxID"],
        json!(Fx::Nft.id())
    );
}

#[test]
fn block_json_has_standard_block_fields_in_go_order_then_id() {
    let templates = filled_templates();
    let txs = templates.iter().map(|(_, v)| tx(v)).collect::<Vec<_>>();
    let block = Block::new(
        Id::from_padded_str("parent"),
        7,
        1_700_000_000,
        Id::ZERO,
        txs,
    );
    let block: Block = codec::from_bytes(&block.bytes()).unwrap();
    let ctx = JsonContext::xchain(10);
    let json = block_to_json(&ctx, &block);
    let keys: Vec<String> = json.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["parentID", "height", "time", "merkleRoot", "txs", "id"]
    );
    assert_eq!(json["id"], json!(block.id()));
    assert_eq!(json["height"], 7);
    assert_eq!(json["merkleRoot"], json!(Id::ZERO));
    assert_eq!(json["txs"][2], tx_to_json(&ctx, &block.txs()[2]));
    assert_eq!(json["txs"].as_array().unwrap().len(), 9);
}
