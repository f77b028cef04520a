//! How a chain prices gas and sizes its blocks: subnet-EVM's fee window ([`window`]) on L1s,
//! ACP-176 ([`acp176`]) on the C-Chain. [`FeeRules::next_block`] gives the fee fields of the
//! block about to be built on a parent; [`BlockFees::extra`] the state its header records.

pub mod acp176;
mod window;

pub use acp176::{Acp176State, InsufficientCapacity};
pub use window::{
    FeeConfig, FeeWindow, ParentFees, WINDOW_LEN, WINDOW_SIZE, base_fee, block_gas_cost,
    next_window,
};

/// A chain's fee rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeeRules {
    /// subnet-EVM: a `feeConfig` and a 10-second gas window.
    Window(FeeConfig),
    /// coreth since Fortuna: ACP-176, the block builder moving the target toward the one the
    /// validators want ([`FeeRules::acp176`]).
    Acp176 {
        /// The target excess of the wanted target (`DesiredTargetExcess`).
        desired_target_excess: u64,
    },
}

/// The fee fields of a block about to be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockFees {
    /// Its base fee, wei.
    pub base_fee: u64,
    /// Its header's gas limit.
    pub gas_limit: u64,
    /// Most gas its transactions may use together (ACP-176's capacity; the gas limit else).
    pub capacity: u64,
    /// subnet-EVM's block gas cost (0 under ACP-176, as since Granite).
    pub block_gas_cost: u64,
    state: PendingState,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum PendingState {
    Window(FeeWindow),
    Acp176 { state: Acp176State, desired: u64 },
}

impl BlockFees {
    /// The extra data of the block's header once it used `gas_used` (at most
    /// [`capacity`](Self::capacity)).
    pub fn extra(&self, gas_used: u64) -> Result<Vec<u8>, InsufficientCapacity> {
        Ok(match &self.state {
            PendingState::Window(window) => window.to_bytes(),
            PendingState::Acp176 { state, desired } => {
                let mut state = *state;
                state.consume_gas(gas_used)?;
                state.update_target_excess(*desired);
                state.to_bytes()
            }
        })
    }
}

impl FeeRules {
    /// ACP-176 with validators aiming at `gas_target` gas per second (coreth's `gas-target`).
    pub fn acp176(gas_target: u64) -> Self {
        Self::Acp176 {
            desired_target_excess: acp176::desired_target_excess(gas_target),
        }
    }

    /// The fee fields of the child of `parent` at `timestamp`.
    pub fn next_block(&self, parent: &ParentFees<'_>, timestamp: u64) -> BlockFees {
        match self {
            Self::Window(config) => BlockFees {
                base_fee: base_fee(config, parent, timestamp),
                gas_limit: config.gas_limit,
                capacity: config.gas_limit,
                block_gas_cost: block_gas_cost(config, parent, timestamp),
                state: PendingState::Window(next_window(parent, timestamp)),
            },
            Self::Acp176 {
                desired_target_excess,
            } => {
                // coreth starts from the zero state after genesis; the devnet's genesis
                // records the state at its target instead, so it need not climb there.
                let mut state = Acp176State::parse(parent.extra).unwrap_or_default();
                state.advance_seconds(timestamp.saturating_sub(parent.time));
                BlockFees {
                    base_fee: state.gas_price(),
                    gas_limit: state.max_capacity(),
                    capacity: state.capacity,
                    block_gas_cost: 0,
                    state: PendingState::Acp176 {
                        state,
                        desired: *desired_target_excess,
                    },
                }
            }
        }
    }

    /// The genesis header's fields: base fee, gas limit and extra data.
    pub fn genesis(
        &self,
        base_fee: Option<u64>,
        gas_limit: u64,
        extra: &[u8],
    ) -> (u64, u64, Vec<u8>) {
        match self {
            Self::Window(config) => (
                base_fee.unwrap_or(config.min_base_fee),
                if gas_limit == 0 {
                    config.gas_limit
                } else {
                    gas_limit
                },
                extra.to_vec(),
            ),
            Self::Acp176 {
                desired_target_excess,
            } => {
                let mut state = Acp176State {
                    target_excess: *desired_target_excess,
                    ..Acp176State::default()
                };
                let max_capacity = state.max_capacity();
                state.capacity = max_capacity;
                (state.gas_price(), max_capacity, state.to_bytes())
            }
        }
    }

    /// The lowest fee cap the pool takes (coreth's `SetMinFee`): ACP-176's minimum price, or
    /// the fee config's minimum base fee. A tx under the current base fee waits in the pool.
    pub fn pool_minimum(&self) -> u64 {
        match self {
            Self::Window(config) => config.min_base_fee,
            Self::Acp176 { .. } => acp176::MIN_GAS_PRICE,
        }
    }
}
