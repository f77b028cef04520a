//! The command line as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn firn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_firn"))
        .args(args)
        .output()
        .expect("running firn")
}

fn vector(rel: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../firn-core/tests/vectors")
        .join(rel);
    path.to_string_lossy().into_owned()
}

fn stdout_json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "firn failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("firn printed JSON")
}

#[test]
fn decode_block_prints_avalanchego_json_from_a_getblock_response() {
    let out = firn(&[
        "decode",
        "block",
        &vector("pchain/blocks/mainnet-height-1000001.getBlock-hex-response.txt"),
        "--network",
        "mainnet",
    ]);
    let json = stdout_json(&out);
    assert_eq!(
        json["id"],
        "d7WYmb8VeZNHsny3EJCwMm6QA37s1EHwMxw1Y71V3FqPZ5EFG"
    );
    assert_eq!(json["height"], 1_000_001);
    assert_eq!(
        json["txs"][0]["unsignedTx"]["exportedOutputs"][0]["output"]["addresses"][0],
        "P-avax1jkjyvlwclyu42n4yuegpczpfgwrf8r9lyj0d3c"
    );
}

#[test]
fn decode_rejects_bytes_of_the_wrong_kind_with_a_clear_error() {
    let out = firn(&["decode", "tx", "0x00000000002a"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a signed P-Chain tx"), "{err}");
    assert!(err.contains("unknown type ID 42"), "{err}");
}

#[test]
fn keys_are_deterministic_per_seed() {
    let a = stdout_json(&firn(&["keys", "--count", "3", "--json"]));
    let b = stdout_json(&firn(&["keys", "--count", "3", "--json"]));
    let c = stdout_json(&firn(&[
        "keys", "--count", "3", "--json", "--seed", "other",
    ]));
    assert_eq!(a, b);
    assert_ne!(a[0]["privateKey"], c[0]["privateKey"]);
    assert_eq!(a.as_array().unwrap().len(), 3);
    assert!(
        a[0]["pChainAddress"]
            .as_str()
            .unwrap()
            .starts_with("P-fuji1")
    );
    assert!(a[0]["evmAddress"].as_str().unwrap().starts_with("0x"));
}

#[test]
fn off_chain_messages_that_no_chain_could_sign_are_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_str().unwrap();
    let start = |message: &str| {
        let out = firn(&[
            "devnet",
            "--data-dir",
            data_dir,
            "--rpc-addr",
            "127.0.0.1:0",
            "--warp-off-chain-message",
            message,
        ]);
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = start("0xzz");
    assert!(err.contains("not hex bytes"), "{err}");
    let err = start("0x1234");
    assert!(
        err.contains("failed to parse off-chain message at index 0"),
        "{err}"
    );
    // A mainnet message on the Fuji-profile devnet.
    let mainnet = firn_core::warp::UnsignedMessage::new(1, firn_core::ids::Id([3; 32]), vec![]);
    let err = start(&hex::encode(mainnet.bytes()));
    assert!(
        err.contains("off-chain message at index 0 is for network 1, not 5"),
        "{err}"
    );
    // A Fuji message whose payload is no AddressedCall.
    let hash = firn_core::warp::payload::Payload::Hash(firn_core::ids::Id([4; 32]));
    let fuji = firn_core::warp::UnsignedMessage::new(5, firn_core::ids::Id([3; 32]), hash.bytes());
    let err = start(&hex::encode(fuji.bytes()));
    assert!(err.contains("as AddressedCall"), "{err}");
}
