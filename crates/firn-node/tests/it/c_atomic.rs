//! The C-Chain's atomic txs over real HTTP: AVAX moving P → C → X through `avax.issueTx`,
//! `avax.getUTXOs`, `avax.getAtomicTx(Status)`, the EVM balances and nonces they change, the
//! blocks that carry them (coreth's `blockExtraData`, `extDataHash`, `extDataGasUsed`), coreth's
//! refusals, and a restart that replays them.

use alloy_primitives::{Address, U256};
use firn_core::address::ChainAddress;
use firn_core::atomic::{Tx, UnsignedTx, X2C_RATE, dynamic_fee, ext_data_from_txs};
use firn_core::encoding::hex_encode_checksummed;
use firn_devnet::Wallet;
use firn_devnet::c_wallet::CWallet;
use firn_devnet::xchain::wallet::XWallet;
use firn_node::NodeConfig;
use serde_json::{Value, json};

use crate::common::*;

const AVAX: u64 = 1_000_000_000;
const AVAX_API: &str = "/ext/bc/C/avax";
const ETH: &str = "/ext/bc/C/rpc";

impl Devnet {
    async fn avax(&self, method: &str, params: Value) -> Value {
        self.call_at(AVAX_API, method, params).await
    }

    async fn avax_err(&self, method: &str, params: Value) -> String {
        let (code, msg) = self.error_at(AVAX_API, method, params).await;
        assert_eq!(code, -32000, "{msg}");
        msg
    }

    fn c_wallet(&self) -> CWallet {
        CWallet::new(
            self.chain.network(),
            self.chain.shared_memory().clone(),
            self.chain.funded_keys(),
        )
    }

    fn base_fee(&self) -> u64 {
        self.node.c_chain().unwrap().next_base_fee()
    }

    async fn wei_balance(&self, a: Address) -> U256 {
        let r = self
            .call_at(ETH, "eth_getBalance", json!([a, "latest"]))
            .await;
        r.as_str().unwrap().parse().unwrap()
    }

    async fn nonce(&self, a: Address) -> u64 {
        let r = self
            .call_at(ETH, "eth_getTransactionCount", json!([a, "latest"]))
            .await;
        u64::from_str_radix(r.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
    }

    /// Issues `tx` through `avax.issueTx`, builds the C-Chain's next block and checks the
    /// status the node reports; returns the block's height.
    async fn c_issue_and_build(&self, tx: &Tx) -> u64 {
        let hex = hex_encode_checksummed(&tx.bytes());
        let r = self.avax("avax.issueTx", json!({ "tx": hex })).await;
        assert_eq!(r["txID"], tx.id().to_string());
        let pending = self
            .avax("avax.getAtomicTxStatus", json!({ "txID": tx.id() }))
            .await;
        assert_eq!(pending, json!({ "status": "Processing" }));
        let block = self.node.c_chain().unwrap().build_block().unwrap().unwrap();
        let height = block.header.number;
        let status = self
            .avax("avax.getAtomicTxStatus", json!({ "txID": tx.id() }))
            .await;
        assert_eq!(
            status,
            json!({ "status": "Accepted", "blockHeight": height.to_string() })
        );
        height
    }
}

fn c_address(d: &Devnet, i: usize) -> String {
    let n = d.chain.network();
    ChainAddress::new("C", n.network_id, d.chain.funded_addresses()[i]).to_string()
}

fn eth_address(d: &Devnet, i: usize) -> Address {
    Address::from(d.chain.funded_keys()[i].public_key().eth_address())
}

fn gas_and_fee(tx: &Tx, base_fee: u64) -> (u64, u64) {
    let gas = tx.unsigned().gas_used();
    (gas, dynamic_fee(gas, base_fee).unwrap())
}

#[tokio::test]
async fn avax_moves_p_to_c_to_x_and_survives_a_restart() {
    let dir = std::env::temp_dir().join(format!("firn-c-atomic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = || NodeConfig::test().with_evm().with_data_dir(&dir);
    let d = Devnet::spawn(config()).await;
    let n = d.chain.network();
    let who = d.chain.funded_addresses()[1];
    let (c_addr, eth) = (c_address(&d, 1), eth_address(&d, 1));

    // P → C: the export waits in the C-Chain's shared memory.
    let pw = Wallet::new(&d.chain);
    d.issue_and_build(&pw.export(n.c_chain_id, who, 20 * AVAX).unwrap())
        .await;
    let listed = d
        .avax(
            "avax.getUTXOs",
            json!({ "addresses": [c_addr], "sourceChain": "P" }),
        )
        .await;
    assert_eq!(listed["numFetched"], "1", "{listed}");
    assert_eq!(listed["endIndex"]["address"], c_addr);

    // Import on the C-Chain: the EVM account gets the AVAX less the fee, in wei.
    let base_fee = d.base_fee();
    let import = d.c_wallet().import(n.p_chain_id, eth, base_fee).unwrap();
    let (import_gas, import_fee) = gas_and_fee(&import, base_fee);
    let before = d.wei_balance(eth).await;
    let height = d.c_issue_and_build(&import).await;
    let credited = U256::from(20 * AVAX - import_fee) * U256::from(X2C_RATE);
    assert_eq!(d.wei_balance(eth).await, before + credited);
    let listed = d
        .avax(
            "avax.getUTXOs",
            json!({ "addresses": [c_addr], "sourceChain": "P" }),
        )
        .await;
    assert_eq!(listed["numFetched"], "0");

    // The block carries the tx as coreth does.
    let tag = format!("0x{height:x}");
    let block = d
        .call_at(ETH, "eth_getBlockByNumber", json!([tag, false]))
        .await;
    let ext = ext_data_from_txs(std::slice::from_ref(&import), true);
    assert_eq!(block["blockExtraData"], format!("0x{}", hex(&ext)));
    let hash = firn_evm::atomic::ext_data_hash(&ext);
    assert_eq!(block["extDataHash"], hash.to_string());
    assert_eq!(block["extDataGasUsed"], format!("0x{import_gas:x}"));
    assert_eq!(block["transactions"], json!([]));
    let raw = d.call_at(ETH, "debug_getRawBlock", json!([tag])).await;
    let raw = alloy_primitives::hex::decode(raw.as_str().unwrap()).unwrap();
    assert!(
        raw.ends_with(&ext),
        "the raw block ends with its extra data"
    );
    assert_eq!(block["size"], format!("0x{:x}", raw.len()));
    let header = d.call_at(ETH, "eth_getHeaderByNumber", json!([tag])).await;
    assert_eq!(header["extDataHash"], hash.to_string());
    assert!(header.get("blockExtraData").is_none(), "{header}");
    let empty = d
        .call_at(ETH, "eth_getBlockByNumber", json!(["0x0", false]))
        .await;
    assert_eq!(empty["blockExtraData"], "0x");

    // getAtomicTx answers the signed bytes and the height.
    let got = d
        .avax(
            "avax.getAtomicTx",
            json!({ "txID": import.id(), "encoding": "hex" }),
        )
        .await;
    assert_eq!(
        got,
        json!({
            "tx": hex_encode_checksummed(&import.bytes()),
            "encoding": "hex",
            "blockHeight": height.to_string(),
        })
    );
    // Issuing it again is quiet (coreth ignores a known tx), importing it twice is refused.
    let again = d
        .avax(
            "avax.issueTx",
            json!({ "tx": hex_encode_checksummed(&import.bytes()) }),
        )
        .await;
    assert_eq!(again["txID"], import.id().to_string());

    // C → X: the export debits amount and fee and uses the account's nonce.
    let nonce = d.nonce(eth).await;
    let base_fee = d.base_fee();
    let export = d
        .c_wallet()
        .export(1, nonce, n.x_chain_id, who, 7 * AVAX, base_fee)
        .unwrap();
    let (_, export_fee) = gas_and_fee(&export, base_fee);
    let before = d.wei_balance(eth).await;
    d.c_issue_and_build(&export).await;
    let debited = U256::from(7 * AVAX + export_fee) * U256::from(X2C_RATE);
    assert_eq!(d.wei_balance(eth).await, before - debited);
    assert_eq!(d.nonce(eth).await, nonce + 1);
    let x_addr = c_addr.replacen("C-", "X-", 1);
    let listed = d
        .call_at(
            "/ext/bc/X",
            "avm.getUTXOs",
            json!({ "addresses": [x_addr], "sourceChain": "C" }),
        )
        .await;
    assert_eq!(listed["numFetched"], "1", "{listed}");
    let x = d.node.xchain();
    let x_import = XWallet::new(x).import(n.c_chain_id, who).unwrap();
    let hex_tx = hex_encode_checksummed(&x_import.bytes());
    d.call_at("/ext/bc/X", "avm.issueTx", json!({ "tx": hex_tx }))
        .await;
    d.call_at("/ext/firn", "firn.buildBlock", json!({})).await;
    let status = d
        .call_at(
            "/ext/bc/X",
            "avm.getTxStatus",
            json!({ "txID": x_import.id() }),
        )
        .await;
    assert_eq!(status, json!({ "status": "Accepted" }));

    // A restart replays both txs: same head, balances and shared memory.
    let head = d.node.c_chain().unwrap().head().hash;
    let balance = d.wei_balance(eth).await;
    d.node.shutdown().await;
    let d = Devnet::spawn(config()).await;
    assert_eq!(d.node.c_chain().unwrap().head().hash, head);
    assert_eq!(d.wei_balance(eth).await, balance);
    let status = d
        .avax("avax.getAtomicTxStatus", json!({ "txID": export.id() }))
        .await;
    assert_eq!(status["status"], "Accepted");
    let listed = d
        .avax(
            "avax.getUTXOs",
            json!({ "addresses": [c_addr], "sourceChain": "P" }),
        )
        .await;
    assert_eq!(listed["numFetched"], "0", "the import stays spent");
    d.node.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn bad_atomic_txs_get_coreths_errors() {
    let d = Devnet::spawn(NodeConfig::test().with_evm()).await;
    let n = d.chain.network();
    let who = d.chain.funded_addresses()[2];
    let (c_addr, eth) = (c_address(&d, 2), eth_address(&d, 2));
    let issue = |tx: &Tx| json!({ "tx": hex_encode_checksummed(&tx.bytes()) });

    assert_eq!(
        d.avax_err("avax.getUTXOs", json!({ "addresses": [c_addr] }))
            .await,
        "no source chain provided"
    );
    assert_eq!(
        d.avax_err("avax.getUTXOs", json!({ "addresses": [] }))
            .await,
        "no addresses provided"
    );
    let unknown = firn_core::ids::Id([7; 32]);
    assert_eq!(
        d.avax_err("avax.getAtomicTx", json!({ "txID": unknown }))
            .await,
        format!("could not find tx {unknown}")
    );
    assert_eq!(
        d.avax("avax.getAtomicTxStatus", json!({ "txID": unknown }))
            .await,
        json!({ "status": "Unknown" })
    );
    assert_eq!(
        d.avax_err(
            "avax.getAtomicTxStatus",
            json!({ "txID": firn_core::ids::Id::ZERO })
        )
        .await,
        "nil transaction ID"
    );
    let msg = d
        .avax_err(
            "avax.issueTx",
            json!({ "tx": hex_encode_checksummed(&[0, 0, 0, 0]) }),
        )
        .await;
    assert!(msg.starts_with("problem parsing transaction: "), "{msg}");

    // Nothing was exported yet.
    let w = d.c_wallet();
    assert!(w.import(n.p_chain_id, eth, d.base_fee()).is_err());
    let pw = Wallet::new(&d.chain);
    d.issue_and_build(&pw.export(n.c_chain_id, who, 5 * AVAX).unwrap())
        .await;
    let base_fee = d.base_fee();
    let import = w.import(n.p_chain_id, eth, base_fee).unwrap();

    // A fee paid at a tenth of the base fee is too little.
    let cheap = w.import(n.p_chain_id, eth, base_fee / 10).unwrap();
    assert_eq!(
        d.avax_err("avax.issueTx", issue(&cheap)).await,
        "import tx flow check failed due to: insufficient funds"
    );
    // Another network's tx.
    let (unsigned, creds) = import.clone().into_parts();
    let UnsignedTx::Import(mut other) = unsigned.clone() else {
        unreachable!()
    };
    other.network_id += 1;
    let wrong = Tx::new(UnsignedTx::Import(other), creds.clone());
    assert_eq!(
        d.avax_err("avax.issueTx", issue(&wrong)).await,
        "tx was issued with a different network ID"
    );
    // Signed by someone else: the credential recovers another address.
    let UnsignedTx::Import(mut stolen) = unsigned else {
        unreachable!()
    };
    stolen.outputs[0].address = Address::repeat_byte(9);
    let stolen = Tx::new(UnsignedTx::Import(stolen), creds);
    let msg = d.avax_err("avax.issueTx", issue(&stolen)).await;
    assert!(
        msg.starts_with("import tx transfer failed verification: wrong signature"),
        "{msg}"
    );

    // The real one goes in once; a second import of the same UTXO finds nothing to spend.
    d.c_issue_and_build(&import).await;
    assert!(d.c_wallet().import(n.p_chain_id, eth, base_fee).is_err());
    let (mut spent, _) = import.clone().into_parts();
    if let UnsignedTx::Import(t) = &mut spent {
        t.outputs[0].amount -= 1;
    }
    let resigned = w.sign(spent, &[2]);
    let msg = d.avax_err("avax.issueTx", issue(&resigned)).await;
    assert_eq!(
        msg,
        format!(
            "failed to fetch import UTXOs from {} due to: not found",
            n.p_chain_id
        )
    );

    // An export with a stale nonce, or more than the account holds.
    let nonce = d.nonce(eth).await;
    let stale = w
        .export(2, nonce + 1, n.x_chain_id, who, AVAX, d.base_fee())
        .unwrap();
    assert_eq!(
        d.avax_err("avax.issueTx", issue(&stale)).await,
        "invalid nonce"
    );
    let huge = w
        .export(2, nonce, n.x_chain_id, who, u64::MAX / 4, d.base_fee())
        .unwrap();
    assert_eq!(
        d.avax_err("avax.issueTx", issue(&huge)).await,
        "insufficient funds"
    );
    // Signed by a key that does not own the account.
    let UnsignedTx::Export(mut t) = stale.unsigned().clone() else {
        unreachable!()
    };
    t.inputs[0].nonce = nonce;
    t.inputs[0].address = eth_address(&d, 3);
    let forged = Tx::new(UnsignedTx::Export(t.clone()), stale.credentials().to_vec());
    assert_eq!(
        d.avax_err("avax.issueTx", issue(&forged)).await,
        "signature doesn't match public key"
    );
    // More gas than a block's atomic txs may use.
    let mut big = t.clone();
    big.exported_outputs = vec![big.exported_outputs[0].clone(); 1_500];
    let big = Tx::new(UnsignedTx::Export(big), stale.credentials().to_vec());
    let gas = big.unsigned().gas_used();
    assert_eq!(
        d.avax_err("avax.issueTx", issue(&big)).await,
        format!("tx gas usage ({gas}) exceeds maximum allowed mempool gas usage (100000)")
    );
    // To a chain outside the primary network.
    t.destination_chain = firn_core::ids::Id([3; 32]);
    let nowhere = Tx::new(UnsignedTx::Export(t), stale.credentials().to_vec());
    assert_eq!(
        d.avax_err("avax.issueTx", issue(&nowhere)).await,
        "tx has wrong chain ID"
    );
}

fn hex(b: &[u8]) -> String {
    alloy_primitives::hex::encode(b)
}

/// coreth's atomic mempool holds 4,096 txs; the next is refused with its text, and a block
/// takes the one export the account's nonce allows, dropping the rest (the last 50 of them
/// answer `Dropped`).
#[tokio::test]
async fn the_atomic_pool_is_bounded() {
    let d = Devnet::spawn(NodeConfig::test().with_evm()).await;
    let n = d.chain.network();
    let who = d.chain.funded_addresses()[3];
    let eth = eth_address(&d, 3);
    let (nonce, base_fee) = (d.nonce(eth).await, d.base_fee());
    let w = d.c_wallet();
    let c = d.node.c_chain().unwrap();
    let mut issued = Vec::new();
    for i in 0..firn_evm::MAX_ATOMIC_POOL as u64 {
        let tx = w
            .export(3, nonce, n.x_chain_id, who, AVAX + i, base_fee)
            .unwrap();
        issued.push(tx.id());
        c.submit_atomic(tx).unwrap();
    }
    let one_more = w
        .export(3, nonce, n.x_chain_id, who, 2 * AVAX, base_fee)
        .unwrap();
    let msg = d
        .avax_err(
            "avax.issueTx",
            json!({ "tx": hex_encode_checksummed(&one_more.bytes()) }),
        )
        .await;
    assert_eq!(msg, "mempool full");
    let block = c.build_block().unwrap().unwrap();
    assert_eq!(block.atomic_txs.len(), 1, "one export per nonce");
    assert_eq!(d.nonce(eth).await, nonce + 1);
    assert!(c.build_block().unwrap().is_none(), "the rest were dropped");
    assert_eq!(c.submit_atomic(one_more).unwrap_err(), "invalid nonce");
    // coreth remembers the last 50 txs it dropped: their status is Dropped, and
    // getAtomicTx still answers them, without a height; older ones are forgotten.
    let status = |id: firn_core::ids::Id| d.avax("avax.getAtomicTxStatus", json!({ "txID": id }));
    assert_eq!(block.atomic_txs[0].id(), issued[0]);
    assert_eq!(
        status(issued[0]).await,
        json!({ "status": "Accepted", "blockHeight": block.header.number.to_string() })
    );
    let kept = firn_evm::DROPPED_ATOMIC_KEPT;
    for id in [issued[issued.len() - 1], issued[issued.len() - kept]] {
        assert_eq!(status(id).await, json!({ "status": "Dropped" }));
    }
    let dropped = d
        .avax(
            "avax.getAtomicTx",
            json!({ "txID": issued[issued.len() - 1], "encoding": "hex" }),
        )
        .await;
    assert!(dropped.get("blockHeight").is_none(), "{dropped}");
    assert!(dropped["tx"].as_str().unwrap().starts_with("0x"));
    assert_eq!(
        status(issued[issued.len() - kept - 1]).await,
        json!({ "status": "Unknown" })
    );
}
