//! subnet-EVM's contract deployer allow list at execution: every contract creation, by a
//! transaction or from inside a contract (CREATE, CREATE2), fails unless `tx.origin` holds a
//! role in the list, using all the gas it was given, as subnet-evm's `CanCreateContract` hook
//! does. It is an inspector because only the interpreter sees inner creations; transactions
//! whose origin may deploy run without it. The refused creation still happens as a frame (the
//! creator's nonce moves on, as for any included creation); its init code is replaced by the
//! `INVALID` opcode, which fails it with all its gas spent.

use alloy_primitives::{Address, Bytes};
use revm::Inspector;
use revm::context_interface::ContextTr;
use revm::interpreter::{CreateInputs, CreateOutcome};

/// `INVALID` (EIP-141): halts, consuming all remaining gas.
const FAIL_USING_ALL_GAS: &[u8] = &[0xfe];

/// Fails every creation of a transaction whose origin may not deploy.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeployGate {
    refused_origin: Option<Address>,
}

impl DeployGate {
    /// A gate for a transaction from `origin`; `may_deploy` is the allow list's verdict.
    pub fn new(origin: Address, may_deploy: bool) -> Self {
        Self {
            refused_origin: (!may_deploy).then_some(origin),
        }
    }
}

impl<CTX: ContextTr> Inspector<CTX> for DeployGate {
    fn create(&mut self, _: &mut CTX, inputs: &mut CreateInputs) -> Option<CreateOutcome> {
        if self.refused_origin.is_some() {
            inputs.set_init_code(Bytes::from_static(FAIL_USING_ALL_GAS));
        }
        None
    }
}
