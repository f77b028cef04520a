//! `avm.*` on `/ext/bc/X` (alias `/ext/X`): one function per method, delegating to the devnet's
//! [`XChain`]. Argument names, reply keys and error texts follow AvalancheGo's
//! `vms/avm/service.go`.

use std::sync::Arc;

use firn_core::address::ChainAddress;
use firn_core::avm::json::{block_to_json, tx_to_json};
use firn_core::avm::{Tx, UnsignedTx};
use firn_core::codec;
use firn_core::encoding::Encoding;
use firn_core::ids::{Id, ShortId};
use firn_core::pchain::json::JsonContext;
use firn_devnet::TxError;
use firn_devnet::xchain::{XChain, XTxStatus};
use firn_rpc::methods::NoParams;
use firn_rpc::methods::avm::*;
use firn_rpc::{AvaServer, AvaService};
use tokio::sync::Notify;

use super::utxos::{self, ListedUtxo};
use super::{MethodError, encoding, parse_chain_address, primary_chain_alias};

/// What the `avm` service works on: the X-Chain and a way to wake its block producer.
#[derive(Debug)]
pub struct XNode {
    chain: Arc<XChain>,
    waker: Option<Arc<Notify>>,
    json: JsonContext,
}

impl XNode {
    /// The service state for `chain`; `waker` is notified when a tx is issued.
    pub fn new(chain: Arc<XChain>, waker: Option<Arc<Notify>>) -> Self {
        let json = JsonContext::xchain(chain.network().network_id);
        Self { chain, waker, json }
    }

    fn parse_address(&self, s: &str) -> Result<ShortId, MethodError> {
        parse_chain_address(s, "X", &self.json.hrp)
    }

    fn address(&self, id: &ShortId) -> String {
        ChainAddress::new("X", self.chain.network().network_id, *id).to_string()
    }

    /// `AVAX` or an asset ID (`vm.lookupAssetID`).
    fn lookup_asset(&self, asset: &str) -> Result<Id, MethodError> {
        if asset == "AVAX" {
            return Ok(self.chain.network().avax_asset_id);
        }
        asset
            .parse()
            .map_err(|_| MethodError::AssetNotFound(asset.to_owned()))
    }

    /// The alias `getAllBalances` names an asset by: `AVAX` for AVAX, else its ID.
    fn asset_alias(&self, id: &Id) -> String {
        if *id == self.chain.network().avax_asset_id {
            "AVAX".to_owned()
        } else {
            id.to_string()
        }
    }
}

type N = Arc<XNode>;

/// The `avm` service on its own server.
pub fn server(node: N) -> AvaServer<N> {
    AvaServer::new(node).service(service())
}

/// Every `avm.*` method.
pub fn service() -> AvaService<N> {
    AvaService::new("avm")
        .handle::<GetBlock, _, _, _>(get_block)
        .handle::<GetBlockByHeight, _, _, _>(get_block_by_height)
        .handle::<GetHeight, _, _, _>(get_height)
        .handle::<IssueTx, _, _, _>(issue_tx)
        .handle::<GetTx, _, _, _>(get_tx)
        .handle::<GetTxStatus, _, _, _>(get_tx_status)
        .handle::<GetUtxos, _, _, _>(get_utxos)
        .handle::<GetAssetDescription, _, _, _>(get_asset_description)
        .handle::<GetBalance, _, _, _>(get_balance)
        .handle::<GetAllBalances, _, _, _>(get_all_balances)
        .handle::<GetTxFee, _, _, _>(get_tx_fee)
}

fn block_reply(node: &XNode, block: &firn_core::avm::Block, enc: Encoding) -> BlockReply {
    let block = match enc.encode_bytes(&block.bytes()) {
        Some(s) => Encoded::Text(s),
        None => Encoded::Json(block_to_json(&node.json, block)),
    };
    BlockReply {
        block,
        encoding: enc.as_str().to_owned(),
    }
}

/// `avm.getBlock` `{blockID, encoding}` → `{block, encoding}`.
async fn get_block(node: N, args: GetBlockParams) -> Result<BlockReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let b = node
        .chain
        .block_by_id(&args.block_id)
        .ok_or(MethodError::BlockNotFound(args.block_id))?;
    Ok(block_reply(&node, &b.block, enc))
}

/// `avm.getBlockByHeight` `{height, encoding}` → `{block, encoding}`.
async fn get_block_by_height(
    node: N,
    args: GetBlockByHeightParams,
) -> Result<BlockReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let b = node
        .chain
        .block_by_height(args.height)
        .ok_or(MethodError::BlockAtHeightNotFound(args.height))?;
    Ok(block_reply(&node, &b.block, enc))
}

/// `avm.getHeight` → `{height}`.
async fn get_height(node: N, _: NoParams) -> Result<HeightReply, MethodError> {
    Ok(HeightReply {
        height: node.chain.height(),
    })
}

/// `avm.issueTx` `{tx, encoding}` → `{txID}`. A tx already pending is not an error, as in
/// AvalancheGo; any other refusal answers with the verifier's text.
async fn issue_tx(node: N, args: IssueTxParams) -> Result<TxIdReply, MethodError> {
    let enc = encoding(args.encoding.as_deref())?;
    let bytes = enc
        .decode_bytes(&args.tx)
        .map_err(|e| MethodError::TxDecoding(e.to_string()))?;
    let tx: Tx = codec::from_bytes(&bytes)
        .map_err(|e| MethodError::XChainRejected(TxError::Malformed(e.to_string())))?;
    let tx_id = tx.id();
    match node.chain.issue_tx(tx) {
        Ok(_) => {}
        Err(TxError::Duplicate) if node.chain.tx_status(&tx_id) == XTxStatus::Processing => {}
        Err(e) => return Err(MethodError::XChainRejected(e)),
    }
    if let Some(w) = &node.waker {
        w.notify_one();
    }
    Ok(TxIdReply { tx_id })
}

/// `avm.getTx` `{txID, encoding}` → `{tx, encoding}`.
async fn get_tx(node: N, args: TxParams) -> Result<TxReply, MethodError> {
    if args.tx_id == Id::ZERO {
        return Err(MethodError::NilTxId);
    }
    let enc = encoding(args.encoding.as_deref())?;
    let info = node.chain.tx(&args.tx_id).ok_or(MethodError::NotFound)?;
    let tx = match enc.encode_bytes(&info.tx.bytes()) {
        Some(s) => Encoded::Text(s),
        None => Encoded::Json(tx_to_json(&node.json, &info.tx)),
    };
    Ok(TxReply {
        tx,
        encoding: enc.as_str().to_owned(),
    })
}

/// `avm.getTxStatus` `{txID}` → `{status}`: `Accepted` or `Unknown`, as AvalancheGo reads
/// it from accepted state only.
async fn get_tx_status(node: N, args: TxIdParams) -> Result<TxStatusReply, MethodError> {
    if args.tx_id == Id::ZERO {
        return Err(MethodError::NilTxId);
    }
    let status = match node.chain.tx_status(&args.tx_id) {
        XTxStatus::Accepted => TxStatus::Accepted,
        XTxStatus::Processing | XTxStatus::Unknown => TxStatus::Unknown,
    };
    Ok(TxStatusReply { status })
}

/// `avm.getUTXOs`: the X-Chain's UTXOs, or with `sourceChain` those exported to it.
async fn get_utxos(node: N, args: GetUtxosParams) -> Result<UtxosReply, MethodError> {
    let q = utxos::query(&args, |a| node.parse_address(a))?;
    let x_chain = node.chain.chain_id();
    let source = match args.source_chain.as_str() {
        "" => x_chain,
        alias => primary_chain_alias(node.chain.network(), alias)
            .ok_or_else(|| MethodError::UnknownSourceChain(alias.to_owned()))?,
    };
    let (listed, next): (Vec<ListedUtxo>, _) = if source == x_chain {
        let page = node.chain.utxos(&q.addresses, q.start, q.limit);
        let listed = page
            .utxos
            .iter()
            .map(|u| ListedUtxo {
                bytes: codec::to_bytes(u),
                owners: u.output.owners().addresses.clone(),
                id: u.id(),
            })
            .collect();
        (listed, page.next)
    } else {
        let page = node
            .chain
            .atomic_utxos(&source, &q.addresses, q.start, q.limit);
        let listed = page
            .utxos
            .iter()
            .map(|u| ListedUtxo {
                bytes: codec::to_bytes(u),
                owners: u.output.owners.addresses.clone(),
                id: u.id(),
            })
            .collect();
        (listed, page.next)
    };
    Ok(utxos::reply(&q, &listed, next, |a| node.address(a)))
}

/// `avm.getAssetDescription` `{assetID}` → `{assetID, name, symbol, denomination}`.
async fn get_asset_description(
    node: N,
    args: AssetIdParams,
) -> Result<AssetDescriptionReply, MethodError> {
    let id = node.lookup_asset(&args.asset_id)?;
    let info = node.chain.tx(&id).ok_or(MethodError::NotFound)?;
    let UnsignedTx::CreateAsset(t) = info.tx.unsigned() else {
        return Err(MethodError::NotAnAsset);
    };
    Ok(AssetDescriptionReply {
        asset_id: id,
        name: t.name.clone(),
        symbol: t.symbol.clone(),
        denomination: t.denomination,
    })
}

fn parse_address_argument(node: &XNode, address: &str) -> Result<ShortId, MethodError> {
    node.parse_address(address)
        .map_err(|e| MethodError::BadAddressArgument {
            address: address.to_owned(),
            reason: match e {
                MethodError::BadAddress { reason, .. } => reason,
                other => other.to_string(),
            },
        })
}

/// `avm.getBalance` `{address, assetID, includePartial}` → `{balance, utxoIDs}`.
async fn get_balance(node: N, args: GetBalanceParams) -> Result<BalanceReply, MethodError> {
    let address = parse_address_argument(&node, &args.address)?;
    let asset = node.lookup_asset(&args.asset_id)?;
    let balances = node.chain.balances(&[address], args.include_partial);
    let b = balances.get(&asset).cloned().unwrap_or_default();
    Ok(BalanceReply {
        balance: b.amount,
        utxo_ids: b
            .utxos
            .iter()
            .map(|u| UtxoRef {
                tx_id: u.tx_id,
                output_index: u.output_index,
            })
            .collect(),
    })
}

/// `avm.getAllBalances` `{address, includePartial}` → `{balances:[{asset, balance}]}`.
async fn get_all_balances(
    node: N,
    args: GetAllBalancesParams,
) -> Result<AllBalancesReply, MethodError> {
    let address = parse_address_argument(&node, &args.address)?;
    let balances = node
        .chain
        .balances(&[address], args.include_partial)
        .iter()
        .map(|(asset, b)| AssetBalance {
            asset: node.asset_alias(asset),
            balance: b.amount,
        })
        .collect();
    Ok(AllBalancesReply { balances })
}

/// `avm.getTxFee` → `{txFee, createAssetTxFee}`.
async fn get_tx_fee(node: N, _: NoParams) -> Result<TxFeeReply, MethodError> {
    let fees = node.chain.fees();
    Ok(TxFeeReply {
        tx_fee: fees.tx_fee,
        create_asset_tx_fee: fees.create_asset_tx_fee,
    })
}
