//! `platform.*` on `/ext/bc/P`: one function per method, delegating to the [`PChain`].
//!
//! Argument names, reply keys and error texts follow AvalancheGo's `vms/platformvm/service.go`.
//!
//! [`PChain`]: firn_devnet::PChain

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use firn_core::encoding::Encoding;
use firn_core::ids::{Id, ShortId};
use firn_core::network::{AVM_VM_ID, CORETH_VM_ID};
use firn_rpc::avajson::Uint64;
use firn_rpc::methods::NoParams;
use firn_rpc::methods::platform::*;
use firn_rpc::{AvaServer, AvaService};
use serde_json::Value;

use super::shapes::{self, hex0x};
use super::utxos::{self, ListedUtxo};
use super::{MethodError, Node, blocks, encoding, fees, stake};

type N = Arc<Node>;

pub use super::utxos::MAX_PAGE_SIZE;

/// The `platform` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    AvaServer::new(node).service(service())
}

/// Every `platform.*` method.
pub fn service() -> AvaService<N> {
    AvaService::new("platform")
        .handle::<GetHeight, _, _, _>(get_height)
        .handle::<GetProposedHeight, _, _, _>(get_height)
        .handle::<GetBalance, _, _, _>(get_balance)
        .handle::<GetUtxos, _, _, _>(get_utxos)
        .handle::<GetBlock, _, _, _>(blocks::get_block)
        .handle::<GetBlockByHeight, _, _, _>(blocks::get_block_by_height)
        .handle::<GetTx, _, _, _>(blocks::get_tx)
        .handle::<GetTxStatus, _, _, _>(blocks::get_tx_status)
        .handle::<IssueTx, _, _, _>(blocks::issue_tx)
        .handle::<GetStakingAssetId, _, _, _>(get_staking_asset_id)
        .handle::<GetSubnet, _, _, _>(get_subnet)
        .handle::<GetSubnets, _, _, _>(get_subnets)
        .handle::<GetCurrentValidators, _, _, _>(get_current_validators)
        .handle::<GetPendingValidators, _, _, _>(get_pending_validators)
        .handle::<GetValidatorsAt, _, _, _>(get_validators_at)
        .handle::<GetAllValidatorsAt, _, _, _>(get_all_validators_at)
        .handle::<GetL1Validator, _, _, _>(get_l1_validator)
        .handle::<GetCurrentSupply, _, _, _>(get_current_supply)
        .handle::<GetBlockchains, _, _, _>(get_blockchains)
        .handle::<GetBlockchainStatus, _, _, _>(get_blockchain_status)
        .handle::<ValidatedBy, _, _, _>(validated_by)
        .handle::<Validates, _, _, _>(validates)
        .handle::<GetTimestamp, _, _, _>(get_timestamp)
        .handle::<GetMinStake, _, _, _>(stake::get_min_stake)
        .handle::<GetTotalStake, _, _, _>(stake::get_total_stake)
        .handle::<GetRewardUtxos, _, _, _>(get_reward_utxos)
        .handle::<GetStake, _, _, _>(stake::get_stake)
        .handle::<SampleValidators, _, _, _>(stake::sample_validators)
        .handle::<GetFeeConfig, _, _, _>(fees::get_fee_config)
        .handle::<GetFeeState, _, _, _>(fees::get_fee_state)
        .handle::<GetValidatorFeeConfig, _, _, _>(fees::get_validator_fee_config)
        .handle::<GetValidatorFeeState, _, _, _>(fees::get_validator_fee_state)
}

/// `platform.getHeight` / `platform.getProposedHeight` → `{"height":"N"}`.
async fn get_height(node: N, _: NoParams) -> Result<HeightReply, MethodError> {
    Ok(HeightReply {
        height: node.chain.height(),
    })
}

fn parse_addresses(node: &Node, addrs: &[String]) -> Result<Vec<ShortId>, MethodError> {
    addrs.iter().map(|a| node.parse_address(a)).collect()
}

/// `platform.getBalance` (deprecated): singular AVAX fields, per-asset maps, `utxoIDs`.
async fn get_balance(node: N, args: AddressesParams) -> Result<BalanceReply, MethodError> {
    if args.addresses.is_empty() {
        return Err(MethodError::NoAddresses);
    }
    let addrs = parse_addresses(&node, &args.addresses)?;
    let b = node.chain.balance(&addrs);
    let asset = node.chain.network().avax_asset_id;
    let counted: BTreeSet<Id> = b.utxo_ids.iter().copied().collect();
    let page = node.chain.utxos(&addrs, None, usize::MAX);
    let utxo_ids: Vec<UtxoRef> = page
        .utxos
        .iter()
        .filter(|u| counted.contains(&u.id()))
        .map(|u| UtxoRef {
            tx_id: u.tx_id,
            output_index: u.output_index,
        })
        .collect();
    let map = |v: u64| -> BTreeMap<Id, Uint64> {
        (v > 0).then_some((asset, Uint64(v))).into_iter().collect()
    };
    Ok(BalanceReply {
        balance: b.total,
        unlocked: b.unlocked,
        locked_stakeable: b.locked_stakeable,
        locked_not_stakeable: b.locked_not_stakeable,
        balances: map(b.total),
        unlockeds: map(b.unlocked),
        locked_stakeables: map(b.locked_stakeable),
        locked_not_stakeables: map(b.locked_not_stakeable),
        utxo_ids: (!utxo_ids.is_empty()).then_some(utxo_ids),
    })
}

/// `platform.getUTXOs`: `{numFetched, utxos, endIndex:{address, utxo}, encoding}`; with
/// `sourceChain`, the UTXOs that chain exported to the P-Chain.
async fn get_utxos(node: N, args: GetUtxosParams) -> Result<UtxosReply, MethodError> {
    let q = utxos::query(&args, |a| node.parse_address(a))?;
    let source = match args.source_chain.as_str() {
        "" => Id::ZERO,
        alias => node
            .chain_alias(alias)
            .ok_or_else(|| MethodError::UnknownSourceChain(alias.to_owned()))?,
    };
    let (listed, next): (Vec<ListedUtxo>, _) = if source == Id::ZERO {
        let page = node.chain.utxos(&q.addresses, q.start, q.limit);
        let listed = page
            .utxos
            .iter()
            .map(|u| ListedUtxo {
                bytes: shapes::utxo_bytes(u),
                owners: u.owners().addresses.clone(),
                id: u.id(),
            })
            .collect();
        (listed, page.next)
    } else {
        let (page, next) =
            node.chain
                .shared_memory()
                .list(&Id::ZERO, &source, &q.addresses, q.start, q.limit);
        let listed = page
            .iter()
            .map(|u| ListedUtxo {
                bytes: firn_core::codec::to_bytes(u),
                owners: u.output.owners.addresses.clone(),
                id: u.id(),
            })
            .collect();
        (listed, next)
    };
    Ok(utxos::reply(&q, &listed, next, |a| node.address(a)))
}

/// `platform.getStakingAssetID` `{subnetID}` → `{assetID}`.
async fn get_staking_asset_id(node: N, args: SubnetParams) -> Result<AssetIdReply, MethodError> {
    if args.subnet_id == Id::ZERO {
        return Ok(AssetIdReply {
            asset_id: node.chain.network().avax_asset_id,
        });
    }
    Err(MethodError::NoTransformation(args.subnet_id))
}

/// `platform.getSubnet` `{subnetID}`.
async fn get_subnet(node: N, args: SubnetParams) -> Result<SubnetReply, MethodError> {
    if args.subnet_id == Id::ZERO {
        return Err(MethodError::PrimaryNetworkIsNotASubnet);
    }
    let s = node
        .chain
        .subnets()
        .into_iter()
        .find(|s| s.id == args.subnet_id)
        .ok_or(MethodError::SubnetNotFound(args.subnet_id))?;
    let keys: Vec<String> = s.owner.addresses.iter().map(|a| node.address(a)).collect();
    let (conv, chain, addr) = match &s.conversion {
        Some(c) => (c.conversion_id, c.chain_id, hex0x(&c.address)),
        None => (Id::ZERO, Id::ZERO, "0x".to_string()),
    };
    Ok(SubnetReply {
        is_permissioned: s.conversion.is_none(),
        control_keys: keys,
        threshold: s.owner.threshold,
        locktime: s.owner.locktime,
        subnet_transformation_tx_id: Id::ZERO,
        conversion_id: conv,
        manager_chain_id: chain,
        manager_address: addr,
    })
}

/// `platform.getSubnets` (deprecated) `{ids}` → `{subnets:[{id, controlKeys, threshold}]}`;
/// without IDs, every subnet then the primary network.
async fn get_subnets(node: N, args: IdsParams) -> Result<SubnetsReply, MethodError> {
    let all = node.chain.subnets();
    let record = |s: &firn_devnet::state::Subnet| SubnetSummary {
        id: s.id,
        control_keys: s.owner.addresses.iter().map(|a| node.address(a)).collect(),
        threshold: s.owner.threshold,
    };
    let primary = SubnetSummary {
        id: Id::ZERO,
        control_keys: Vec::new(),
        threshold: 0,
    };
    let mut out = Vec::new();
    if args.ids.is_empty() {
        out.extend(all.iter().map(record));
        out.push(primary);
    } else {
        let mut seen = BTreeSet::new();
        for id in &args.ids {
            if !seen.insert(*id) {
                continue;
            }
            if *id == Id::ZERO {
                out.push(primary.clone());
            } else if let Some(s) = all.iter().find(|s| s.id == *id) {
                out.push(record(s));
            }
        }
    }
    Ok(SubnetsReply { subnets: out })
}

/// `platform.getCurrentValidators` `{subnetID?, nodeIDs?}` → `{validators:[…]}` in the
/// primary, permissioned-subnet or L1 shape.
async fn get_current_validators(
    node: N,
    args: ValidatorsParams,
) -> Result<CurrentValidatorsReply, MethodError> {
    let vs = node
        .chain
        .current_validators(args.subnet_id, &args.node_ids);
    let mut out = Vec::new();
    if args.subnet_id == Id::ZERO {
        let one = args.node_ids.len() == 1;
        out.extend(
            vs.iter()
                .map(|v| CurrentValidator::Primary(shapes::primary_validator(&node, v, one))),
        );
        return Ok(CurrentValidatorsReply { validators: out });
    }
    out.extend(
        vs.iter()
            .map(|v| CurrentValidator::Subnet(shapes::staker(&v.validator))),
    );
    let converted = node
        .chain
        .subnets()
        .iter()
        .any(|s| s.id == args.subnet_id && s.conversion.is_some());
    if converted {
        out.extend(
            node.chain
                .l1_validators(args.subnet_id)
                .iter()
                .filter(|l| {
                    args.node_ids.is_empty() || args.node_ids.contains(&l.validator.node_id)
                })
                .map(|l| CurrentValidator::L1(shapes::l1_validator(&node, l))),
        );
    }
    Ok(CurrentValidatorsReply { validators: out })
}

/// `platform.getPendingValidators`: always empty (post-Durango stakers start at once).
async fn get_pending_validators(
    _: N,
    _: ValidatorsParams,
) -> Result<PendingValidatorsReply, MethodError> {
    Ok(PendingValidatorsReply::default())
}

fn query_height(node: &Node, h: &Option<Value>) -> Result<u64, MethodError> {
    let bad = || MethodError::InvalidArgument;
    match h {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n.as_u64().ok_or_else(bad),
        Some(Value::String(s)) if s == "proposed" => Ok(node.chain.height()),
        Some(Value::String(s)) => s.parse().map_err(|_| bad()),
        Some(_) => Err(bad()),
    }
}

/// `platform.getValidatorsAt` `{subnetID?, height}` → the bare map
/// `{"NodeID-…":{"publicKey":"0x…"|null,"weight":"N"}}`.
async fn get_validators_at(node: N, args: HeightParams) -> Result<ValidatorsAtReply, MethodError> {
    let height = query_height(&node, &args.height)?;
    let set = node
        .chain
        .validators_at(&args.subnet_id, height)
        .ok_or(MethodError::UnfinalizedHeight(height))?;
    Ok(set
        .iter()
        .map(|(id, e)| {
            let at = ValidatorAt {
                public_key: e.public_key.map(|k| hex0x(&k)),
                weight: e.weight,
            };
            (*id, at)
        })
        .collect())
}

/// `platform.getAllValidatorsAt` `{height}` → `{validatorSets:{subnetID:{validators, totalWeight}}}`
/// in canonical Warp order.
async fn get_all_validators_at(
    node: N,
    args: HeightParams,
) -> Result<AllValidatorsAtReply, MethodError> {
    let height = query_height(&node, &args.height)?;
    let sets = node
        .chain
        .all_validators_at(height)
        .ok_or(MethodError::UnfinalizedHeightAll(height))?;
    let mut out = BTreeMap::new();
    for (subnet, set) in &sets {
        let c =
            firn_devnet::state::validators::canonical(set).map_err(|e| MethodError::Canonical {
                height,
                reason: e.to_string(),
            })?;
        let validators = c
            .validators
            .iter()
            .map(|v| CanonicalValidator {
                public_key: hex0x(&v.public_key.to_bytes()),
                weight: v.weight,
                node_ids: v.node_ids.clone(),
            })
            .collect();
        out.insert(
            *subnet,
            CanonicalSet {
                validators,
                total_weight: c.total_weight,
            },
        );
    }
    Ok(AllValidatorsAtReply {
        validator_sets: out,
    })
}

/// `platform.getL1Validator` `{validationID}` → the L1 shape plus `subnetID` and `height`.
async fn get_l1_validator(
    node: N,
    args: ValidationIdParams,
) -> Result<L1ValidatorReply, MethodError> {
    let v = node
        .chain
        .l1_validator(&args.validation_id)
        .ok_or(MethodError::L1ValidatorNotFound(args.validation_id))?;
    Ok(L1ValidatorReply {
        validator: shapes::l1_validator(&node, &v),
        subnet_id: v.validator.subnet_id,
        height: node.chain.height(),
    })
}

/// `platform.getCurrentSupply` `{subnetID?}` → `{supply, height}`.
async fn get_current_supply(node: N, _: SubnetParams) -> Result<SupplyReply, MethodError> {
    Ok(SupplyReply {
        supply: node.chain.current_supply(),
        height: node.chain.height(),
    })
}

/// `platform.getBlockchains` (deprecated) → `{blockchains:[{id, name, subnetID, vmID}]}`:
/// subnets' chains, then the primary network's X and C chains.
async fn get_blockchains(node: N, _: NoParams) -> Result<BlockchainsReply, MethodError> {
    let n = node.chain.network();
    let primary = |id, name: &str, vm_id| Blockchain {
        id,
        name: name.to_owned(),
        subnet_id: Id::ZERO,
        vm_id,
    };
    let mut out: Vec<Blockchain> = node
        .chain
        .blockchains()
        .iter()
        .map(|c| Blockchain {
            id: c.id,
            name: c.name.clone(),
            subnet_id: c.subnet_id,
            vm_id: c.vm_id,
        })
        .collect();
    out.push(primary(n.x_chain_id, "X-Chain", AVM_VM_ID));
    out.push(primary(n.c_chain_id, "C-Chain", CORETH_VM_ID));
    Ok(BlockchainsReply { blockchains: out })
}

/// `platform.getBlockchainStatus` `{blockchainID}` → `{status}`: the devnet's node validates
/// the primary network, so its chains are `Validating`; others are `Created` or `Unknown`.
async fn get_blockchain_status(
    node: N,
    args: BlockchainAliasParams,
) -> Result<StatusReply, MethodError> {
    if args.blockchain_id.is_empty() {
        return Err(MethodError::MissingBlockchainId);
    }
    let n = node.chain.network();
    let status = match args.blockchain_id.as_str() {
        "P" | "X" | "C" => "Validating",
        s => {
            let id: Id = s.parse::<Id>().map_err(|e| MethodError::BadBlockchainId {
                id: s.to_string(),
                reason: e.to_string(),
            })?;
            if [n.p_chain_id, n.x_chain_id, n.c_chain_id].contains(&id) {
                "Validating"
            } else if node.chain.validated_by(&id).is_some() {
                "Created"
            } else {
                "Unknown"
            }
        }
    };
    Ok(StatusReply {
        status: status.to_owned(),
    })
}

/// `platform.validatedBy` `{blockchainID}` → `{subnetID}`.
async fn validated_by(node: N, args: BlockchainIdParams) -> Result<SubnetIdReply, MethodError> {
    let subnet_id = node
        .chain
        .validated_by(&args.blockchain_id)
        .ok_or(MethodError::BlockchainNotFound(args.blockchain_id))?;
    Ok(SubnetIdReply { subnet_id })
}

/// `platform.validates` `{subnetID}` → `{blockchainIDs}`.
async fn validates(node: N, args: SubnetParams) -> Result<BlockchainIdsReply, MethodError> {
    let n = node.chain.network();
    let mut ids: Vec<Id> = node
        .chain
        .blockchains()
        .iter()
        .filter(|c| c.subnet_id == args.subnet_id)
        .map(|c| c.id)
        .collect();
    if args.subnet_id == Id::ZERO {
        ids.extend([n.x_chain_id, n.c_chain_id]);
    } else if !node.chain.subnets().iter().any(|s| s.id == args.subnet_id) {
        return Err(MethodError::NotASubnet(args.subnet_id));
    }
    Ok(BlockchainIdsReply {
        blockchain_ids: ids,
    })
}

/// `platform.getTimestamp` → `{timestamp}` (RFC 3339, the chain time).
async fn get_timestamp(node: N, _: NoParams) -> Result<TimestampReply, MethodError> {
    Ok(TimestampReply {
        timestamp: firn_core::calendar::rfc3339(node.chain.timestamp()),
    })
}

/// `platform.getRewardUTXOs` `{txID, encoding}` → `{numFetched, utxos, encoding}`.
async fn get_reward_utxos(node: N, args: TxParams) -> Result<RewardUtxosReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    if enc == Encoding::Json {
        return Err(MethodError::JsonNotSupported("utxo"));
    }
    let utxos: Vec<String> = node
        .chain
        .reward_utxos(&args.tx_id)
        .iter()
        .filter_map(|r| enc.encode_bytes(&shapes::utxo_bytes(&r.utxo)))
        .collect();
    Ok(RewardUtxosReply {
        num_fetched: utxos.len() as u64,
        utxos,
        encoding: enc.as_str().to_owned(),
    })
}
