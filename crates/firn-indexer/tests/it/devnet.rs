//! An in-process devnet served over real HTTP on 127.0.0.1:0, and the scripted activity the
//! tests index: transfers, stakers rewarded and not, subnets, chains, an L1 and its validators.

use std::sync::Arc;

use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::pchain::Tx;
use firn_core::warp::messages::{L1Message, L1ValidatorWeight, PChainOwner, RegisterL1Validator};
use firn_devnet::PChain;
use firn_devnet::genesis::{derive_bls, single_owner};
use firn_devnet::vm::TxStatus;
use firn_devnet::wallet::{L1ValidatorSpec, Wallet, manager_message, sign_warp};
use firn_node::{NodeConfig, NodeHandle};
use firn_rpc::{AvalancheClient, ClientConfig};

pub const AVAX: u64 = 1_000_000_000;
pub const DAY: u64 = 24 * 3600;
const MANAGER: &[u8] = &[0xAB; 20];

/// A devnet on a frozen clock, served with every node endpoint.
pub struct Devnet {
    pub chain: Arc<PChain>,
    pub url: String,
    _node: NodeHandle,
}

impl Devnet {
    pub async fn start() -> Self {
        let node = firn_node::spawn(NodeConfig::test()).await.unwrap();
        Self {
            chain: node.pchain().clone(),
            url: node.url().to_owned(),
            _node: node,
        }
    }

    /// A client of the P-Chain endpoint.
    pub fn client(&self) -> AvalancheClient {
        AvalancheClient::new(&format!("{}/ext/bc/P", self.url), ClientConfig::default()).unwrap()
    }

    /// Issues `tx`, moves the clock a second and builds until idle; asserts it committed.
    pub fn issue(&self, tx: Tx) -> Id {
        let id = self.chain.issue_tx(tx).unwrap();
        self.chain.clock().advance(1);
        self.chain.build_until_idle().unwrap();
        assert_eq!(self.chain.tx_status(&id), TxStatus::Committed, "tx {id}");
        id
    }

    /// Moves the clock and builds what that makes due (reward proposals and their options).
    pub fn pass(&self, seconds: u64) {
        self.chain.clock().advance(seconds);
        self.chain.build_until_idle().unwrap();
    }

    /// `n` plain transfers between the funded keys, one block each.
    pub fn transfers(&self, n: usize) {
        let addrs = self.chain.funded_addresses().to_vec();
        for i in 0..n {
            let key = self.chain.funded_keys().swap_remove(i % 3);
            let from = Wallet::with_keys(&self.chain, vec![key]);
            let to = addrs[(i + 1) % addrs.len()];
            self.issue(from.send(to, (1 + i as u64 % 7) * AVAX).unwrap());
        }
    }

    /// Everything the P-Chain indexer derives, at least once.
    pub fn script(&self) -> Script {
        let chain = &self.chain;
        let wallet = Wallet::new(chain);
        let addrs = chain.funded_addresses().to_vec();
        let me = wallet.change_address();
        self.transfers(4);

        // Stakers: one validator whose delegator and own stake end and pay, one that stays.
        let now = chain.timestamp();
        let node = NodeId([0x71; 20]);
        let validator = self.issue(
            wallet
                .add_validator(
                    node,
                    &derive_bls("idx", "node", 0).unwrap(),
                    3_000 * AVAX,
                    now + 10 * DAY,
                    addrs[5],
                    20_000,
                )
                .unwrap(),
        );
        let delegator = self.issue(
            wallet
                .add_delegator(node, 100 * AVAX, now + 5 * DAY, addrs[6])
                .unwrap(),
        );
        let long_node = NodeId([0x72; 20]);
        let long_validator = self.issue(
            wallet
                .add_validator(
                    long_node,
                    &derive_bls("idx", "node", 1).unwrap(),
                    2_500 * AVAX,
                    now + 300 * DAY,
                    addrs[7],
                    50_000,
                )
                .unwrap(),
        );
        let active_delegator = self.issue(
            wallet
                .add_delegator(long_node, 30 * AVAX, now + 200 * DAY, addrs[8])
                .unwrap(),
        );
        self.pass(11 * DAY);
        self.transfers(2);

        // A permissioned subnet with a chain (EVM genesis), a subnet validator that leaves,
        // and a change of owner.
        let subnet = self.issue(wallet.create_subnet(single_owner(me)).unwrap());
        let genesis = br#"{"config":{"chainId":777001},"alloc":{}}"#.to_vec();
        let evm_chain = self.issue(
            wallet
                .create_chain(
                    subnet,
                    "idxevm",
                    firn_core::network::SUBNET_EVM_VM_ID,
                    genesis,
                )
                .unwrap(),
        );
        let subnet_validator = self.issue(
            wallet
                .add_subnet_validator(subnet, long_node, 10, chain.timestamp() + 20 * DAY)
                .unwrap(),
        );
        self.issue(wallet.remove_subnet_validator(subnet, long_node).unwrap());
        let other = self.issue(wallet.create_subnet(single_owner(me)).unwrap());
        self.issue(
            wallet
                .transfer_subnet_ownership(other, single_owner(addrs[2]))
                .unwrap(),
        );

        // The subnet becomes an L1; validators register, change weight, get balance, leave.
        let network_id = chain.network().network_id;
        let sk: Vec<_> = (0..3)
            .map(|i| derive_bls("idx", "l1", i).unwrap())
            .collect();
        let nodes: Vec<NodeId> = (0..3).map(|i| NodeId([0x30 + i; 20])).collect();
        let owner = PChainOwner {
            threshold: 1,
            addresses: vec![me],
        };
        let specs: Vec<L1ValidatorSpec<'_>> = (0..2)
            .map(|i| L1ValidatorSpec {
                node_id: nodes[i],
                weight: 100,
                balance: 10 * AVAX,
                bls: &sk[i],
                owner: owner.clone(),
            })
            .collect();
        self.issue(
            wallet
                .convert_subnet_to_l1(subnet, evm_chain, MANAGER.to_vec(), &specs)
                .unwrap(),
        );
        let v0 = subnet.append(0);
        let weight = manager_message(
            network_id,
            evm_chain,
            MANAGER,
            &L1Message::L1ValidatorWeight(L1ValidatorWeight {
                validation_id: v0,
                nonce: 0,
                weight: 300,
            }),
        );
        let signed = sign_warp(chain, subnet, weight, &[&sk[0], &sk[1]]).unwrap();
        self.issue(wallet.set_l1_validator_weight(&signed).unwrap());
        let reg = RegisterL1Validator {
            subnet_id: subnet,
            node_id: nodes[2],
            bls_public_key: sk[2].public_key().to_bytes(),
            expiry: chain.timestamp() + 3600,
            remaining_balance_owner: owner.clone(),
            disable_owner: owner.clone(),
            weight: 50,
        };
        let v2 = reg.validation_id();
        let reg = manager_message(
            network_id,
            evm_chain,
            MANAGER,
            &L1Message::RegisterL1Validator(reg),
        );
        let signed = sign_warp(chain, subnet, reg, &[&sk[0], &sk[1]]).unwrap();
        self.issue(wallet.register_l1_validator(AVAX, &sk[2], &signed).unwrap());
        self.issue(wallet.increase_l1_validator_balance(v0, 3 * AVAX).unwrap());
        self.issue(wallet.disable_l1_validator(v2).unwrap());
        // Spend everything the wallet holds, refunds and rewards included.
        self.issue(wallet.send(addrs[3], 1_000 * AVAX).unwrap());
        self.transfers(3);

        Script {
            validator,
            delegator,
            long_validator,
            active_delegator,
            subnet,
            other_subnet: other,
            evm_chain,
            subnet_validator,
            l1_validators: vec![v0, subnet.append(1), v2],
            addresses: addrs,
        }
    }
}

/// What the script created, for the checks.
#[derive(Debug, Clone)]
pub struct Script {
    pub validator: Id,
    pub delegator: Id,
    pub long_validator: Id,
    pub active_delegator: Id,
    pub subnet: Id,
    pub other_subnet: Id,
    pub evm_chain: Id,
    pub subnet_validator: Id,
    pub l1_validators: Vec<Id>,
    pub addresses: Vec<ShortId>,
}
