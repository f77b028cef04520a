//! [`AtomicHistory`]: AVAX crossing to and from the C-Chain in generated history and live
//! rounds. The middle slot of each day moves some P → C, X → C and C → X, each an export on one
//! chain and its import on the other, from keys the other histories leave alone for it; the
//! C-Chain's side goes through its atomic txs (`avax.issueTx`'s path), in blocks of their own.
//!
//! A tx a chain refuses is logged and counted as skipped, never an error: history goes on.

use alloy_primitives::Address;
use firn_core::atomic::Tx as AtomicTx;
use firn_core::avm::Tx as XTx;
use firn_core::ids::ShortId;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::network::AVAX;
use firn_devnet::c_wallet::CWallet;
use firn_devnet::history::SeededRng;
use firn_devnet::wallet::WalletError;
use firn_devnet::xchain::XChain;
use firn_devnet::xchain::history::XReport;
use firn_devnet::xchain::wallet::XWallet;
use firn_devnet::{PChain, Wallet};
use firn_evm::EvmChain;
use tracing::debug;

use crate::error::NodeError;

/// The first key that crosses: below it, keys stake, own assets or deploy in other histories.
const FIRST_MOVER: u64 = 5;

/// Generates cross-chain moves between the C-Chain and the P- and X-Chains.
#[derive(Debug)]
pub struct AtomicHistory<'a> {
    p: &'a PChain,
    x: &'a XChain,
    seed: String,
}

impl<'a> AtomicHistory<'a> {
    /// Moves on the network of `p` and `x`.
    pub fn new(p: &'a PChain, x: &'a XChain) -> Self {
        Self {
            p,
            x,
            seed: p.config().seed,
        }
    }

    fn key(&self, k: u32) -> PrivateKey {
        self.p.config().funded_key(k)
    }

    fn c_wallet(&self, k: u32) -> CWallet {
        CWallet::new(
            self.p.network(),
            self.p.shared_memory().clone(),
            vec![self.key(k)],
        )
    }

    /// Slot `slot` of `slots` on `day`, at the clock's time, with the C-Chain `c`.
    pub fn slot(
        &self,
        c: &EvmChain,
        day: u32,
        slot: u32,
        slots: u32,
    ) -> Result<XReport, NodeError> {
        let mut report = XReport::default();
        if slot != slots / 2 || !c.carries_atomic_txs() {
            return Ok(report);
        }
        let n = (u64::from(day) << 32) | u64::from(slot);
        let mut rng = SeededRng::labelled("firn-atomic-history", &self.seed, n);
        let keys = u64::from(self.p.config().funded_keys);
        let span = keys.saturating_sub(FIRST_MOVER).max(1);
        let first = FIRST_MOVER + rng.below(span);
        let [a, b, d] = [0, 1, 2].map(|i| ((first - FIRST_MOVER + i) % span + FIRST_MOVER) as u32);
        let network = self.p.network();
        let (p_chain, x_chain) = (network.p_chain_id, network.x_chain_id);
        // Whatever the EVM history pooled goes first: exports use the accounts' nonces.
        c.build_until_idle().map_err(NodeError::EvmHistory)?;

        // P → C.
        let amount = (1 + rng.below(10)) * AVAX;
        let pw = Wallet::with_keys(self.p, vec![self.key(a)]);
        let exported = pw.export(network.c_chain_id, self.address(a), amount);
        self.count(
            exported
                .map(|tx| self.p.issue_tx(tx))
                .is_ok_and(|r| r.is_ok()),
            &mut report,
        );
        self.p.build_until_idle()?;
        self.import_to_c(c, a, p_chain, &mut report)?;

        // X → C.
        let amount = (1 + rng.below(10)) * AVAX;
        let xw = XWallet::with_keys(self.x, vec![self.key(b)]);
        self.issue_x(
            xw.export(network.c_chain_id, self.address(b), amount),
            &mut report,
        )?;
        self.import_to_c(c, b, x_chain, &mut report)?;

        // C → X.
        let amount = (1 + rng.below(5)) * AVAX;
        let account = self.account(d);
        let export = self.c_wallet(d).export(
            0,
            c.nonce(&account),
            x_chain,
            self.address(d),
            amount,
            c.next_base_fee(),
        );
        self.issue_c(c, export, &mut report)?;
        let imported = XWallet::with_keys(self.x, vec![self.key(d)])
            .import(network.c_chain_id, self.address(d));
        self.issue_x(imported, &mut report)?;
        Ok(report)
    }

    /// One round of live activity at the clock's time.
    pub fn live_round(&self, c: &EvmChain, round: u64) -> Result<XReport, NodeError> {
        let slot = (round % 24) as u32;
        let day = u32::try_from(round / 24).unwrap_or(u32::MAX);
        self.slot(c, day, slot, 24)
    }

    fn address(&self, k: u32) -> ShortId {
        self.key(k).public_key().short_id()
    }

    fn account(&self, k: u32) -> Address {
        Address::from(self.key(k).public_key().eth_address())
    }

    /// Imports what `source` exported to key `k` into its EVM account.
    fn import_to_c(
        &self,
        c: &EvmChain,
        k: u32,
        source: firn_core::ids::Id,
        report: &mut XReport,
    ) -> Result<(), NodeError> {
        let tx = self
            .c_wallet(k)
            .import(source, self.account(k), c.next_base_fee());
        self.issue_c(c, tx, report)
    }

    /// Issues an X-Chain tx, counts it and builds its block.
    fn issue_x(&self, tx: Result<XTx, WalletError>, report: &mut XReport) -> Result<(), NodeError> {
        self.count(
            tx.map(|tx| self.x.issue_tx(tx)).is_ok_and(|r| r.is_ok()),
            report,
        );
        self.x
            .build_until_idle()
            .map_err(NodeError::XChainHistory)?;
        Ok(())
    }

    fn issue_c(
        &self,
        c: &EvmChain,
        tx: Result<AtomicTx, String>,
        report: &mut XReport,
    ) -> Result<(), NodeError> {
        match tx.and_then(|tx| c.submit_atomic(tx)) {
            Ok(_) => {
                report.txs += 1;
                c.build_until_idle().map_err(NodeError::EvmHistory)?;
            }
            Err(error) => {
                debug!(%error, "C-Chain atomic history tx refused");
                report.skipped += 1;
            }
        }
        Ok(())
    }

    fn count(&self, accepted: bool, report: &mut XReport) {
        if accepted {
            report.txs += 1;
        } else {
            debug!("cross-chain history tx refused");
            report.skipped += 1;
        }
    }
}
