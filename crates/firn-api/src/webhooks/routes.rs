//! The webhook routes: `/v1/webhooks…`, each scoped to the owner the request's API key names.

use std::net::IpAddr;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::routing::{get, patch, post};
use axum::{Json, Router};
use firn_store::page::TokenCursor;
use firn_store::rows::ChainKey;
use firn_store::rows::evm::ChainRef;
use firn_store::rows::webhooks::{NewWebhook, WebhookRecord, WebhookUpdate};
use firn_store::types::{Address, B256, ParseText};
use firn_store::{CursorStore, EvmReader, PageRequest, Store, WebhookStore};
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use super::pchain::{PRIMARY_NETWORK_ADDRESS_ACTIVITY, VALIDATOR_ACTIVITY};
use super::wire::{
    ADDRESS_ACTIVITY, AddressActivityMetadata, AddressesChangeRequest, CreateWebhookRequest,
    ListWebhookAddressesResponse, ListWebhooksResponse, SharedSecretsResponse,
    UpdateWebhookRequest, WebhookResponse,
};
use crate::error::{ApiError, ApiResult};
use crate::params::{PathParams, Query, parse_evm_address};
use crate::routes::require_json;
use crate::state::AppState;
use crate::wire::evm::checksummed;

/// Longest name, description or URL, in bytes.
const MAX_TEXT: usize = 2048;
/// Event signatures one webhook may filter on.
const MAX_SIGNATURES: usize = 64;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/webhooks", post(create_webhook).get(list_webhooks))
        .route(
            "/v1/webhooks/{id}",
            get(get_webhook)
                .delete(deactivate_webhook)
                .patch(update_webhook),
        )
        .route(
            "/v1/webhooks:generateOrRotateSharedSecret",
            post(generate_or_rotate_shared_secret),
        )
        .route("/v1/webhooks:getSharedSecret", get(get_shared_secret))
        .route(
            "/v1/webhooks/{id}/addresses",
            patch(add_addresses)
                .delete(remove_addresses)
                .get(list_addresses),
        )
}

/// The owner a request acts for: the SHA-256 of its API key, or `""` without one.
pub(crate) fn owner(headers: &HeaderMap) -> String {
    crate::limits::sent_key(headers)
        .map(|key| hex::encode(Sha256::digest(key)))
        .unwrap_or_default()
}

/// The JSON body as `T`, or a 400 that says what is wrong with it.
fn body<T: DeserializeOwned>(headers: &HeaderMap, body: &Bytes) -> ApiResult<T> {
    require_json(headers)?;
    serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("invalid request body: {e}")))
}

/// A new random secret: 32 bytes, hex.
fn new_secret() -> String {
    let (a, b) = (uuid::Uuid::new_v4(), uuid::Uuid::new_v4());
    format!("{}{}", hex::encode(a.as_bytes()), hex::encode(b.as_bytes()))
}

/// Checks a target URL: http(s), not too long, and unless private targets are allowed, a host
/// that is (and resolves to) public addresses only.
async fn check_url(state: &AppState, url: &str, errors: &mut Vec<String>) {
    if url.len() > MAX_TEXT {
        errors.push(format!("url must be at most {MAX_TEXT} characters"));
        return;
    }
    let Ok(parsed) = reqwest::Url::parse(url) else {
        errors.push("url must be an absolute http or https URL".to_owned());
        return;
    };
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        errors.push("url must be an absolute http or https URL".to_owned());
        return;
    }
    if state.config.webhooks.allow_private_targets {
        return;
    }
    let private = |ip: IpAddr| !firn_http::outbound::is_public(ip);
    let host = parsed.host_str().unwrap_or_default();
    let port = parsed.port_or_known_default().unwrap_or(443);
    let refused = match host.trim_matches(['[', ']']).parse::<IpAddr>() {
        Ok(ip) => private(ip),
        Err(_) => match tokio::net::lookup_host((host, port)).await {
            Ok(addrs) => addrs.map(|a| a.ip()).any(private),
            Err(_) => {
                errors.push(format!("url: the host {host} does not resolve"));
                return;
            }
        },
    };
    if refused {
        errors.push(format!(
            "url: {host} is a loopback or private address, which this server does not deliver \
             to (its operator can allow them with --webhook-private-targets)"
        ));
    }
}

fn check_text(name: &str, value: Option<&String>, errors: &mut Vec<String>) {
    if value.is_some_and(|v| v.len() > MAX_TEXT) {
        errors.push(format!("{name} must be at most {MAX_TEXT} characters"));
    }
}

/// Parses `addresses` (EVM, any case, at least one unless `may_be_empty`).
fn addresses(raw: &[String], errors: &mut Vec<String>) -> Vec<Address> {
    let mut out = Vec::with_capacity(raw.len());
    for a in raw {
        match parse_evm_address(a) {
            Some(a) => out.push(a),
            None => errors.push(format!(
                "addresses: {:?} is not an EVM address (0x and 40 hex digits)",
                a.chars().take(64).collect::<String>()
            )),
        }
    }
    out
}

/// Every address webhook `id` watches.
async fn all_addresses(store: &Store, id: &str) -> ApiResult<Vec<String>> {
    let mut out = Vec::new();
    let mut page = PageRequest::<TokenCursor>::first(firn_store::page::MAX_PAGE_LIMIT);
    loop {
        let got = store.list_webhook_addresses(id, &page).await?;
        out.extend(got.items.iter().map(checksummed));
        match got.next {
            Some(next) => page = PageRequest::after(page.limit, next),
            None => return Ok(out),
        }
    }
}

async fn response(store: &Store, w: WebhookRecord) -> ApiResult<WebhookResponse> {
    let evm = w.event_type == ADDRESS_ACTIVITY;
    let metadata = if evm {
        let mut m: AddressActivityMetadata = serde_json::from_str(&w.metadata).unwrap_or_default();
        m.addresses = all_addresses(store, &w.id).await?;
        serde_json::to_value(m).unwrap_or_default()
    } else {
        serde_json::from_str(&w.metadata).unwrap_or_default()
    };
    Ok(WebhookResponse {
        status: if w.active { "active" } else { "inactive" }.to_owned(),
        id: w.id,
        url: w.url,
        chain_id: w.chain_id,
        created_at: w.created_at,
        name: w.name,
        description: w.description,
        event_type: w.event_type,
        metadata,
        include_internal_txs: evm.then_some(w.include_internal_txs),
        include_logs: evm.then_some(w.include_logs),
        inactive_reason: w.inactive_reason,
    })
}

async fn found(state: &AppState, owner: &str, id: &str) -> ApiResult<WebhookRecord> {
    state
        .store
        .find_webhook(owner, id)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("webhook {id} not found")))
}

/// The last block indexed of EVM chain `chain_id`: matching starts after it.
async fn indexed_tip(store: &Store, chain_id: u64) -> ApiResult<u64> {
    Ok(store
        .find_cursor(ChainKey::Evm(chain_id))
        .await?
        .unwrap_or(0))
}

/// What a valid create request makes: the webhook's chain, stored metadata and addresses.
pub(super) struct Target {
    pub(super) chain_id: String,
    pub(super) evm_chain_id: Option<u64>,
    pub(super) metadata: String,
    pub(super) addresses: Vec<Address>,
}

/// `POST /v1/webhooks`
#[utoipa::path(post, path = "/v1/webhooks",
    operation_id = "createWebhook", tag = "Webhooks",
    summary = "Create a webhook",
    description = "Creates a webhook of the API key that sends the request: address_activity (EVM transactions to or from the watched addresses), primary_network_address_activity or validator_activity. Events are posted to url, signed with the key's shared secret.",
    request_body = CreateWebhookRequest,
    responses((status = 201, description = "The webhook, active", body = WebhookResponse),
              (status = 400, description = "Bad request", body = crate::error::ErrorBody)))]
pub async fn create_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    raw: Bytes,
) -> ApiResult<(StatusCode, Json<WebhookResponse>)> {
    let req: CreateWebhookRequest = body(&headers, &raw)?;
    let mut errors = Vec::new();
    match &req.url {
        Some(url) => check_url(&state, url, &mut errors).await,
        None => errors.push("url is required".to_owned()),
    }
    check_text("name", req.name.as_ref(), &mut errors);
    check_text("description", req.description.as_ref(), &mut errors);
    if req.metadata.is_none() {
        errors.push("metadata is required".to_owned());
    }
    let event_type = req.event_type.clone().unwrap_or_default();
    let target = match event_type.as_str() {
        ADDRESS_ACTIVITY => evm_target(&state, &req, &mut errors).await?,
        PRIMARY_NETWORK_ADDRESS_ACTIVITY | VALIDATOR_ACTIVITY => {
            super::pchain_target::pchain_target(&state, &req, &mut errors)
        }
        "" => {
            errors.push("eventType is required".to_owned());
            None
        }
        other => {
            errors.push(format!(
                "eventType must be one of address_activity, primary_network_address_activity, \
                 validator_activity, not {:?}",
                other.chars().take(40).collect::<String>()
            ));
            None
        }
    };
    let target = match target {
        Some(t) if errors.is_empty() => t,
        _ => return Err(ApiError::BadRequest(errors)),
    };
    let owner = owner(&headers);
    // Deliveries are always signed: an owner's first webhook gets it a secret.
    state
        .store
        .put_webhook_secret(&owner, &new_secret(), false)
        .await?;
    let followed = match target.evm_chain_id {
        Some(chain) => ChainKey::Evm(chain),
        None => ChainKey::PChain,
    };
    let webhook = WebhookRecord {
        // Time-ordered, so webhooks made in the same second list in the order they were made.
        id: uuid::Uuid::now_v7().to_string(),
        owner: owner.clone(),
        event_type,
        chain_id: target.chain_id,
        evm_chain_id: target.evm_chain_id,
        url: req.url.unwrap_or_default(),
        name: req.name.unwrap_or_default(),
        description: req.description.unwrap_or_default(),
        active: true,
        created_at: crate::metrics_api::clock::unix_secs(),
        metadata: target.metadata,
        include_internal_txs: req.include_internal_txs.unwrap_or(false),
        include_logs: req.include_logs.unwrap_or(false),
        matched_through: state.store.find_cursor(followed).await?.unwrap_or(0),
        failures: 0,
        inactive_reason: None,
        match_state: None,
        match_epoch: 0,
    };
    let id = webhook.id.clone();
    state
        .store
        .create_webhook(&NewWebhook {
            webhook,
            addresses: target.addresses,
        })
        .await?;
    let created = found(&state, &owner, &id).await?;
    Ok((
        StatusCode::CREATED,
        Json(response(&state.store, created).await?),
    ))
}

/// An `address_activity` request's chain and addresses; `None` when it is invalid (the
/// problems are in `errors`).
async fn evm_target(
    state: &AppState,
    req: &CreateWebhookRequest,
    errors: &mut Vec<String>,
) -> ApiResult<Option<Target>> {
    let chain_id = match req.chain_id.as_deref().map(str::parse::<u64>) {
        Some(Ok(id)) => Some(id),
        Some(Err(_)) => {
            errors.push("chainId must be an EVM chain ID (e.g. 43113)".to_owned());
            None
        }
        None => {
            errors.push("chainId is required".to_owned());
            None
        }
    };
    let metadata: AddressActivityMetadata = match &req.metadata {
        Some(m) => serde_json::from_value(m.clone()).unwrap_or_else(|e| {
            errors.push(format!("metadata: {e}"));
            AddressActivityMetadata::default()
        }),
        None => AddressActivityMetadata::default(),
    };
    if req.metadata.is_some() && metadata.addresses.is_empty() {
        errors.push("metadata.addresses must hold at least one address".to_owned());
    }
    let max = state.config.webhooks.max_addresses;
    if metadata.addresses.len() as u64 > max {
        errors.push(format!("metadata.addresses holds at most {max} addresses"));
    }
    let watched = addresses(&metadata.addresses, errors);
    let signatures = signatures(&metadata.event_signatures, errors);
    let Some(chain_id) = chain_id else {
        return Ok(None);
    };
    if state
        .store
        .find_evm_chain(ChainRef::Evm(chain_id))
        .await?
        .is_none()
    {
        errors.push(format!(
            "chainId {chain_id} is not an EVM chain this server indexes"
        ));
        return Ok(None);
    }
    let stored = AddressActivityMetadata {
        event_signatures: signatures,
        addresses: Vec::new(),
    };
    Ok(Some(Target {
        chain_id: chain_id.to_string(),
        evm_chain_id: Some(chain_id),
        metadata: serde_json::to_string(&stored).map_err(|e| ApiError::bad(e.to_string()))?,
        addresses: watched,
    }))
}

/// Parses `eventSignatures` (topic-0 hashes), lower-cased.
fn signatures(raw: &[String], errors: &mut Vec<String>) -> Vec<String> {
    if raw.len() > MAX_SIGNATURES {
        errors.push(format!(
            "metadata.eventSignatures holds at most {MAX_SIGNATURES} signatures"
        ));
        return Vec::new();
    }
    raw.iter()
        .filter_map(|s| match B256::parse_text(&s.to_ascii_lowercase()) {
            Ok(h) => Some(h.to_string()),
            Err(_) => {
                errors.push(format!(
                    "metadata.eventSignatures: {:?} is not an event signature (0x and 64 hex \
                     digits)",
                    s.chars().take(80).collect::<String>()
                ));
                None
            }
        })
        .collect()
}

/// `GET /v1/webhooks`
#[utoipa::path(get, path = "/v1/webhooks",
    operation_id = "listWebhooks", tag = "Webhooks",
    summary = "List webhooks",
    description = "Lists the webhooks of the API key that sends the request, oldest first.",
    params(("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100),
           ("status" = Option<String>, Query, description = "active or inactive")),
    responses((status = 200, description = "A page of webhooks", body = ListWebhooksResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody)))]
pub async fn list_webhooks(
    State(state): State<AppState>,
    headers: HeaderMap,
    uri: Uri,
    mut q: Query,
) -> ApiResult<Json<ListWebhooksResponse>> {
    let paging = q.paging(uri.path(), &state.config.page_token_key, 10, 100);
    let active = q
        .one_of("status", &["active", "inactive"])
        .map(|s| s == "active");
    q.finish()?;
    let page = state
        .store
        .list_webhooks(&owner(&headers), active, &paging.request)
        .await?;
    let mut webhooks = Vec::with_capacity(page.items.len());
    for w in page.items {
        webhooks.push(response(&state.store, w).await?);
    }
    Ok(Json(ListWebhooksResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        webhooks,
    }))
}

/// `GET /v1/webhooks/{id}`
#[utoipa::path(get, path = "/v1/webhooks/{id}",
    operation_id = "getWebhook", tag = "Webhooks",
    summary = "Get a webhook by ID",
    description = "Gets a webhook of the API key that sends the request.",
    params(("id" = String, Path, description = "The webhook ID")),
    responses((status = 200, description = "The webhook", body = WebhookResponse),
              (status = 404, description = "No such webhook for this API key", body = crate::error::ErrorBody)))]
pub async fn get_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
) -> ApiResult<Json<WebhookResponse>> {
    let w = found(&state, &owner(&headers), path.get("id")).await?;
    Ok(Json(response(&state.store, w).await?))
}

async fn apply(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
    update: WebhookUpdate,
) -> ApiResult<Json<WebhookResponse>> {
    let owner = owner(headers);
    let current = found(state, &owner, id).await?;
    let update = WebhookUpdate {
        resume_after: match current.evm_chain_id {
            Some(chain) => indexed_tip(&state.store, chain).await?,
            None => 0,
        },
        ..update
    };
    let w = state
        .store
        .update_webhook(&owner, id, &update)
        .await?
        .ok_or_else(|| ApiError::not_found(format!("webhook {id} not found")))?;
    Ok(Json(response(&state.store, w).await?))
}

/// `DELETE /v1/webhooks/{id}`: stops deliveries; the webhook stays, inactive.
#[utoipa::path(delete, path = "/v1/webhooks/{id}",
    operation_id = "deactivateWebhook", tag = "Webhooks",
    summary = "Deactivate a webhook",
    description = "Stops a webhook's deliveries; the webhook stays, inactive, and can be turned back on with updateWebhook.",
    params(("id" = String, Path, description = "The webhook ID")),
    responses((status = 200, description = "The webhook, inactive", body = WebhookResponse),
              (status = 404, description = "No such webhook for this API key", body = crate::error::ErrorBody)))]
pub async fn deactivate_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
) -> ApiResult<Json<WebhookResponse>> {
    let update = WebhookUpdate {
        active: Some(false),
        ..WebhookUpdate::default()
    };
    apply(&state, &headers, path.get("id"), update).await
}

/// `PATCH /v1/webhooks/{id}`
#[utoipa::path(patch, path = "/v1/webhooks/{id}",
    operation_id = "updateWebhook", tag = "Webhooks",
    summary = "Update a webhook",
    description = "Changes a webhook's name, description, URL, status or included data; the fields left out stay as they are.",
    params(("id" = String, Path, description = "The webhook ID")),
    request_body = UpdateWebhookRequest,
    responses((status = 200, description = "The webhook", body = WebhookResponse),
              (status = 400, description = "Bad request", body = crate::error::ErrorBody),
              (status = 404, description = "No such webhook for this API key", body = crate::error::ErrorBody)))]
pub async fn update_webhook(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
    raw: Bytes,
) -> ApiResult<Json<WebhookResponse>> {
    let req: UpdateWebhookRequest = body(&headers, &raw)?;
    let mut errors = Vec::new();
    if let Some(url) = &req.url {
        check_url(&state, url, &mut errors).await;
    }
    check_text("name", req.name.as_ref(), &mut errors);
    check_text("description", req.description.as_ref(), &mut errors);
    let active = match req.status.as_deref() {
        None => None,
        Some("active") => Some(true),
        Some("inactive") => Some(false),
        Some(other) => {
            errors.push(format!(
                "status must be active or inactive, not {:?}",
                other.chars().take(40).collect::<String>()
            ));
            None
        }
    };
    if !errors.is_empty() {
        return Err(ApiError::BadRequest(errors));
    }
    let update = WebhookUpdate {
        name: req.name,
        description: req.description,
        url: req.url,
        active,
        resume_after: 0,
        include_internal_txs: req.include_internal_txs,
        include_logs: req.include_logs,
    };
    apply(&state, &headers, path.get("id"), update).await
}

async fn change_addresses(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
    raw: &Bytes,
    add: bool,
) -> ApiResult<Json<WebhookResponse>> {
    let req: AddressesChangeRequest = body(headers, raw)?;
    let mut errors = Vec::new();
    let max = state.config.webhooks.max_addresses;
    if req.addresses.len() as u64 > max {
        errors.push(format!("addresses holds at most {max} addresses"));
    }
    let parsed = addresses(&req.addresses, &mut errors);
    if !errors.is_empty() {
        return Err(ApiError::BadRequest(errors));
    }
    let owner = owner(headers);
    if !state
        .store
        .change_webhook_addresses(&owner, id, &parsed, add, max)
        .await?
    {
        return Err(ApiError::not_found(format!("webhook {id} not found")));
    }
    let w = found(state, &owner, id).await?;
    Ok(Json(response(&state.store, w).await?))
}

/// `PATCH /v1/webhooks/{id}/addresses`
#[utoipa::path(patch, path = "/v1/webhooks/{id}/addresses",
    operation_id = "addAddressesToWebhook", tag = "Webhooks",
    summary = "Add addresses to EVM activity webhook",
    description = "Adds addresses to an address_activity webhook.",
    params(("id" = String, Path, description = "The webhook ID")),
    request_body = AddressesChangeRequest,
    responses((status = 200, description = "The webhook", body = WebhookResponse),
              (status = 400, description = "Bad request", body = crate::error::ErrorBody),
              (status = 404, description = "No such webhook for this API key", body = crate::error::ErrorBody)))]
pub async fn add_addresses(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
    raw: Bytes,
) -> ApiResult<Json<WebhookResponse>> {
    change_addresses(&state, &headers, path.get("id"), &raw, true).await
}

/// `DELETE /v1/webhooks/{id}/addresses`
#[utoipa::path(delete, path = "/v1/webhooks/{id}/addresses",
    operation_id = "removeAddressesFromWebhook", tag = "Webhooks",
    summary = "Remove addresses from EVM activity webhook",
    description = "Removes addresses from an address_activity webhook.",
    params(("id" = String, Path, description = "The webhook ID")),
    request_body = AddressesChangeRequest,
    responses((status = 200, description = "The webhook", body = WebhookResponse),
              (status = 400, description = "Bad request", body = crate::error::ErrorBody),
              (status = 404, description = "No such webhook for this API key", body = crate::error::ErrorBody)))]
pub async fn remove_addresses(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
    raw: Bytes,
) -> ApiResult<Json<WebhookResponse>> {
    change_addresses(&state, &headers, path.get("id"), &raw, false).await
}

/// `GET /v1/webhooks/{id}/addresses`
#[utoipa::path(get, path = "/v1/webhooks/{id}/addresses",
    operation_id = "getAddressesFromWebhook", tag = "Webhooks",
    summary = "List adresses by EVM activity webhooks",
    description = "Lists the addresses an address_activity webhook watches, with their count.",
    params(("id" = String, Path, description = "The webhook ID"),
           ("pageToken" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 100)),
    responses((status = 200, description = "A page of addresses", body = ListWebhookAddressesResponse),
              (status = 400, description = "Bad parameters", body = crate::error::ErrorBody),
              (status = 404, description = "No such webhook for this API key", body = crate::error::ErrorBody)))]
pub async fn list_addresses(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
    uri: Uri,
    mut q: Query,
) -> ApiResult<Json<ListWebhookAddressesResponse>> {
    let paging = q.paging::<TokenCursor>(uri.path(), &state.config.page_token_key, 10, 100);
    q.finish()?;
    let id = path.get("id");
    found(&state, &owner(&headers), id).await?;
    let page = state
        .store
        .list_webhook_addresses(id, &paging.request)
        .await?;
    Ok(Json(ListWebhookAddressesResponse {
        next_page_token: paging.binding.next(page.next.as_ref()),
        addresses: page.items.iter().map(checksummed).collect(),
        total_addresses: state.store.count_webhook_addresses(id).await?,
    }))
}

/// `POST /v1/webhooks:generateOrRotateSharedSecret`: a new secret; deliveries from now on
/// are signed with it.
#[utoipa::path(post, path = "/v1/webhooks:generateOrRotateSharedSecret",
    operation_id = "generateOrRotateSharedSecret", tag = "Webhooks",
    summary = "Generate or rotate a shared secret",
    description = "Makes a new shared secret for the API key that sends the request; deliveries from now on are signed with it.",
    responses((status = 201, description = "The new secret", body = SharedSecretsResponse)))]
pub async fn generate_or_rotate_shared_secret(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> ApiResult<(StatusCode, Json<SharedSecretsResponse>)> {
    let secret = state
        .store
        .put_webhook_secret(&owner(&headers), &new_secret(), true)
        .await?;
    Ok((StatusCode::CREATED, Json(SharedSecretsResponse { secret })))
}

/// `GET /v1/webhooks:getSharedSecret`: the secret in force (made on first use).
#[utoipa::path(get, path = "/v1/webhooks:getSharedSecret",
    operation_id = "getSharedSecret", tag = "Webhooks",
    summary = "Get a shared secret",
    description = "The secret deliveries to the API key's webhooks are signed with (x-signature: base64 of HMAC-SHA256 over the body), made on first use.",
    responses((status = 200, description = "The secret", body = SharedSecretsResponse)))]
pub async fn get_shared_secret(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> ApiResult<Json<SharedSecretsResponse>> {
    let owner = owner(&headers);
    let secret = match state.store.find_webhook_secret(&owner).await? {
        Some(secret) => secret,
        None => {
            state
                .store
                .put_webhook_secret(&owner, &new_secret(), false)
                .await?
        }
    };
    Ok(Json(SharedSecretsResponse { secret }))
}
