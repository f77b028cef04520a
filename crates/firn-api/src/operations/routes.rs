//! The operations routes: create an export job, report it, serve its file. Each is scoped to
//! the owner the request's API key names (as the webhooks are): another key's job is a 404.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use firn_store::rows::exports::{ExportJobRecord, ExportStatus, NewExportJob};
use firn_store::{ExportStore, Store};
use serde::Serialize;

use super::request::{self, CreateExportRequest};
use crate::error::{ApiError, ApiResult};
use crate::metrics_api::clock::unix_ms as now_ms;
use crate::params::PathParams;
use crate::routes::require_json;
use crate::state::AppState;
use crate::webhooks::routes::owner;

/// Pieces of a file read from the store per step of a download.
const CHUNKS_PER_READ: u32 = 4;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/operations/transactions:export", post(create_export))
        .route("/v1/operations/{operationId}", get(get_operation))
        .route("/v1/operations/{operationId}/file", get(get_file))
}

/// `TransactionExportMetadata`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransactionExportMetadata {
    /// `ErrInvalidRequest`, `ErrInternal` or `WarnTruncatedExport`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Where the file is served, for completed jobs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_url: Option<String>,
    /// The day (`YYYY-MM-DD`) to export again from, for truncated exports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_date: Option<String>,
}

/// `OperationStatusResponse`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationStatusResponse {
    /// The job's UUID.
    pub operation_id: String,
    /// `TRANSACTION_EXPORT_EVM`, `TRANSACTION_EXPORT_PRIMARY_NETWORK…`.
    pub operation_type: String,
    /// `RUNNING`, `COMPLETED`, `COMPLETED_WITH_WARNING` or `FAILED`.
    pub operation_status: String,
    /// Why it failed, or what its warning means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The export's code, file and continuation.
    pub metadata: TransactionExportMetadata,
    /// Creation time, Unix ms.
    pub created_at_timestamp: u64,
    /// Last change, Unix ms.
    pub updated_at_timestamp: u64,
}

impl From<ExportJobRecord> for OperationStatusResponse {
    fn from(job: ExportJobRecord) -> Self {
        let done = matches!(
            job.status,
            ExportStatus::Completed | ExportStatus::CompletedWithWarning
        );
        Self {
            operation_id: job.id,
            operation_type: job.job_type,
            operation_status: job.status.as_str().to_owned(),
            message: job.message,
            metadata: TransactionExportMetadata {
                code: job.code,
                download_url: done.then_some(job.download_url),
                next_date: job.next_date,
            },
            created_at_timestamp: job.created_at,
            updated_at_timestamp: job.updated_at,
        }
    }
}

/// Where job `id`'s file is served: under the configured public URL, else under the host the
/// request was sent to (a host that is not a valid authority is refused).
fn download_url(state: &AppState, headers: &HeaderMap, id: &str) -> ApiResult<String> {
    let path = format!("/v1/operations/{id}/file");
    if let Some(base) = &state.config.exports.public_url {
        return Ok(format!("{}{path}", base.trim_end_matches('/')));
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    if host.parse::<axum::http::uri::Authority>().is_err() {
        return Err(ApiError::bad("the Host header is not a valid host"));
    }
    Ok(format!("http://{host}{path}"))
}

/// The job `id` of the request's owner, unless it is missing or expired.
async fn find_job(state: &AppState, headers: &HeaderMap, id: &str) -> ApiResult<ExportJobRecord> {
    match state.store.find_export_job(&owner(headers), id).await? {
        Some(job) if job.expires_at >= now_ms() => Ok(job),
        _ => Err(ApiError::not_found(format!("operation {id} not found"))),
    }
}

/// `POST /v1/operations/transactions:export`
#[utoipa::path(post, path = "/v1/operations/transactions:export",
    operation_id = "postTransactionExportJob", tag = "Operations",
    summary = "Create transaction export operation",
    description = "Starts a CSV export of the transactions of up to 64 addresses over a range of UTC days, on indexed EVM chains or the P-Chain. The export runs in the background; poll getOperationResult with the returned operationId.",
    responses((status = 201, description = "The job, running", body = OperationStatusResponse),
              (status = 400, description = "Bad request", body = crate::error::ErrorBody)))]
pub async fn create_export(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult<(StatusCode, Json<OperationStatusResponse>)> {
    require_json(&headers)?;
    let parsed: CreateExportRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad(format!("invalid request body: {e}")))?;
    let config = &state.config.exports;
    let spec = request::check(&state, config, parsed).await?;
    let id = uuid::Uuid::new_v4().to_string();
    let now = now_ms();
    let new = NewExportJob {
        download_url: download_url(&state, &headers, &id)?,
        id,
        owner: owner(&headers),
        job_type: spec.kind.clone(),
        request: serde_json::to_string(&spec)
            .map_err(|e| ApiError::bad(format!("invalid request body: {e}")))?,
        created_at: now,
        expires_at: now.saturating_add(config.keep.as_millis() as u64),
    };
    state.store.create_export_job(&new).await?;
    let job = find_job(&state, &headers, &new.id).await?;
    Ok((StatusCode::CREATED, Json(job.into())))
}

/// `GET /v1/operations/{operationId}`
#[utoipa::path(get, path = "/v1/operations/{operationId}",
    operation_id = "getOperationResult", tag = "Operations",
    summary = "Get operation",
    description = "Reports an export job of the API key that created it: RUNNING, then COMPLETED (with metadata.downloadUrl), COMPLETED_WITH_WARNING (truncated: metadata.nextDate says where to continue) or FAILED.",
    params(("operationId" = String, Path, description = "UUID of the operation")),
    responses((status = 200, description = "The job", body = OperationStatusResponse),
              (status = 404, description = "No such job for this API key", body = crate::error::ErrorBody)))]
pub async fn get_operation(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
) -> ApiResult<Json<OperationStatusResponse>> {
    let job = find_job(&state, &headers, path.get("operationId")).await?;
    Ok(Json(job.into()))
}

/// `GET /v1/operations/{operationId}/file`: the CSV of a completed job, streamed from the
/// store a few pieces at a time.
async fn get_file(
    State(state): State<AppState>,
    headers: HeaderMap,
    path: PathParams,
) -> ApiResult<Response> {
    let job = find_job(&state, &headers, path.get("operationId")).await?;
    if !matches!(
        job.status,
        ExportStatus::Completed | ExportStatus::CompletedWithWarning
    ) {
        return Err(ApiError::not_found(format!(
            "operation {} has no file (it is {})",
            job.id,
            job.status.as_str()
        )));
    }
    let stream = futures_util::stream::unfold(
        (state.store.clone(), job.id.clone(), 0u64, false),
        next_pieces,
    );
    let disposition = format!("attachment; filename=\"{}.csv\"", job.id);
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from_stream(stream),
    )
        .into_response())
}

type Pieces = (Store, String, u64, bool);

/// The next few pieces of a file from `next` on, as one body frame; the end when none are left
/// (or after a failed read, which ends the body early: the client sees a cut transfer).
async fn next_pieces(
    (store, id, next, failed): Pieces,
) -> Option<(Result<Vec<u8>, firn_store::StoreError>, Pieces)> {
    if failed {
        return None;
    }
    match store.list_export_chunks(&id, next, CHUNKS_PER_READ).await {
        Ok(chunks) => {
            let last = chunks.last()?.seq;
            let bytes = chunks.into_iter().flat_map(|c| c.data).collect();
            Some((Ok(bytes), (store, id, last + 1, false)))
        }
        Err(e) => Some((Err(e), (store, id, next, true))),
    }
}
