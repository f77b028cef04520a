//! Paths of the official API that firn does not serve yet (ICM messages): a clear 404 in the error format instead of a generic "Cannot GET".

use axum::Router;
use axum::extract::Request;
use axum::routing::get;

use crate::error::ApiError;
use crate::state::AppState;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/icm/messages", get(icm))
        .route("/v1/icm/messages/{messageId}", get(icm))
        .route("/v1/icm/addresses/{address}/messages", get(icm))
}

async fn icm(request: Request) -> ApiError {
    ApiError::not_found(format!(
        "{}: ICM messages are not indexed by this firn server yet",
        request.uri().path()
    ))
}
