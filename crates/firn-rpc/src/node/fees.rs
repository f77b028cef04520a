//! The fee methods of `platform`: Etna's dynamic tx fee (ACP-103) and the L1 validator fee
//! (ACP-77), their configurations and current states, shaped as AvalancheGo's
//! `gas.Config`, `GetFeeStateReply`, `fee.Config` and `GetValidatorFeeStateReply` (plain
//! JSON numbers, the chain time as RFC 3339).

use std::sync::Arc;

use serde_json::json;

use super::{Node, RpcResult};

type N = Arc<Node>;

/// `platform.getFeeConfig` → `{weights, maxCapacity, maxPerSecond, targetPerSecond, minPrice,
/// excessConversionConstant}`.
pub(super) async fn get_fee_config(node: N, _: super::platform::Empty) -> RpcResult {
    let c = node.chain.config().dynamic_fees;
    Ok(json!({
        "weights": c.weights.0,
        "maxCapacity": c.max_capacity,
        "maxPerSecond": c.max_per_second,
        "targetPerSecond": c.target_per_second,
        "minPrice": c.min_price,
        "excessConversionConstant": c.excess_conversion_constant,
    }))
}

/// `platform.getFeeState` → `{capacity, excess, price, timestamp}`.
pub(super) async fn get_fee_state(node: N, _: super::platform::Empty) -> RpcResult {
    let (state, price) = node.chain.fee_state();
    Ok(json!({
        "capacity": state.capacity,
        "excess": state.excess,
        "price": price,
        "timestamp": super::time::rfc3339(node.chain.timestamp()),
    }))
}

/// `platform.getValidatorFeeConfig` → `{capacity, target, minPrice,
/// excessConversionConstant}`.
pub(super) async fn get_validator_fee_config(node: N, _: super::platform::Empty) -> RpcResult {
    let c = node.chain.config().l1_fees;
    Ok(json!({
        "capacity": c.capacity,
        "target": c.target,
        "minPrice": c.min_price,
        "excessConversionConstant": c.excess_conversion_constant,
    }))
}

/// `platform.getValidatorFeeState` → `{excess, price, timestamp}`.
pub(super) async fn get_validator_fee_state(node: N, _: super::platform::Empty) -> RpcResult {
    let (excess, price) = node.chain.validator_fee_state();
    Ok(json!({
        "excess": excess,
        "price": price,
        "timestamp": super::time::rfc3339(node.chain.timestamp()),
    }))
}
