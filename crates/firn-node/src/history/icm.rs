//! Interchain messages in generated history: once a day, while the C-Chain and the L1's chain
//! both run, a message from the C-Chain to the L1 and one back, sent through Teleporter by a
//! funded key, signed by the source subnet's validators (the primary network for the C-Chain,
//! as the L1 requires) and delivered by the devnet's relayer key, as `firn up`'s relayer does
//! live. Every third day the L1's inbox is closed when the message arrives: its execution
//! fails, is stored, and a funded key retries it once the inbox reopens. Receipts ride back on
//! the next message the other way.
//!
//! The inboxes (`FirnTeleporterInbox`) are the relayer key's first creation on each chain, so
//! they are found again after a restart. A chain without the messenger (a C-Chain dir made
//! before it was in the genesis), or whose relayer key already sent other txs, gets none.

use std::sync::Arc;

use alloy_primitives::{Address, B256, U256};
use firn_core::evm::create_address;
use firn_core::ids::Id;
use firn_core::keys::bls;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::teleporter::TeleporterMessage;
use firn_core::warp::UnsignedMessage;
use firn_devnet::PChain;
use firn_devnet::history::SeededRng;
use firn_devnet::teleporter::{TELEPORTER_MESSENGER, TELEPORTER_REGISTRY, registry_message};
use firn_devnet::wallet::sign_warp_by_members;
use firn_evm::{EvmChain, EvmError};
use tracing::debug;

use super::evm::{EvmReport, count};
use super::evm_tx::{Arg, address_of, call_uint, calldata, creation_code, encode, send};
use crate::relayer::{send_with_predicate, submit_delivery, teleporter_messages};

const INBOX_ARTIFACT: &str =
    include_str!("../../../../contracts/artifacts/FirnTeleporterInbox.json");

/// The registry version history adds on each chain.
pub const REGISTRY_UPGRADE_VERSION: u64 = 2;

/// The off-chain message by which history adds [`REGISTRY_UPGRADE_VERSION`] to the registry of
/// chain `chain_id`: the canonical messenger again.
pub fn registry_upgrade(network_id: u32, chain_id: Id) -> UnsignedMessage {
    registry_message(
        network_id,
        chain_id,
        REGISTRY_UPGRADE_VERSION,
        TELEPORTER_MESSENGER,
    )
}

/// Gas a message's execution is given on the destination.
const REQUIRED_GAS: u64 = 100_000;

/// Generates the day's messages between the C-Chain and the L1.
pub struct IcmHistory {
    seed: String,
    keys: Vec<PrivateKey>,
    relayer: PrivateKey,
    /// Every validator key history knows.
    signers: Vec<Arc<bls::SecretKey>>,
}

impl std::fmt::Debug for IcmHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IcmHistory").finish_non_exhaustive()
    }
}

impl IcmHistory {
    /// The messages of `pchain`'s network's history, signed with `signers` ([`history_signers`]).
    pub fn new(pchain: &PChain, signers: Vec<Arc<bls::SecretKey>>) -> Self {
        let config = pchain.config();
        Self {
            seed: config.seed.clone(),
            keys: pchain.funded_keys(),
            relayer: config.relayer_key(),
            signers,
        }
    }

    /// The messages of one P-Chain block slot: the day's exchange happens in its middle slot.
    pub fn slot(
        &self,
        pchain: &PChain,
        chains: &[Arc<EvmChain>],
        day: u32,
        slot: u32,
        slots: u32,
    ) -> Result<EvmReport, EvmError> {
        let mut report = EvmReport::default();
        let (Some(c), Some(l1)) = (chains.first(), chains.get(1)) else {
            return Ok(report);
        };
        if slot != slots / 2 {
            return Ok(report);
        }
        let (Some(c_inbox), Some(l1_inbox)) =
            (self.inbox(c, &mut report)?, self.inbox(l1, &mut report)?)
        else {
            return Ok(report);
        };
        for chain in [c, l1] {
            self.upgrade_registry(pchain, chain, &mut report)?;
        }
        let mut rng = SeededRng::labelled("firn-icm-history", &self.seed, u64::from(day));
        let fail = day % 3 == 2;
        self.exchange(pchain, c, l1, l1_inbox, fail, day, &mut rng, &mut report)?;
        self.exchange(pchain, l1, c, c_inbox, false, day, &mut rng, &mut report)?;
        Ok(report)
    }

    /// The relayer key's inbox on `chain`, deployed if the key has sent nothing there yet;
    /// `None` when the chain cannot have one.
    fn inbox(&self, chain: &EvmChain, report: &mut EvmReport) -> Result<Option<Address>, EvmError> {
        let teleporter = Address::from(TELEPORTER_MESSENGER);
        if chain.code(&teleporter).is_empty() {
            return Ok(None);
        }
        let me = address_of(&self.relayer);
        let inbox = Address::from(create_address(&me.0.0, 0));
        if chain.pending_nonce(&me) == 0 {
            let sent = inbox_init_code()
                .and_then(|code| send(chain, &self.relayer, None, U256::ZERO, code));
            count(sent, "deploy the ICM inbox", report);
            chain.build_until_idle()?;
        }
        Ok((!chain.code(&inbox).is_empty()).then_some(inbox))
    }

    /// Adds [`REGISTRY_UPGRADE_VERSION`] to `chain`'s registry, unless it has no registry or
    /// holds that version already.
    fn upgrade_registry(
        &self,
        pchain: &PChain,
        chain: &EvmChain,
        report: &mut EvmReport,
    ) -> Result<(), EvmError> {
        let registry = Address::from(TELEPORTER_REGISTRY);
        if chain.code(&registry).is_empty()
            || call_uint(chain, registry, calldata("latestVersion()", &[]))
                >= U256::from(REGISTRY_UPGRADE_VERSION)
        {
            return Ok(());
        }
        let unsigned = registry_upgrade(pchain.network().network_id, Id(chain.blockchain_id().0));
        let Some(signed) = self.sign(pchain, unsigned, report) else {
            return Ok(());
        };
        let input = calldata("addProtocolVersion(uint32)", &[Arg::Uint(U256::ZERO)]);
        count(
            send_with_predicate(chain, &self.keys[1], registry, input, &signed),
            "upgrade the Teleporter registry",
            report,
        );
        chain.build_until_idle()?;
        Ok(())
    }

    /// `unsigned` signed by those of history's keys that validate its source chain; `None`
    /// (counted as skipped) when they cannot.
    fn sign(
        &self,
        pchain: &PChain,
        unsigned: UnsignedMessage,
        report: &mut EvmReport,
    ) -> Option<firn_core::warp::Message> {
        let subnet = pchain
            .validated_by(&unsigned.source_chain_id)
            .unwrap_or(Id::ZERO);
        let keys: Vec<&bls::SecretKey> = self.signers.iter().map(|k| k.as_ref()).collect();
        sign_warp_by_members(pchain, subnet, unsigned, &keys)
            .inspect_err(|e| {
                debug!(error = %e, "a message of the ICM history could not be signed");
                report.skipped += 1;
            })
            .ok()
    }

    /// One message from `from` to `inbox` on `to`, delivered by the relayer key; with `fail`,
    /// into a closed inbox, then retried once it opens.
    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &self,
        pchain: &PChain,
        from: &EvmChain,
        to: &EvmChain,
        inbox: Address,
        fail: bool,
        day: u32,
        rng: &mut SeededRng,
        report: &mut EvmReport,
    ) -> Result<(), EvmError> {
        let teleporter = Address::from(TELEPORTER_MESSENGER);
        let sender = &self.keys[1 + rng.below(self.keys.len() as u64 - 1) as usize];
        let payload = format!("day {day}: {} to {}", from.chain_id(), to.chain_id());
        let input = send_input(to.blockchain_id(), inbox, payload.as_bytes());
        let sent = send(from, sender, Some(teleporter), U256::ZERO, input);
        let sent_ok = sent.is_ok();
        count(sent, "send an ICM message", report);
        if !sent_ok {
            return Ok(());
        }
        let block = from.build_block()?;
        let Some((unsigned, message)) = block
            .as_deref()
            .and_then(|b| teleporter_messages(b).into_iter().next())
        else {
            debug!(chain = from.chain_id(), "the ICM send left no message");
            return Ok(());
        };
        let Some(signed) = self.sign(pchain, unsigned, report) else {
            return Ok(());
        };
        let set_closed = |closed: bool, report: &mut EvmReport| -> Result<(), EvmError> {
            let input = calldata(
                "setClosed(bool)",
                &[Arg::Uint(U256::from(u8::from(closed)))],
            );
            count(
                send(to, &self.relayer, Some(inbox), U256::ZERO, input),
                "close or open the ICM inbox",
                report,
            );
            to.build_until_idle()?;
            Ok(())
        };
        if fail {
            set_closed(true, report)?;
        }
        count(
            submit_delivery(to, &self.relayer, &signed),
            "deliver an ICM message",
            report,
        );
        to.build_until_idle()?;
        if fail {
            set_closed(false, report)?;
            let retrier = &self.keys[1 + rng.below(self.keys.len() as u64 - 1) as usize];
            let input = retry_input(from.blockchain_id(), &message);
            count(
                send(to, retrier, Some(teleporter), U256::ZERO, input),
                "retry an ICM message",
                report,
            );
            to.build_until_idle()?;
        }
        Ok(())
    }
}

/// `sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))` to
/// `inbox` on `destination`, with no fee and any relayer.
fn send_input(destination: B256, inbox: Address, payload: &[u8]) -> Vec<u8> {
    let mut input = calldata(
        "sendCrossChainMessage((bytes32,address,(address,uint256),uint256,address[],bytes))",
        &[],
    );
    // One dynamic tuple: its offset, then its fields (the fee tuple is static, inline).
    input.extend(U256::from(32).to_be_bytes::<32>());
    input.extend(encode(&[
        Arg::Word(destination),
        Arg::Addr(inbox),
        Arg::Addr(Address::ZERO),
        Arg::Uint(U256::ZERO),
        Arg::Uint(U256::from(REQUIRED_GAS)),
        Arg::Addrs(&[]),
        Arg::Bytes(payload),
    ]));
    input
}

/// `retryMessageExecution(bytes32,TeleporterMessage)` of `message` from `source`.
fn retry_input(source: B256, message: &TeleporterMessage) -> Vec<u8> {
    let mut input = calldata(
        "retryMessageExecution(bytes32,(uint256,address,bytes32,address,uint256,address[],(uint256,address)[],bytes))",
        &[Arg::Word(source)],
    );
    // The message is dynamic: its offset after the two head words, then its tuple (the
    // encoding of the message alone, less its own leading offset word).
    input.extend(U256::from(64).to_be_bytes::<32>());
    input.extend(&message.encode()[32..]);
    input
}

fn inbox_init_code() -> Result<Vec<u8>, String> {
    let args = encode(&[Arg::Addr(Address::from(TELEPORTER_MESSENGER))]);
    creation_code(INBOX_ARTIFACT, &args)
}
