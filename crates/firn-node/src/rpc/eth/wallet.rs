//! geth's account-bound transaction methods on a node that holds no keys: `eth_sign` and
//! `eth_signTransaction` answer "unknown account" (after geth's argument checks),
//! `eth_fillTransaction` fills a tx as `eth_sendTransaction` would and returns it unsigned,
//! and `eth_resend` replaces a pooled tx of an impersonated account with a new gas price or
//! limit.

use alloy_consensus::transaction::RlpEcdsaEncodableTx;
use alloy_consensus::{TxEip1559, TxEip2930, TxLegacy, TypedTransaction};
use alloy_primitives::{Address, B256, Bytes, Signature, TxKind, U256, keccak256};
use alloy_rlp::Header;
use firn_evm::{CallRequest, EvmChain, SUGGESTED_TIP, TxError, impersonated};
use firn_rpc::EthServer;
use serde_json::{Map, Value, json};

use super::params::{Addr, CallArgs, HexBytes, HexU64, HexU256};
use super::{EthError, State};

/// Registers this module's methods.
pub fn register(s: EthServer<State>) -> EthServer<State> {
    s.method("eth_sign", sign)
        .method("eth_signTransaction", sign_transaction)
        .method("eth_fillTransaction", fill_transaction)
        .method("eth_resend", resend)
}

/// Fills what `req` leaves unset as geth's `setDefaults` does: the pending nonce, an
/// estimate of the gas, and fees (a tip and twice the next base fee) unless a gas price is
/// given; a gas price makes a legacy tx, with an access list an EIP-2930 one.
pub(super) fn fill(
    c: &EvmChain,
    req: &CallRequest,
    from: Address,
) -> Result<TypedTransaction, TxError> {
    let nonce = req.nonce.unwrap_or_else(|| c.pending_nonce(&from));
    let gas_limit = match req.gas {
        Some(g) => g,
        None => c.estimate_gas(req)?,
    };
    let to = req.to.map_or(TxKind::Create, TxKind::Call);
    let value = req.value.unwrap_or_default();
    let input = req.input.clone().unwrap_or_default();
    let chain_id = c.chain_id();
    Ok(match (req.gas_price, &req.access_list) {
        (Some(gas_price), None) => TypedTransaction::Legacy(TxLegacy {
            chain_id: Some(chain_id),
            nonce,
            gas_price,
            gas_limit,
            to,
            value,
            input,
        }),
        (Some(gas_price), Some(list)) => TypedTransaction::Eip2930(TxEip2930 {
            chain_id,
            nonce,
            gas_price,
            gas_limit,
            to,
            value,
            input,
            access_list: list.clone(),
        }),
        (None, list) => {
            let tip = req.max_priority_fee_per_gas.unwrap_or(SUGGESTED_TIP);
            let max_fee = req
                .max_fee_per_gas
                .unwrap_or_else(|| 2 * c.next_base_fee() as u128 + tip);
            TypedTransaction::Eip1559(TxEip1559 {
                chain_id,
                nonce,
                gas_limit,
                max_fee_per_gas: max_fee,
                max_priority_fee_per_gas: tip,
                to,
                value,
                access_list: list.clone().unwrap_or_default(),
                input,
            })
        }
    })
}

/// The unsigned tx's bytes as geth's `MarshalBinary` writes them: V, R and S all zero.
fn unsigned_bytes(tx: &TypedTransaction) -> Bytes {
    let zero = Signature::new(U256::ZERO, U256::ZERO, false);
    let mut out = Vec::new();
    match tx {
        TypedTransaction::Legacy(t) => {
            // alloy writes a legacy V from the chain ID; geth writes the zero it holds.
            let payload = t.rlp_encoded_fields_length() + 3;
            Header {
                list: true,
                payload_length: payload,
            }
            .encode(&mut out);
            t.rlp_encode_fields(&mut out);
            out.extend_from_slice(&[alloy_rlp::EMPTY_STRING_CODE; 3]);
        }
        TypedTransaction::Eip2930(t) => t.eip2718_encode(&zero, &mut out),
        TypedTransaction::Eip1559(t) => t.eip2718_encode(&zero, &mut out),
        TypedTransaction::Eip4844(_) | TypedTransaction::Eip7702(_) => {}
    }
    Bytes::from(out)
}

fn quantity(n: impl std::fmt::LowerHex) -> Value {
    Value::String(format!("{n:#x}"))
}

/// The unsigned tx as geth's `types.Transaction` marshals it, fields in geth's order.
fn unsigned_json(tx: &TypedTransaction, raw: &Bytes) -> Value {
    let mut o = Map::new();
    let (ty, chain_id) = match tx {
        TypedTransaction::Legacy(_) => (0u8, None),
        TypedTransaction::Eip2930(t) => (1, Some(t.chain_id)),
        TypedTransaction::Eip1559(t) => (2, Some(t.chain_id)),
        _ => (0, None),
    };
    o.insert("type".into(), quantity(ty));
    if let Some(id) = chain_id {
        o.insert("chainId".into(), quantity(id));
    }
    use alloy_consensus::Transaction as _;
    o.insert("nonce".into(), quantity(tx.nonce()));
    o.insert(
        "to".into(),
        tx.to().map_or(Value::Null, |a| json!(format!("{a:#x}"))),
    );
    o.insert("gas".into(), quantity(tx.gas_limit()));
    match tx {
        TypedTransaction::Eip1559(t) => {
            o.insert(
                "maxPriorityFeePerGas".into(),
                quantity(t.max_priority_fee_per_gas),
            );
            o.insert("maxFeePerGas".into(), quantity(t.max_fee_per_gas));
        }
        _ => {
            o.insert("gasPrice".into(), quantity(tx.max_fee_per_gas()));
        }
    }
    o.insert("value".into(), quantity(tx.value()));
    o.insert("input".into(), json!(format!("{}", tx.input())));
    if let Some(list) = tx.access_list() {
        o.insert("accessList".into(), json!(list));
    }
    for k in ["v", "r", "s"] {
        o.insert(k.into(), json!("0x0"));
    }
    if ty != 0 {
        o.insert("yParity".into(), json!("0x0"));
    }
    o.insert("hash".into(), json!(format!("{:#x}", keccak256(raw))));
    Value::Object(o)
}

/// `eth_sign [address, data]`: the node holds no keys.
async fn sign(_: State, (_a, _data): (Addr, HexBytes)) -> Result<Bytes, EthError> {
    Err(EthError::server("unknown account"))
}

/// `eth_signTransaction [args]`: geth's checks of the args, then "unknown account".
async fn sign_transaction(_: State, (args,): (CallArgs,)) -> Result<Value, EthError> {
    let a = args.0;
    if a.gas.is_none() {
        return Err(EthError::server("gas not specified"));
    }
    if a.gas_price.is_none()
        && (a.max_priority_fee_per_gas.is_none() || a.max_fee_per_gas.is_none())
    {
        return Err(EthError::server(
            "missing gasPrice or maxFeePerGas/maxPriorityFeePerGas",
        ));
    }
    if a.nonce.is_none() {
        return Err(EthError::server("nonce not specified"));
    }
    Err(EthError::server("unknown account"))
}

/// `eth_fillTransaction [args]` → `{raw, tx}`: the tx `eth_sendTransaction` would send, unsigned.
async fn fill_transaction(node: State, (args,): (CallArgs,)) -> Result<Value, EthError> {
    let req = args.0;
    let tx = node
        .on_chain(move |c| fill(c, &req, req.from.unwrap_or_default()))
        .await?;
    let raw = unsigned_bytes(&tx);
    Ok(json!({ "raw": raw, "tx": unsigned_json(&tx, &raw) }))
}

/// `eth_resend [args, gasPrice?, gasLimit?]`: the pooled tx of an impersonated account that
/// `args` describe (sender, nonce, recipient, value, input), sent again with the new gas price
/// and limit; geth's "transaction … not found" for no such tx.
async fn resend(
    node: State,
    (args, gas_price, gas_limit): (CallArgs, Option<HexU256>, Option<HexU64>),
) -> Result<B256, EthError> {
    let mut req = args.0;
    if req.nonce.is_none() {
        return Err(EthError::server(
            "missing transaction nonce in transaction spec",
        ));
    }
    let from = req.from.unwrap_or_default();
    let impersonating = node.impersonation.covers(&from);
    let hash = node
        .on_chain(move |chain| -> Result<B256, EthError> {
            let wanted = fill(chain, &req, from)?;
            use alloy_consensus::Transaction as _;
            let pooled = chain.pooled().into_iter().find(|p| {
                let e = &p.envelope;
                p.sender == from
                    && e.nonce() == wanted.nonce()
                    && e.to() == wanted.to()
                    && e.value() == wanted.value()
                    && e.input() == wanted.input()
            });
            if pooled.is_none() || !impersonating {
                return Err(EthError::server(format!(
                    "transaction {:#x} not found",
                    keccak256(unsigned_bytes(&wanted))
                )));
            }
            if let Some(p) = gas_price.filter(|p| !p.0.is_zero()) {
                req.gas_price = Some(p.0.saturating_to());
                req.max_fee_per_gas = None;
                req.max_priority_fee_per_gas = None;
            }
            if let Some(g) = gas_limit.filter(|g| g.0 != 0) {
                req.gas = Some(g.0);
            }
            let tx = fill(chain, &req, from)?;
            Ok(chain.submit(impersonated(tx, from)?)?)
        })
        .await?;
    node.wake();
    Ok(hash)
}
