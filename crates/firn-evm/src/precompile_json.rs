//! A precompile config as subnet-evm marshals it back (`eth_getChainConfig`,
//! `eth_getActivePrecompilesAt`): Go structs, so addresses come out lower-case, amounts as
//! `HexOrDecimal256` hex, `omitempty` fields vanish when empty, and fields without it (Warp's
//! `quorumNumerator`, `requirePrimaryNetworkSigners`) are always there.

use alloy_primitives::Address;
use serde_json::{Map, Value};

use crate::genesis::{big, number};

const ALLOW_LIST_FIELDS: [&str; 3] = ["adminAddresses", "managerAddresses", "enabledAddresses"];

fn lower_address(v: &Value) -> Result<Value, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("expected an address, got {v}"))?;
    let a: Address = s
        .parse()
        .map_err(|e| format!("invalid address {s:?}: {e}"))?;
    Ok(Value::String(format!("{a:#x}")))
}

/// The config under `key` as subnet-evm would print it; errors name the bad field.
pub(crate) fn canonical(key: &str, given: &Value) -> Result<Value, String> {
    let field = |k: &str| given.get(k).filter(|v| !v.is_null());
    let mut out = Map::new();
    // precompileconfig.Upgrade: `blockTimestamp` (a pointer, printed even when nil) and
    // `disable,omitempty`.
    let timestamp = match field("blockTimestamp") {
        Some(v) => Value::from(number(v).map_err(|e| format!("{key}.blockTimestamp: {e}"))?),
        None => Value::Null,
    };
    out.insert("blockTimestamp".into(), timestamp);
    if field("disable").and_then(Value::as_bool) == Some(true) {
        out.insert("disable".into(), Value::Bool(true));
    }
    if key == "warpConfig" {
        let quorum = field("quorumNumerator")
            .map(number)
            .transpose()
            .map_err(|e| format!("{key}.quorumNumerator: {e}"))?
            .unwrap_or(0);
        out.insert("quorumNumerator".into(), Value::from(quorum));
        let primary = field("requirePrimaryNetworkSigners")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        out.insert("requirePrimaryNetworkSigners".into(), Value::Bool(primary));
        return Ok(Value::Object(out));
    }
    for list in ALLOW_LIST_FIELDS {
        let Some(addresses) = field(list).and_then(Value::as_array) else {
            continue;
        };
        if addresses.is_empty() {
            continue;
        }
        let lowered = addresses
            .iter()
            .map(lower_address)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{key}.{list}: {e}"))?;
        out.insert(list.into(), Value::Array(lowered));
    }
    match key {
        "contractNativeMinterConfig" => {
            if let Some(mints) = field("initialMint").and_then(Value::as_object)
                && !mints.is_empty()
            {
                let mut m = Map::new();
                for (addr, amount) in mints {
                    let a = lower_address(&Value::String(addr.clone()))
                        .map_err(|e| format!("{key}.initialMint: {e}"))?;
                    let v = big(amount).map_err(|e| format!("{key}.initialMint: {e}"))?;
                    if let Value::String(a) = a {
                        m.insert(a, Value::String(format!("{v:#x}")));
                    }
                }
                out.insert("initialMint".into(), Value::Object(m));
            }
        }
        "feeManagerConfig" => {
            if let Some(initial) = field("initialFeeConfig").and_then(Value::as_object) {
                let mut m = Map::new();
                for (k, v) in initial {
                    let n = number(v).map_err(|e| format!("{key}.initialFeeConfig.{k}: {e}"))?;
                    m.insert(k.clone(), Value::from(n));
                }
                out.insert("initialFeeConfig".into(), Value::Object(m));
            }
        }
        "rewardManagerConfig" => {
            if let Some(initial) = field("initialRewardConfig").filter(|v| v.is_object()) {
                let allow = initial
                    .get("allowFeeRecipients")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let reward = match initial.get("rewardAddress").filter(|v| !v.is_null()) {
                    Some(a) => lower_address(a).map_err(|e| format!("{key}.rewardAddress: {e}"))?,
                    None => Value::String(format!("{:#x}", Address::ZERO)),
                };
                let mut m = Map::new();
                m.insert("allowFeeRecipients".into(), Value::Bool(allow));
                m.insert("rewardAddress".into(), reward);
                out.insert("initialRewardConfig".into(), Value::Object(m));
            }
        }
        _ => {}
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn allow_lists_print_lower_case_and_drop_empty_lists() {
        let given = json!({"blockTimestamp": "0x5", "adminAddresses": ["0x8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC"], "enabledAddresses": []});
        assert_eq!(
            canonical("txAllowListConfig", &given).unwrap(),
            json!({"blockTimestamp": 5, "adminAddresses": ["0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc"]})
        );
    }

    #[test]
    fn warp_always_prints_its_fields() {
        assert_eq!(
            canonical("warpConfig", &json!({"blockTimestamp": 0})).unwrap(),
            json!({"blockTimestamp": 0, "quorumNumerator": 0, "requirePrimaryNetworkSigners": false})
        );
    }

    #[test]
    fn minted_amounts_print_as_hex() {
        let given = json!({"blockTimestamp": 0, "initialMint": {"8db97C7cEcE249c2b98bDC0226Cc4C2A57BF52FC": "1000"}});
        assert_eq!(
            canonical("contractNativeMinterConfig", &given).unwrap(),
            json!({"blockTimestamp": 0, "initialMint": {"0x8db97c7cece249c2b98bdc0226cc4c2a57bf52fc": "0x3e8"}})
        );
    }

    #[test]
    fn bad_addresses_are_named() {
        let err = canonical("feeManagerConfig", &json!({"adminAddresses": ["nope"]})).unwrap_err();
        assert!(err.contains("feeManagerConfig.adminAddresses"), "{err}");
    }
}
