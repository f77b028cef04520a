//! A devnet C-Chain (firn-evm) served next to the P-Chain over real HTTP, blocks built on
//! demand, and the scripted EVM activity the tests index: native transfers, an ERC-20, an
//! ERC-721 with `data:` token URIs, ERC-1155 single and batch transfers, FirnRouter calls
//! that make internal transactions (value calls and a CREATE2), and a failed transaction.

use std::sync::Arc;

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope, TxLegacy};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_signer::SignerSync;
use alloy_signer_local::PrivateKeySigner;
use firn_devnet::DevnetConfig;
use firn_evm::EvmChain;
use firn_indexer::EvmEndpoint;
use firn_node::{NodeConfig, NodeHandle};
use firn_rpc::{ClientConfig, EthClient};

pub const GWEI: u128 = 1_000_000_000;

/// The devnet's funded key `i`, which holds 50 million AVAX on the C-Chain.
pub fn key(i: u8) -> PrivateKeySigner {
    let secret = DevnetConfig::default().funded_key(u32::from(i)).to_bytes();
    PrivateKeySigner::from_bytes(&B256::from(secret)).unwrap()
}

pub fn ether(n: u64) -> U256 {
    U256::from(n) * U256::from(10u64).pow(U256::from(18))
}

/// The devnet's P-Chain and C-Chain on one loopback server, on a frozen clock; blocks are
/// built by hand.
pub struct EvmDevnet {
    pub chain: Arc<EvmChain>,
    pub url: String,
    pub c_chain_id: firn_core::ids::Id,
    nonces: std::sync::Mutex<std::collections::HashMap<Address, u64>>,
    node: NodeHandle,
}

impl EvmDevnet {
    pub async fn start() -> Self {
        let node = firn_node::spawn(NodeConfig::test().with_evm())
            .await
            .unwrap();
        Self {
            url: node.url().to_owned(),
            c_chain_id: node.network().c_chain_id,
            chain: node.c_chain().expect("the C-Chain"),
            nonces: Default::default(),
            node,
        }
    }

    pub fn endpoint(&self) -> EvmEndpoint {
        EvmEndpoint::c_chain(&self.url, self.c_chain_id, true)
    }

    pub fn client(&self) -> EthClient {
        EthClient::new(
            &format!("{}/ext/bc/C/rpc", self.url),
            ClientConfig::default(),
        )
        .unwrap()
    }

    fn next_nonce(&self, from: Address) -> u64 {
        let mut n = self.nonces.lock().unwrap();
        let slot = n.entry(from).or_insert(0);
        let got = *slot;
        *slot += 1;
        got
    }

    /// Signs and pools an EIP-1559 tx (a creation when `to` is `None`).
    pub fn send(
        &self,
        k: &PrivateKeySigner,
        to: Option<Address>,
        value: U256,
        input: Vec<u8>,
        gas: u64,
    ) -> B256 {
        let tx = TxEip1559 {
            chain_id: self.chain.chain_id(),
            nonce: self.next_nonce(k.address()),
            gas_limit: gas,
            max_fee_per_gas: 200 * GWEI,
            max_priority_fee_per_gas: GWEI,
            to: to.map_or(TxKind::Create, TxKind::Call),
            value,
            access_list: Default::default(),
            input: Bytes::from(input),
        };
        let sig = k.sign_hash_sync(&tx.signature_hash()).unwrap();
        let env: TxEnvelope = tx.into_signed(sig).into();
        self.chain.submit_raw_tx(&env.encoded_2718()).unwrap()
    }

    /// Pools the creation of a FirnToken (18 decimals) whose `supply` goes to `k`.
    pub fn send_token(&self, k: &PrivateKeySigner, name: &str, symbol: &str, supply: U256) -> B256 {
        let args = [
            Tok::Str(name),
            Tok::Str(symbol),
            Tok::Uint(U256::from(18u64)),
            Tok::Uint(supply),
        ];
        self.send(k, None, U256::ZERO, deploy("FirnToken", &args), 3_000_000)
    }

    /// A legacy (type 0) value transfer.
    pub fn send_legacy(&self, k: &PrivateKeySigner, to: Address, value: U256) -> B256 {
        let tx = TxLegacy {
            chain_id: Some(self.chain.chain_id()),
            nonce: self.next_nonce(k.address()),
            gas_price: 200 * GWEI,
            gas_limit: 21_000,
            to: TxKind::Call(to),
            value,
            input: Bytes::new(),
        };
        let sig = k.sign_hash_sync(&tx.signature_hash()).unwrap();
        let env: TxEnvelope = tx.into_signed(sig).into();
        self.chain.submit_raw_tx(&env.encoded_2718()).unwrap()
    }

    /// Builds one block of what is pooled, two seconds after the last.
    pub fn build(&self) {
        self.node.clock().advance(2);
        self.chain.build_block().unwrap().expect("a block");
    }

    /// The contract a mined creation tx made.
    pub fn created(&self, tx: B256) -> Address {
        let (block, i) = self.chain.mined(&tx).expect("mined");
        block.receipts[i].contract_address.expect("a contract")
    }

    pub fn succeeded(&self, tx: B256) -> bool {
        let (block, i) = self.chain.mined(&tx).expect("mined");
        block.receipts[i].success
    }

    /// The scripted activity; returns what it made.
    pub fn script(&self) -> EvmScript {
        let (k0, k1, k2) = (key(0), key(1), key(2));
        let alice = Address::repeat_byte(0xa1);
        let bob = Address::repeat_byte(0xb0);
        // Native transfers, two kinds, in one block.
        self.send(&k0, Some(alice), ether(3), Vec::new(), 21_000);
        self.send_legacy(&k1, bob, ether(1));
        self.build();

        let token_tx = self.send_token(&k0, "Firn Token", "FIRN", ether(1_000));
        let nft_tx = self.send(
            &k1,
            None,
            U256::ZERO,
            deploy(
                "FirnCollectible",
                &[Tok::Str("Firn Cats"), Tok::Str("FCAT")],
            ),
            5_000_000,
        );
        let multi_tx = self.send(
            &k2,
            None,
            U256::ZERO,
            deploy("FirnMultiToken", &[Tok::Str("Firn Items")]),
            5_000_000,
        );
        let router_tx = self.send(&k0, None, U256::ZERO, deploy("FirnRouter", &[]), 5_000_000);
        self.build();
        let (token, nft, multi, router) = (
            self.created(token_tx),
            self.created(nft_tx),
            self.created(multi_tx),
            self.created(router_tx),
        );

        // ERC-20 transfers, then one that fails (more than k2 holds).
        let transfer = |to: Address, v: U256| {
            call("transfer(address,uint256)", &[Tok::Addr(to), Tok::Uint(v)])
        };
        self.send(
            &k0,
            Some(token),
            U256::ZERO,
            transfer(alice, ether(5)),
            100_000,
        );
        self.send(
            &k0,
            Some(token),
            U256::ZERO,
            transfer(k2.address(), ether(7)),
            100_000,
        );
        self.build();
        self.send(
            &k2,
            Some(token),
            U256::ZERO,
            transfer(bob, ether(2)),
            100_000,
        );
        let failed = self.send(
            &k2,
            Some(token),
            U256::ZERO,
            transfer(bob, ether(500)),
            100_000,
        );
        self.build();

        // ERC-721: three mints, a transfer.
        for to in [k1.address(), alice, k1.address()] {
            self.send(
                &k1,
                Some(nft),
                U256::ZERO,
                call("mint(address)", &[Tok::Addr(to)]),
                300_000,
            );
        }
        self.build();
        self.send(
            &k1,
            Some(nft),
            U256::ZERO,
            call(
                "transferFrom(address,address,uint256)",
                &[
                    Tok::Addr(k1.address()),
                    Tok::Addr(bob),
                    Tok::Uint(U256::from(1u64)),
                ],
            ),
            200_000,
        );
        self.build();

        // ERC-1155: a single mint, a batch mint, a single and a batch transfer.
        let u = |v: u64| U256::from(v);
        self.send(
            &k2,
            Some(multi),
            U256::ZERO,
            call(
                "mint(address,uint256,uint256)",
                &[Tok::Addr(k2.address()), Tok::Uint(u(1)), Tok::Uint(u(100))],
            ),
            200_000,
        );
        self.send(
            &k2,
            Some(multi),
            U256::ZERO,
            call(
                "mintBatch(address,uint256[],uint256[])",
                &[
                    Tok::Addr(k2.address()),
                    Tok::Uints(vec![u(2), u(3)]),
                    Tok::Uints(vec![u(20), u(30)]),
                ],
            ),
            300_000,
        );
        self.build();
        self.send(
            &k2,
            Some(multi),
            U256::ZERO,
            call(
                "safeTransferFrom(address,address,uint256,uint256,bytes)",
                &[
                    Tok::Addr(k2.address()),
                    Tok::Addr(alice),
                    Tok::Uint(u(1)),
                    Tok::Uint(u(40)),
                    Tok::Bytes(Vec::new()),
                ],
            ),
            200_000,
        );
        self.send(
            &k2,
            Some(multi),
            U256::ZERO,
            call(
                "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
                &[
                    Tok::Addr(k2.address()),
                    Tok::Addr(bob),
                    Tok::Uints(vec![u(2), u(3)]),
                    Tok::Uints(vec![u(5), u(30)]),
                    Tok::Bytes(Vec::new()),
                ],
            ),
            300_000,
        );
        self.build();

        // FirnRouter: a split (internal value calls) and a CREATE2 token deployment.
        self.send(
            &k0,
            Some(router),
            ether(10),
            call(
                "split(address[])",
                &[Tok::Addrs(vec![alice, bob, k1.address()])],
            ),
            200_000,
        );
        let salt = U256::from(0x5a17u64);
        let create2 = self.send(
            &k0,
            Some(router),
            U256::ZERO,
            call(
                "deployToken(string,string,uint256,bytes32)",
                &[
                    Tok::Str("Routed"),
                    Tok::Str("RTD"),
                    Tok::Uint(ether(50)),
                    Tok::Uint(salt),
                ],
            ),
            3_000_000,
        );
        self.build();
        assert!(
            !self.succeeded(failed),
            "the over-balance transfer must fail"
        );
        assert!(
            self.succeeded(create2),
            "the CREATE2 deployment must succeed"
        );
        EvmScript {
            token,
            nft,
            multi,
            router,
            failed,
            create2,
            holders: vec![k0.address(), k1.address(), k2.address(), alice, bob, router],
        }
    }

    /// `n` blocks of `per_block` ERC-20 transfers each (for restarts and benchmarks).
    pub fn token_blocks(&self, n: usize, per_block: usize) {
        let k0 = key(0);
        let tx = self.send_token(&k0, "Bulk", "BLK", ether(1_000_000));
        self.build();
        let token = self.created(tx);
        for b in 0..n {
            for i in 0..per_block {
                let to = Address::repeat_byte(((b * per_block + i) % 200 + 1) as u8);
                self.send(
                    &k0,
                    Some(token),
                    U256::ZERO,
                    call(
                        "transfer(address,uint256)",
                        &[Tok::Addr(to), Tok::Uint(U256::from(1_000u64 + i as u64))],
                    ),
                    100_000,
                );
            }
            self.build();
        }
    }
}

/// What the script deployed and did.
#[derive(Debug, Clone)]
pub struct EvmScript {
    pub token: Address,
    pub nft: Address,
    pub multi: Address,
    pub router: Address,
    pub failed: B256,
    pub create2: B256,
    pub holders: Vec<Address>,
}

/// An ABI argument.
pub enum Tok<'a> {
    Addr(Address),
    Uint(U256),
    Str(&'a str),
    Bytes(Vec<u8>),
    Uints(Vec<U256>),
    Addrs(Vec<Address>),
}

fn word_addr(a: Address) -> [u8; 32] {
    let mut w = [0u8; 32];
    w[12..].copy_from_slice(a.as_slice());
    w
}

/// The ABI encoding of `args` (head and tail).
pub fn encode(args: &[Tok<'_>]) -> Vec<u8> {
    let mut head = Vec::new();
    let mut tail = Vec::new();
    let head_len = 32 * args.len();
    for a in args {
        let dynamic: Option<Vec<u8>> = match a {
            Tok::Addr(x) => {
                head.extend(word_addr(*x));
                None
            }
            Tok::Uint(v) => {
                head.extend(v.to_be_bytes::<32>());
                None
            }
            Tok::Str(s) => Some(bytes_tail(s.as_bytes())),
            Tok::Bytes(b) => Some(bytes_tail(b)),
            Tok::Uints(vs) => {
                let mut t = U256::from(vs.len()).to_be_bytes::<32>().to_vec();
                vs.iter().for_each(|v| t.extend(v.to_be_bytes::<32>()));
                Some(t)
            }
            Tok::Addrs(xs) => {
                let mut t = U256::from(xs.len()).to_be_bytes::<32>().to_vec();
                xs.iter().for_each(|x| t.extend(word_addr(*x)));
                Some(t)
            }
        };
        if let Some(t) = dynamic {
            head.extend(U256::from(head_len + tail.len()).to_be_bytes::<32>());
            tail.extend(t);
        }
    }
    head.extend(tail);
    head
}

fn bytes_tail(b: &[u8]) -> Vec<u8> {
    let mut t = U256::from(b.len()).to_be_bytes::<32>().to_vec();
    let mut data = b.to_vec();
    data.resize(b.len().div_ceil(32) * 32, 0);
    t.extend(data);
    t
}

/// Calldata of `signature(args…)`.
pub fn call(signature: &str, args: &[Tok<'_>]) -> Vec<u8> {
    let mut d = firn_core::evm::keccak256(signature.as_bytes())[..4].to_vec();
    d.extend(encode(args));
    d
}

/// A contract's creation code with its constructor arguments.
pub fn deploy(name: &str, args: &[Tok<'_>]) -> Vec<u8> {
    let path = format!(
        "{}/../../contracts/artifacts/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut code = hex::decode(v["bytecode"].as_str().unwrap().trim_start_matches("0x")).unwrap();
    code.extend(encode(args));
    code
}
