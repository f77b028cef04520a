//! The stake methods of `platform`: `getStake` (deprecated), `getMinStake`, `getTotalStake`
//! and `sampleValidators`, as AvalancheGo's `service.go` answers them.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use firn_core::ids::{Id, NodeId};
use firn_devnet::state::StakerKind;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::platform::SubnetArg;
use super::{Node, NodeError, RpcResult, encoding};
use crate::avajson::u64_string;

type N = Arc<Node>;

/// AvalancheGo's `maxGetStakeAddrs`.
pub const MAX_GET_STAKE_ADDRS: usize = 256;

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct GetStakeArgs {
    addresses: Vec<String>,
    validators_only: bool,
    encoding: Option<String>,
}

/// `platform.getStake` `{addresses, validatorsOnly, encoding}` → `{staked, stakeds,
/// stakedOutputs, encoding}`: the current stakers' stake outputs owned by any of the
/// addresses, in staker order (end time, priority, tx ID).
pub(super) async fn get_stake(node: N, args: GetStakeArgs) -> RpcResult {
    if args.addresses.len() > MAX_GET_STAKE_ADDRS {
        return Err(NodeError::TooManyStakeAddresses {
            given: args.addresses.len(),
            max: MAX_GET_STAKE_ADDRS,
        });
    }
    let addrs: HashSet<_> = args
        .addresses
        .iter()
        .map(|a| node.parse_address(a))
        .collect::<Result<_, _>>()?;
    let enc = encoding(args.encoding.as_deref())?;
    let (totals, outputs) = node.chain.with_state(|s| {
        let mut totals: BTreeMap<Id, u64> = BTreeMap::new();
        let mut outputs = Vec::new();
        for staker in s.stakers_by_end() {
            if args.validators_only && staker.kind == StakerKind::Delegator {
                continue;
            }
            for out in &staker.stake {
                let owned = out
                    .output
                    .transfer()
                    .owners
                    .addresses
                    .iter()
                    .any(|a| addrs.contains(a));
                if !owned {
                    continue;
                }
                let t = totals.entry(out.asset_id).or_default();
                *t = t.saturating_add(out.output.amount());
                outputs.push(firn_core::codec::to_bytes(out));
            }
        }
        (totals, outputs)
    });
    let encoded = outputs
        .iter()
        .map(|b| {
            enc.encode_bytes(b)
                .ok_or(NodeError::JsonNotSupported("output"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let avax = node.chain.network().avax_asset_id;
    let stakeds: Map<String, Value> = totals
        .iter()
        .map(|(asset, v)| (asset.to_string(), Value::String(v.to_string())))
        .collect();
    Ok(json!({
        "staked": totals.get(&avax).copied().unwrap_or(0).to_string(),
        "stakeds": stakeds,
        "stakedOutputs": encoded,
        "encoding": enc.as_str(),
    }))
}

/// `platform.getMinStake` `{subnetID?}` → `{minValidatorStake, minDelegatorStake}`.
pub(super) async fn get_min_stake(node: N, args: SubnetArg) -> RpcResult {
    if args.subnet_id != Id::ZERO {
        return Err(NodeError::NoTransformation(args.subnet_id));
    }
    let s = node.chain.config().staking;
    Ok(json!({
        "minValidatorStake": s.min_validator_stake.to_string(),
        "minDelegatorStake": s.min_delegator_stake.to_string(),
    }))
}

/// `platform.getTotalStake` `{subnetID?}` → `{stake, weight}` (the current set's weight).
pub(super) async fn get_total_stake(node: N, args: SubnetArg) -> RpcResult {
    let h = node.chain.height();
    let w: u64 = node
        .chain
        .validators_at(&args.subnet_id, h)
        .map(|s| s.values().map(|e| e.weight).fold(0u64, u64::saturating_add))
        .unwrap_or(0);
    Ok(json!({ "stake": w.to_string(), "weight": w.to_string() }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct SampleValidatorsArgs {
    #[serde(with = "u64_string")]
    size: u64,
    #[serde(rename = "subnetID")]
    subnet_id: Id,
}

/// `platform.sampleValidators` `{size, subnetID?}` → `{validators}`: `size` weight units
/// drawn without replacement, as AvalancheGo's weighted sampler does (so a heavy validator
/// may appear more than once), sorted by node ID.
pub(super) async fn sample_validators(node: N, args: SampleValidatorsArgs) -> RpcResult {
    let size = u16::try_from(args.size).map_err(|_| NodeError::InvalidArgument)?;
    if size == 0 {
        return Ok(json!({ "validators": [] }));
    }
    let sampling = |reason| NodeError::Sampling {
        subnet: args.subnet_id,
        reason,
    };
    let set = node
        .chain
        .validators_at(&args.subnet_id, node.chain.height())
        .filter(|s| !s.is_empty())
        .ok_or(sampling("missing validators"))?;
    let weighted: Vec<(NodeId, u64)> = set.iter().map(|(n, e)| (*n, e.weight)).collect();
    let total = weighted
        .iter()
        .fold(0u64, |acc, (_, w)| acc.saturating_add(*w));
    if u64::from(size) > total {
        return Err(sampling("insufficient weight"));
    }
    let mut rng = SplitMix::seeded();
    let mut units = HashSet::new();
    while units.len() < usize::from(size) {
        units.insert(rng.below(total));
    }
    let mut sample: Vec<NodeId> = units
        .into_iter()
        .filter_map(|unit| {
            let mut acc = 0u64;
            weighted.iter().find_map(|(n, w)| {
                acc = acc.saturating_add(*w);
                (unit < acc).then_some(*n)
            })
        })
        .collect();
    sample.sort();
    Ok(json!({ "validators": sample }))
}

/// A small non-cryptographic generator (SplitMix64): sampling only needs to vary.
struct SplitMix(u64);

impl SplitMix {
    fn seeded() -> Self {
        static CALLS: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Self(nanos ^ CALLS.fetch_add(1, Ordering::Relaxed).rotate_left(32))
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` for `n > 0`.
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }
}
