//! go-ethereum's `callTracer` as a revm inspector: one [`CallFrame`] per call or creation,
//! nested as they happened. Blocks are built with it, so every transaction's call tree is
//! kept with its receipt; other tracers, and `withLog`, re-run the block ([`crate::replay`]).

use alloy_primitives::{Address, Bytes, Log, U256};
use revm::Inspector;
use revm::context_interface::ContextTr;
use revm::context_interface::cfg::CreateScheme;
use revm::interpreter::{
    CallInputs, CallOutcome, CallScheme, CreateInputs, CreateOutcome, InstructionResult,
};

use crate::execute::revert_reason;

/// One call in a transaction's call tree, as `callTracer` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CallFrame {
    /// `CALL`, `STATICCALL`, `DELEGATECALL`, `CALLCODE`, `CREATE`, `CREATE2`, `SELFDESTRUCT`.
    pub kind: &'static str,
    /// Caller.
    pub from: Address,
    /// Callee or created contract.
    pub to: Option<Address>,
    /// Value (`None` for static and delegate calls).
    pub value: Option<U256>,
    /// Gas given to the call.
    pub gas: u64,
    /// Gas it used.
    pub gas_used: u64,
    /// Input (calldata or init code).
    pub input: Bytes,
    /// Output (return data or created code).
    pub output: Bytes,
    /// geth's error text, when it failed.
    pub error: Option<String>,
    /// The `Error(string)` reason of a revert.
    pub revert_reason: Option<String>,
    /// Calls it made.
    pub calls: Vec<CallFrame>,
    /// Logs it emitted (recorded with `withLog`), each with how many calls came before it.
    pub logs: Vec<(Log, u64)>,
}

/// The inspector: a stack of open frames, and the finished root.
#[derive(Debug, Default)]
pub struct CallTracer {
    stack: Vec<CallFrame>,
    root: Option<CallFrame>,
    with_logs: bool,
}

impl CallTracer {
    /// A tracer that also records each frame's logs (`withLog`).
    pub fn with_logs() -> Self {
        Self {
            with_logs: true,
            ..Self::default()
        }
    }

    /// The finished call tree.
    pub fn into_root(self) -> Option<CallFrame> {
        self.root
    }

    fn open(&mut self, frame: CallFrame) {
        self.stack.push(frame);
    }

    fn close(
        &mut self,
        result: InstructionResult,
        gas_spent: u64,
        output: Bytes,
        to: Option<Address>,
    ) {
        let Some(mut frame) = self.stack.pop() else {
            return;
        };
        frame.gas_used = gas_spent;
        if to.is_some() {
            frame.to = to;
        }
        if !result.is_ok() {
            if result.is_revert() {
                frame.error = Some("execution reverted".into());
                frame.revert_reason = revert_reason(&output);
            } else {
                frame.error = Some(error_text(result));
            }
        }
        frame.output = output;
        match self.stack.last_mut() {
            Some(parent) => parent.calls.push(frame),
            None => self.root = Some(frame),
        }
    }
}

fn error_text(r: InstructionResult) -> String {
    use InstructionResult as I;
    match r {
        I::OutOfGas
        | I::MemoryOOG
        | I::MemoryLimitOOG
        | I::PrecompileOOG
        | I::InvalidOperandOOG => "out of gas".into(),
        I::OpcodeNotFound | I::InvalidFEOpcode => "invalid opcode".into(),
        I::InvalidJump => "invalid jump destination".into(),
        I::StackUnderflow => "stack underflow".into(),
        I::StackOverflow => "stack overflow".into(),
        I::StateChangeDuringStaticCall => "write protection".into(),
        I::OutOfFunds => "insufficient balance for transfer".into(),
        I::CallTooDeep => "max call depth exceeded".into(),
        I::CreateCollision => "contract address collision".into(),
        I::CreateContractSizeLimit => "max code size exceeded".into(),
        I::CreateContractStartingWithEF => "invalid code: must not begin with 0xef".into(),
        I::PrecompileError => "precompiled contract failed".into(),
        other => format!("{other:?}"),
    }
}

impl<CTX: ContextTr> Inspector<CTX> for CallTracer {
    fn call(&mut self, context: &mut CTX, inputs: &mut CallInputs) -> Option<CallOutcome> {
        let (kind, value) = match inputs.scheme {
            CallScheme::Call => ("CALL", Some(inputs.value.get())),
            CallScheme::CallCode => ("CALLCODE", Some(inputs.value.get())),
            CallScheme::DelegateCall => ("DELEGATECALL", None),
            CallScheme::StaticCall => ("STATICCALL", None),
        };
        self.open(CallFrame {
            kind,
            from: inputs.caller,
            to: Some(inputs.target_address),
            value,
            gas: inputs.gas_limit,
            input: inputs.input.bytes(context),
            ..Default::default()
        });
        None
    }

    fn call_end(&mut self, _: &mut CTX, _: &CallInputs, outcome: &mut CallOutcome) {
        let r = &outcome.result;
        self.close(r.result, r.gas.total_gas_spent(), r.output.clone(), None);
    }

    fn create(&mut self, _: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        let kind = match inputs.scheme() {
            CreateScheme::Create2 { .. } => "CREATE2",
            _ => "CREATE",
        };
        self.open(CallFrame {
            kind,
            from: inputs.caller(),
            value: Some(inputs.value()),
            gas: inputs.gas_limit(),
            input: inputs.init_code().clone(),
            ..Default::default()
        });
        None
    }

    fn create_end(&mut self, _: &mut CTX, _: &CreateInputs, outcome: &mut CreateOutcome) {
        let r = &outcome.result;
        self.close(
            r.result,
            r.gas.total_gas_spent(),
            r.output.clone(),
            outcome.address,
        );
    }

    fn log(&mut self, _: &mut CTX, log: Log) {
        if self.with_logs
            && let Some(frame) = self.stack.last_mut()
        {
            let position = frame.calls.len() as u64;
            frame.logs.push((log, position));
        }
    }

    fn selfdestruct(&mut self, contract: Address, target: Address, value: U256) {
        if let Some(parent) = self.stack.last_mut() {
            parent.calls.push(CallFrame {
                kind: "SELFDESTRUCT",
                from: contract,
                to: Some(target),
                value: Some(value),
                ..Default::default()
            });
        }
    }
}
