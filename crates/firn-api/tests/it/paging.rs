//! Paging: `nextPageToken` only while more rows exist, and no duplicates or gaps when blocks
//! are indexed between two pages.

use firn_store::{EvmWriter, PChainWriter, Store};
use serde_json::Value;

use crate::fixtures::{CHAIN, evm_address, seed};
use crate::harness::Api;

const P: &str = "/v1/networks/fuji/blockchains/p-chain";

fn keys(items: &[Value], field: &str) -> Vec<String> {
    items.iter().map(|i| i[field].to_string()).collect()
}

/// Pages through `uri` with `size` items a page, calling `between` after each page.
async fn page_with_inserts<F, Fut>(
    api: &Api,
    uri: &str,
    field: &str,
    size: usize,
    mut between: F,
) -> Vec<Value>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let url = match &token {
            Some(t) => format!("{uri}&pageSize={size}&pageToken={t}"),
            None => format!("{uri}&pageSize={size}"),
        };
        let r = api.get(&url).await;
        assert_eq!(r.status, 200, "{url}: {}", r.json);
        let items = r.json[field].as_array().unwrap().clone();
        out.extend(items.iter().cloned());
        match r.next_token() {
            Some(t) => {
                assert_eq!(items.len(), size, "a page before the last one is full");
                token = Some(t);
            }
            None => return out,
        }
        between().await;
    }
}

pub async fn pages_are_stable_under_inserts(store: Store) {
    let mut world = seed(&store, 60, 60).await;
    let api = Api::new(store.clone());

    // P-Chain transactions, newest first: the snapshot, then the same list paged while
    // blocks land between pages.
    let uri = format!("{P}/transactions?sortOrder=desc");
    let snapshot = api.all_pages(&uri, "transactions", 100).await;
    assert!(snapshot.len() > 40, "{}", snapshot.len());
    let p = std::sync::Arc::new(tokio::sync::Mutex::new(std::mem::replace(
        &mut world.p,
        crate::fixtures::PHistory::new(0, 1),
    )));
    let insert_p = || {
        let (p, store) = (p.clone(), store.clone());
        async move {
            let blocks: Vec<_> = {
                let mut p = p.lock().await;
                (0..3).map(|_| p.next_block()).collect()
            };
            store.commit_pchain_blocks(&blocks).await.unwrap();
        }
    };
    let paged = page_with_inserts(&api, &uri, "transactions", 7, insert_p).await;
    assert_eq!(keys(&paged, "txHash"), keys(&snapshot, "txHash"));

    // Oldest first: the pages continue into the new blocks, still without repeats.
    let uri = format!("{P}/transactions?sortOrder=asc");
    let paged = page_with_inserts(&api, &uri, "transactions", 9, insert_p).await;
    let after = api.all_pages(&uri, "transactions", 100).await;
    let mut hashes = keys(&paged, "txHash");
    assert_eq!(hashes, keys(&after, "txHash")[..hashes.len()].to_vec());
    hashes.dedup();
    assert_eq!(hashes.len(), paged.len());

    // P-Chain blocks.
    let uri = format!("{P}/blocks?x=1");
    let snapshot = api.all_pages(&uri, "blocks", 100).await;
    let paged = page_with_inserts(&api, &uri, "blocks", 6, insert_p).await;
    assert_eq!(keys(&paged, "blockNumber"), keys(&snapshot, "blockNumber"));

    // EVM blocks and ERC-20 transfers of one address.
    let evm = std::sync::Arc::new(tokio::sync::Mutex::new(world.evm));
    let insert_evm = || {
        let (evm, store) = (evm.clone(), store.clone());
        async move {
            let blocks: Vec<_> = {
                let mut e = evm.lock().await;
                (0..4).map(|_| e.next_block()).collect()
            };
            store.commit_evm_blocks(&blocks).await.unwrap();
        }
    };
    let uri = format!("/v1/chains/{CHAIN}/blocks?x=1");
    let snapshot = api.all_pages(&uri, "blocks", 100).await;
    let paged = page_with_inserts(&api, &uri, "blocks", 8, insert_evm).await;
    assert_eq!(keys(&paged, "blockHash"), keys(&snapshot, "blockHash"));

    let uri = format!(
        "/v1/chains/{CHAIN}/addresses/{:#x}/transactions:listErc20?x=1",
        evm_address(3)
    );
    let snapshot = api.all_pages(&uri, "transactions", 100).await;
    assert!(snapshot.len() > 3, "{}", snapshot.len());
    let paged = page_with_inserts(&api, &uri, "transactions", 2, insert_evm).await;
    let k = |v: &[Value]| {
        v.iter()
            .map(|t| format!("{}/{}", t["txHash"], t["logIndex"]))
            .collect::<Vec<_>>()
    };
    assert_eq!(k(&paged), k(&snapshot));
}

pub async fn last_page_has_no_token(store: Store) {
    seed(&store, 3, 3).await;
    let api = Api::new(store);
    // Exactly one full page: no token.
    let all = api.ok(&format!("{P}/blocks?pageSize=100")).await;
    let n = all["blocks"].as_array().unwrap().len();
    let r = api.get(&format!("{P}/blocks?pageSize={n}")).await;
    assert!(r.json.get("nextPageToken").is_none(), "{}", r.json);
    let r = api.get(&format!("{P}/blocks?pageSize={}", n - 1)).await;
    let t = r.next_token().expect("one more page");
    let last = api
        .get(&format!("{P}/blocks?pageSize={}&pageToken={t}", n - 1))
        .await;
    assert_eq!(last.json["blocks"].as_array().unwrap().len(), 1);
    assert!(last.json.get("nextPageToken").is_none());
}
