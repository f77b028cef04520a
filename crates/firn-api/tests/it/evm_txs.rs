//! The EVM transaction endpoints against what the fixtures wrote: one transaction with its
//! transfers and internal calls, a chain's latest (by status), a block's, an address's native
//! transactions, and ERC-1155 transfers.

use firn_store::Store;
use firn_store::rows::evm::{EvmTx, TokenStandard};
use firn_store::types::Address;
use serde_json::Value;

use crate::fixtures::{CHAIN, ERC1155, FACTORY, evm_address, seed};
use crate::harness::Api;

/// `(blockNumber, blockIndex)` of each listed transaction.
fn keys(txs: &[Value]) -> Vec<(u64, u64)> {
    txs.iter()
        .map(|t| {
            (
                t["blockNumber"].as_str().unwrap().parse().unwrap(),
                t["blockIndex"].as_u64().unwrap(),
            )
        })
        .collect()
}

pub async fn transaction_endpoints_match_the_store(store: Store) {
    let world = seed(&store, 5, 60).await;
    let api = Api::new(store);
    let blocks = &world.evm.blocks;
    let all: Vec<(u64, &EvmTx)> = blocks
        .iter()
        .flat_map(|b| b.txs.iter().map(move |t| (b.block.number, t)))
        .collect();
    let newest_first = |keep: &dyn Fn(&EvmTx) -> bool| -> Vec<(u64, u64)> {
        let mut v: Vec<_> = all
            .iter()
            .filter(|(_, t)| keep(t))
            .map(|(n, t)| (*n, u64::from(t.index)))
            .collect();
        v.reverse();
        v
    };

    // Latest, every status and each one, over pages of 7.
    let base = format!("/v1/chains/{CHAIN}/transactions?");
    let latest = api.all_pages(&base, "transactions", 7).await;
    assert_eq!(keys(&latest), newest_first(&|_| true));
    let failed = api
        .all_pages(&format!("{base}status=failed"), "transactions", 7)
        .await;
    assert!(!failed.is_empty(), "the fixtures hold failed transactions");
    assert_eq!(keys(&failed), newest_first(&|t| !t.success));
    assert!(failed.iter().all(|t| t["txStatus"] == "0"));
    let succeeded = api
        .all_pages(&format!("{base}status=success"), "transactions", 7)
        .await;
    assert_eq!(keys(&succeeded), newest_first(&|t| t.success));

    // One address's native transactions, with a block range.
    let a = evm_address(3);
    let touches = |t: &EvmTx| t.from == a || t.to == Some(a) || t.contract_address == Some(a);
    let native = api
        .all_pages(
            &format!("/v1/chains/{CHAIN}/addresses/{a:#x}/transactions:listNative?"),
            "transactions",
            3,
        )
        .await;
    assert!(native.len() > 3);
    assert_eq!(keys(&native), newest_first(&touches));
    let ranged = api
        .all_pages(
            &format!(
                "/v1/chains/{CHAIN}/addresses/{a:#x}/transactions:listNative?startBlock=10&endBlock=40"
            ),
            "transactions",
            3,
        )
        .await;
    let want: Vec<_> = newest_first(&touches)
        .into_iter()
        .filter(|(n, _)| (10..40).contains(n))
        .collect();
    assert_eq!(keys(&ranged), want);

    // A block's transactions in block order, by number and by hash, paged or whole.
    let busy = blocks.iter().max_by_key(|b| b.txs.len()).unwrap();
    let n = busy.block.number;
    let want: Vec<(u64, u64)> = busy.txs.iter().map(|t| (n, u64::from(t.index))).collect();
    assert!(want.len() > 2);
    let by_number = api
        .all_pages(
            &format!("/v1/chains/{CHAIN}/blocks/{n}/transactions?"),
            "transactions",
            2,
        )
        .await;
    assert_eq!(keys(&by_number), want);
    let whole = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/blocks/{:#x}/transactions?pageSize=0",
            busy.block.hash
        ))
        .await;
    assert_eq!(keys(whole["transactions"].as_array().unwrap()), want);
    assert!(whole.get("nextPageToken").is_none());
    api.get(&format!("/v1/chains/{CHAIN}/blocks/99999/transactions"))
        .await
        .assert_error(404, "block 99999 not found");

    // One transaction: a factory call with its two internal creations, and a batch of
    // ERC-1155 transfers split by standard.
    let (factory_block, factory_tx) = all
        .iter()
        .find(|(_, t)| t.to == Some(evm_address(FACTORY)))
        .expect("a factory call");
    let body = api
        .ok(&format!(
            "/v1/chains/{CHAIN}/transactions/{:#x}",
            factory_tx.hash
        ))
        .await;
    let native = &body["nativeTransaction"];
    assert_eq!(native["txHash"], factory_tx.hash.to_string());
    assert_eq!(native["blockNumber"], factory_block.to_string());
    assert_eq!(
        native["input"],
        format!("0x{}", hex::encode(&factory_tx.input))
    );
    let internal = body["internalTransactions"].as_array().unwrap();
    assert_eq!(internal.len(), 2);
    assert_eq!(internal[0]["internalTxType"], "CREATE2");
    assert_eq!(internal[1]["isReverted"], true);
    let batch = crate::fixtures::erc1155_batch_tx(blocks);
    let body = api
        .ok(&format!("/v1/chains/{CHAIN}/transactions/{batch:#x}"))
        .await;
    assert_eq!(body["erc1155Transfers"].as_array().unwrap().len(), 2);
    assert_eq!(body["erc20Transfers"], serde_json::json!([]));
    // Its recipient is the token contract, named as the token, in EIP-55 case; its method is
    // known from firn's own ABIs.
    let native = &body["nativeTransaction"];
    assert_eq!(
        native["to"],
        serde_json::json!({
            "name": "Multi",
            "symbol": "MUL",
            "address": evm_address(ERC1155).to_checksum(None),
        })
    );
    assert_ne!(
        native["to"]["address"],
        format!("{:#x}", evm_address(ERC1155))
    );
    assert!(native["from"].get("name").is_none());
    assert_eq!(native["method"]["methodHash"], "0xa9059cbb");
    assert_eq!(native["method"]["methodName"], "transfer(address,uint256)");
    let missing = format!("0x{}", "ab".repeat(32));
    api.get(&format!("/v1/chains/{CHAIN}/transactions/{missing}"))
        .await
        .assert_error(404, "not found");
    api.get(&format!("/v1/chains/{CHAIN}/transactions/0x12"))
        .await
        .assert_error(400, "txHash");

    // ERC-1155 transfers of a holder: each id of a batch, newest first.
    let holder: Address = world
        .evm
        .holdings
        .keys()
        .find(|(_, token, _)| *token == evm_address(ERC1155))
        .map(|(owner, _, _)| *owner)
        .expect("an ERC-1155 holder");
    let transfers = api
        .all_pages(
            &format!("/v1/chains/{CHAIN}/addresses/{holder:#x}/transactions:listErc1155?"),
            "transactions",
            2,
        )
        .await;
    let want = blocks
        .iter()
        .flat_map(|b| b.transfers.iter())
        .filter(|x| x.standard == TokenStandard::Erc1155 && (x.from == holder || x.to == holder))
        .count();
    assert_eq!(transfers.len(), want);
    for t in &transfers {
        assert_eq!(
            t["erc1155Token"]["address"],
            evm_address(ERC1155).to_checksum(None)
        );
    }
}
