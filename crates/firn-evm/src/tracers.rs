//! The tracers besides `callTracer` ([`crate::trace`]) that re-runs can watch with: go-ethereum's
//! struct logger (one entry per executed opcode, [`StructLogger`]) and what
//! `prestateTracer` reports, the accounts a run touched as they were before it and after
//! ([`Prestate`]).
//!
//! A struct log grows with every opcode: [`MAX_STEPS`] steps and [`MAX_MEMORY_BYTES`] of
//! captured memory per run at most, past which the run is refused with a message saying so,
//! rather than answered with gigabytes.

use std::collections::{BTreeMap, HashMap};

use alloy_primitives::{Address, B256, Bytes, U256};
use revm::Inspector;
use revm::bytecode::opcode::OpCode;
use revm::context_interface::{ContextTr, JournalTr};
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::interpreter_types::{InputsTr, Jumps, LoopControl, MemoryTr};
use revm::interpreter::{CallInputs, CallOutcome, CreateInputs, CreateOutcome, Interpreter};
use revm::state::EvmState;

/// Steps one struct log records at most.
pub const MAX_STEPS: usize = 200_000;
/// Memory bytes one struct log captures at most (`enableMemory`).
pub const MAX_MEMORY_BYTES: usize = 64 << 20;

/// What the struct logger records (geth's `logger.Config`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LoggerConfig {
    /// Leave out each step's stack.
    pub disable_stack: bool,
    /// Leave out each `SLOAD`/`SSTORE` step's storage.
    pub disable_storage: bool,
    /// Record each step's memory.
    pub enable_memory: bool,
    /// Record at most this many steps (0: no limit of the client's own).
    pub limit: usize,
}

/// One executed opcode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructStep {
    /// Program counter.
    pub pc: u64,
    /// The opcode's name.
    pub op: &'static str,
    /// Gas left before it.
    pub gas: u64,
    /// What it cost.
    pub gas_cost: u64,
    /// Call depth, from 1.
    pub depth: u64,
    /// The stack before it, bottom first.
    pub stack: Option<Vec<U256>>,
    /// Memory before it, in 32-byte words.
    pub memory: Option<Vec<B256>>,
    /// The current contract's slots read or written so far, at `SLOAD` and `SSTORE`.
    pub storage: Option<BTreeMap<U256, U256>>,
    /// Gas refunded so far.
    pub refund: u64,
    /// Why it failed, if it did.
    pub error: Option<String>,
}

/// geth's struct logger as an inspector.
#[derive(Debug, Default)]
pub struct StructLogger {
    config: LoggerConfig,
    steps: Vec<StructStep>,
    /// The step being executed: completed with its cost at `step_end`.
    open: Option<StructStep>,
    /// Per contract, the slots seen so far.
    storage: HashMap<Address, BTreeMap<U256, U256>>,
    memory_bytes: usize,
    /// Set once the log outgrew its bounds.
    overflow: Option<String>,
}

impl StructLogger {
    /// A logger recording what `config` asks for.
    pub fn new(config: LoggerConfig) -> Self {
        Self {
            config,
            ..Self::default()
        }
    }

    /// The steps, or why they were not all kept.
    pub fn into_steps(self) -> Result<Vec<StructStep>, String> {
        match self.overflow {
            Some(why) => Err(why),
            None => Ok(self.steps),
        }
    }

    fn full(&mut self) -> bool {
        if self.overflow.is_some() {
            return true;
        }
        if self.config.limit > 0 && self.steps.len() >= self.config.limit {
            return true;
        }
        if self.steps.len() >= MAX_STEPS {
            self.overflow = Some(format!(
                "the trace has more than {MAX_STEPS} steps: pass a smaller \"limit\", or use \
                 the callTracer"
            ));
            return true;
        }
        false
    }
}

impl<CTX: ContextTr> Inspector<CTX, EthInterpreter> for StructLogger {
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut CTX) {
        if self.full() {
            return;
        }
        let opcode = interp.bytecode.opcode();
        let stack = interp.stack.data();
        let storage = if self.config.disable_storage {
            None
        } else {
            let seen = self
                .storage
                .entry(interp.input.target_address())
                .or_default();
            match (opcode, stack.last()) {
                // SSTORE: the slot on top, the value below it.
                (0x55, Some(slot)) => {
                    let value = stack
                        .len()
                        .checked_sub(2)
                        .map(|i| stack[i])
                        .unwrap_or_default();
                    seen.insert(*slot, value);
                    Some(seen.clone())
                }
                // SLOAD: the value is known once it ran (step_end).
                (0x54, Some(_)) => Some(seen.clone()),
                _ => None,
            }
        };
        let memory = if self.config.enable_memory {
            let size = interp.memory.size();
            self.memory_bytes += size;
            if self.memory_bytes > MAX_MEMORY_BYTES {
                self.overflow = Some(format!(
                    "the trace's memory passed {MAX_MEMORY_BYTES} bytes: trace without \
                     \"enableMemory\", or with a smaller \"limit\""
                ));
                return;
            }
            let bytes = interp.memory.slice(0..size);
            Some(bytes.chunks(32).map(B256::right_padding_from).collect())
        } else {
            None
        };
        self.open = Some(StructStep {
            pc: interp.bytecode.pc() as u64,
            op: OpCode::new(opcode).map_or("INVALID", |o| o.as_str()),
            gas: interp.gas.remaining(),
            gas_cost: 0,
            depth: context.journal_mut().depth() as u64,
            stack: (!self.config.disable_stack).then(|| stack.to_vec()),
            memory,
            storage,
            refund: interp.gas.refunded().max(0) as u64,
            error: None,
        });
    }

    fn step_end(&mut self, interp: &mut Interpreter<EthInterpreter>, _: &mut CTX) {
        let Some(mut step) = self.open.take() else {
            return;
        };
        step.gas_cost = step.gas.saturating_sub(interp.gas.remaining());
        if step.op == "SLOAD"
            && let (Some(storage), Some(slot), Some(value)) = (
                step.storage.as_mut(),
                step.stack.as_ref().and_then(|s| s.last()),
                interp.stack.data().last(),
            )
        {
            storage.insert(*slot, *value);
            self.storage
                .entry(interp.input.target_address())
                .or_default()
                .insert(*slot, *value);
        }
        if let Some(result) = interp.bytecode.instruction_result().filter(|r| r.is_halt()) {
            step.error = Some(format!("{result:?}"));
        }
        self.steps.push(step);
    }

    fn call(&mut self, _: &mut CTX, _: &mut CallInputs) -> Option<CallOutcome> {
        None
    }

    fn create(&mut self, _: &mut CTX, _: &mut CreateInputs) -> Option<CreateOutcome> {
        None
    }
}

/// Accounts' balance, nonce and code before a run, by address (`None`: the account did not
/// exist).
pub type AccountsBefore = HashMap<Address, Option<(U256, u64, Bytes)>>;

/// An account's fields as `prestateTracer` reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountState {
    /// Balance.
    pub balance: Option<U256>,
    /// Nonce.
    pub nonce: Option<u64>,
    /// Code.
    pub code: Option<Bytes>,
    /// Slots.
    pub storage: BTreeMap<U256, U256>,
}

/// The accounts a run read or wrote: before it, and (for `diffMode`) what changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prestate {
    /// Every account touched, as it was before (slots: those touched).
    pub pre: BTreeMap<Address, AccountState>,
    /// Of the changed accounts, the changed fields' new values (deleted accounts left out).
    pub post: BTreeMap<Address, AccountState>,
    /// The accounts that changed (what `diffMode`'s `pre` holds).
    pub changed: Vec<Address>,
}

/// What a run touched, from revm's state diff and the accounts as they were before it
/// (`before`: balance, nonce, code; `None` for one that did not exist).
pub fn prestate(state: &EvmState, before: &AccountsBefore) -> Prestate {
    let mut out = Prestate::default();
    for (address, account) in state {
        let old = before.get(address).cloned().flatten();
        let (old_balance, old_nonce, old_code) = old.clone().unwrap_or_default();
        let mut pre = AccountState {
            balance: Some(old_balance),
            nonce: Some(old_nonce),
            code: (!old_code.is_empty()).then(|| old_code.clone()),
            storage: BTreeMap::new(),
        };
        let mut post = AccountState::default();
        let mut changed = false;
        for (slot, value) in &account.storage {
            pre.storage.insert(*slot, value.original_value);
            if value.is_changed() {
                post.storage.insert(*slot, value.present_value);
                changed = true;
            }
        }
        let new_code = account
            .info
            .code
            .as_ref()
            .map(|c| c.original_bytes())
            .unwrap_or_default();
        if account.is_touched() {
            if account.info.balance != old_balance {
                post.balance = Some(account.info.balance);
                changed = true;
            }
            if account.info.nonce != old_nonce {
                post.nonce = Some(account.info.nonce);
                changed = true;
            }
            if new_code != old_code {
                post.code = Some(new_code);
                changed = true;
            }
            if account.is_selfdestructed() {
                changed = true;
            }
        }
        // An account that did not exist and still holds nothing was only looked at.
        if old.is_none() && !changed {
            continue;
        }
        if changed {
            out.changed.push(*address);
            if !account.is_selfdestructed() {
                out.post.insert(*address, post);
            }
        }
        out.pre.insert(*address, pre);
    }
    out
}

/// What a re-run is watched by: the call tracer or the struct logger (one type, so that re-runs
/// need no higher-ranked bounds over the state's lifetime).
#[derive(Debug)]
pub enum Watcher {
    /// `callTracer` (with logs or without).
    Calls(crate::trace::CallTracer),
    /// The struct logger.
    Steps(StructLogger),
    /// `eth_createAccessList`'s lister.
    Access(crate::access_list::AccessLister),
    /// Nothing: a run for its state alone.
    Quiet,
}

impl<CTX: ContextTr> Inspector<CTX, EthInterpreter> for Watcher {
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut CTX) {
        match self {
            Watcher::Steps(s) => s.step(interp, context),
            Watcher::Access(a) => a.step(interp, context),
            Watcher::Calls(_) | Watcher::Quiet => {}
        }
    }

    fn step_end(&mut self, interp: &mut Interpreter<EthInterpreter>, context: &mut CTX) {
        if let Watcher::Steps(s) = self {
            s.step_end(interp, context);
        }
    }

    fn log(&mut self, context: &mut CTX, log: alloy_primitives::Log) {
        if let Watcher::Calls(c) = self {
            Inspector::<CTX, EthInterpreter>::log(c, context, log);
        }
    }

    fn call(&mut self, context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        match self {
            Watcher::Calls(c) => Inspector::<CTX, EthInterpreter>::call(c, context, inputs),
            Watcher::Steps(_) | Watcher::Access(_) | Watcher::Quiet => None,
        }
    }

    fn call_end(&mut self, context: &mut CTX, inputs: &CallInputs, outcome: &mut CallOutcome) {
        if let Watcher::Calls(c) = self {
            Inspector::<CTX, EthInterpreter>::call_end(c, context, inputs, outcome);
        }
    }

    fn create(&mut self, context: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        match self {
            Watcher::Calls(c) => Inspector::<CTX, EthInterpreter>::create(c, context, inputs),
            Watcher::Steps(_) | Watcher::Access(_) | Watcher::Quiet => None,
        }
    }

    fn create_end(
        &mut self,
        context: &mut CTX,
        inputs: &CreateInputs,
        outcome: &mut CreateOutcome,
    ) {
        if let Watcher::Calls(c) = self {
            Inspector::<CTX, EthInterpreter>::create_end(c, context, inputs, outcome);
        }
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        if let Watcher::Calls(c) = self {
            Inspector::<CTX, EthInterpreter>::selfdestruct(c, contract, target, value);
        }
    }
}
