//! ICM (Teleporter) messages: `getIcmMessage`, `listIcmMessages` and
//! `listIcmMessagesByAddress`, as the indexer joined them from the chains it follows, and the
//! same three under the legacy `/v1/teleporter/…` paths the official SDKs still call
//! (`getTeleporterMessage` and its siblings, whose messenger field is
//! `teleporterContractAddress`).
//!
//! A chain filter takes a blockchain ID (cb58) or an EVM chain ID; an EVM chain ID no chain this
//! server indexes has matches nothing (an empty page, not an error), as does a `network` it does
//! not serve.

use axum::extract::State;
use axum::http::Uri;
use axum::routing::get;
use axum::{Json, Router};
use firn_core::ids::Id;
use firn_store::page::CreatedCursor;
use firn_store::rows::evm::ChainRef;
use firn_store::rows::icm::{IcmFilter, IcmMessageRecord};
use firn_store::{EvmReader, IcmReader};

use super::network::NETWORKS;
use crate::error::{ApiError, ApiResult};
use crate::paging::Paging;
use crate::params::{PathParams, Query, parse_evm_address};
use crate::state::AppState;
use crate::wire::icm::{
    IcmMessage, ListIcmMessagesResponse, ListTeleporterMessagesResponse, TeleporterMessage,
};

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/icm/messages", get(list_icm_messages))
        .route("/v1/icm/messages/{messageId}", get(get_icm_message))
        .route(
            "/v1/icm/addresses/{address}/messages",
            get(list_icm_messages_by_address),
        )
        .route("/v1/teleporter/messages", get(list_teleporter_messages))
        .route(
            "/v1/teleporter/messages/{messageId}",
            get(get_teleporter_message),
        )
        .route(
            "/v1/teleporter/addresses/{address}/messages",
            get(list_teleporter_messages_by_address),
        )
}

const PAGE_DEFAULT: u32 = 10;
const PAGE_MAX: u32 = 100;

/// `GET /v1/icm/messages/{messageId}`
#[utoipa::path(get, path = "/v1/icm/messages/{messageId}", operation_id = "getIcmMessage", tag = "Interchain Messaging",
    summary = "Get an ICM message", description = "Gets an ICM message by its Teleporter message ID, with both sides where indexed.",
    params(("messageId" = String, Path, description = "Message ID, 64 hex digits (0x optional)")),
    responses((status = 200, description = "The message", body = IcmMessage),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown message", body = crate::error::ErrorBody)))]
pub async fn get_icm_message(
    State(state): State<AppState>,
    path: PathParams,
) -> ApiResult<Json<IcmMessage>> {
    Ok(Json(IcmMessage::from(&find(&state, &path).await?)))
}

/// `GET /v1/teleporter/messages/{messageId}`: [`get_icm_message`] under its legacy path (not in
/// the official OpenAPI file, so not in firn's either).
pub async fn get_teleporter_message(
    State(state): State<AppState>,
    path: PathParams,
) -> ApiResult<Json<TeleporterMessage>> {
    Ok(Json(TeleporterMessage::from(&find(&state, &path).await?)))
}

/// `GET /v1/icm/messages`
#[utoipa::path(get, path = "/v1/icm/messages", operation_id = "listIcmMessages", tag = "Interchain Messaging",
    summary = "List ICM messages", description = "Lists ICM messages, newest first, with both sides where indexed.",
    params(("pageToken" = Option<String>, Query),
           ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
           ("sourceBlockchainId" = Option<String>, Query, description = "Blockchain ID (cb58) or EVM chain ID"),
           ("destinationBlockchainId" = Option<String>, Query, description = "Blockchain ID (cb58) or EVM chain ID"),
           ("blockchainId" = Option<String>, Query, description = "Source or destination: blockchain ID (cb58) or EVM chain ID"),
           ("to" = Option<String>, Query, description = "Receiving contract"),
           ("from" = Option<String>, Query, description = "Sender"),
           ("network" = Option<String>, Query, description = "mainnet, fuji or testnet")),
    responses((status = 200, description = "A page of messages", body = ListIcmMessagesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_icm_messages(
    State(state): State<AppState>,
    uri: Uri,
    q: Query,
) -> ApiResult<Json<ListIcmMessagesResponse>> {
    let (messages, next_page_token) = filtered(&state, &uri, q).await?;
    Ok(Json(ListIcmMessagesResponse {
        next_page_token,
        messages: messages.iter().map(IcmMessage::from).collect(),
    }))
}

/// `GET /v1/teleporter/messages`: [`list_icm_messages`] under its legacy path.
pub async fn list_teleporter_messages(
    State(state): State<AppState>,
    uri: Uri,
    q: Query,
) -> ApiResult<Json<ListTeleporterMessagesResponse>> {
    let (messages, next_page_token) = filtered(&state, &uri, q).await?;
    Ok(Json(ListTeleporterMessagesResponse {
        next_page_token,
        messages: messages.iter().map(TeleporterMessage::from).collect(),
    }))
}

/// `GET /v1/icm/addresses/{address}/messages`
#[utoipa::path(get, path = "/v1/icm/addresses/{address}/messages", operation_id = "listIcmMessagesByAddress", tag = "Interchain Messaging",
    summary = "List ICM messages by address", description = "Lists the ICM messages an address sent or received, newest first.",
    params(("address" = String, Path, description = "EVM address"),
           ("pageToken" = Option<String>, Query),
           ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
           ("network" = Option<String>, Query, description = "mainnet, fuji or testnet")),
    responses((status = 200, description = "A page of messages", body = ListIcmMessagesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_icm_messages_by_address(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListIcmMessagesResponse>> {
    let (messages, next_page_token) = by_address(&state, &uri, &path, q).await?;
    Ok(Json(ListIcmMessagesResponse {
        next_page_token,
        messages: messages.iter().map(IcmMessage::from).collect(),
    }))
}

/// `GET /v1/teleporter/addresses/{address}/messages`: [`list_icm_messages_by_address`] under
/// its legacy path.
pub async fn list_teleporter_messages_by_address(
    State(state): State<AppState>,
    uri: Uri,
    path: PathParams,
    q: Query,
) -> ApiResult<Json<ListTeleporterMessagesResponse>> {
    let (messages, next_page_token) = by_address(&state, &uri, &path, q).await?;
    Ok(Json(ListTeleporterMessagesResponse {
        next_page_token,
        messages: messages.iter().map(TeleporterMessage::from).collect(),
    }))
}

/// A page of messages and the next page's token.
type Listed = (Vec<IcmMessageRecord>, Option<String>);

/// The message `{messageId}` names.
async fn find(state: &AppState, path: &PathParams) -> ApiResult<IcmMessageRecord> {
    let raw = path.get("messageId");
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(raw.strip_prefix("0x").unwrap_or(raw), &mut bytes)
        .map_err(|_| ApiError::bad("messageId must be a message ID (64 hex digits)"))?;
    state
        .store
        .find_icm_message(Id(bytes))
        .await?
        .ok_or_else(|| ApiError::not_found(format!("ICM message {raw} not found")))
}

/// The page the list's filters select.
async fn filtered(state: &AppState, uri: &Uri, mut q: Query) -> ApiResult<Listed> {
    let paging = paging(state, uri, &mut q);
    let network = q.one_of("network", &NETWORKS);
    let chains = [
        "sourceBlockchainId",
        "destinationBlockchainId",
        "blockchainId",
    ]
    .map(|name| chain_param(&mut q, name));
    let sender = q.evm_address("from");
    let recipient = q.evm_address("to");
    q.finish()?;
    let [source, destination, either_chain] = chains;
    let mut filter = IcmFilter {
        sender,
        recipient,
        ..IcmFilter::default()
    };
    let resolved = [
        (source, &mut filter.source),
        (destination, &mut filter.destination),
        (either_chain, &mut filter.either_chain),
    ];
    let mut matches_any = network.is_none_or(|n| state.config.network.accepts(n));
    for (given, slot) in resolved {
        if let Some(given) = given {
            *slot = resolve_chain(state, given).await?;
            matches_any &= slot.is_some();
        }
    }
    list(state, &filter, paging, matches_any).await
}

/// The page of messages `{address}` sent or received.
async fn by_address(
    state: &AppState,
    uri: &Uri,
    path: &PathParams,
    mut q: Query,
) -> ApiResult<Listed> {
    let paging = paging(state, uri, &mut q);
    let network = q.one_of("network", &NETWORKS);
    let party = parse_evm_address(path.get("address"));
    if party.is_none() {
        q.error("address must be an EVM address (0x and 40 hex digits)");
    }
    q.finish()?;
    let filter = IcmFilter {
        party,
        ..IcmFilter::default()
    };
    let ours = network.is_none_or(|n| state.config.network.accepts(n));
    list(state, &filter, paging, ours).await
}

fn paging(state: &AppState, uri: &Uri, q: &mut Query) -> Paging<CreatedCursor> {
    q.paging::<CreatedCursor>(
        uri.path(),
        &state.config.page_token_key,
        PAGE_DEFAULT,
        PAGE_MAX,
    )
}

async fn list(
    state: &AppState,
    filter: &IcmFilter,
    paging: Paging<CreatedCursor>,
    matches_any: bool,
) -> ApiResult<Listed> {
    if !matches_any {
        return Ok((Vec::new(), None));
    }
    let page = state
        .store
        .list_icm_messages(filter, &paging.request)
        .await?;
    Ok((page.items, paging.binding.next(page.next.as_ref())))
}

/// A chain filter as given: a blockchain ID or an EVM chain ID.
#[derive(Debug, Clone, Copy)]
enum ChainParam {
    Blockchain(Id),
    Evm(u64),
}

fn chain_param(q: &mut Query, name: &str) -> Option<ChainParam> {
    let raw = q.str(name)?.to_owned();
    if let Ok(n) = raw.parse::<u64>() {
        return Some(ChainParam::Evm(n));
    }
    match raw.parse::<Id>() {
        Ok(id) => Some(ChainParam::Blockchain(id)),
        Err(_) => {
            q.error(format!(
                "{name} must be a blockchain ID (cb58) or an EVM chain ID"
            ));
            None
        }
    }
}

/// The blockchain ID a chain filter names; `None` for an EVM chain ID no indexed chain has.
async fn resolve_chain(state: &AppState, given: ChainParam) -> ApiResult<Option<Id>> {
    Ok(match given {
        ChainParam::Blockchain(id) => Some(id),
        ChainParam::Evm(n) => state
            .store
            .find_evm_chain(ChainRef::Evm(n))
            .await?
            .map(|c| c.blockchain_id),
    })
}
