//! `/v1/health-check` and `/v1/live-check`: the service and its store.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Router, http::StatusCode};
use firn_store::CursorStore;
use firn_store::rows::ChainKey;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use crate::state::AppState;

/// The health of the service (the official `HealthCheckResultDto`).
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthCheckResult {
    /// `ok` or `error`.
    pub status: String,
    /// Healthy components.
    #[schema(value_type = Option<Object>)]
    pub info: Option<serde_json::Value>,
    /// Failing components.
    #[schema(value_type = Option<Object>)]
    pub error: Option<serde_json::Value>,
    /// Every component's state.
    #[schema(value_type = Object)]
    pub details: serde_json::Value,
}

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/health-check", get(health_check))
        .route("/v1/live-check", get(live_check))
}

/// Reads the store; `ok` when it answers, 503 `error` when it does not.
#[utoipa::path(get, path = "/v1/health-check", operation_id = "data-health-check", tag = "Health Check",
    responses((status = 200, description = "The health of the service", body = HealthCheckResult),
              (status = 503, description = "The store does not answer", body = HealthCheckResult)))]
pub async fn health_check(State(state): State<AppState>) -> Response {
    let network = json!({
        "status": "up",
        "network": state.config.network.wire_name(),
        "note": "firn: a self-hosted Data API over a local store",
    });
    match state.store.find_cursor(ChainKey::PChain).await {
        Ok(height) => {
            let store = json!({"status": "up", "pChainHeight": height});
            let up = json!({"database": store, "network": network});
            Json(HealthCheckResult {
                status: "ok".into(),
                info: Some(up.clone()),
                error: Some(json!({})),
                details: up,
            })
            .into_response()
        }
        Err(e) => {
            tracing::warn!(target: "api", error = %e, "health check: store unavailable");
            let down = json!({"database": {"status": "down"}});
            let body = HealthCheckResult {
                status: "error".into(),
                info: Some(json!({"network": network})),
                error: Some(down.clone()),
                details: json!({"database": {"status": "down"}, "network": network}),
            };
            (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
        }
    }
}

/// Liveness: answers `ok` as long as the process serves requests.
#[utoipa::path(get, path = "/v1/live-check", operation_id = "live-check", tag = "Health Check",
    responses((status = 200, description = "The liveliness of the service", body = HealthCheckResult)))]
pub async fn live_check(State(state): State<AppState>) -> Json<HealthCheckResult> {
    let uptime = state.started.elapsed().as_secs();
    let up = json!({"process": {"status": "up", "uptimeSeconds": uptime}});
    Json(HealthCheckResult {
        status: "ok".into(),
        info: Some(up.clone()),
        error: Some(json!({})),
        details: up,
    })
}
