//! Running revm: one transaction or call against the world state, in a block's environment,
//! with revm's errors turned into go-ethereum's texts.

use crate::deadline::Deadline;
use crate::deploy_gate::DeployGate;
use alloy_primitives::{Address, B256, U256};
use revm::context::result::{EVMError, ExecutionResult, InvalidTransaction, ResultAndState};
use revm::context::{BlockEnv, CfgEnv, TxEnv};
use revm::context_interface::block::BlobExcessGasAndPrice;
use revm::primitives::hardfork::SpecId;
use revm::{Context, InspectEvm, Inspector, MainBuilder, MainContext};

use crate::error::TxError;
use crate::state::StateDb;
use crate::stateful::SubnetPrecompiles;

/// subnet-EVM's fee recipient when fee recipients are not allowed (`constants.BlackholeAddr`).
pub const BLACKHOLE: Address =
    Address::new([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

/// Every tx's base intrinsic gas.
const TX_BASE_GAS: u64 = 21_000;

/// The block a transaction runs in.
#[derive(Debug, Clone, Copy)]
pub struct BlockContext {
    /// EVM chain ID.
    pub chain_id: u64,
    /// Height.
    pub number: u64,
    /// Seconds.
    pub timestamp: u64,
    /// Base fee, wei.
    pub base_fee: u64,
    /// Gas limit.
    pub gas_limit: u64,
    /// Fee recipient.
    pub beneficiary: Address,
}

/// What a call may skip (`eth_call` without fees skips the base fee and balance checks).
#[derive(Debug, Clone, Copy, Default)]
pub struct CallOptions {
    /// Skip the base fee check (geth's `NoBaseFee`).
    pub no_base_fee: bool,
    /// Skip the balance check.
    pub no_balance_check: bool,
    /// Skip the nonce check.
    pub no_nonce_check: bool,
    /// Intrinsic gas the tx's Warp predicates add beyond their access-list price
    /// ([`crate::warp::receive::predicate_gas`]).
    pub predicate_gas: u64,
}

pub(crate) fn envs(block: &BlockContext, opts: CallOptions) -> (CfgEnv, BlockEnv) {
    // Etna = Cancun for the EVM; subnet-EVM never activates the merge, so DIFFICULTY reads 1.
    let mut cfg = CfgEnv::new_with_spec(SpecId::CANCUN);
    cfg.chain_id = block.chain_id;
    cfg.disable_base_fee = opts.no_base_fee;
    cfg.disable_balance_check = opts.no_balance_check;
    cfg.disable_nonce_check = opts.no_nonce_check;
    // subnet-EVM gives no gas refunds: a quotient of u64::MAX caps every refund at 0.
    cfg.gas_params.override_gas([(
        revm::context_interface::cfg::GasId::max_refund_quotient(),
        u64::MAX,
    )]);
    charge_predicates(&mut cfg, opts.predicate_gas);
    let env = BlockEnv {
        number: U256::from(block.number),
        beneficiary: block.beneficiary,
        timestamp: U256::from(block.timestamp),
        gas_limit: block.gas_limit,
        basefee: block.base_fee,
        difficulty: U256::from(1),
        prevrandao: Some(B256::from(U256::from(1))),
        blob_excess_gas_and_price: Some(BlobExcessGasAndPrice::new_with_spec(0, SpecId::CANCUN)),
        slot_num: 0,
    };
    (cfg, env)
}

/// Makes `cfg` charge `predicate_gas` on top of a tx's intrinsic gas: Warp predicates cost their
/// own gas instead of the access-list price, so the difference goes with the base.
pub(crate) fn charge_predicates(cfg: &mut CfgEnv, predicate_gas: u64) {
    cfg.gas_params.override_gas([(
        revm::context_interface::cfg::GasId::tx_base_stipend(),
        TX_BASE_GAS.saturating_add(predicate_gas),
    )]);
}

/// Executes a client's call `tx` on `db` without changing it, cut short at `deadline` (see
/// [`Deadline::expired`]); `gate` fails the creations of an origin the deployer allow list
/// refuses.
#[allow(clippy::too_many_arguments)]
pub fn transact_call(
    db: StateDb<'_>,
    precompiles: &SubnetPrecompiles,
    block: &BlockContext,
    tx: TxEnv,
    opts: CallOptions,
    gate: DeployGate,
    deadline: Deadline,
) -> Result<(ResultAndState, Deadline), TxError> {
    let (cfg, env) = envs(block, opts);
    let mut evm = Context::mainnet()
        .with_cfg(cfg)
        .with_block(env)
        .with_ref_db(db)
        .build_mainnet_with_inspector((gate, deadline))
        .with_precompiles(precompiles.clone());
    let out = evm.inspect_tx(tx).map_err(map_error)?;
    Ok((out, evm.inspector.1))
}

/// Executes `tx` in `block` on `db` without changing it, with `inspector` watching.
pub fn inspect<I>(
    db: StateDb<'_>,
    precompiles: &SubnetPrecompiles,
    block: &BlockContext,
    tx: TxEnv,
    opts: CallOptions,
    inspector: I,
) -> Result<(ResultAndState, I), TxError>
where
    I: for<'a> Inspector<
        revm::handler::MainnetContext<revm::database_interface::WrapDatabaseRef<StateDb<'a>>>,
    >,
{
    let (cfg, env) = envs(block, opts);
    let mut evm = Context::mainnet()
        .with_cfg(cfg)
        .with_block(env)
        .with_ref_db(db)
        .build_mainnet_with_inspector(inspector)
        .with_precompiles(precompiles.clone());
    let out = evm.inspect_tx(tx).map_err(map_error)?;
    Ok((out, evm.inspector))
}

pub(crate) fn map_error<E: std::fmt::Display>(e: EVMError<E>) -> TxError {
    match e {
        EVMError::Transaction(t) => invalid_tx(t),
        other => TxError::Other(other.to_string()),
    }
}

fn invalid_tx(t: InvalidTransaction) -> TxError {
    use InvalidTransaction as I;
    match t {
        I::NonceTooLow { tx, state } => TxError::NonceTooLow { next: state, tx },
        I::NonceTooHigh { tx, state } => TxError::Other(format!(
            "nonce too high: address has nonce {state}, tx nonce {tx}"
        )),
        I::LackOfFundForMaxFee { fee, balance } => TxError::InsufficientFunds {
            overshot: fee.saturating_sub(*balance).to_string(),
            balance: balance.to_string(),
            cost: fee.to_string(),
        },
        I::CallGasCostMoreThanGasLimit {
            initial_gas,
            gas_limit,
        } => TxError::IntrinsicGas {
            gas: gas_limit,
            needed: initial_gas,
        },
        I::CallerGasLimitMoreThanBlock => TxError::GasLimit,
        I::GasPriceLessThanBasefee => {
            TxError::Other("max fee per gas less than block base fee".into())
        }
        I::PriorityFeeGreaterThanMaxFee => {
            TxError::Other("max priority fee per gas higher than max fee per gas".into())
        }
        I::CreateInitCodeSizeLimit => TxError::InitCodeTooLarge {
            size: 0,
            limit: crate::tx::MAX_INIT_CODE_SIZE,
        },
        I::InvalidChainId => TxError::InvalidSender("invalid chain id for signer".into()),
        I::RejectCallerWithCode => TxError::Other("sender not an eoa".into()),
        other => TxError::Other(other.to_string()),
    }
}

/// go-ethereum's text for a call that did not succeed, and the revert data.
pub fn failure(result: &ExecutionResult) -> Option<TxError> {
    match result {
        ExecutionResult::Success { .. } => None,
        ExecutionResult::Revert { output, .. } => Some(TxError::Reverted {
            message: match revert_reason(output) {
                Some(reason) => format!("execution reverted: {reason}"),
                None => "execution reverted".into(),
            },
            data: output.clone(),
        }),
        ExecutionResult::Halt { reason, .. } => Some(TxError::Halted(halt_text(reason))),
    }
}

/// geth's vm error texts for a halt.
pub fn halt_text(reason: &revm::context::result::HaltReason) -> String {
    use revm::context::result::HaltReason as H;
    match reason {
        H::OutOfGas(_) => "out of gas".into(),
        H::OpcodeNotFound | H::InvalidFEOpcode => "invalid opcode".into(),
        H::StackUnderflow => "stack underflow".into(),
        H::StackOverflow => "stack limit reached 1024 (1023)".into(),
        H::InvalidJump => "invalid jump destination".into(),
        H::StateChangeDuringStaticCall => "write protection".into(),
        H::OutOfFunds => "insufficient balance for transfer".into(),
        H::CallTooDeep => "max call depth exceeded".into(),
        H::CreateCollision => "contract address collision".into(),
        H::CreateContractSizeLimit => "max code size exceeded".into(),
        H::CreateContractStartingWithEF => "invalid code: must not begin with 0xef".into(),
        H::NonceOverflow => "nonce uint64 overflow".into(),
        H::PrecompileError | H::PrecompileErrorWithContext(_) => {
            "precompiled contract failed".into()
        }
        other => format!("{other:?}"),
    }
}

/// The `Error(string)` reason of revert data, if it has one.
pub fn revert_reason(output: &[u8]) -> Option<String> {
    // selector 0x08c379a0, offset, length, bytes
    if output.len() < 68 || output[..4] != [0x08, 0xc3, 0x79, 0xa0] {
        return None;
    }
    let len = U256::from_be_slice(&output[36..68]);
    let len = usize::try_from(len).ok()?;
    let bytes = output.get(68..68usize.checked_add(len)?)?;
    String::from_utf8(bytes.to_vec()).ok()
}
