//! What `platform.getUTXOs` and `avm.getUTXOs` share (AvalancheGo's `api.GetUTXOsArgs` and
//! `GetUTXOsReply` handling): the argument checks in AvalancheGo's order and texts, and the
//! page's reply with its `endIndex`.

use std::collections::BTreeSet;

use firn_core::encoding::Encoding;
use firn_core::ids::{Id, ShortId};
use firn_rpc::methods::api::{GetUtxosParams, UtxoIndex, UtxosReply};

use super::{MethodError, encoding};

/// The most addresses and UTXOs `getUTXOs` handles per call, as AvalancheGo.
pub const MAX_PAGE_SIZE: usize = 1024;

/// A checked `getUTXOs` request.
#[derive(Debug)]
pub(super) struct UtxoQuery {
    /// The owners asked about.
    pub addresses: Vec<ShortId>,
    /// Where the page starts (exclusive).
    pub start: Option<(ShortId, Id)>,
    /// Most UTXOs in the page.
    pub limit: usize,
    /// How UTXOs are written (never JSON).
    pub encoding: Encoding,
}

/// A UTXO of a page: its codec bytes, its owners and its ID.
pub(super) struct ListedUtxo {
    pub bytes: Vec<u8>,
    pub owners: Vec<ShortId>,
    pub id: Id,
}

/// Checks `args`, parsing addresses of this chain with `parse`.
pub(super) fn query(
    args: &GetUtxosParams,
    parse: impl Fn(&str) -> Result<ShortId, MethodError>,
) -> Result<UtxoQuery, MethodError> {
    if args.addresses.is_empty() {
        return Err(MethodError::NoAddresses);
    }
    if args.addresses.len() > MAX_PAGE_SIZE {
        return Err(MethodError::TooManyAddresses {
            given: args.addresses.len(),
            max: MAX_PAGE_SIZE,
        });
    }
    let enc = encoding(args.encoding.as_deref())?;
    if enc == Encoding::Json {
        return Err(MethodError::JsonNotSupported("UTXO"));
    }
    let addresses = args
        .addresses
        .iter()
        .map(|a| parse(a))
        .collect::<Result<Vec<_>, _>>()?;
    let start = if args.start_index.address.is_empty() && args.start_index.utxo.is_empty() {
        None
    } else {
        let a = parse(&args.start_index.address).map_err(|e| MethodError::BadStartAddress {
            address: args.start_index.address.clone(),
            reason: match e {
                MethodError::BadAddress { reason, .. } => reason,
                other => other.to_string(),
            },
        })?;
        let u: Id = args
            .start_index
            .utxo
            .parse::<Id>()
            .map_err(|e| MethodError::BadStartUtxo(e.to_string()))?;
        Some((a, u))
    };
    let limit = match args.limit as usize {
        0 => MAX_PAGE_SIZE,
        n => n.min(MAX_PAGE_SIZE),
    };
    Ok(UtxoQuery {
        addresses,
        start,
        limit,
        encoding: enc,
    })
}

/// The reply for a page: its UTXOs encoded, and `endIndex` where the next page starts (the
/// store's cursor, or else the last UTXO under the first of its owners that was asked about).
pub(super) fn reply(
    q: &UtxoQuery,
    utxos: &[ListedUtxo],
    next: Option<(ShortId, Id)>,
    format_address: impl Fn(&ShortId) -> String,
) -> UtxosReply {
    let wanted: BTreeSet<ShortId> = q.addresses.iter().copied().collect();
    let end = next.or_else(|| {
        utxos.last().map(|u| {
            let a = u
                .owners
                .iter()
                .find(|a| wanted.contains(a))
                .copied()
                .unwrap_or_default();
            (a, u.id)
        })
    });
    let (end_addr, end_utxo) = end.unwrap_or_default();
    let encoded: Vec<String> = utxos
        .iter()
        .filter_map(|u| q.encoding.encode_bytes(&u.bytes))
        .collect();
    UtxosReply {
        num_fetched: encoded.len() as u64,
        utxos: encoded,
        end_index: UtxoIndex {
            address: format_address(&end_addr),
            utxo: end_utxo.to_string(),
        },
        encoding: q.encoding.as_str().to_owned(),
    }
}
