//! A time limit for calls the node runs for clients (`eth_call`, `eth_estimateGas`): geth's
//! `RPCEVMTimeout`. An inspector checks the clock every few hundred instructions; once it
//! has passed, every frame halts at its next instruction, so the call ends at once and the
//! chain's lock is released.

use std::time::{Duration, Instant};

use revm::Inspector;
use revm::interpreter::{InstructionResult, Interpreter, InterpreterTypes};

/// How often (in instructions) the clock is read: cheap enough, and quick to notice.
const CHECK_EVERY: u32 = 256;

/// Halts execution once `at` has passed; [`Deadline::expired`] says whether it did.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    at: Instant,
    steps: u32,
    expired: bool,
}

impl Deadline {
    /// A deadline `limit` from now.
    pub fn after(limit: Duration) -> Self {
        Self {
            at: Instant::now() + limit,
            steps: 0,
            expired: false,
        }
    }

    /// Whether execution was cut short.
    pub fn expired(&self) -> bool {
        self.expired
    }
}

impl<CTX, INTR: InterpreterTypes> Inspector<CTX, INTR> for Deadline {
    fn step(&mut self, interp: &mut Interpreter<INTR>, _: &mut CTX) {
        self.steps = self.steps.wrapping_add(1);
        if !self.expired && self.steps.is_multiple_of(CHECK_EVERY) && Instant::now() >= self.at {
            self.expired = true;
        }
        if self.expired {
            interp.halt(InstructionResult::OutOfGas);
        }
    }
}
