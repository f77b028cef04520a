use std::path::Path;

use firn_devnet::clock::Clock;
use firn_devnet::genesis::DevnetConfig;
use firn_devnet::vm::PChain;

pub const AVAX: u64 = 1_000_000_000;
pub const DAY: u64 = 24 * 3600;

pub use tempfile::TempDir;

/// A fresh directory for test `name`, removed on drop.
pub fn temp_dir(name: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("firn-{name}-"))
        .tempdir()
        .expect("create a temporary directory")
}

pub fn config() -> DevnetConfig {
    DevnetConfig::default()
}

/// Opens a chain in `dir` with a frozen clock at the genesis time.
pub fn open_in(dir: &Path, config: DevnetConfig) -> PChain {
    let clock = Clock::frozen(config.genesis_time);
    PChain::open(config, dir, clock).unwrap()
}

/// Issues and builds until idle; returns the tx ID.
pub fn issue_and_build(chain: &PChain, tx: firn_core::pchain::tx::Tx) -> firn_core::ids::Id {
    let id = chain.issue_tx(tx).unwrap();
    chain.clock().advance(1);
    chain.build_until_idle().unwrap();
    assert_eq!(
        chain.tx_status(&id),
        firn_devnet::vm::TxStatus::Committed,
        "tx {id} was not accepted"
    );
    id
}

/// Re-signs every input of `unsigned` with `key` (all inputs must be its own).
pub fn resign(
    unsigned: firn_core::pchain::tx::UnsignedTx,
    key: &firn_core::keys::secp256k1::PrivateKey,
) -> firn_core::pchain::tx::Tx {
    let n = unsigned.base().map_or(0, |b| b.inputs.len());
    let hash = unsigned.signing_hash();
    let creds = (0..n)
        .map(|_| firn_core::pchain::fx::Credential {
            signatures: vec![key.sign_hash(&hash).0],
        })
        .collect();
    firn_core::pchain::tx::Tx::new(unsigned, creds)
}
