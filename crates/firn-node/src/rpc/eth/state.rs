//! State methods beyond reads: `eth_getProof` (Merkle proofs at the head or any of the last
//! [`STATE_HISTORY`] blocks, geth's "historical proof query not allowed" before them),
//! `eth_createAccessList`, coreth's `eth_callDetailed` and `eth_suggestPriceOptions`, and the
//! two lists a single-producer devnet keeps empty: `eth_getBadBlocks` (it builds every block it
//! accepts) and `eth_pendingTransactions` (pooled transactions of the node's own accounts,
//! and it holds none).

use alloy_primitives::{B256, U256};
use firn_evm::access_list::AccessListed;
use firn_evm::history::STATE_HISTORY;
use firn_evm::replay::{ExecutionResult, Output};
use firn_evm::{SUGGESTED_TIP, revert_reason};
use firn_rpc::EthServer;
use firn_rpc::methods::eth::{AccessListItem, Transaction};
use firn_rpc::methods::state::{
    AccessListResult, AccountResult, DetailedExecutionResult, StorageResult,
};
use serde_json::{Value, json};

use super::blocks::find_block;
use super::params::{Addr, BlockId, BlockTag, CallArgs, decode_hash};
use super::shapes::tx_json;
use super::txs::state_block;
use super::{EthError, State};

/// Slots one `eth_getProof` proves at most.
pub const MAX_PROOF_KEYS: usize = 1024;

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("eth_getProof", get_proof)
        .method("eth_createAccessList", create_access_list)
        .method("eth_callDetailed", call_detailed)
        .method("eth_suggestPriceOptions", suggest_price_options)
        .method("eth_getBadBlocks", get_bad_blocks)
        .method("eth_pendingTransactions", pending_transactions)
}

/// `eth_getProof [address, storageKeys, block]` → the account and slots with their proofs.
async fn get_proof(
    node: State,
    (addr, keys, id): (Addr, Vec<String>, BlockId),
) -> Result<AccountResult, EthError> {
    if keys.len() > MAX_PROOF_KEYS {
        return Err(EthError::server(format!(
            "too many storage keys: {} (firn proves at most {MAX_PROOF_KEYS} a call)",
            keys.len()
        )));
    }
    let keys: Vec<(B256, usize)> = keys
        .iter()
        .map(|k| decode_hash(k).map_err(EthError::server))
        .collect::<Result<_, _>>()?;
    let head = node.chain.height();
    let number = match id {
        BlockId::Tag(BlockTag::Latest | BlockTag::Pending) => head,
        other => {
            find_block(&node, other)
                .ok_or_else(|| EthError::server("header not found"))?
                .header
                .number
        }
    };
    let oldest = head.saturating_sub(STATE_HISTORY as u64);
    if number < oldest {
        return Err(EthError::server(format!(
            "historical proof query not allowed: block number {number} is before the oldest \
             allowed block number {oldest} (window of {STATE_HISTORY} blocks)"
        )));
    }
    let slots: Vec<B256> = keys.iter().map(|(slot, _)| *slot).collect();
    let proof = node
        .on_chain(move |c| {
            c.proof_at(&addr.0, &slots, number).ok_or_else(|| {
                EthError::server(format!(
                    "historical state at block {number} is not available"
                ))
            })
        })
        .await?;
    let storage_proof = proof
        .storage
        .into_iter()
        .zip(&keys)
        .map(|(s, (slot, given))| StorageResult {
            // As geth: a full 32-byte key comes back as given, a shorter one as a quantity.
            key: if *given == 32 {
                format!("{slot:#x}")
            } else {
                format!("{:#x}", U256::from_be_bytes(slot.0))
            },
            value: s.value,
            proof: s.proof,
        })
        .collect();
    Ok(AccountResult {
        address: addr.0,
        account_proof: proof.account_proof,
        balance: proof.balance,
        code_hash: proof.code_hash,
        nonce: proof.nonce,
        storage_hash: proof.storage_root,
        storage_proof,
    })
}

/// `eth_createAccessList [call, block?]` → `{accessList, error?, gasUsed}`.
async fn create_access_list(
    node: State,
    (args, id): (CallArgs, Option<BlockId>),
) -> Result<AccessListResult, EthError> {
    let at = state_block(&node, id)?;
    let listed: AccessListed = node
        .on_chain(move |c| c.create_access_list(&args.0, at))
        .await?;
    Ok(AccessListResult {
        access_list: listed
            .access_list
            .0
            .into_iter()
            .map(|item| AccessListItem {
                address: item.address,
                storage_keys: item.storage_keys,
            })
            .collect(),
        error: listed.error,
        gas_used: listed.gas_used,
    })
}

/// `eth_callDetailed [call, block]` → `{gas, errCode, err, returnData}`: a failed call is an
/// answer, not an error.
async fn call_detailed(
    node: State,
    (args, id): (CallArgs, BlockId),
) -> Result<DetailedExecutionResult, EthError> {
    let at = state_block(&node, Some(id))?;
    let result = node
        .on_chain(move |c| c.call_result_at(&args.0, at))
        .await?;
    let gas = result.tx_gas_used();
    Ok(match result {
        ExecutionResult::Success { output, .. } => DetailedExecutionResult {
            gas,
            err_code: 0,
            err: String::new(),
            return_data: match output {
                Output::Call(b) | Output::Create(b, _) => b,
            },
        },
        ExecutionResult::Revert { output, .. } => {
            let (err_code, err) = match (output.is_empty(), revert_reason(&output)) {
                (true, _) => (0, "execution reverted".to_owned()),
                (false, Some(reason)) => (3, format!("execution reverted: {reason}")),
                (false, None) => (3, "execution reverted".to_owned()),
            };
            DetailedExecutionResult {
                gas,
                err_code,
                err,
                return_data: output,
            }
        }
        ExecutionResult::Halt { reason, .. } => DetailedExecutionResult {
            gas,
            err_code: 0,
            err: firn_evm::halt_text(&reason),
            return_data: Default::default(),
        },
    })
}

/// coreth's default `price-options-slow-fee-percentage`, `-fast-fee-percentage` and
/// `-max-tip` (20 gwei).
const SLOW_PERCENT: u128 = 95;
const FAST_PERCENT: u128 = 105;
const MAX_TIP: u128 = 20_000_000_000;

/// `eth_suggestPriceOptions []` → slow, normal and fast `{maxPriorityFeePerGas,
/// maxFeePerGas}`: tips around the suggested one, fee caps twice the next base fee above them.
async fn suggest_price_options(node: State, (): ()) -> Result<Value, EthError> {
    let base_fee = u128::from(node.chain.next_base_fee());
    let capped = SUGGESTED_TIP.min(MAX_TIP);
    let tips = [
        (capped * SLOW_PERCENT / 100).max(1),
        capped,
        SUGGESTED_TIP * FAST_PERCENT / 100,
    ];
    let price = |tip: u128| {
        json!({
            "maxPriorityFeePerGas": U256::from(tip),
            "maxFeePerGas": U256::from(2 * base_fee + tip),
        })
    };
    Ok(json!({"slow": price(tips[0]), "normal": price(tips[1]), "fast": price(tips[2])}))
}

/// `eth_getBadBlocks []` → the blocks the node refused; a devnet builds every block it has.
async fn get_bad_blocks(_: State, (): ()) -> Result<Vec<Value>, EthError> {
    Ok(Vec::new())
}

/// `eth_pendingTransactions []` → pooled transactions sent by the node's own accounts
/// (`eth_accounts`: firn holds no keys, so the impersonated ones).
async fn pending_transactions(node: State, (): ()) -> Result<Vec<Transaction>, EthError> {
    let own = node.impersonation.accounts();
    Ok(node
        .chain
        .pooled()
        .iter()
        .filter(|t| own.contains(&t.sender))
        .map(|t| tx_json(t, None))
        .collect())
}
