//! ERC-20 balances against `balanceOf`: a rebasing token's balances drift from its transfers
//! after a rebase, and the follower records the evidence once it has reached the tip; a
//! standard token beside it never disagrees.

use std::time::Duration;

use firn_indexer::{EvmIndexer, IndexerConfig};
use firn_store::testing::StoreUrl;
use firn_store::types::{Address, U256};
use firn_store::{EvmReader, PageRequest};

use crate::evm::{eth_call, word};
use crate::evm_devnet::{EvmDevnet, Tok, call, deploy, ether, key};

fn config() -> IndexerConfig {
    IndexerConfig {
        max_attempts: Some(3),
        initial_backoff: Duration::from_millis(10),
        ..IndexerConfig::default()
    }
}

fn transfer(to: Address, amount: U256) -> Vec<u8> {
    call(
        "transfer(address,uint256)",
        &[Tok::Addr(to), Tok::Uint(amount)],
    )
}

pub async fn rebasing_token_balances_are_flagged_at_the_tip(url: StoreUrl) {
    let devnet = EvmDevnet::start().await;
    let k0 = key(0);
    let holder = Address::repeat_byte(0xc1);
    let supply = Tok::Uint(ether(1_000));
    let rebasing = devnet.send(
        &k0,
        None,
        U256::ZERO,
        deploy(
            "FirnRebasing",
            &[Tok::Str("Firn Staked"), Tok::Str("sFIRN"), supply],
        ),
        3_000_000,
    );
    let plain = devnet.send_token(&k0, "Firn Token", "FIRN", ether(1_000));
    devnet.build();
    let (rebasing, plain) = (devnet.created(rebasing), devnet.created(plain));
    for token in [rebasing, plain] {
        devnet.send(
            &k0,
            Some(token),
            U256::ZERO,
            transfer(holder, ether(10)),
            200_000,
        );
    }
    devnet.build();

    let store = url.open().await;
    let mut indexer = EvmIndexer::new(devnet.endpoint(), store.clone(), config()).unwrap();
    indexer.backfill().await.unwrap();
    let chain_id = devnet.chain.chain_id();
    let tokens = [rebasing, plain];
    let found = store
        .list_balance_mismatches(chain_id, &tokens)
        .await
        .unwrap();
    assert!(found.is_empty(), "before any rebase both agree: {found:?}");

    // +5%: every sFIRN holder's balanceOf grows, and no Transfer says so. The next transfer
    // brings the token back to the follower's attention.
    let price = U256::from(1_050_000_000_000_000_000u64);
    let rebase = call("rebase(uint256)", &[Tok::Uint(price)]);
    devnet.send(&k0, Some(rebasing), U256::ZERO, rebase, 200_000);
    devnet.build();
    for token in [rebasing, plain] {
        devnet.send(
            &k0,
            Some(token),
            U256::ZERO,
            transfer(holder, ether(1)),
            200_000,
        );
    }
    devnet.build();
    let head = indexer.backfill().await.unwrap().unwrap();

    let found = store
        .list_balance_mismatches(chain_id, &tokens)
        .await
        .unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let evidence = &found[0];
    assert_eq!((evidence.token, evidence.block_number), (rebasing, head));
    // The folded balance is what the transfers said; balanceOf is the node's.
    let folded = store
        .list_erc20_balances(
            chain_id,
            evidence.holder,
            &[rebasing],
            &PageRequest::first(1),
        )
        .await
        .unwrap();
    assert_eq!(
        Some(evidence.derived),
        folded.items.first().map(|b| b.balance)
    );
    let balance_of = call("balanceOf(address)", &[Tok::Addr(evidence.holder)]);
    let reported = word(&eth_call(&devnet.client(), rebasing, balance_of).await);
    assert_eq!(evidence.reported, reported);
    assert_ne!(evidence.derived, evidence.reported);
    // The latest transfer's recipient is compared first: 10 sFIRN as shares at price 1, one
    // more at 1.05, all worth 1.05 each (the contract rounds down).
    assert_eq!(evidence.holder, holder);
    let one = ether(1);
    let shares = ether(10) + one * one / price;
    assert_eq!(evidence.reported, shares * price / one);

    // Evidence is kept once: later checks do not replace it.
    devnet.send(
        &k0,
        Some(rebasing),
        U256::ZERO,
        transfer(holder, ether(1)),
        200_000,
    );
    devnet.build();
    indexer.backfill().await.unwrap();
    let again = store
        .list_balance_mismatches(chain_id, &tokens)
        .await
        .unwrap();
    assert_eq!(again, vec![evidence.clone()]);
    store.close().await;
}
