//! EVM activity on the devnet's EVM chains (the C-Chain and the generated L1's chain), for
//! generated history and live rounds.
//!
//! The chains read the P-Chain's clock, so txs built while history holds the clock at a
//! block's virtual time get that time: history calls [`EvmHistory::slot`] after each P-Chain
//! transfer block. Nothing is remembered between calls: contract addresses are the deployer's
//! first CREATE addresses, nonces, balances and token owners are read from the chain, and every
//! choice comes from a generator seeded by `(seed, chain, day, slot)`. So a restart resumes
//! from whatever the chains hold.
//!
//! On each chain the deployer (funded key 0) first deploys FirnToken (ERC-20), FirnCollectible
//! (ERC-721), FirnMultiToken (ERC-1155), FirnRouter and FirnRebasing (a rebasing ERC-20); after
//! that each tx is one of: a mint, a native transfer, an ERC-20 (FIRN or sFIRN), ERC-721 or
//! ERC-1155 transfer, a rebase of sFIRN, a `FirnRouter.split` (value sent on by internal calls)
//! or a `FirnRouter.deployToken` (internal CREATE/CREATE2). A sender
//! sends at most one tx per block, so each tx is estimated against the state it runs on.

use std::collections::HashSet;
use std::sync::Arc;

use alloy_primitives::{Address, B256, U256};
use firn_core::evm::{create_address, keccak256};
use firn_core::keys::secp256k1::PrivateKey;
use firn_devnet::PChain;
use firn_devnet::history::SeededRng;
use firn_evm::{EvmChain, EvmError};
use tracing::debug;

use super::evm_tx::{Arg, Contract, address_of, call_uint, calldata, send};

/// The key that deploys the contracts and mints.
const DEPLOYER: usize = 0;
/// ERC-1155 token IDs in use.
const MULTI_IDS: u64 = 4;
/// 10¹⁸: one token or one native coin.
const UNIT: u64 = 1_000_000_000_000_000_000;

/// What a batch of EVM activity did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct EvmReport {
    /// Txs pooled and built into blocks.
    pub txs: u64,
    /// Txs not sent (they would revert, or the pool refused them).
    pub skipped: u64,
}

/// Generates EVM activity from the devnet's funded keys, deterministic from its seed.
pub struct EvmHistory {
    seed: String,
    keys: Vec<PrivateKey>,
    addresses: Vec<Address>,
    txs_per_day: u32,
}

impl std::fmt::Debug for EvmHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvmHistory")
            .field("txs_per_day", &self.txs_per_day)
            .finish_non_exhaustive()
    }
}

impl EvmHistory {
    pub fn new(pchain: &PChain, txs_per_day: u32) -> Self {
        let keys = pchain.funded_keys();
        let addresses = keys.iter().map(address_of).collect();
        Self {
            seed: pchain.config().seed.clone(),
            keys,
            addresses,
            txs_per_day,
        }
    }

    /// The EVM share of one P-Chain block slot of `day`: the day's txs spread evenly over
    /// `slots`, two thirds on the C-Chain (`chains[0]`) and the rest over the other chains.
    pub fn slot(
        &self,
        chains: &[Arc<EvmChain>],
        day: u32,
        slot: u32,
        slots: u32,
    ) -> Result<EvmReport, EvmError> {
        let mut report = EvmReport::default();
        let total = u64::from(self.txs_per_day);
        let others = chains.len().saturating_sub(1) as u64;
        let c_total = if others == 0 { total } else { total * 2 / 3 };
        for (i, chain) in chains.iter().enumerate() {
            let day_total = if i == 0 {
                c_total
            } else {
                (total - c_total) / others
            };
            let label = (u64::from(day) << 32) | u64::from(slot);
            let mut rng = chain_rng("firn-evm-history", &self.seed, chain.chain_id(), label);
            self.batch(chain, spread(day_total, slot, slots), &mut rng, &mut report)?;
        }
        Ok(report)
    }

    /// One live round: a few txs on every chain.
    pub fn live_round(&self, chains: &[Arc<EvmChain>], round: u64) -> Result<EvmReport, EvmError> {
        let mut report = EvmReport::default();
        for chain in chains {
            let mut rng = chain_rng("firn-evm-live", &self.seed, chain.chain_id(), round);
            let count = 1 + rng.below(3);
            self.batch(chain, count, &mut rng, &mut report)?;
        }
        Ok(report)
    }

    fn contract(&self, c: Contract) -> Address {
        let nonce = Contract::ALL.iter().position(|x| *x == c).unwrap_or(0) as u64;
        Address::from(create_address(&self.addresses[DEPLOYER].0.0, nonce))
    }

    /// Deploys the contracts if the deployer has sent nothing yet on `chain`; whether they
    /// are there.
    fn ensure_contracts(&self, chain: &EvmChain, report: &mut EvmReport) -> Result<bool, EvmError> {
        if chain.pending_nonce(&self.addresses[DEPLOYER]) == 0 {
            for c in Contract::ALL {
                let sent = c
                    .init_code()
                    .and_then(|code| send(chain, &self.keys[DEPLOYER], None, U256::ZERO, code));
                count(sent, "deploy", report);
            }
            chain.build_until_idle()?;
        }
        Ok(Contract::ALL
            .iter()
            .filter(|c| **c != Contract::Rebasing)
            .all(|c| !chain.code(&self.contract(*c)).is_empty()))
    }

    /// `count` txs on `chain`, each sender at most once per block.
    fn batch(
        &self,
        chain: &EvmChain,
        count: u64,
        rng: &mut SeededRng,
        report: &mut EvmReport,
    ) -> Result<(), EvmError> {
        if count == 0 {
            return Ok(());
        }
        let contracts = self.ensure_contracts(chain, report)?;
        let mut used: HashSet<usize> = HashSet::new();
        for _ in 0..count {
            // Every sender but the deployer has a tx in this block: build it first.
            if used.iter().filter(|k| **k != DEPLOYER).count() + 1 >= self.keys.len() {
                chain.build_until_idle()?;
                used.clear();
            }
            let sender = self.pick_sender(rng, &used);
            let sent = if contracts {
                self.one_tx(chain, sender, rng, &mut used)
            } else {
                used.insert(sender);
                self.native_transfer(chain, sender, rng)
            };
            count_tx(sent, report);
        }
        chain.build_until_idle()?;
        Ok(())
    }

    fn pick_sender(&self, rng: &mut SeededRng, used: &HashSet<usize>) -> usize {
        let n = self.keys.len() as u64;
        let mut k = 1 + rng.below(n - 1) as usize;
        while used.contains(&k) {
            k = 1 + k % (self.keys.len() - 1);
        }
        k
    }

    /// A recipient: another funded key mostly, sometimes an address nobody holds.
    fn recipient(&self, rng: &mut SeededRng, not: usize) -> Address {
        if rng.below(5) == 0 {
            let mut preimage = b"firn-evm-recipient".to_vec();
            preimage.extend(self.seed.as_bytes());
            preimage.extend(rng.next_u64().to_be_bytes());
            return Address::from_slice(&keccak256(&preimage)[12..]);
        }
        let n = self.keys.len();
        let k = 1 + (not + rng.below(n as u64 - 2) as usize) % (n - 1);
        self.addresses[if k == not { DEPLOYER } else { k }]
    }

    fn one_tx(
        &self,
        chain: &EvmChain,
        sender: usize,
        rng: &mut SeededRng,
        used: &mut HashSet<usize>,
    ) -> Option<Result<B256, String>> {
        let roll = rng.below(100);
        if roll < 15 && !used.contains(&DEPLOYER) {
            used.insert(DEPLOYER);
            return Some(self.mint(chain, rng));
        }
        if (60..72).contains(&roll)
            && let Some(sent) = self.nft_transfer(chain, rng, used)
        {
            return Some(sent);
        }
        used.insert(sender);
        let key = &self.keys[sender];
        let from = self.addresses[sender];
        let to = self.recipient(rng, sender);
        Some(match roll {
            35..40 if !chain.code(&self.contract(Contract::Rebasing)).is_empty() => {
                let token = self.contract(Contract::Rebasing);
                if rng.below(4) == 0 && used.insert(DEPLOYER) {
                    return Some(self.rebase(chain, token, rng));
                }
                return self.erc20_move(chain, token, sender, to, rng, used);
            }
            40..60 => {
                let token = self.contract(Contract::Token);
                return self.erc20_move(chain, token, sender, to, rng, used);
            }
            72..82 => {
                let multi = self.contract(Contract::MultiToken);
                let id = U256::from(1 + rng.below(MULTI_IDS));
                let data = calldata(
                    "balanceOf(address,uint256)",
                    &[Arg::Addr(from), Arg::Uint(id)],
                );
                let held = call_uint(chain, multi, data);
                if held.is_zero() {
                    return self.native_transfer(chain, sender, rng);
                }
                let amount = U256::from(1) + U256::from(rng.below(5)) % held;
                let data = calldata(
                    "safeTransferFrom(address,address,uint256,uint256,bytes)",
                    &[
                        Arg::Addr(from),
                        Arg::Addr(to),
                        Arg::Uint(id),
                        Arg::Uint(amount),
                        Arg::Bytes(&[]),
                    ],
                );
                send(chain, key, Some(multi), U256::ZERO, data)
            }
            82..97 => {
                let recipients: Vec<Address> = (0..2 + rng.below(3))
                    .map(|_| self.recipient(rng, sender))
                    .collect();
                let value = U256::from(1 + rng.below(20)) * U256::from(UNIT / 100);
                let data = calldata("split(address[])", &[Arg::Addrs(&recipients)]);
                send(
                    chain,
                    key,
                    Some(self.contract(Contract::Router)),
                    value,
                    data,
                )
            }
            97..100 => {
                let salt = if rng.below(2) == 0 {
                    B256::ZERO
                } else {
                    B256::from(U256::from(rng.next_u64()).to_be_bytes::<32>())
                };
                let supply = U256::from(1 + rng.below(1_000)) * U256::from(UNIT);
                let data = calldata(
                    "deployToken(string,string,uint256,bytes32)",
                    &[
                        Arg::Str("Routed Token"),
                        Arg::Str("RTD"),
                        Arg::Uint(supply),
                        Arg::Word(salt),
                    ],
                );
                send(
                    chain,
                    key,
                    Some(self.contract(Contract::Router)),
                    U256::ZERO,
                    data,
                )
            }
            _ => return self.native_transfer(chain, sender, rng),
        })
    }

    /// Some of `sender`'s `token` to `to`; when it holds none, the deployer (which holds the
    /// initial supply) hands it some, if it has not sent in this block.
    fn erc20_move(
        &self,
        chain: &EvmChain,
        token: Address,
        sender: usize,
        to: Address,
        rng: &mut SeededRng,
        used: &mut HashSet<usize>,
    ) -> Option<Result<B256, String>> {
        let from = self.addresses[sender];
        let balance = call_uint(chain, token, balance_of(from));
        if balance.is_zero() {
            if used.insert(DEPLOYER) {
                let amount = U256::from(1 + rng.below(500)) * U256::from(UNIT);
                let deployer = &self.keys[DEPLOYER];
                let data = erc20_transfer(from, amount);
                return Some(send(chain, deployer, Some(token), U256::ZERO, data));
            }
            return self.native_transfer(chain, sender, rng);
        }
        let amount = balance / U256::from(2 + rng.below(8));
        let data = erc20_transfer(to, amount);
        Some(send(
            chain,
            &self.keys[sender],
            Some(token),
            U256::ZERO,
            data,
        ))
    }

    /// The deployer raises sFIRN's share price by 0.1–2% (lowers it by as much one time in
    /// five): every holder's `balanceOf` moves, and no `Transfer` says so.
    fn rebase(
        &self,
        chain: &EvmChain,
        token: Address,
        rng: &mut SeededRng,
    ) -> Result<B256, String> {
        let price = call_uint(chain, token, calldata("sharePrice()", &[]));
        let step = U256::from(1 + rng.below(20));
        let per_mille = if rng.below(5) == 0 {
            U256::from(1000) - step
        } else {
            U256::from(1000) + step
        };
        let data = calldata(
            "rebase(uint256)",
            &[Arg::Uint(price * per_mille / U256::from(1000))],
        );
        send(chain, &self.keys[DEPLOYER], Some(token), U256::ZERO, data)
    }

    fn native_transfer(
        &self,
        chain: &EvmChain,
        sender: usize,
        rng: &mut SeededRng,
    ) -> Option<Result<B256, String>> {
        let to = self.recipient(rng, sender);
        let value = U256::from(1 + rng.below(100)) * U256::from(UNIT / 100);
        Some(send(chain, &self.keys[sender], Some(to), value, Vec::new()))
    }

    /// A mint by the deployer to a random key: ERC-20, ERC-721 or ERC-1155 in turn.
    fn mint(&self, chain: &EvmChain, rng: &mut SeededRng) -> Result<B256, String> {
        let to = self.addresses[1 + rng.below(self.keys.len() as u64 - 1) as usize];
        let (contract, data) = match rng.below(3) {
            0 => (
                Contract::Token,
                calldata(
                    "mint(address,uint256)",
                    &[
                        Arg::Addr(to),
                        Arg::Uint(U256::from(1 + rng.below(1_000)) * U256::from(UNIT)),
                    ],
                ),
            ),
            1 => (
                Contract::Collectible,
                calldata("mint(address)", &[Arg::Addr(to)]),
            ),
            _ => (
                Contract::MultiToken,
                calldata(
                    "mint(address,uint256,uint256)",
                    &[
                        Arg::Addr(to),
                        Arg::Uint(U256::from(1 + rng.below(MULTI_IDS))),
                        Arg::Uint(U256::from(1 + rng.below(20))),
                    ],
                ),
            ),
        };
        send(
            chain,
            &self.keys[DEPLOYER],
            Some(self.contract(contract)),
            U256::ZERO,
            data,
        )
    }

    /// An ERC-721 transfer by the owner of a random token, when a funded key owns it and has
    /// not sent in this block yet.
    fn nft_transfer(
        &self,
        chain: &EvmChain,
        rng: &mut SeededRng,
        used: &mut HashSet<usize>,
    ) -> Option<Result<B256, String>> {
        let nft = self.contract(Contract::Collectible);
        let supply = call_uint(chain, nft, calldata("totalSupply()", &[]));
        let supply = u64::try_from(supply).ok().filter(|s| *s > 0)?;
        let id = U256::from(1 + rng.below(supply));
        let owner = call_uint(chain, nft, calldata("ownerOf(uint256)", &[Arg::Uint(id)]));
        let owner = Address::from_word(B256::from(owner.to_be_bytes::<32>()));
        let holder = self.addresses.iter().position(|a| *a == owner)?;
        if used.contains(&holder) {
            return None;
        }
        used.insert(holder);
        let to = self.recipient(rng, holder);
        let method = if rng.below(2) == 0 {
            "transferFrom(address,address,uint256)"
        } else {
            "safeTransferFrom(address,address,uint256)"
        };
        let data = calldata(method, &[Arg::Addr(owner), Arg::Addr(to), Arg::Uint(id)]);
        Some(send(chain, &self.keys[holder], Some(nft), U256::ZERO, data))
    }
}

/// Slot `slot`'s part of `total` spread evenly over `slots`.
fn spread(total: u64, slot: u32, slots: u32) -> u64 {
    let (slot, slots) = (u64::from(slot), u64::from(slots.max(1)));
    total * (slot + 1) / slots - total * slot / slots
}

fn balance_of(who: Address) -> Vec<u8> {
    calldata("balanceOf(address)", &[Arg::Addr(who)])
}

fn erc20_transfer(to: Address, amount: U256) -> Vec<u8> {
    calldata(
        "transfer(address,uint256)",
        &[Arg::Addr(to), Arg::Uint(amount)],
    )
}

pub(super) fn count(sent: Result<B256, String>, what: &str, report: &mut EvmReport) {
    match sent {
        Ok(hash) => {
            report.txs += 1;
            debug!(target: "evm", %hash, what, "history tx");
        }
        Err(reason) => {
            report.skipped += 1;
            debug!(target: "evm", what, %reason, "history tx not sent");
        }
    }
}

fn count_tx(sent: Option<Result<B256, String>>, report: &mut EvmReport) {
    if let Some(sent) = sent {
        count(sent, "activity", report);
    }
}

/// The seeded generator of `label` on one chain: independent per chain and per `n`.
fn chain_rng(label: &str, seed: &str, chain_id: u64, n: u64) -> SeededRng {
    SeededRng::labelled(&format!("{label}-{chain_id}"), seed, n)
}
