//! The API's one error type and its wire form: the official error body
//! `{"message": string | string[], "statusCode": number, "error": "<reason phrase>"}`.
//!
//! Every failure of every route goes through [`ApiError`]'s `IntoResponse`, so the body shape
//! is decided in one place. Store failures are logged with their detail and answered as a
//! bare 500: internal details never reach the client.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use firn_store::StoreError;
use serde::Serialize;

/// A failed request, mapped to the wire in [`IntoResponse`].
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// Bad parameters: one message per problem, each naming the parameter.
    #[error("bad request: {}", .0.join("; "))]
    BadRequest(Vec<String>),
    /// Missing or unknown API key.
    #[error("unauthorized: {0}")]
    Unauthorized(String),
    /// No such route, chain, block, contract or transaction.
    #[error("not found: {0}")]
    NotFound(String),
    /// A request body over the size limit.
    #[error("payload too large: {0}")]
    PayloadTooLarge(String),
    /// A request body that is not of the media type the route takes.
    #[error("unsupported media type: {0}")]
    UnsupportedMediaType(String),
    /// Over the rate limit; retry after this many seconds.
    #[error("too many requests, retry after {retry_after}s")]
    TooManyRequests {
        /// Seconds until the window resets.
        retry_after: u64,
        /// What was asked too often, when it is not the rate limit.
        reason: Option<String>,
    },
    /// The handler ran past the request time limit, or the store is unreachable.
    #[error("service unavailable: {0}")]
    Unavailable(String),
    /// A store failure; the detail is logged, not sent.
    #[error("store error: {0}")]
    Store(#[from] StoreError),
}

impl ApiError {
    /// A 400 with one message.
    pub fn bad(message: impl Into<String>) -> Self {
        ApiError::BadRequest(vec![message.into()])
    }

    /// A 404 with one message.
    pub fn not_found(message: impl Into<String>) -> Self {
        ApiError::NotFound(message.into())
    }

    /// The HTTP status this error answers with.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            // The API only reads, so a value that does not fit a column came from the request.
            ApiError::Store(
                StoreError::BadCursor(_)
                | StoreError::BadLimit(_)
                | StoreError::OutOfRange { .. }
                | StoreError::TooMuchToReplay(_)
                | StoreError::LimitExceeded(_),
            ) => StatusCode::BAD_REQUEST,
            ApiError::Store(StoreError::NotFound { .. }) => StatusCode::NOT_FOUND,
            ApiError::Store(StoreError::ReadTimeout(_) | StoreError::Busy(_)) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn message(&self) -> Message {
        match self {
            ApiError::BadRequest(messages) => Message::Many(messages.clone()),
            ApiError::Unauthorized(m)
            | ApiError::NotFound(m)
            | ApiError::PayloadTooLarge(m)
            | ApiError::UnsupportedMediaType(m)
            | ApiError::Unavailable(m) => Message::One(m.clone()),
            ApiError::TooManyRequests { reason, .. } => Message::One(
                reason
                    .clone()
                    .unwrap_or_else(|| "ThrottlerException: Too Many Requests".to_owned()),
            ),
            ApiError::Store(StoreError::BadCursor(_)) => {
                Message::Many(vec!["pageToken is invalid".to_owned()])
            }
            ApiError::Store(StoreError::BadLimit(_)) => {
                Message::Many(vec!["pageSize is out of range".to_owned()])
            }
            ApiError::Store(e @ StoreError::NotFound { .. }) => Message::One(e.to_string()),
            ApiError::Store(StoreError::TooMuchToReplay(why)) => Message::Many(vec![format!(
                "{why}: balances at that block are not served; ask for a later block, or omit \
                 blockNumber"
            )]),
            ApiError::Store(StoreError::Busy(why)) => Message::One(format!("{why}; try again")),
            ApiError::Store(StoreError::LimitExceeded(why)) => Message::Many(vec![why.clone()]),
            ApiError::Store(StoreError::ReadTimeout(_)) => Message::One(
                "the query took too long and was stopped; narrow it (fewer addresses, a block \
                 range) or try again"
                    .to_owned(),
            ),
            ApiError::Store(StoreError::OutOfRange { field, value }) => {
                Message::Many(vec![format!(
                    "{field} {value} is out of range (at most {})",
                    i64::MAX
                )])
            }
            ApiError::Store(_) => Message::One("Internal server error".to_owned()),
        }
    }
}

/// `message` is a string or, for validation failures, an array of strings (NestJS style).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Message {
    One(String),
    Many(Vec<String>),
}

/// The official error body.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// What went wrong: a string, or an array of strings for validation failures.
    message: Message,
    /// The HTTP status code.
    status_code: u16,
    /// The status's reason phrase (`Bad Request`, `Not Found`, …).
    error: String,
}

/// Builds the official error response for `status` with one message (used by middleware that
/// answers before any handler runs).
pub fn error_response(status: StatusCode, message: Vec<String>) -> Response {
    let message = match <[String; 1]>::try_from(message) {
        Ok([one]) => Message::One(one),
        Err(many) => Message::Many(many),
    };
    body(status, message)
}

fn body(status: StatusCode, message: Message) -> Response {
    let body = ErrorBody {
        message,
        status_code: status.as_u16(),
        error: status.canonical_reason().unwrap_or("Error").to_owned(),
    };
    (status, axum::Json(body)).into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(target: "api", error = %self, "request failed");
        }
        let mut response = body(status, self.message());
        if let ApiError::TooManyRequests { retry_after, .. } = self
            && let Ok(v) = HeaderValue::from_str(&retry_after.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        response
    }
}

/// Shorthand for handler results.
pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    async fn wire(e: ApiError) -> (u16, serde_json::Value) {
        let response = e.into_response();
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .expect("a body");
        (status, serde_json::from_slice(&bytes).expect("JSON"))
    }

    #[tokio::test]
    async fn store_failures_a_client_caused_are_not_500s() {
        let (status, body) = wire(ApiError::Store(StoreError::ReadTimeout(
            std::time::Duration::from_secs(30),
        )))
        .await;
        assert_eq!(
            (status, &body["error"]),
            (503, &serde_json::json!("Service Unavailable"))
        );
        assert!(
            body["message"]
                .as_str()
                .is_some_and(|m| m.contains("took too long"))
        );
        let (status, body) = wire(ApiError::Store(StoreError::OutOfRange {
            field: "chain id",
            value: u64::MAX.to_string(),
        }))
        .await;
        assert_eq!(
            (status, &body["statusCode"]),
            (400, &serde_json::json!(400))
        );
        assert!(
            body["message"][0]
                .as_str()
                .is_some_and(|m| m.contains("out of range"))
        );
        // What only the server can have caused stays a bare 500.
        let (status, body) = wire(ApiError::Store(StoreError::Closed)).await;
        assert_eq!(
            (status, &body["message"]),
            (500, &serde_json::json!("Internal server error"))
        );
    }
}
