//! `platform.*` on `/ext/bc/P`: one function per method, delegating to the [`PChain`].
//!
//! Argument names, reply keys and error texts follow AvalancheGo's `vms/platformvm/service.go`.
//!
//! [`PChain`]: firn_devnet::PChain

use std::collections::BTreeSet;
use std::sync::Arc;

use firn_core::encoding::Encoding;
use firn_core::ids::{Id, NodeId, ShortId};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::shapes::{self, hex0x};
use super::{Node, NodeError, RpcResult, blocks, encoding, fees, stake};
use crate::{AvaServer, AvaService};

type N = Arc<Node>;

/// The most addresses and UTXOs `getUTXOs` handles per call, as AvalancheGo.
pub const MAX_PAGE_SIZE: usize = 1024;

/// The `platform` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    AvaServer::new(node).service(service())
}

/// Every `platform.*` method.
pub fn service() -> AvaService<N> {
    AvaService::new("platform")
        .method("getHeight", get_height)
        .method("getProposedHeight", get_height)
        .method("getBalance", get_balance)
        .method("getUTXOs", get_utxos)
        .method("getBlock", blocks::get_block)
        .method("getBlockByHeight", blocks::get_block_by_height)
        .method("getTx", blocks::get_tx)
        .method("getTxStatus", blocks::get_tx_status)
        .method("issueTx", blocks::issue_tx)
        .method("getStakingAssetID", get_staking_asset_id)
        .method("getSubnet", get_subnet)
        .method("getSubnets", get_subnets)
        .method("getCurrentValidators", get_current_validators)
        .method("getPendingValidators", get_pending_validators)
        .method("getValidatorsAt", get_validators_at)
        .method("getAllValidatorsAt", get_all_validators_at)
        .method("getL1Validator", get_l1_validator)
        .method("getCurrentSupply", get_current_supply)
        .method("getBlockchains", get_blockchains)
        .method("getBlockchainStatus", get_blockchain_status)
        .method("validatedBy", validated_by)
        .method("validates", validates)
        .method("getTimestamp", get_timestamp)
        .method("getMinStake", stake::get_min_stake)
        .method("getTotalStake", stake::get_total_stake)
        .method("getRewardUTXOs", get_reward_utxos)
        .method("getStake", stake::get_stake)
        .method("sampleValidators", stake::sample_validators)
        .method("getFeeConfig", fees::get_fee_config)
        .method("getFeeState", fees::get_fee_state)
        .method("getValidatorFeeConfig", fees::get_validator_fee_config)
        .method("getValidatorFeeState", fees::get_validator_fee_state)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Empty {}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Addresses {
    addresses: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct SubnetArg {
    #[serde(rename = "subnetID")]
    pub(super) subnet_id: Id,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct TxArg {
    #[serde(rename = "txID")]
    pub(super) tx_id: Id,
    pub(super) encoding: Option<String>,
}

/// `platform.getHeight` / `platform.getProposedHeight` → `{"height":"N"}`.
async fn get_height(node: N, _: Empty) -> RpcResult {
    Ok(json!({ "height": node.chain.height().to_string() }))
}

fn parse_addresses(node: &Node, addrs: &[String]) -> Result<Vec<ShortId>, NodeError> {
    addrs.iter().map(|a| node.parse_address(a)).collect()
}

/// `platform.getBalance` (deprecated): singular AVAX fields, per-asset maps, `utxoIDs`.
async fn get_balance(node: N, args: Addresses) -> RpcResult {
    if args.addresses.is_empty() {
        return Err(NodeError::NoAddresses);
    }
    let addrs = parse_addresses(&node, &args.addresses)?;
    let b = node.chain.balance(&addrs);
    let asset = node.chain.network().avax_asset_id.to_string();
    let counted: BTreeSet<Id> = b.utxo_ids.iter().copied().collect();
    let page = node.chain.utxos(&addrs, None, usize::MAX);
    let utxo_ids: Vec<Value> = page
        .utxos
        .iter()
        .filter(|u| counted.contains(&u.id()))
        .map(|u| json!({ "txID": u.tx_id, "outputIndex": u.output_index }))
        .collect();
    let map = |v: u64| {
        let mut m = Map::new();
        if v > 0 {
            m.insert(asset.clone(), v.to_string().into());
        }
        Value::Object(m)
    };
    Ok(json!({
        "balance": b.total.to_string(),
        "unlocked": b.unlocked.to_string(),
        "lockedStakeable": b.locked_stakeable.to_string(),
        "lockedNotStakeable": b.locked_not_stakeable.to_string(),
        "balances": map(b.total),
        "unlockeds": map(b.unlocked),
        "lockedStakeables": map(b.locked_stakeable),
        "lockedNotStakeables": map(b.locked_not_stakeable),
        "utxoIDs": if utxo_ids.is_empty() { Value::Null } else { Value::Array(utxo_ids) },
    }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Index {
    address: String,
    utxo: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct GetUtxosArgs {
    addresses: Vec<String>,
    source_chain: String,
    #[serde(with = "crate::avajson::u32_string")]
    limit: u32,
    start_index: Index,
    encoding: Option<String>,
}

/// `platform.getUTXOs`: `{numFetched, utxos, endIndex:{address, utxo}, encoding}`.
async fn get_utxos(node: N, args: GetUtxosArgs) -> RpcResult {
    if args.addresses.is_empty() {
        return Err(NodeError::NoAddresses);
    }
    if args.addresses.len() > MAX_PAGE_SIZE {
        return Err(NodeError::TooManyAddresses {
            given: args.addresses.len(),
            max: MAX_PAGE_SIZE,
        });
    }
    let enc = encoding(args.encoding.as_deref())?;
    if enc == Encoding::Json {
        return Err(NodeError::JsonNotSupported("UTXO"));
    }
    if !args.source_chain.is_empty() && node.chain_alias(&args.source_chain).is_none() {
        return Err(NodeError::UnknownSourceChain(args.source_chain));
    }
    let addrs = parse_addresses(&node, &args.addresses)?;
    let start = if args.start_index.address.is_empty() && args.start_index.utxo.is_empty() {
        None
    } else {
        let a = node.parse_address(&args.start_index.address).map_err(|e| {
            NodeError::BadStartAddress {
                address: args.start_index.address.clone(),
                reason: match e {
                    NodeError::BadAddress { reason, .. } => reason,
                    other => other.to_string(),
                },
            }
        })?;
        let u: Id = args
            .start_index
            .utxo
            .parse::<Id>()
            .map_err(|e| NodeError::BadStartUtxo(e.to_string()))?;
        Some((a, u))
    };
    let limit = match args.limit as usize {
        0 => MAX_PAGE_SIZE,
        n => n.min(MAX_PAGE_SIZE),
    };
    let cross_chain =
        !args.source_chain.is_empty() && node.chain_alias(&args.source_chain) != Some(Id::ZERO);
    let page = if cross_chain {
        firn_devnet::vm::UtxoPage {
            utxos: Vec::new(),
            next: None,
        }
    } else {
        node.chain.utxos(&addrs, start, limit)
    };
    let wanted: BTreeSet<ShortId> = addrs.iter().copied().collect();
    let end = page.next.or_else(|| {
        page.utxos.last().map(|u| {
            let a = u
                .owners()
                .addresses
                .iter()
                .find(|a| wanted.contains(a))
                .copied()
                .unwrap_or_default();
            (a, u.id())
        })
    });
    let (end_addr, end_utxo) = end.unwrap_or_default();
    let utxos: Vec<String> = page
        .utxos
        .iter()
        .filter_map(|u| enc.encode_bytes(&shapes::utxo_bytes(u)))
        .collect();
    Ok(json!({
        "numFetched": utxos.len().to_string(),
        "utxos": utxos,
        "endIndex": { "address": node.address(&end_addr), "utxo": end_utxo },
        "encoding": enc.as_str(),
    }))
}

/// `platform.getStakingAssetID` `{subnetID}` → `{assetID}`.
async fn get_staking_asset_id(node: N, args: SubnetArg) -> RpcResult {
    if args.subnet_id == Id::ZERO {
        return Ok(json!({ "assetID": node.chain.network().avax_asset_id }));
    }
    Err(NodeError::NoTransformation(args.subnet_id))
}

/// `platform.getSubnet` `{subnetID}`.
async fn get_subnet(node: N, args: SubnetArg) -> RpcResult {
    if args.subnet_id == Id::ZERO {
        return Err(NodeError::PrimaryNetworkIsNotASubnet);
    }
    let s = node
        .chain
        .subnets()
        .into_iter()
        .find(|s| s.id == args.subnet_id)
        .ok_or(NodeError::SubnetNotFound(args.subnet_id))?;
    let keys: Vec<String> = s.owner.addresses.iter().map(|a| node.address(a)).collect();
    let (conv, chain, addr) = match &s.conversion {
        Some(c) => (c.conversion_id, c.chain_id, hex0x(&c.address)),
        None => (Id::ZERO, Id::ZERO, "0x".to_string()),
    };
    Ok(json!({
        "isPermissioned": s.conversion.is_none(),
        "controlKeys": keys,
        "threshold": s.owner.threshold.to_string(),
        "locktime": s.owner.locktime.to_string(),
        "subnetTransformationTxID": Id::ZERO,
        "conversionID": conv,
        "managerChainID": chain,
        "managerAddress": addr,
    }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct IdsArg {
    ids: Vec<Id>,
}

/// `platform.getSubnets` (deprecated) `{ids}` → `{subnets:[{id, controlKeys, threshold}]}`;
/// without IDs, every subnet then the primary network.
async fn get_subnets(node: N, args: IdsArg) -> RpcResult {
    let all = node.chain.subnets();
    let record = |s: &firn_devnet::state::Subnet| {
        let keys: Vec<String> = s.owner.addresses.iter().map(|a| node.address(a)).collect();
        json!({ "id": s.id, "controlKeys": keys, "threshold": s.owner.threshold.to_string() })
    };
    let primary = json!({ "id": Id::ZERO, "controlKeys": [], "threshold": "0" });
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
    Ok(json!({ "subnets": out }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ValidatorsArgs {
    #[serde(rename = "subnetID")]
    subnet_id: Id,
    #[serde(rename = "nodeIDs")]
    node_ids: Vec<NodeId>,
}

/// `platform.getCurrentValidators` `{subnetID?, nodeIDs?}` → `{validators:[…]}` in the
/// primary, permissioned-subnet or L1 shape.
async fn get_current_validators(node: N, args: ValidatorsArgs) -> RpcResult {
    let vs = node
        .chain
        .current_validators(args.subnet_id, &args.node_ids);
    let mut out: Vec<Value> = Vec::new();
    if args.subnet_id == Id::ZERO {
        let one = args.node_ids.len() == 1;
        out.extend(vs.iter().map(|v| shapes::primary_validator(&node, v, one)));
        return Ok(json!({ "validators": out }));
    }
    out.extend(vs.iter().map(|v| shapes::subnet_validator(&v.validator)));
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
                .map(|l| shapes::l1_validator(&node, l)),
        );
    }
    Ok(json!({ "validators": out }))
}

/// `platform.getPendingValidators`: always empty (post-Durango stakers start at once).
async fn get_pending_validators(_: N, _: ValidatorsArgs) -> RpcResult {
    Ok(json!({ "validators": [], "delegators": [] }))
}

/// A height argument: a number, a decimal string, or `"proposed"` (the last accepted height).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct HeightArgs {
    height: Option<Value>,
    #[serde(rename = "subnetID")]
    subnet_id: Id,
}

fn query_height(node: &Node, h: &Option<Value>) -> Result<u64, NodeError> {
    let bad = || NodeError::InvalidArgument;
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
async fn get_validators_at(node: N, args: HeightArgs) -> RpcResult {
    let height = query_height(&node, &args.height)?;
    let set = node
        .chain
        .validators_at(&args.subnet_id, height)
        .ok_or(NodeError::UnfinalizedHeight(height))?;
    let mut out = Map::new();
    for (id, e) in &set {
        out.insert(
            id.to_string(),
            json!({
                "publicKey": e.public_key.map(|k| hex0x(&k)),
                "weight": e.weight.to_string(),
            }),
        );
    }
    Ok(Value::Object(out))
}

/// `platform.getAllValidatorsAt` `{height}` → `{validatorSets:{subnetID:{validators, totalWeight}}}`
/// in canonical Warp order.
async fn get_all_validators_at(node: N, args: HeightArgs) -> RpcResult {
    let height = query_height(&node, &args.height)?;
    let sets = node
        .chain
        .all_validators_at(height)
        .ok_or(NodeError::UnfinalizedHeightAll(height))?;
    let mut out = Map::new();
    for (subnet, set) in &sets {
        let c =
            firn_devnet::state::validators::canonical(set).map_err(|e| NodeError::Canonical {
                height,
                reason: e.to_string(),
            })?;
        let vs: Vec<Value> = c
            .validators
            .iter()
            .map(|v| {
                json!({
                    "publicKey": hex0x(&v.public_key.to_bytes()),
                    "weight": v.weight.to_string(),
                    "nodeIDs": v.node_ids,
                })
            })
            .collect();
        out.insert(
            subnet.to_string(),
            json!({ "validators": vs, "totalWeight": c.total_weight.to_string() }),
        );
    }
    Ok(json!({ "validatorSets": out }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ValidationIdArg {
    #[serde(rename = "validationID")]
    validation_id: Id,
}

/// `platform.getL1Validator` `{validationID}` → the L1 shape plus `subnetID` and `height`.
async fn get_l1_validator(node: N, args: ValidationIdArg) -> RpcResult {
    let v = node
        .chain
        .l1_validator(&args.validation_id)
        .ok_or(NodeError::L1ValidatorNotFound(args.validation_id))?;
    let mut out = shapes::l1_validator(&node, &v);
    if let Some(m) = out.as_object_mut() {
        m.insert("subnetID".into(), v.validator.subnet_id.to_string().into());
        m.insert("height".into(), node.chain.height().to_string().into());
    }
    Ok(out)
}

/// `platform.getCurrentSupply` `{subnetID?}` → `{supply, height}`.
async fn get_current_supply(node: N, _: SubnetArg) -> RpcResult {
    Ok(json!({
        "supply": node.chain.current_supply().to_string(),
        "height": node.chain.height().to_string(),
    }))
}

/// `platform.getBlockchains` (deprecated) → `{blockchains:[{id, name, subnetID, vmID}]}`:
/// subnets' chains, then the primary network's X and C chains.
async fn get_blockchains(node: N, _: Empty) -> RpcResult {
    let n = node.chain.network();
    let mut out: Vec<Value> = node
        .chain
        .blockchains()
        .iter()
        .map(|c| json!({ "id": c.id, "name": c.name, "subnetID": c.subnet_id, "vmID": c.vm_id }))
        .collect();
    out.push(json!({ "id": n.x_chain_id, "name": "X-Chain", "subnetID": Id::ZERO, "vmID": Id::from_padded_str("avm") }));
    out.push(json!({ "id": n.c_chain_id, "name": "C-Chain", "subnetID": Id::ZERO, "vmID": Id::from_padded_str("evm") }));
    Ok(json!({ "blockchains": out }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct BlockchainArg {
    #[serde(rename = "blockchainID")]
    blockchain_id: String,
}

/// `platform.getBlockchainStatus` `{blockchainID}` → `{status}`: the devnet's node validates
/// the primary network, so its chains are `Validating`; others are `Created` or `Unknown`.
async fn get_blockchain_status(node: N, args: BlockchainArg) -> RpcResult {
    if args.blockchain_id.is_empty() {
        return Err(NodeError::MissingBlockchainId);
    }
    let n = node.chain.network();
    let status = match args.blockchain_id.as_str() {
        "P" | "X" | "C" => "Validating",
        s => {
            let id: Id = s.parse::<Id>().map_err(|e| NodeError::BadBlockchainId {
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
    Ok(json!({ "status": status }))
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct BlockchainIdArg {
    #[serde(rename = "blockchainID")]
    blockchain_id: Id,
}

/// `platform.validatedBy` `{blockchainID}` → `{subnetID}`.
async fn validated_by(node: N, args: BlockchainIdArg) -> RpcResult {
    let s = node
        .chain
        .validated_by(&args.blockchain_id)
        .ok_or(NodeError::BlockchainNotFound(args.blockchain_id))?;
    Ok(json!({ "subnetID": s }))
}

/// `platform.validates` `{subnetID}` → `{blockchainIDs}`.
async fn validates(node: N, args: SubnetArg) -> RpcResult {
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
        return Err(NodeError::NotASubnet(args.subnet_id));
    }
    Ok(json!({ "blockchainIDs": ids }))
}

/// `platform.getTimestamp` → `{timestamp}` (RFC 3339, the chain time).
async fn get_timestamp(node: N, _: Empty) -> RpcResult {
    Ok(json!({ "timestamp": super::time::rfc3339(node.chain.timestamp()) }))
}

/// `platform.getRewardUTXOs` `{txID, encoding}` → `{numFetched, utxos, encoding}`.
async fn get_reward_utxos(node: N, args: TxArg) -> RpcResult {
    let enc = encoding(args.encoding.as_deref())?;
    if enc == Encoding::Json {
        return Err(NodeError::JsonNotSupported("utxo"));
    }
    let utxos: Vec<String> = node
        .chain
        .reward_utxos(&args.tx_id)
        .iter()
        .filter_map(|r| enc.encode_bytes(&shapes::utxo_bytes(&r.utxo)))
        .collect();
    Ok(json!({
        "numFetched": utxos.len().to_string(),
        "utxos": utxos,
        "encoding": enc.as_str(),
    }))
}
