//! `eth_createAccessList`: the call runs watched by an [`AccessLister`] that notes every
//! address and slot it touches (as geth's `AccessListTracer`: `SLOAD`/`SSTORE` slots of the
//! running contract, the targets of `BALANCE`, `EXTCODE*`, `SELFDESTRUCT` and the calls, but
//! not the sender, the recipient or the precompiles as bare addresses); it re-runs with the
//! list it found until the list stops growing, as warmer slots change the gas and so the path.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use alloy_eips::eip2930::{AccessList, AccessListItem};
use alloy_primitives::{Address, B256};
use revm::Inspector;
use revm::context_interface::ContextTr;
use revm::interpreter::Interpreter;
use revm::interpreter::interpreter::EthInterpreter;
use revm::interpreter::interpreter_types::{InputsTr, Jumps};

use crate::chain::EvmChain;
use crate::error::TxError;
use crate::execute::halt_text;
use crate::replay::ExecutionResult;
use crate::tracers::Watcher;
use crate::tx::CallRequest;

/// Re-runs at most this many times (each only grows the list; a real call settles in two or
/// three).
const MAX_ROUNDS: usize = 16;

/// The addresses and slots a run touched.
#[derive(Debug, Clone, Default)]
pub struct AccessLister {
    excluded: HashSet<Address>,
    list: BTreeMap<Address, BTreeSet<B256>>,
}

impl AccessLister {
    /// Starts from `seed`; `excluded` addresses are listed only with slots.
    fn new(seed: &AccessList, excluded: HashSet<Address>) -> Self {
        let mut lister = Self {
            excluded,
            list: BTreeMap::new(),
        };
        for item in seed.iter() {
            lister.add_address(item.address);
            for slot in &item.storage_keys {
                lister.list.entry(item.address).or_default().insert(*slot);
            }
        }
        lister
    }

    fn add_address(&mut self, address: Address) {
        if !self.excluded.contains(&address) {
            self.list.entry(address).or_default();
        }
    }

    /// The list, addresses and slots in order.
    fn access_list(&self) -> AccessList {
        AccessList(
            self.list
                .iter()
                .map(|(address, slots)| AccessListItem {
                    address: *address,
                    storage_keys: slots.iter().copied().collect(),
                })
                .collect(),
        )
    }
}

impl<CTX: ContextTr> Inspector<CTX, EthInterpreter> for AccessLister {
    fn step(&mut self, interp: &mut Interpreter<EthInterpreter>, _context: &mut CTX) {
        let stack = interp.stack.data();
        let top = |i: usize| stack.len().checked_sub(i).map(|i| stack[i]);
        match interp.bytecode.opcode() {
            // SLOAD, SSTORE
            0x54 | 0x55 => {
                if let Some(slot) = top(1) {
                    let contract = interp.input.target_address();
                    self.list
                        .entry(contract)
                        .or_default()
                        .insert(B256::from(slot));
                }
            }
            // BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH, SELFDESTRUCT
            0x31 | 0x3b | 0x3c | 0x3f | 0xff => {
                if let Some(a) = top(1) {
                    self.add_address(Address::from_word(B256::from(a)));
                }
            }
            // CALL, CALLCODE, DELEGATECALL, STATICCALL: the address under the gas.
            0xf1 | 0xf2 | 0xf4 | 0xfa if stack.len() >= 5 => {
                if let Some(a) = top(2) {
                    self.add_address(Address::from_word(B256::from(a)));
                }
            }
            _ => {}
        }
    }
}

/// What `eth_createAccessList` answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessListed {
    /// The addresses and slots the call touches.
    pub access_list: AccessList,
    /// The gas it uses with that list.
    pub gas_used: u64,
    /// Why the call failed with it, if it did (the list is still what it touched).
    pub error: Option<String>,
}

impl EvmChain {
    /// The access list of `req` on the state at block `at` (the head without one).
    pub fn create_access_list(
        &self,
        req: &CallRequest,
        at: Option<u64>,
    ) -> Result<AccessListed, TxError> {
        let from = req.from.unwrap_or_default();
        let to = match req.to {
            Some(to) => to,
            None => {
                let nonce = match (req.nonce, at) {
                    (Some(n), _) => n,
                    (None, Some(b)) => self.nonce_at(&from, b).unwrap_or_default(),
                    (None, None) => self.nonce(&from),
                };
                from.create(nonce)
            }
        };
        let mut excluded: HashSet<Address> = self.read().precompiles.provider.addresses().collect();
        excluded.extend([from, to]);
        let mut list = req.access_list.clone().unwrap_or_default();
        for _ in 0..MAX_ROUNDS {
            let mut round = req.clone();
            round.access_list = Some(list.clone());
            let lister = AccessLister::new(&list, excluded.clone());
            let run = self.trace_call(&round, at, Watcher::Access(lister))?;
            let Watcher::Access(lister) = run.inspector else {
                return Err(TxError::Other("the access list run lost its lister".into()));
            };
            let found = lister.access_list();
            if found == list {
                return Ok(AccessListed {
                    access_list: found,
                    gas_used: run.result.tx_gas_used(),
                    error: vm_error(&run.result),
                });
            }
            list = found;
        }
        Err(TxError::Other(format!(
            "the access list did not settle in {MAX_ROUNDS} runs"
        )))
    }
}

/// geth's text for a failed run.
fn vm_error(result: &ExecutionResult) -> Option<String> {
    match result {
        ExecutionResult::Success { .. } => None,
        ExecutionResult::Revert { .. } => Some("execution reverted".to_owned()),
        ExecutionResult::Halt { reason, .. } => Some(halt_text(reason)),
    }
}
