//! A token's mints and burns by address: what the Metrics API's bridged amounts add up.

use firn_store::rows::evm::EvmBlockRows;
use firn_store::rows::metrics::NetMint;
use firn_store::types::{Address, U256};
use firn_store::{EvmWriter, MetricsReader, Store};

use crate::fixtures::{erc20_transfers_block, evm_address, evm_chain};

const CHAIN: u64 = 43_114;

/// A block on [`CHAIN`] with the given ERC-20 transfers.
fn block(number: u64, transfers: &[(Address, Address, Address, u64)]) -> EvmBlockRows {
    erc20_transfers_block(CHAIN, number, transfers)
}

pub async fn token_mints_and_burns_by_address(store: Store) {
    store.upsert_evm_chain(&evm_chain(CHAIN)).await.unwrap();
    let (token, other) = (evm_address(500), evm_address(501));
    let (a, b) = (evm_address(1), evm_address(2));
    let zero = Address::ZERO;
    assert_eq!(
        store.list_net_mints(CHAIN, token, 10).await.unwrap(),
        Some(Vec::new())
    );
    store
        .commit_evm_blocks(&[
            block(1, &[(token, zero, a, 100), (token, zero, b, 30)]),
            block(
                2,
                &[
                    (token, a, b, 7),
                    (other, zero, a, 1_000),
                    (token, zero, a, 50),
                ],
            ),
            block(3, &[(token, a, zero, 20), (token, b, zero, 40)]),
        ])
        .await
        .unwrap();
    firn_store::testing::record_reads(&store);
    let sums = store.list_net_mints(CHAIN, token, 5).await.unwrap();
    let want = vec![
        NetMint {
            address: a,
            minted: U256::from(150),
            burned: U256::from(20),
        },
        NetMint {
            address: b,
            minted: U256::from(30),
            burned: U256::from(40),
        },
    ];
    assert_eq!(
        sums,
        Some(want.clone()),
        "by address; transfers between holders left out"
    );
    assert_eq!(want[0].net(), U256::from(130));
    assert_eq!(want[1].net(), U256::ZERO, "burned more than minted to it");
    assert_eq!(
        store.list_net_mints(CHAIN, token, 4).await.unwrap(),
        None,
        "five mints and burns are more than four"
    );
    assert_eq!(
        store.list_net_mints(CHAIN + 1, token, 5).await.unwrap(),
        Some(Vec::new())
    );
    firn_store::testing::assert_reads_use_indexes(&store).await;
}
