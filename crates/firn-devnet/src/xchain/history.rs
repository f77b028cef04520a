//! [`XHistory`]: seed-deterministic X-Chain activity for generated history and live rounds.
//!
//! The first slot creates one asset of each kind, owned by funded key 0: a fixed-cap `GOLD`,
//! a variable-cap `COIN`, an NFT family `ART` and a property `DEED`. Every slot then sends AVAX
//! and GOLD between funded keys, mints COIN, mints or moves an ART NFT, or mints or burns a
//! DEED; the first slot of a day moves AVAX from the X-Chain to the P-Chain (export, then
//! import) and the last moves some back. All of a slot's txs are issued from different keys
//! and land in one X-Chain block at the clock's time.
//!
//! A tx the chain refuses is logged and counted as skipped, never an error: history goes on.

use super::XChain;
use super::wallet::{XWallet, owner};
use crate::error::DevnetError;
use crate::history::SeededRng;
use crate::vm::PChain;
use crate::wallet::{Wallet, WalletError};
use firn_core::avm::Tx;
use firn_core::ids::{Id, ShortId};
use firn_core::network::AVAX;
use tracing::debug;

/// What a slot or round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XReport {
    /// X-Chain and P-Chain txs accepted.
    pub txs: u64,
    /// Txs built but refused, or that could not be built.
    pub skipped: u64,
}

/// The assets history trades, once created.
#[derive(Debug, Clone, Copy)]
struct Assets {
    gold: Id,
    coin: Id,
    art: Id,
    deed: Id,
}

/// Generates X-Chain activity on a network's P- and X-Chains.
#[derive(Debug)]
pub struct XHistory<'a> {
    p: &'a PChain,
    x: &'a XChain,
    seed: String,
}

/// Keys below this are left out of random senders: 0 owns the assets here (and the L1 on the
/// P-Chain), 1 and 2 stake in the P-Chain's history, whose UTXOs cross-chain moves leave alone.
const FIRST_SENDER: u64 = 5;

impl<'a> XHistory<'a> {
    /// History for the X-Chain `x` of `p`'s network.
    pub fn new(p: &'a PChain, x: &'a XChain) -> Self {
        Self {
            p,
            x,
            seed: p.config().seed,
        }
    }

    fn wallet(&self, key: u32) -> XWallet<'a> {
        XWallet::with_keys(self.x, vec![self.x.config().funded_key(key)])
    }

    fn address(&self, key: u32) -> ShortId {
        self.x.config().funded_key(key).public_key().short_id()
    }

    fn keys(&self) -> u64 {
        u64::from(self.x.config().funded_keys)
    }

    /// The history's assets, creating those missing (in one block).
    fn assets(&self, report: &mut XReport) -> Result<Option<Assets>, DevnetError> {
        let find = |symbol: &str| {
            self.x
                .assets()
                .into_iter()
                .find(|a| a.symbol == symbol)
                .map(|a| a.id)
        };
        if let (Some(gold), Some(coin), Some(art), Some(deed)) =
            (find("GOLD"), find("COIN"), find("ART"), find("DEED"))
        {
            return Ok(Some(Assets {
                gold,
                coin,
                art,
                deed,
            }));
        }
        // One creation per block: they all spend key 0's AVAX.
        let w = self.wallet(0);
        let me = self.address(0);
        type Create<'w> = Box<dyn Fn() -> Result<Tx, WalletError> + 'w>;
        let creations: [(&str, Create<'_>); 4] = [
            (
                "GOLD",
                Box::new(|| {
                    w.create_fixed_cap_asset("Firn Gold", "GOLD", 2, &[(me, 2_100_000_000)])
                }),
            ),
            (
                "COIN",
                Box::new(|| w.create_variable_cap_asset("Firn Coin", "COIN", 6, &[owner(me)])),
            ),
            (
                "ART",
                Box::new(|| w.create_nft_family("Firn Art", "ART", 4, &owner(me))),
            ),
            (
                "DEED",
                Box::new(|| w.create_property("Firn Deed", "DEED", &owner(me))),
            ),
        ];
        for (symbol, create) in creations {
            if find(symbol).is_none() {
                self.issue_x(create().ok(), report);
                self.x.build_until_idle()?;
            }
        }
        Ok(
            match (find("GOLD"), find("COIN"), find("ART"), find("DEED")) {
                (Some(gold), Some(coin), Some(art), Some(deed)) => Some(Assets {
                    gold,
                    coin,
                    art,
                    deed,
                }),
                _ => None,
            },
        )
    }

    fn issue_x(&self, tx: Option<Tx>, report: &mut XReport) {
        match tx.map(|tx| self.x.issue_tx(tx)) {
            Some(Ok(_)) => report.txs += 1,
            Some(Err(error)) => {
                debug!(%error, "X-Chain history tx refused");
                report.skipped += 1;
            }
            None => report.skipped += 1,
        }
    }

    fn issue_p(&self, tx: Option<firn_core::pchain::tx::Tx>, report: &mut XReport) {
        match tx.map(|tx| self.p.issue_tx(tx)) {
            Some(Ok(_)) => report.txs += 1,
            Some(Err(error)) => {
                debug!(%error, "P-Chain history tx refused");
                report.skipped += 1;
            }
            None => report.skipped += 1,
        }
    }

    /// A random key at or above [`FIRST_SENDER`] not in `used`, marked used.
    fn pick(&self, rng: &mut SeededRng, used: &mut Vec<u32>) -> u32 {
        let span = self.keys().saturating_sub(FIRST_SENDER).max(1);
        loop {
            let k = (FIRST_SENDER + rng.below(span)) as u32;
            if !used.contains(&k) || used.len() as u64 >= span {
                used.push(k);
                return k;
            }
        }
    }

    /// Slot `slot` of `slots` on `day`, at the clock's time.
    pub fn slot(&self, day: u32, slot: u32, slots: u32) -> Result<XReport, DevnetError> {
        let n = (u64::from(day) << 32) | u64::from(slot);
        let mut rng = SeededRng::labelled("firn-x-history", &self.seed, n);
        let mut report = XReport::default();
        let Some(assets) = self.assets(&mut report)? else {
            return Ok(report);
        };
        let mut used = Vec::new();
        let x_chain = self.x.chain_id();
        let p_chain = self.p.network().p_chain_id;
        let avax = self.x.network().avax_asset_id;

        // AVAX between funded keys.
        for _ in 0..1 + rng.below(3) {
            let (from, to) = (
                self.pick(&mut rng, &mut used),
                self.pick(&mut rng, &mut used),
            );
            let amount = (1 + rng.below(500)) * AVAX / 100;
            let tx = self.wallet(from).send(avax, self.address(to), amount).ok();
            self.issue_x(tx, &mut report);
        }
        // Key 0's asset operation of the slot.
        let to = self.address(self.pick(&mut rng, &mut used));
        let w = self.wallet(0);
        let op = match slot % 4 {
            0 => w.send(assets.gold, to, 100 * (1 + rng.below(50))),
            1 => w.mint(assets.coin, to, 1_000_000 * (1 + rng.below(1_000))),
            2 if rng.below(2) == 0 => w.transfer_nft(assets.art, to),
            2 => {
                let group = rng.below(4) as u32;
                let payload = format!("ipfs://firn-art/{day}/{slot}");
                w.mint_nft(assets.art, group, payload.as_bytes(), self.address(0))
            }
            _ if day.is_multiple_of(2) => w.mint_property(assets.deed, self.address(0)),
            _ => w.burn_property(assets.deed),
        };
        self.issue_x(op.ok(), &mut report);
        // A GOLD holder passes some on.
        let holder = self.pick(&mut rng, &mut used);
        let onward = self
            .wallet(holder)
            .send(assets.gold, self.address(0), 1 + rng.below(10));
        if let Ok(tx) = onward {
            self.issue_x(Some(tx), &mut report);
        }

        // AVAX across chains: out to the P-Chain at the day's start, back at its end.
        let mover = self.pick(&mut rng, &mut used);
        let who = self.address(mover);
        let amount = (1 + rng.below(20)) * AVAX;
        if slot == 0 {
            let tx = self.wallet(mover).export(p_chain, who, amount).ok();
            self.issue_x(tx, &mut report);
        } else if slot + 1 == slots {
            let pw = Wallet::with_keys(self.p, vec![self.x.config().funded_key(mover)]);
            self.issue_p(pw.export(x_chain, who, amount).ok(), &mut report);
            self.p.build_until_idle()?;
        }
        self.x.build_until_idle()?;
        if slot == 0 {
            let pw = Wallet::with_keys(self.p, vec![self.x.config().funded_key(mover)]);
            if let Ok(tx) = pw.import(x_chain, who) {
                self.issue_p(Some(tx), &mut report);
                self.p.build_until_idle()?;
            }
        } else if slot + 1 == slots
            && let Ok(tx) = self.wallet(mover).import(p_chain, who)
        {
            self.issue_x(Some(tx), &mut report);
            self.x.build_until_idle()?;
        }
        Ok(report)
    }

    /// One round of live activity at the clock's time.
    pub fn live_round(&self, round: u64) -> Result<XReport, DevnetError> {
        let slot = (round % 24) as u32;
        let day = u32::try_from(round / 24).unwrap_or(u32::MAX);
        self.slot(day, slot, 24)
    }
}
