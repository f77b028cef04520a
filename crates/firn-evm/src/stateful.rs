//! subnet-EVM's stateful precompiles inside revm: a `PrecompileProvider` that answers calls to
//! the genesis-enabled precompile addresses (and hands every other address to revm's own).
//!
//! - allow lists (tx allow list, contract deployer allow list, and the lists guarding the
//!   native minter, fee manager and reward manager): `readAllowList`, `setAdmin`,
//!   `setEnabled`, `setManager`, `setNone`, with the `RoleSet` event (Durango);
//! - native minter: `mintNativeCoin(address,uint256)` with `NativeCoinMinted`;
//! - fee manager: `getFeeConfig`, `getFeeConfigLastChangedAt` (changing it is refused:
//!   the devnet's fee config is fixed by the genesis);
//! - reward manager: `areFeeRecipientsAllowed`, `currentRewardAddress` (read-only);
//! - Warp: `getBlockchainID`, `sendWarpMessage(bytes)` with `SendWarpMessage(address indexed
//!   sender, bytes32 indexed messageID, bytes message)`, the message being the unsigned Warp
//!   message of an `AddressedCall` from the caller; `getVerifiedWarpMessage` and
//!   `getVerifiedWarpBlockHash` read the tx's predicates ([`crate::warp::precompile`]).
//!
//! Gas costs are subnet-evm's (`contract.WriteGasCostPerSlot` 20,000, reads 2,600, mint
//! 30,000, Warp 41,500 + 8 per byte; events charged as LOG gas).

use std::sync::Arc;

use alloy_primitives::{Address, B256, Bytes, Log, LogData, U256, keccak256};
use firn_core::ids::Id;
use firn_core::warp::UnsignedMessage;
use firn_core::warp::payload::AddressedCall;
use revm::context::Cfg;
use revm::context_interface::{ContextTr, JournalTr};
use revm::handler::{EthPrecompiles, PrecompileProvider};
use revm::interpreter::{CallInputs, Gas, InstructionResult, InterpreterResult};
use revm::primitives::AddressSet;
use revm::primitives::hardfork::SpecId;

use crate::execute::BLACKHOLE;
use crate::fee::FeeConfig;
use crate::precompiles::Role;
use crate::warp::precompile::{Reading, get_verified};
use firn_core::warp::predicate::WarpGas;

const READ_SLOT: u64 = 2_600;
const WRITE_SLOT: u64 = 20_000;
const MINT: u64 = 30_000;
const WARP_BASE: u64 = 41_500;
const WARP_PER_BYTE: u64 = 8;
/// The Warp precompile's gas before Granite (the devnet's upgrades stop at Fortuna).
pub(crate) const WARP_GAS: WarpGas = WarpGas::PRE_GRANITE;

fn log_gas(topics: u64, data: u64) -> u64 {
    375 + 375 * topics + 8 * data
}

fn selector(sig: &str) -> [u8; 4] {
    let h = keccak256(sig.as_bytes());
    [h[0], h[1], h[2], h[3]]
}

/// What a stateful precompile address does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An allow list only (tx allow list, deployer allow list).
    AllowList,
    /// Native minter (allow list + mint).
    NativeMinter,
    /// Fee manager (allow list + fee config reads).
    FeeManager,
    /// Reward manager (allow list + reads).
    RewardManager,
    /// Warp messenger.
    Warp,
}

/// The chain's stateful precompiles.
#[derive(Debug, Clone)]
pub struct Stateful {
    /// Address and kind of each enabled precompile.
    pub entries: Vec<(Address, Kind)>,
    /// The Avalanche blockchain ID.
    pub blockchain_id: B256,
    /// The Avalanche network ID.
    pub network_id: u32,
    /// The fee config `getFeeConfig` returns.
    pub fee_config: FeeConfig,
    /// Whether fee recipients are allowed.
    pub allow_fee_recipients: bool,
}

impl Stateful {
    /// The kind at `address`.
    pub fn kind(&self, address: &Address) -> Option<Kind> {
        self.entries
            .iter()
            .find(|(a, _)| a == address)
            .map(|(_, k)| *k)
    }
}

/// revm's precompiles plus the chain's stateful ones.
#[derive(Debug, Clone)]
pub struct SubnetPrecompiles {
    eth: EthPrecompiles,
    stateful: Arc<Stateful>,
    warm: AddressSet,
    /// The running tx's Warp predicates the block builder found unverified, by index.
    warp_failed: Vec<usize>,
    /// Whether the chain receives Warp messages; when not, every predicate reads as invalid.
    receives_warp: bool,
}

impl SubnetPrecompiles {
    /// The Cancun precompiles and `stateful`.
    pub fn new(stateful: Arc<Stateful>) -> Self {
        let eth = EthPrecompiles::new(SpecId::CANCUN);
        let mut warm = eth.warm_addresses().clone();
        for (a, _) in &stateful.entries {
            warm.insert(*a);
        }
        Self {
            eth,
            stateful,
            warm,
            warp_failed: Vec::new(),
            receives_warp: false,
        }
    }

    /// Makes the Warp precompile read (`on`) or ignore the predicates txs carry.
    pub(crate) fn receive_warp(&mut self, on: bool) {
        self.receives_warp = on && self.has_warp();
    }

    /// Whether the chain receives Warp messages (its txs' predicates are charged and checked).
    pub fn receives_warp(&self) -> bool {
        self.receives_warp
    }

    /// These precompiles for a tx whose Warp predicates at `failed` did not verify (a call
    /// outside a block has every predicate verified, as in subnet-EVM).
    pub fn for_tx(&self, failed: Vec<usize>) -> Self {
        Self {
            warp_failed: failed,
            ..self.clone()
        }
    }

    /// Whether the Warp precompile is installed (then txs may carry Warp predicates).
    pub fn has_warp(&self) -> bool {
        self.stateful.entries.iter().any(|(_, k)| *k == Kind::Warp)
    }

    /// Every precompile's address, the stateful ones included.
    pub fn addresses(&self) -> impl Iterator<Item = Address> + '_ {
        self.warm.iter().copied()
    }
}

/// A call's outcome before it becomes an `InterpreterResult`.
pub(crate) enum Outcome {
    Return(Vec<u8>),
    /// Fails consuming all gas, as subnet-evm's precompile errors do.
    Error,
    OutOfGas,
}

pub(crate) struct Call<'a> {
    address: Address,
    caller: Address,
    input: &'a [u8],
    value: U256,
    is_static: bool,
    gas: u64,
    used: u64,
}

impl Call<'_> {
    pub(crate) fn charge(&mut self, cost: u64) -> bool {
        if self.gas - self.used < cost {
            return false;
        }
        self.used += cost;
        true
    }

    pub(crate) fn arg_word(&self, i: usize) -> Option<[u8; 32]> {
        let start = 4 + 32 * i;
        self.input.get(start..start + 32)?.try_into().ok()
    }

    fn arg_address(&self, i: usize) -> Option<Address> {
        self.arg_word(i).map(|w| Address::from_slice(&w[12..]))
    }
}

fn word(v: U256) -> Vec<u8> {
    v.to_be_bytes::<32>().to_vec()
}

fn addr_topic(a: &Address) -> B256 {
    B256::left_padding_from(a.as_slice())
}

impl<CTX: ContextTr> PrecompileProvider<CTX> for SubnetPrecompiles {
    type Output = InterpreterResult;

    fn set_spec(&mut self, spec: <CTX::Cfg as Cfg>::Spec) -> bool {
        <EthPrecompiles as PrecompileProvider<CTX>>::set_spec(&mut self.eth, spec)
    }

    fn run(
        &mut self,
        context: &mut CTX,
        inputs: &CallInputs,
    ) -> Result<Option<InterpreterResult>, String> {
        let Some(kind) = self.stateful.kind(&inputs.bytecode_address) else {
            return self.eth.run(context, inputs);
        };
        let input = inputs.input.bytes(context);
        let mut call = Call {
            address: inputs.bytecode_address,
            caller: inputs.caller,
            input: &input,
            value: inputs.value.get(),
            is_static: inputs.is_static,
            gas: inputs.gas_limit,
            used: 0,
        };
        let failed = self.receives_warp.then_some(self.warp_failed.as_slice());
        let outcome = run_stateful(&self.stateful, kind, context, &mut call, failed)?;
        let mut gas = Gas::new(inputs.gas_limit);
        let (result, output) = match outcome {
            Outcome::Return(out) => {
                // `used` never exceeds the limit (`charge` checks), so this cannot fail.
                let _ = gas.record_regular_cost(call.used);
                (InstructionResult::Return, Bytes::from(out))
            }
            Outcome::Error => {
                gas.spend_all();
                (InstructionResult::PrecompileError, Bytes::new())
            }
            Outcome::OutOfGas => {
                gas.spend_all();
                (InstructionResult::PrecompileOOG, Bytes::new())
            }
        };
        Ok(Some(InterpreterResult::new(result, output, gas)))
    }

    fn warm_addresses(&self) -> &AddressSet {
        &self.warm
    }

    fn contains(&self, address: &Address) -> bool {
        self.warm.contains(address)
    }
}

fn load_role<CTX: ContextTr>(ctx: &mut CTX, list: Address, who: &Address) -> Result<U256, String> {
    let j = ctx.journal_mut();
    j.load_account(list).map_err(|e| e.to_string())?;
    let v = j
        .sload(list, U256::from_be_slice(who.as_slice()))
        .map_err(|e| e.to_string())?;
    Ok(v.data)
}

fn run_stateful<CTX: ContextTr>(
    s: &Stateful,
    kind: Kind,
    ctx: &mut CTX,
    call: &mut Call<'_>,
    warp_failed: Option<&[usize]>,
) -> Result<Outcome, String> {
    if call.input.len() < 4 {
        return Ok(Outcome::Error);
    }
    let sel: [u8; 4] = [call.input[0], call.input[1], call.input[2], call.input[3]];
    if kind == Kind::Warp {
        return warp(s, ctx, call, sel, warp_failed);
    }
    // Every other kind is guarded by an allow list at its own address.
    if sel == selector("readAllowList(address)") {
        let Some(who) = call.arg_address(0) else {
            return Ok(Outcome::Error);
        };
        if !call.charge(READ_SLOT) {
            return Ok(Outcome::OutOfGas);
        }
        return Ok(Outcome::Return(word(load_role(ctx, call.address, &who)?)));
    }
    for (sig, role) in [
        ("setAdmin(address)", Role::Admin),
        ("setEnabled(address)", Role::Enabled),
        ("setManager(address)", Role::Manager),
        ("setNone(address)", Role::None),
    ] {
        if sel == selector(sig) {
            return set_role(ctx, call, role);
        }
    }
    match kind {
        Kind::NativeMinter if sel == selector("mintNativeCoin(address,uint256)") => mint(ctx, call),
        Kind::FeeManager if sel == selector("getFeeConfig()") => {
            if !call.charge(8 * READ_SLOT) {
                return Ok(Outcome::OutOfGas);
            }
            let f = &s.fee_config;
            let out = [
                f.gas_limit,
                f.target_block_rate,
                f.min_base_fee,
                f.target_gas,
                f.base_fee_change_denominator,
                f.min_block_gas_cost,
                f.max_block_gas_cost,
                f.block_gas_cost_step,
            ]
            .iter()
            .flat_map(|v| word(U256::from(*v)))
            .collect();
            Ok(Outcome::Return(out))
        }
        Kind::FeeManager if sel == selector("getFeeConfigLastChangedAt()") => {
            if !call.charge(READ_SLOT) {
                return Ok(Outcome::OutOfGas);
            }
            Ok(Outcome::Return(word(U256::ZERO)))
        }
        Kind::RewardManager if sel == selector("areFeeRecipientsAllowed()") => {
            if !call.charge(READ_SLOT) {
                return Ok(Outcome::OutOfGas);
            }
            Ok(Outcome::Return(word(U256::from(u8::from(
                s.allow_fee_recipients,
            )))))
        }
        Kind::RewardManager if sel == selector("currentRewardAddress()") => {
            if !call.charge(READ_SLOT) {
                return Ok(Outcome::OutOfGas);
            }
            let mut w = [0u8; 32];
            w[12..].copy_from_slice(BLACKHOLE.as_slice());
            Ok(Outcome::Return(w.to_vec()))
        }
        _ => Ok(Outcome::Error),
    }
}

fn set_role<CTX: ContextTr>(
    ctx: &mut CTX,
    call: &mut Call<'_>,
    role: Role,
) -> Result<Outcome, String> {
    let Some(who) = call.arg_address(0) else {
        return Ok(Outcome::Error);
    };
    if call.input.len() != 36 || call.is_static {
        return Ok(Outcome::Error);
    }
    if !call.charge(WRITE_SLOT) {
        return Ok(Outcome::OutOfGas);
    }
    let caller_role = load_role(ctx, call.address, &call.caller)?;
    let old = load_role(ctx, call.address, &who)?;
    let admin = caller_role == U256::from(Role::Admin as u8);
    // A manager may move addresses between none and enabled only (Durango).
    let manager_ok = caller_role == U256::from(Role::Manager as u8)
        && matches!(role, Role::Enabled | Role::None)
        && old <= U256::from(Role::Enabled as u8);
    if !admin && !manager_ok {
        return Ok(Outcome::Error);
    }
    if !call.charge(log_gas(4, 32)) {
        return Ok(Outcome::OutOfGas);
    }
    let j = ctx.journal_mut();
    j.sstore(
        call.address,
        U256::from_be_slice(who.as_slice()),
        U256::from(role as u8),
    )
    .map_err(|e| e.to_string())?;
    let topics = vec![
        keccak256("RoleSet(uint256,address,address,uint256)"),
        B256::from(U256::from(role as u8)),
        addr_topic(&who),
        addr_topic(&call.caller),
    ];
    j.log(Log {
        address: call.address,
        data: LogData::new_unchecked(topics, Bytes::from(word(old))),
    });
    Ok(Outcome::Return(Vec::new()))
}

fn mint<CTX: ContextTr>(ctx: &mut CTX, call: &mut Call<'_>) -> Result<Outcome, String> {
    let (Some(to), Some(amount)) = (call.arg_address(0), call.arg_word(1)) else {
        return Ok(Outcome::Error);
    };
    if call.is_static || !call.value.is_zero() {
        return Ok(Outcome::Error);
    }
    if !call.charge(MINT) {
        return Ok(Outcome::OutOfGas);
    }
    if load_role(ctx, call.address, &call.caller)?.is_zero() {
        return Ok(Outcome::Error);
    }
    if !call.charge(log_gas(3, 32)) {
        return Ok(Outcome::OutOfGas);
    }
    let amount = U256::from_be_bytes(amount);
    let j = ctx.journal_mut();
    j.load_account(to).map_err(|e| e.to_string())?;
    j.balance_incr(to, amount).map_err(|e| e.to_string())?;
    j.log(Log {
        address: call.address,
        data: LogData::new_unchecked(
            vec![
                keccak256("NativeCoinMinted(address,address,uint256)"),
                addr_topic(&call.caller),
                addr_topic(&to),
            ],
            Bytes::from(word(amount)),
        ),
    });
    Ok(Outcome::Return(Vec::new()))
}

/// The unsigned Warp message `sendWarpMessage(payload)` from `sender` produces.
pub fn warp_message(
    network_id: u32,
    blockchain_id: B256,
    sender: &Address,
    payload: &[u8],
) -> UnsignedMessage {
    let call = AddressedCall {
        source_address: sender.to_vec(),
        payload: payload.to_vec(),
    };
    UnsignedMessage::new(network_id, Id::from(blockchain_id.0), call.bytes())
}

/// The Warp precompile; `failed` holds the running tx's unverified predicates, `None` on a
/// chain that receives no Warp messages.
fn warp<CTX: ContextTr>(
    s: &Stateful,
    ctx: &mut CTX,
    call: &mut Call<'_>,
    sel: [u8; 4],
    failed: Option<&[usize]>,
) -> Result<Outcome, String> {
    for (signature, reading) in [
        ("getVerifiedWarpMessage(uint32)", Reading::Message),
        ("getVerifiedWarpBlockHash(uint32)", Reading::BlockHash),
    ] {
        if sel == selector(signature) {
            return Ok(get_verified(ctx, call, reading, failed, &WARP_GAS));
        }
    }
    if sel == selector("getBlockchainID()") {
        if !call.charge(WARP_GAS.get_blockchain_id) {
            return Ok(Outcome::OutOfGas);
        }
        return Ok(Outcome::Return(s.blockchain_id.to_vec()));
    }
    if sel != selector("sendWarpMessage(bytes)") {
        return Ok(Outcome::Error);
    }
    if call.is_static {
        return Ok(Outcome::Error);
    }
    // ABI: offset, then length and bytes.
    let payload = call
        .arg_word(0)
        .and_then(|w| usize::try_from(U256::from_be_bytes(w)).ok())
        .and_then(|off| {
            let len_at = 4 + off;
            let len: [u8; 32] = call.input.get(len_at..len_at + 32)?.try_into().ok()?;
            let len = usize::try_from(U256::from_be_bytes(len)).ok()?;
            call.input.get(len_at + 32..len_at + 32 + len)
        });
    let Some(payload) = payload else {
        return Ok(Outcome::Error);
    };
    if !call.charge(WARP_BASE + WARP_PER_BYTE * payload.len() as u64) {
        return Ok(Outcome::OutOfGas);
    }
    let message = warp_message(s.network_id, s.blockchain_id, &call.caller, payload);
    let id = B256::from(*message.id().as_bytes());
    let bytes = message.bytes();
    // ABI data of the event: offset, length, bytes padded.
    let mut data = word(U256::from(32));
    data.extend(word(U256::from(bytes.len())));
    let mut padded = bytes.clone();
    padded.resize(bytes.len().div_ceil(32) * 32, 0);
    data.extend(padded);
    ctx.journal_mut().log(Log {
        address: call.address,
        data: LogData::new_unchecked(
            vec![
                keccak256("SendWarpMessage(address,bytes32,bytes)"),
                addr_topic(&call.caller),
                id,
            ],
            Bytes::from(data),
        ),
    });
    Ok(Outcome::Return(id.to_vec()))
}
