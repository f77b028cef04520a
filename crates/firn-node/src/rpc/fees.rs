//! The fee methods of `platform`: Etna's dynamic tx fee (ACP-103) and the L1 validator fee
//! (ACP-77), their configurations and current states, shaped as AvalancheGo's
//! `gas.Config`, `GetFeeStateReply`, `fee.Config` and `GetValidatorFeeStateReply` (plain
//! JSON numbers, the chain time as RFC 3339).

use std::sync::Arc;

use firn_rpc::methods::NoParams;
use firn_rpc::methods::platform::{
    FeeConfigReply, FeeStateReply, ValidatorFeeConfigReply, ValidatorFeeStateReply,
};

use super::{MethodError, Node};

type N = Arc<Node>;

/// `platform.getFeeConfig` → `{weights, maxCapacity, maxPerSecond, targetPerSecond, minPrice,
/// excessConversionConstant}`.
pub(super) async fn get_fee_config(node: N, _: NoParams) -> Result<FeeConfigReply, MethodError> {
    let c = node.chain.config().dynamic_fees;
    Ok(FeeConfigReply {
        weights: c.weights.0,
        max_capacity: c.max_capacity,
        max_per_second: c.max_per_second,
        target_per_second: c.target_per_second,
        min_price: c.min_price,
        excess_conversion_constant: c.excess_conversion_constant,
    })
}

/// `platform.getFeeState` → `{capacity, excess, price, timestamp}`.
pub(super) async fn get_fee_state(node: N, _: NoParams) -> Result<FeeStateReply, MethodError> {
    let (state, price) = node.chain.fee_state();
    Ok(FeeStateReply {
        capacity: state.capacity,
        excess: state.excess,
        price,
        timestamp: firn_core::calendar::rfc3339(node.chain.timestamp()),
    })
}

/// `platform.getValidatorFeeConfig` → `{capacity, target, minPrice,
/// excessConversionConstant}`.
pub(super) async fn get_validator_fee_config(
    node: N,
    _: NoParams,
) -> Result<ValidatorFeeConfigReply, MethodError> {
    let c = node.chain.config().l1_fees;
    Ok(ValidatorFeeConfigReply {
        capacity: c.capacity,
        target: c.target,
        min_price: c.min_price,
        excess_conversion_constant: c.excess_conversion_constant,
    })
}

/// `platform.getValidatorFeeState` → `{excess, price, timestamp}`.
pub(super) async fn get_validator_fee_state(
    node: N,
    _: NoParams,
) -> Result<ValidatorFeeStateReply, MethodError> {
    let (excess, price) = node.chain.validator_fee_state();
    Ok(ValidatorFeeStateReply {
        excess,
        price,
        timestamp: firn_core::calendar::rfc3339(node.chain.timestamp()),
    })
}
