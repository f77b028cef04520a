//! The stake methods of `platform`: `getStake` (deprecated), `getMinStake`, `getTotalStake`
//! and `sampleValidators`, as AvalancheGo's `service.go` answers them.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use firn_core::ids::{Id, NodeId};
use firn_devnet::state::StakerKind;
use firn_rpc::avajson::Uint64;
use firn_rpc::methods::platform::{
    GetStakeParams, MinStakeReply, SampleValidatorsParams, SampleValidatorsReply, StakeReply,
    SubnetParams, TotalStakeReply,
};

use super::{MethodError, Node, encoding};

type N = Arc<Node>;

/// AvalancheGo's `maxGetStakeAddrs`.
pub const MAX_GET_STAKE_ADDRS: usize = 256;

/// `platform.getStake` `{addresses, validatorsOnly, encoding}` → `{staked, stakeds,
/// stakedOutputs, encoding}`: the current stakers' stake outputs owned by any of the
/// addresses, in staker order (end time, priority, tx ID).
pub(super) async fn get_stake(node: N, args: GetStakeParams) -> Result<StakeReply, MethodError> {
    if args.addresses.len() > MAX_GET_STAKE_ADDRS {
        return Err(MethodError::TooManyStakeAddresses {
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
                .ok_or(MethodError::JsonNotSupported("output"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let avax = node.chain.network().avax_asset_id;
    Ok(StakeReply {
        staked: totals.get(&avax).copied().unwrap_or(0),
        stakeds: totals.iter().map(|(a, v)| (*a, Uint64(*v))).collect(),
        staked_outputs: encoded,
        encoding: enc.as_str().to_owned(),
    })
}

/// `platform.getMinStake` `{subnetID?}` → `{minValidatorStake, minDelegatorStake}`.
pub(super) async fn get_min_stake(
    node: N,
    args: SubnetParams,
) -> Result<MinStakeReply, MethodError> {
    if args.subnet_id != Id::ZERO {
        return Err(MethodError::NoTransformation(args.subnet_id));
    }
    let s = node.chain.config().staking;
    Ok(MinStakeReply {
        min_validator_stake: s.min_validator_stake,
        min_delegator_stake: s.min_delegator_stake,
    })
}

/// `platform.getTotalStake` `{subnetID?}` → `{stake, weight}` (the current set's weight).
pub(super) async fn get_total_stake(
    node: N,
    args: SubnetParams,
) -> Result<TotalStakeReply, MethodError> {
    let h = node.chain.height();
    let w: u64 = node
        .chain
        .validators_at(&args.subnet_id, h)
        .map(|s| s.values().map(|e| e.weight).fold(0u64, u64::saturating_add))
        .unwrap_or(0);
    Ok(TotalStakeReply {
        stake: w,
        weight: w,
    })
}

/// `platform.sampleValidators` `{size, subnetID?}` → `{validators}`: `size` weight units
/// drawn without replacement, as AvalancheGo's weighted sampler does (so a heavy validator
/// may appear more than once), sorted by node ID.
pub(super) async fn sample_validators(
    node: N,
    args: SampleValidatorsParams,
) -> Result<SampleValidatorsReply, MethodError> {
    let size = u16::try_from(args.size).map_err(|_| MethodError::InvalidArgument)?;
    if size == 0 {
        return Ok(SampleValidatorsReply {
            validators: Vec::new(),
        });
    }
    let sampling = |reason| MethodError::Sampling {
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
    Ok(SampleValidatorsReply { validators: sample })
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
