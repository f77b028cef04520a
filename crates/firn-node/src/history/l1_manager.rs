//! The L1's validator set in generated history, managed the way real L1s manage theirs: through
//! the validator manager contract on the L1's own chain (`FirnValidatorManager`, ACP-99).
//!
//! Once the L1's chain runs, its set is initialized from the P-Chain's conversion message.
//! Then each change [`manager_step`] schedules runs both sides of ACP-77:
//! 1. the owner key calls the manager's `initiate…`, which sends the P-Chain's message
//!    through `sendWarpMessage`;
//! 2. the L1's validators sign what their chain emitted, and the owner key issues the P-Chain
//!    tx that carries it (`RegisterL1ValidatorTx` or `SetL1ValidatorWeightTx`);
//! 3. the P-Chain's answer, signed by the L1's validators (the P-Chain's messages about an L1
//!    are verified against the L1's own set), is delivered to the manager's `complete…` as a
//!    Warp predicate.
//!
//! A chain made before the manager was in the L1's genesis has none and gets no changes.

use std::sync::Arc;

use alloy_primitives::{Address, B256, FixedBytes};
use alloy_sol_types::{SolCall, sol};
use firn_core::calendar::DAY;
use firn_core::ids::{Id, NodeId};
use firn_core::keys::bls;
use firn_core::keys::secp256k1::PrivateKey;
use firn_core::pchain::UnsignedTx;
use firn_core::pchain::tx::Tx;
use firn_core::warp::messages::{L1Message, L1ValidatorRegistration, SubnetToL1ConversionData};
use firn_core::warp::{Message, UnsignedMessage};
use firn_devnet::history::{GeneratedL1, HistoryGenerator, HistoryPlan, ManagerStep, manager_step};
use firn_devnet::validator_manager::VALIDATOR_MANAGER;
use firn_devnet::wallet::{Wallet, WalletError, sign_warp_by_members};
use firn_devnet::{DevnetError, PChain};
use firn_evm::{EvmChain, EvmError};
use tracing::{debug, warn};

use super::evm::{EvmReport, count};
use super::evm_tx::call;
use crate::relayer::{calls_from, send_with_predicate};

sol! {
    struct InitialValidator { bytes nodeID; bytes blsPublicKey; uint64 weight; }
    struct ConversionData {
        bytes32 subnetID;
        bytes32 validatorManagerBlockchainID;
        address validatorManagerAddress;
        InitialValidator[] initialValidators;
    }
    struct PChainOwner { uint32 threshold; address[] addresses; }

    function initializeValidatorSet(ConversionData conversionData, uint32 messageIndex);
    function isValidatorSetInitialized() returns (bool);
    function initiateValidatorRegistration(
        bytes nodeID,
        bytes blsPublicKey,
        PChainOwner remainingBalanceOwner,
        PChainOwner disableOwner,
        uint64 weight
    ) returns (bytes32);
    function completeValidatorRegistration(uint32 messageIndex) returns (bytes32);
    function initiateValidatorWeightUpdate(bytes32 validationID, uint64 newWeight)
        returns (uint64, bytes32);
    function completeValidatorWeightUpdate(uint32 messageIndex) returns (bytes32, uint64);
    function initiateValidatorRemoval(bytes32 validationID);
    function completeValidatorRemoval(uint32 messageIndex) returns (bytes32);
    function getNodeValidationID(bytes nodeID) returns (bytes32);
}

/// Days of the P-Chain's validator fee a registration pays up front.
const REGISTRATION_BALANCE_DAYS: u64 = 12;

/// What one slot of the manager's history did.
#[derive(Debug, Default, Clone, Copy)]
pub struct ManagerReport {
    /// Calls to the manager on the L1.
    pub evm: EvmReport,
    /// P-Chain txs accepted.
    pub p_txs: u64,
    /// P-Chain txs refused.
    pub p_skipped: u64,
}

/// Drives the generated L1's validator manager.
pub struct ManagerHistory {
    owner: PrivateKey,
    /// The L1's validator keys by index ([`HistoryGenerator::l1_validator_key`]).
    l1_keys: Vec<(NodeId, Arc<bls::SecretKey>)>,
    /// Every validator key history knows, to sign as the L1's current members.
    signers: Vec<Arc<bls::SecretKey>>,
    plan: HistoryPlan,
}

impl std::fmt::Debug for ManagerHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagerHistory").finish_non_exhaustive()
    }
}

/// One slot's view of the L1: its P-Chain records and its chain.
struct L1<'a> {
    pchain: &'a PChain,
    generated: GeneratedL1,
    chain: &'a EvmChain,
    /// The owner key's P-Chain wallet.
    wallet: Wallet<'a>,
}

impl ManagerHistory {
    /// The manager's history for `plan` on `pchain`'s network; `signers` are every validator
    /// key history knows.
    pub fn new(
        pchain: &PChain,
        plan: &HistoryPlan,
        signers: Vec<Arc<bls::SecretKey>>,
    ) -> Result<Self, DevnetError> {
        let generator = HistoryGenerator::new(pchain, plan.clone());
        let last = (0..plan.days)
            .filter_map(|day| match manager_step(day) {
                Some(ManagerStep::Register { index, .. }) => Some(index),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let l1_keys = (0..=last)
            .map(|i| generator.l1_validator_key(i))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            owner: generator.owner_key(),
            l1_keys,
            signers,
            plan: plan.clone(),
        })
    }

    /// The manager's work in one P-Chain block slot: initializing the set once the L1's chain
    /// runs, and the day's change, in the day's first quarter.
    pub fn slot(
        &self,
        pchain: &PChain,
        chains: &[Arc<EvmChain>],
        day: u32,
        slot: u32,
        slots: u32,
    ) -> Result<ManagerReport, EvmError> {
        let mut report = ManagerReport::default();
        if slot != slots / 4 {
            return Ok(report);
        }
        let generator = HistoryGenerator::new(pchain, self.plan.clone());
        let Some(generated) = generator.l1().cloned() else {
            return Ok(report);
        };
        let Some(chain) = chains
            .iter()
            .find(|c| c.blockchain_id().0 == generated.chain_id.0)
        else {
            return Ok(report);
        };
        let manager = Address::from(VALIDATOR_MANAGER);
        if chain.code(&manager).is_empty() {
            return Ok(report);
        }
        let l1 = L1 {
            pchain,
            generated,
            chain,
            wallet: Wallet::with_keys(pchain, vec![generator.owner_key()]),
        };
        if !self.initialized(&l1) {
            self.initialize(&l1, &mut report)?;
        }
        match manager_step(day) {
            Some(ManagerStep::Register { index, weight }) => {
                self.register(&l1, index, weight, &mut report)?
            }
            Some(ManagerStep::Reweigh { weight }) => self.reweigh(&l1, weight, &mut report)?,
            Some(ManagerStep::Remove { index }) => self.remove(&l1, index, &mut report)?,
            None => {}
        }
        Ok(report)
    }

    fn initialized(&self, l1: &L1<'_>) -> bool {
        let input = isValidatorSetInitializedCall {}.abi_encode();
        call(l1.chain, Address::from(VALIDATOR_MANAGER), input)
            .and_then(|out| isValidatorSetInitializedCall::abi_decode_returns(&out).ok())
            .unwrap_or(false)
    }

    /// `initializeValidatorSet` with the conversion's data and the P-Chain's message for it.
    fn initialize(&self, l1: &L1<'_>, report: &mut ManagerReport) -> Result<(), EvmError> {
        let Some((data, conversion)) = conversion_of(l1.pchain, l1.generated.subnet_id)
            .and_then(|data| Some((conversion_data_abi(&data)?, data)))
        else {
            warn!("the L1's conversion was not found; its validator manager stays empty");
            return Ok(());
        };
        let answer = L1Message::SubnetToL1Conversion(conversion.message());
        let input = initializeValidatorSetCall {
            conversionData: data,
            messageIndex: 0,
        }
        .abi_encode();
        self.complete(
            l1,
            &answer,
            input,
            "initialize the L1's validator set",
            report,
        )
    }

    fn register(
        &self,
        l1: &L1<'_>,
        index: u32,
        weight: u64,
        report: &mut ManagerReport,
    ) -> Result<(), EvmError> {
        let Some((node_id, bls)) = self.l1_keys.get(index as usize) else {
            return Ok(());
        };
        let owner = PChainOwner {
            threshold: 1,
            addresses: vec![Address::from(self.owner.public_key().short_id().0)],
        };
        let input = initiateValidatorRegistrationCall {
            nodeID: node_id.0.to_vec().into(),
            blsPublicKey: bls.public_key().to_bytes().to_vec().into(),
            remainingBalanceOwner: owner.clone(),
            disableOwner: owner,
            weight,
        }
        .abi_encode();
        let Some((L1Message::RegisterL1Validator(request), signed)) =
            self.initiate(l1, input, "initiate an L1 validator's registration", report)?
        else {
            return Ok(());
        };
        let balance = l1.pchain.config().l1_fees.min_price * REGISTRATION_BALANCE_DAYS * DAY;
        let tx = l1.wallet.register_l1_validator(balance, bls, &signed);
        if !self.on_p_chain(l1, "RegisterL1ValidatorTx", tx, report) {
            return Ok(());
        }
        let answer = L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
            validation_id: request.validation_id(),
            registered: true,
        });
        let input = completeValidatorRegistrationCall { messageIndex: 0 }.abi_encode();
        self.complete(
            l1,
            &answer,
            input,
            "complete an L1 validator's registration",
            report,
        )
    }

    /// A new weight for the first initial validator.
    fn reweigh(
        &self,
        l1: &L1<'_>,
        weight: u64,
        report: &mut ManagerReport,
    ) -> Result<(), EvmError> {
        let validation_id = l1.generated.subnet_id.append(0);
        let input = initiateValidatorWeightUpdateCall {
            validationID: B256::from(validation_id.0),
            newWeight: weight,
        }
        .abi_encode();
        let Some((L1Message::L1ValidatorWeight(request), signed)) = self.initiate(
            l1,
            input,
            "initiate an L1 validator's weight update",
            report,
        )?
        else {
            return Ok(());
        };
        let tx = l1.wallet.set_l1_validator_weight(&signed);
        if !self.on_p_chain(l1, "SetL1ValidatorWeightTx", tx, report) {
            return Ok(());
        }
        let answer = L1Message::L1ValidatorWeight(request);
        let input = completeValidatorWeightUpdateCall { messageIndex: 0 }.abi_encode();
        self.complete(
            l1,
            &answer,
            input,
            "complete an L1 validator's weight update",
            report,
        )
    }

    fn remove(&self, l1: &L1<'_>, index: u32, report: &mut ManagerReport) -> Result<(), EvmError> {
        let Some((node_id, _)) = self.l1_keys.get(index as usize) else {
            return Ok(());
        };
        let lookup = getNodeValidationIDCall {
            nodeID: node_id.0.to_vec().into(),
        }
        .abi_encode();
        let validation_id = call(l1.chain, Address::from(VALIDATOR_MANAGER), lookup)
            .and_then(|out| getNodeValidationIDCall::abi_decode_returns(&out).ok())
            .unwrap_or_default();
        if validation_id == FixedBytes::ZERO {
            return Ok(());
        }
        let input = initiateValidatorRemovalCall {
            validationID: validation_id,
        }
        .abi_encode();
        let Some((L1Message::L1ValidatorWeight(request), signed)) =
            self.initiate(l1, input, "initiate an L1 validator's removal", report)?
        else {
            return Ok(());
        };
        let tx = l1.wallet.set_l1_validator_weight(&signed);
        if !self.on_p_chain(l1, "SetL1ValidatorWeightTx", tx, report) {
            return Ok(());
        }
        let answer = L1Message::L1ValidatorRegistration(L1ValidatorRegistration {
            validation_id: request.validation_id,
            registered: false,
        });
        let input = completeValidatorRemovalCall { messageIndex: 0 }.abi_encode();
        self.complete(
            l1,
            &answer,
            input,
            "complete an L1 validator's removal",
            report,
        )
    }

    /// Calls the manager's `initiate…` with `input` from the owner key and returns the P-Chain
    /// message its chain emitted, with the L1's validators' signatures; `None` when the call
    /// was refused or emitted nothing.
    fn initiate(
        &self,
        l1: &L1<'_>,
        input: Vec<u8>,
        what: &str,
        report: &mut ManagerReport,
    ) -> Result<Option<(L1Message, Message)>, EvmError> {
        let manager = Address::from(VALIDATOR_MANAGER);
        let sent = super::evm_tx::send(
            l1.chain,
            &self.owner,
            Some(manager),
            Default::default(),
            input,
        );
        let sent_ok = sent.is_ok();
        count(sent, what, &mut report.evm);
        if !sent_ok {
            return Ok(None);
        }
        let block = l1.chain.build_block()?;
        let Some((unsigned, message)) = block
            .as_deref()
            .and_then(|b| manager_messages(b).into_iter().next())
        else {
            debug!(what, "the validator manager emitted no message");
            return Ok(None);
        };
        Ok(self.sign(l1, unsigned).map(|signed| (message, signed)))
    }

    /// Issues `tx` on the P-Chain and builds it; whether it was accepted.
    fn on_p_chain(
        &self,
        l1: &L1<'_>,
        what: &str,
        tx: Result<Tx, WalletError>,
        report: &mut ManagerReport,
    ) -> bool {
        let issued = tx
            .map_err(|e| e.to_string())
            .and_then(|tx| l1.pchain.issue_tx(tx).map_err(|e| e.to_string()))
            .and_then(|_| l1.pchain.build_until_idle().map_err(|e| e.to_string()));
        match issued {
            Ok(_) => {
                report.p_txs += 1;
                true
            }
            Err(reason) => {
                report.p_skipped += 1;
                warn!(what, %reason, "history tx refused; skipped");
                false
            }
        }
    }

    /// Delivers the P-Chain's `answer`, signed by the L1's validators, with `input` (a
    /// `complete…` call or the set's initialization) from the owner key.
    fn complete(
        &self,
        l1: &L1<'_>,
        answer: &L1Message,
        input: Vec<u8>,
        what: &str,
        report: &mut ManagerReport,
    ) -> Result<(), EvmError> {
        let unsigned = answer.to_unsigned_message(l1.pchain.network().network_id);
        let Some(signed) = self.sign(l1, unsigned) else {
            return Ok(());
        };
        let manager = Address::from(VALIDATOR_MANAGER);
        count(
            send_with_predicate(l1.chain, &self.owner, manager, input, &signed),
            what,
            &mut report.evm,
        );
        l1.chain.build_until_idle()?;
        Ok(())
    }

    /// `unsigned` signed by those of history's keys that validate the L1 now.
    fn sign(&self, l1: &L1<'_>, unsigned: UnsignedMessage) -> Option<Message> {
        let keys: Vec<&bls::SecretKey> = self.signers.iter().map(|k| k.as_ref()).collect();
        sign_warp_by_members(l1.pchain, l1.generated.subnet_id, unsigned, &keys)
            .inspect_err(|e| debug!(error = %e, "an L1 message could not be signed"))
            .ok()
    }
}

/// The P-Chain messages `block` emitted from the validator manager, decoded.
fn manager_messages(block: &firn_evm::Block) -> Vec<(UnsignedMessage, L1Message)> {
    calls_from(block, &VALIDATOR_MANAGER)
        .into_iter()
        .filter_map(|(unsigned, call)| Some((unsigned, L1Message::from_bytes(&call.payload).ok()?)))
        .collect()
}

/// The conversion data of `subnet_id`'s `ConvertSubnetToL1Tx`, read from the P-Chain's blocks.
fn conversion_of(pchain: &PChain, subnet_id: Id) -> Option<SubnetToL1ConversionData> {
    (1..=pchain.height()).find_map(|height| {
        let block = pchain.block_by_height(height)?;
        block.block.txs().find_map(|tx| match tx.unsigned() {
            UnsignedTx::ConvertSubnetToL1(t) if t.subnet_id == subnet_id => {
                t.conversion_data().ok()
            }
            _ => None,
        })
    })
}

/// `data` as the manager's `ConversionData`; `None` if its manager address is not an EVM one.
fn conversion_data_abi(data: &SubnetToL1ConversionData) -> Option<ConversionData> {
    let address: [u8; 20] = data.manager_address.as_slice().try_into().ok()?;
    Some(ConversionData {
        subnetID: B256::from(data.subnet_id.0),
        validatorManagerBlockchainID: B256::from(data.manager_chain_id.0),
        validatorManagerAddress: Address::from(address),
        initialValidators: data
            .validators
            .iter()
            .map(|v| InitialValidator {
                nodeID: v.node_id.0.to_vec().into(),
                blsPublicKey: v.bls_public_key.to_vec().into(),
                weight: v.weight,
            })
            .collect(),
    })
}
