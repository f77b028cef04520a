//! Deterministic builders of P-Chain and EVM block rows, with a model of what they imply
//! (positions, holdings) so tests can compare store answers with a direct computation.
//! Also compiled into the benchmark (`#[path]`), so it uses nothing test-only.
#![allow(dead_code)]

use std::collections::BTreeMap;

use firn_core::ids::{Id, NodeId, ShortId};
use firn_core::network::P_CHAIN_ID;
use firn_store::rows::evm::{
    EvmBlock, EvmBlockRows, EvmChainRecord, EvmInternalTx, EvmLog, EvmTx, Token, TokenStandard,
    TokenTransfer,
};
use firn_store::rows::pchain::{
    PBlock, PChainBlockRows, PTx, PTxCore, PTxDetails, PUtxo, ProposerDetails, UtxoType,
};
use firn_store::rows::xchain::{XBlockRecord, XChainBlockRows, XOutputKind, XTx, XUtxo};
use firn_store::types::{Address, B256, U256};

/// A small deterministic PRNG (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn id(tag: u8, n: u64) -> Id {
    let mut b = [0u8; 32];
    b[0] = tag;
    b[24..].copy_from_slice(&n.to_be_bytes());
    Id(b)
}

pub fn short(n: u64) -> ShortId {
    let mut b = [0u8; 20];
    b[0] = 0xaa;
    b[12..].copy_from_slice(&n.to_be_bytes());
    ShortId(b)
}

pub fn node(n: u64) -> NodeId {
    let mut b = [0u8; 20];
    b[0] = 0xbb;
    b[12..].copy_from_slice(&n.to_be_bytes());
    NodeId(b)
}

pub fn avax() -> Id {
    id(9, 1)
}

pub fn pblock(height: u64, ts: u64, txs: Vec<PTx>) -> PChainBlockRows {
    PChainBlockRows {
        block: PBlock {
            height,
            hash: id(1, height),
            parent_hash: id(1, height.wrapping_sub(1)),
            timestamp: ts,
            block_type: "BanffStandardBlock".to_owned(),
            size_bytes: height.wrapping_add(100),
            proposer: Some(ProposerDetails {
                id: id(2, height),
                parent_id: id(2, height.wrapping_sub(1)),
                node_id: node(height % 3),
                pchain_height: height.saturating_sub(1),
                timestamp: ts,
            }),
            l1_validators_accrued_fees: Some(height.wrapping_mul(10)),
            active_l1_validators: Some(height % 5),
            current_supply: Some(height.wrapping_add(720_000_000_000_000_000)),
        },
        txs,
        l1_fees: None,
    }
}

pub fn ptx(hash: Id, tx_type: &str) -> PTx {
    PTx {
        core: PTxCore {
            tx_hash: hash,
            tx_type: tx_type.to_owned(),
            memo: Vec::new(),
            source_chain: None,
            destination_chain: None,
            value: Vec::new(),
            amount_burned: Vec::new(),
            amount_staked: Vec::new(),
            amount_l1_balance_burned: Vec::new(),
            node_id: None,
            subnet_id: None,
            start_ts: None,
            end_ts: None,
            ends_staker: None,
            details: PTxDetails::default(),
        },
        addresses: Vec::new(),
        consumed: Vec::new(),
        imported: Vec::new(),
        emitted: Vec::new(),
        staker: None,
        rewards: Vec::new(),
        l1_validation_ids: Vec::new(),
        l1_validators: Vec::new(),
        subnet: None,
        blockchain: None,
    }
}

pub fn utxo(tx: Id, output_index: u32, owner: ShortId, amount: u64) -> PUtxo {
    let mut uid = tx.0;
    uid[0] = 0x55;
    uid[1] = output_index as u8;
    uid[2] = (output_index >> 8) as u8;
    PUtxo {
        utxo_id: Id(uid),
        tx_hash: tx,
        output_index,
        asset_id: avax(),
        amount,
        addresses: vec![owner],
        threshold: 1,
        locktime: 0,
        stakeable_locktime: None,
        staked: false,
        utxo_type: UtxoType::Transfer,
        reward_type: None,
        created_on_chain: P_CHAIN_ID,
        consumed_on_chain: P_CHAIN_ID,
        start_ts: None,
        end_ts: None,
        bytes: vec![0, 0, output_index as u8],
    }
}

pub const TX_TYPES: [&str; 4] = [
    "BaseTx",
    "ImportTx",
    "ExportTx",
    "IncreaseL1ValidatorBalanceTx",
];

/// What the P-Chain model remembers of each generated transaction.
#[derive(Debug, Clone)]
pub struct PTxFacts {
    pub height: u64,
    pub index: u32,
    pub hash: Id,
    pub tx_type: String,
    pub timestamp: u64,
    pub addresses: Vec<ShortId>,
    pub validation: Option<Id>,
}

/// A generated P-Chain history of value transfers between `address_count` addresses.
#[derive(Debug)]
pub struct PHistory {
    rng: Rng,
    pub height: u64,
    pub ts: u64,
    address_count: u64,
    unspent: Vec<PUtxo>,
    pub facts: Vec<PTxFacts>,
}

impl PHistory {
    pub fn new(seed: u64, address_count: u64) -> Self {
        Self {
            rng: Rng::new(seed),
            height: 0,
            ts: 1_700_000_000,
            address_count,
            unspent: Vec::new(),
            facts: Vec::new(),
        }
    }

    /// The next block: 0–3 transactions, each spending one unspent UTXO (when any) and
    /// creating two.
    pub fn next_block(&mut self) -> PChainBlockRows {
        self.height += 1;
        self.ts += 1 + self.rng.below(120);
        let count = if self.height == 1 {
            2
        } else {
            self.rng.below(4)
        };
        let mut txs = Vec::new();
        for i in 0..count {
            let hash = id(4, self.height * 100 + i);
            let tx_type = TX_TYPES[self.rng.below(TX_TYPES.len() as u64) as usize];
            let mut tx = ptx(hash, tx_type);
            let mut addresses = Vec::new();
            if !self.unspent.is_empty() && self.rng.below(4) != 0 {
                let spent = self
                    .unspent
                    .swap_remove(self.rng.below(self.unspent.len() as u64) as usize);
                addresses.extend(spent.addresses.iter().copied());
                tx.consumed.push(spent.utxo_id);
            }
            for out in 0..2u32 {
                let owner = short(self.rng.below(self.address_count));
                let u = utxo(hash, out, owner, 1 + self.rng.below(1_000_000));
                addresses.push(owner);
                self.unspent.push(u.clone());
                tx.emitted.push(u);
            }
            let validation =
                (tx_type == "IncreaseL1ValidatorBalanceTx").then(|| id(7, self.rng.below(3)));
            tx.l1_validation_ids.extend(validation);
            tx.addresses = addresses.clone();
            addresses.sort();
            addresses.dedup();
            self.facts.push(PTxFacts {
                height: self.height,
                index: i as u32,
                hash,
                tx_type: tx_type.to_owned(),
                timestamp: self.ts,
                addresses,
                validation,
            });
            txs.push(tx);
        }
        pblock(self.height, self.ts, txs)
    }
}

// EVM ---------------------------------------------------------------------------------------

pub fn evm_address(n: u64) -> Address {
    let mut b = [0u8; 20];
    b[0] = 0xee;
    b[12..].copy_from_slice(&n.to_be_bytes());
    Address::new(b)
}

pub fn b256(tag: u8, n: u64) -> B256 {
    let mut b = [0u8; 32];
    b[0] = tag;
    b[24..].copy_from_slice(&n.to_be_bytes());
    B256::new(b)
}

pub fn evm_chain(chain_id: u64) -> EvmChainRecord {
    EvmChainRecord {
        chain_id,
        blockchain_id: id(8, chain_id),
        subnet_id: id(6, chain_id),
        name: format!("chain {chain_id}"),
        description: "test chain".to_owned(),
        is_testnet: true,
        token_name: "Avalanche".to_owned(),
        token_symbol: "AVAX".to_owned(),
        token_decimals: 18,
        rpc_url: "http://127.0.0.1:9650/ext/bc/C/rpc".to_owned(),
    }
}

pub fn evm_block(chain_id: u64, number: u64, ts: u64) -> EvmBlockRows {
    EvmBlockRows {
        chain_id,
        block: EvmBlock {
            number,
            hash: b256(1, chain_id * 1_000_000 + number),
            parent_hash: b256(1, (chain_id * 1_000_000 + number).wrapping_sub(1)),
            timestamp: ts,
            gas_used: 0,
            gas_limit: 15_000_000,
            base_fee: Some(U256::from(25_000_000_000u64)),
            block_gas_cost: None,
            receipts_root: Some(b256(7, chain_id * 1_000_000 + number)),
            size_bytes: 600,
        },
        txs: Vec::new(),
        logs: Vec::new(),
        internal_txs: Vec::new(),
        transfers: Vec::new(),
        tokens: Vec::new(),
        atomic_txs: Vec::new(),
        icm: Vec::new(),
    }
}

pub fn evm_tx(chain_id: u64, number: u64, index: u32, from: Address, to: Option<Address>) -> EvmTx {
    EvmTx {
        index,
        hash: b256(
            2,
            (chain_id * 1_000_000 + number) * 1_000 + u64::from(index),
        ),
        from,
        to,
        value: U256::ZERO,
        nonce: number,
        gas_limit: 100_000,
        gas_used: 50_000 + u64::from(index),
        gas_price: U256::from(25_000_000_000u64 + u64::from(index)),
        max_fee: Some(U256::from(30_000_000_000u64)),
        max_priority_fee: Some(U256::from(1u64)),
        tx_type: 2,
        success: true,
        input: vec![0xa9, 0x05, 0x9c, 0xbb],
        contract_address: None,
    }
}

/// Appends transaction `i`, from `from` to the token, and its one ERC-20 transfer.
fn push_erc20_transfer(
    b: &mut EvmBlockRows,
    i: u32,
    (token, from, to): (Address, Address, Address),
    value: U256,
) {
    let tx = evm_tx(b.chain_id, b.block.number, i, from, Some(token));
    b.block.gas_used += tx.gas_used;
    b.txs.push(tx);
    b.transfers.push(TokenTransfer {
        tx_index: i,
        log_index: i,
        batch_index: 0,
        token,
        standard: TokenStandard::Erc20,
        from,
        to,
        token_id: None,
        value,
    });
}

/// A block of one transaction per `(token, from, to, value)` ERC-20 transfer.
pub fn erc20_transfers_block(
    chain_id: u64,
    number: u64,
    transfers: &[(Address, Address, Address, u64)],
) -> EvmBlockRows {
    let mut b = evm_block(chain_id, number, 1_700_000_000 + number);
    for (i, &(token, from, to, value)) in transfers.iter().enumerate() {
        push_erc20_transfer(&mut b, i as u32, (token, from, to), U256::from(value));
    }
    b
}

/// A block of `transfers` ERC-20 transfers, one transaction each (the benchmark's block).
pub fn erc20_block(chain_id: u64, number: u64, ts: u64, transfers: u32) -> EvmBlockRows {
    let mut b = evm_block(chain_id, number, ts);
    let token = evm_address(1_000_000);
    for i in 0..transfers {
        let from = evm_address((number * 7 + u64::from(i)) % 1_000);
        let to = evm_address((number * 13 + u64::from(i) * 3) % 1_000);
        let value = U256::from(number * 1_000 + u64::from(i));
        push_erc20_transfer(&mut b, i, (token, from, to), value);
    }
    if number == 1 {
        b.tokens.push(Token {
            address: token,
            standard: TokenStandard::Erc20,
            name: "Test Token".to_owned(),
            symbol: "TST".to_owned(),
            decimals: Some(18),
        });
    }
    b
}

pub const ERC20: u64 = 900_001;
pub const ERC721: u64 = 900_002;
pub const ERC1155: u64 = 900_003;
pub const FACTORY: u64 = 900_004;
/// A second ERC-20 token, so holders hold several.
pub const ERC20_B: u64 = 900_005;

/// A generated EVM history with ERC-20/721/1155 traffic, deployments, and a model of the
/// collectible holdings it implies.
#[derive(Debug)]
pub struct EvmHistory {
    rng: Rng,
    pub chain_id: u64,
    pub number: u64,
    pub ts: u64,
    address_count: u64,
    next_nft: u64,
    /// (owner, token, token id) → balance, as the transfers imply.
    pub holdings: BTreeMap<(Address, Address, U256), U256>,
    pub blocks: Vec<EvmBlockRows>,
}

impl EvmHistory {
    pub fn new(seed: u64, chain_id: u64, address_count: u64) -> Self {
        Self {
            rng: Rng::new(seed),
            chain_id,
            number: 0,
            ts: 1_700_000_000,
            address_count,
            next_nft: 1,
            holdings: BTreeMap::new(),
            blocks: Vec::new(),
        }
    }

    fn holders_of(&self, token: Address) -> Vec<((Address, Address, U256), U256)> {
        self.holdings
            .iter()
            .filter(|((_, t, _), _)| *t == token)
            .map(|(k, v)| (*k, *v))
            .collect()
    }

    fn move_holding(&mut self, from: Address, to: Address, token: Address, id: U256, amount: U256) {
        if from != Address::ZERO {
            let left = self.holdings[&(from, token, id)]
                .checked_sub(amount)
                .expect("model underflow");
            if left.is_zero() {
                self.holdings.remove(&(from, token, id));
            } else {
                self.holdings.insert((from, token, id), left);
            }
        }
        if to != Address::ZERO && !amount.is_zero() {
            let e = self.holdings.entry((to, token, id)).or_insert(U256::ZERO);
            *e = e.checked_add(amount).expect("model overflow");
        }
    }

    /// Draws what comes next from `seed`: a history that departs from the one so far.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Rng::new(seed);
    }

    /// Moves the next block's time `seconds` further on.
    pub fn skip(&mut self, seconds: u64) {
        self.ts += seconds;
    }

    /// The next block: 0–5 transactions mixing native transfers, token transfers, and the
    /// occasional contract deployment (direct or through a factory).
    pub fn next_block(&mut self) -> EvmBlockRows {
        self.number += 1;
        // Blocks every few seconds to a few hours apart, so hours and days both vary.
        self.ts += 1 + if self.rng.below(10) == 0 {
            self.rng.below(20_000)
        } else {
            self.rng.below(30)
        };
        let (chain, number) = (self.chain_id, self.number);
        let mut b = evm_block(chain, number, self.ts);
        let (erc20, erc721, erc1155) = (
            evm_address(ERC20),
            evm_address(ERC721),
            evm_address(ERC1155),
        );
        if number == 1 {
            for (address, standard, name) in [
                (erc20, TokenStandard::Erc20, "Twenty"),
                (evm_address(ERC20_B), TokenStandard::Erc20, "Bees"),
                (erc721, TokenStandard::Erc721, "Seven"),
                (erc1155, TokenStandard::Erc1155, "Multi"),
            ] {
                b.tokens.push(Token {
                    address,
                    standard,
                    name: name.to_owned(),
                    symbol: name[..3].to_uppercase(),
                    decimals: (standard == TokenStandard::Erc20).then_some(18),
                });
            }
        }
        let count = self.rng.below(6) as u32;
        let mut log_index = 0u32;
        for i in 0..count {
            let from = evm_address(self.rng.below(self.address_count));
            let to = evm_address(self.rng.below(self.address_count));
            let kind = self.rng.below(10);
            let mut tx = evm_tx(chain, number, i, from, Some(to));
            tx.gas_price = U256::from(25_000_000_000u64 + self.rng.below(1_000_000_000));
            match kind {
                0 => {
                    // Direct deployment.
                    tx.to = None;
                    tx.contract_address = Some(evm_address(500_000 + number * 10 + u64::from(i)));
                }
                1 => {
                    // Factory deployment through CREATE2 (and a reverted CREATE that must not count).
                    tx.to = Some(evm_address(FACTORY));
                    b.internal_txs.push(EvmInternalTx {
                        tx_index: i,
                        trace_index: 0,
                        from: evm_address(FACTORY),
                        to: evm_address(600_000 + number * 10 + u64::from(i)),
                        call_type: "CREATE2".to_owned(),
                        value: U256::ZERO,
                        gas_used: 30_000,
                        gas_limit: 40_000,
                        reverted: false,
                    });
                    b.internal_txs.push(EvmInternalTx {
                        tx_index: i,
                        trace_index: 1,
                        from: evm_address(FACTORY),
                        to: evm_address(700_000 + number * 10 + u64::from(i)),
                        call_type: "CREATE".to_owned(),
                        value: U256::ZERO,
                        gas_used: 1_000,
                        gas_limit: 40_000,
                        reverted: true,
                    });
                }
                2..=4 => {
                    let token = if kind == 4 {
                        evm_address(ERC20_B)
                    } else {
                        erc20
                    };
                    tx.to = Some(token);
                    b.transfers.push(TokenTransfer {
                        tx_index: i,
                        log_index,
                        batch_index: 0,
                        token,
                        standard: TokenStandard::Erc20,
                        from,
                        to,
                        token_id: None,
                        value: U256::from(self.rng.below(1_000_000)),
                    });
                    b.logs.push(EvmLog {
                        tx_index: i,
                        log_index,
                        address: token,
                        topics: vec![b256(0xdd, 1), b256(0, 1), b256(0, 2)],
                        data: vec![1, 2, 3],
                    });
                    log_index += 1;
                }
                5 | 6 => {
                    // ERC-721: mint to `to`, or move an existing token from its owner.
                    tx.to = Some(erc721);
                    let holders = self.holders_of(erc721);
                    let (owner, token_id) = if holders.is_empty() || self.rng.below(2) == 0 {
                        self.next_nft += 1;
                        (Address::ZERO, U256::from(self.next_nft))
                    } else {
                        let ((owner, _, id), _) =
                            holders[self.rng.below(holders.len() as u64) as usize];
                        (owner, id)
                    };
                    let burn = owner != Address::ZERO && self.rng.below(8) == 0;
                    let recipient = if burn { Address::ZERO } else { to };
                    self.move_holding(owner, recipient, erc721, token_id, U256::ONE);
                    b.transfers.push(TokenTransfer {
                        tx_index: i,
                        log_index,
                        batch_index: 0,
                        token: erc721,
                        standard: TokenStandard::Erc721,
                        from: owner,
                        to: recipient,
                        token_id: Some(token_id),
                        value: U256::ONE,
                    });
                    log_index += 1;
                }
                7 | 8 => {
                    // ERC-1155 batch: mint two ids to `to`, or move part of a holding.
                    tx.to = Some(erc1155);
                    let holders = self.holders_of(erc1155);
                    if holders.is_empty() || self.rng.below(2) == 0 {
                        for batch in 0..2u32 {
                            let token_id = U256::from(self.rng.below(4));
                            let amount = U256::from(1 + self.rng.below(100));
                            self.move_holding(Address::ZERO, to, erc1155, token_id, amount);
                            b.transfers.push(TokenTransfer {
                                tx_index: i,
                                log_index,
                                batch_index: batch,
                                token: erc1155,
                                standard: TokenStandard::Erc1155,
                                from: Address::ZERO,
                                to,
                                token_id: Some(token_id),
                                value: amount,
                            });
                        }
                    } else {
                        let ((owner, _, id), held) =
                            holders[self.rng.below(holders.len() as u64) as usize];
                        let held = u64::try_from(held).expect("small");
                        let amount = U256::from(1 + self.rng.below(held));
                        self.move_holding(owner, to, erc1155, id, amount);
                        b.transfers.push(TokenTransfer {
                            tx_index: i,
                            log_index,
                            batch_index: 0,
                            token: erc1155,
                            standard: TokenStandard::Erc1155,
                            from: owner,
                            to,
                            token_id: Some(id),
                            value: amount,
                        });
                    }
                    log_index += 1;
                }
                _ => {
                    tx.value = U256::from(self.rng.below(u64::MAX));
                    if self.rng.below(5) == 0 {
                        tx.success = false;
                    }
                    // The recipient reads the sender (moves nothing), passes half the value
                    // on, pings the same address with nothing, and delegates with the value
                    // it was sent (a DELEGATECALL moves nothing either).
                    let onward = evm_address((number + u64::from(i)) % self.address_count);
                    let calls = [
                        ("STATICCALL", from, U256::ZERO),
                        ("CALL", onward, tx.value / U256::from(2u8)),
                        ("CALL", onward, U256::ZERO),
                        ("DELEGATECALL", onward, tx.value),
                    ];
                    for (trace_index, (call_type, callee, value)) in calls.into_iter().enumerate() {
                        b.internal_txs.push(EvmInternalTx {
                            tx_index: i,
                            trace_index: trace_index as u32,
                            from: to,
                            to: callee,
                            call_type: call_type.to_owned(),
                            value,
                            gas_used: 2_300,
                            gas_limit: 10_000,
                            reverted: !tx.success,
                        });
                    }
                }
            }
            b.block.gas_used += tx.gas_used;
            b.txs.push(tx);
        }
        self.blocks.push(b.clone());
        b
    }
}

/// The transactions `a` took part in, as `(block, index)` oldest first: sent, received or
/// created a contract with, a token transfer's sender or recipient, or the caller or callee
/// of an internal call that moves value.
pub fn activity_of(blocks: &[EvmBlockRows], a: Address) -> Vec<(u64, u32)> {
    let mut out = std::collections::BTreeSet::new();
    for b in blocks {
        let n = b.block.number;
        for t in &b.txs {
            if t.from == a || t.to == Some(a) || t.contract_address == Some(a) {
                out.insert((n, t.index));
            }
        }
        for t in b.transfers.iter().filter(|t| t.from == a || t.to == a) {
            out.insert((n, t.tx_index));
        }
        for (_, i) in moves_of(std::slice::from_ref(b), a) {
            out.insert((n, i.tx_index));
        }
    }
    out.into_iter().collect()
}

/// The internal calls that move value with `a` as caller or callee, oldest first, with their
/// blocks.
pub fn moves_of(blocks: &[EvmBlockRows], a: Address) -> Vec<(&EvmBlockRows, &EvmInternalTx)> {
    blocks
        .iter()
        .flat_map(|b| b.internal_txs.iter().map(move |i| (b, i)))
        .filter(|(_, i)| i.moves_value() && (i.from == a || i.to == a))
        .collect()
}

/// The token IDs of collection `token` minted (sent from the zero address), in order.
pub fn minted_ids(blocks: &[EvmBlockRows], token: Address) -> std::collections::BTreeSet<U256> {
    blocks
        .iter()
        .flat_map(|b| b.transfers.iter())
        .filter(|t| t.token == token && t.from == Address::ZERO)
        .filter_map(|t| t.token_id)
        .collect()
}

/// The (holder, token) pairs whose holder at some point sent more of an ERC-20 token than it
/// held: the store ends those balances at zero, so a replay back from the newest balance
/// cannot be exact for them (real tokens never let a holder overdraw).
pub fn erc20_overdrawn(blocks: &[EvmBlockRows]) -> std::collections::BTreeSet<(Address, Address)> {
    let mut held: BTreeMap<(Address, Address), U256> = BTreeMap::new();
    let mut overdrawn = std::collections::BTreeSet::new();
    for t in blocks.iter().flat_map(|b| &b.transfers) {
        if t.standard != TokenStandard::Erc20 {
            continue;
        }
        if t.from != Address::ZERO {
            let b = held.entry((t.from, t.token)).or_default();
            if *b < t.value {
                overdrawn.insert((t.from, t.token));
            }
            *b = b.saturating_sub(t.value);
        }
        if t.to != Address::ZERO {
            let b = held.entry((t.to, t.token)).or_default();
            *b = b.saturating_add(t.value);
        }
    }
    overdrawn
}

/// Every holder's ERC-20 balances, folded from the transfers in `blocks` as the store folds
/// them (a sender short of the amount ends at zero), by holder then token; no zero balances.
pub fn erc20_balances(blocks: &[EvmBlockRows]) -> BTreeMap<Address, BTreeMap<Address, U256>> {
    let mut out: BTreeMap<Address, BTreeMap<Address, U256>> = BTreeMap::new();
    for t in blocks.iter().flat_map(|b| &b.transfers) {
        if t.standard != TokenStandard::Erc20 {
            continue;
        }
        if t.from != Address::ZERO {
            let b = out.entry(t.from).or_default().entry(t.token).or_default();
            *b = b.saturating_sub(t.value);
        }
        if t.to != Address::ZERO {
            let b = out.entry(t.to).or_default().entry(t.token).or_default();
            *b = b.saturating_add(t.value);
        }
    }
    for held in out.values_mut() {
        held.retain(|_, b| !b.is_zero());
    }
    out.retain(|_, held| !held.is_empty());
    out
}

/// Every item of a paged list, following the `next` cursors from the first page: `fetch` reads
/// the page after a cursor.
pub async fn all_pages<T, C, F, Fut>(mut fetch: F) -> Vec<T>
where
    F: FnMut(Option<C>) -> Fut,
    Fut: std::future::Future<Output = firn_store::Page<T, C>>,
{
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let page = fetch(after.take()).await;
        out.extend(page.items);
        match page.next {
            Some(c) => after = Some(c),
            None => return out,
        }
    }
}

/// When the X-Chain blocks of [`x_block`] start.
pub const X_T: u64 = 1_700_000_000;

/// The X-Chain block at `height`, at `X_T + 10 · height`, carrying `txs`.
pub fn x_block(height: u64, txs: Vec<XTx>) -> XChainBlockRows {
    XChainBlockRows {
        block: XBlockRecord {
            height,
            block_id: id(0x0b, height),
            parent_id: if height == 0 {
                Id::ZERO
            } else {
                id(0x0b, height - 1)
            },
            timestamp: X_T + 10 * height,
            tx_count: txs.iter().filter(|t| !t.genesis).count() as u64,
            size_bytes: 100 + height,
        },
        txs,
    }
}

/// An X-Chain tx of `tx_type` (its memo and bytes derived from its ID).
pub fn x_tx(tx_id: Id, tx_type: &str, consumed: Vec<Id>, produced: Vec<XUtxo>) -> XTx {
    XTx {
        tx_id,
        tx_type: tx_type.to_owned(),
        memo: vec![tx_id.0[31]],
        source_chain: None,
        destination_chain: None,
        bytes: tx_id.0.to_vec(),
        genesis: false,
        consumed,
        produced,
        asset: None,
        imported: Vec::new(),
        exported: Vec::new(),
        burned: Vec::new(),
    }
}

/// A secp256k1fx transfer output of `amount` owned by `owners` (threshold 1).
pub fn x_coins(tx_id: Id, index: u32, asset: Id, owners: &[ShortId], amount: u64) -> XUtxo {
    XUtxo {
        utxo_id: tx_id.prefix(u64::from(index)),
        tx_id,
        output_index: index,
        asset_id: asset,
        kind: XOutputKind::Secp256k1Transfer,
        amount: Some(amount),
        group_id: None,
        payload: None,
        threshold: 1,
        locktime: 0,
        addresses: owners.to_vec(),
    }
}
