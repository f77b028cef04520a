//! `/v1/signatureAggregator/{network}/aggregateSignatures` (POST) and
//! `/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}` (GET): Warp signatures of
//! a subnet's validators, aggregated by [`firn_aggregator::Aggregator`].
//!
//! Both answer **201** `{"signedMessage": "<hex, no 0x>"}`, as the official OpenAPI file and
//! the SDKs require. Bad input is a 400 naming the field; an unknown tx a 404; too little
//! weight a 503 whose message starts `signature weight is insufficient` (the text clients
//! retry on). The POST takes only `Content-Type: application/json` (415 otherwise), so no web
//! page can make a visitor's browser post to it. A server started without validators to ask answers 503.

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use firn_aggregator::pchain::{TxMessageError, message_for_justification, message_for_tx};
use firn_aggregator::{
    AggregateError, AggregationRequest, Aggregator, DEFAULT_QUORUM_PERCENTAGE, ErrorKind,
    JustificationSource, Quorum,
};
use firn_core::encoding::hex_decode_lenient;
use firn_core::ids::Id;
use firn_core::warp::UnsignedMessage;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::routes::network::check_network;
use crate::routes::require_json;
use crate::state::AppState;

/// What the signature routes need: the aggregator and the P-Chain reads behind the GET.
#[derive(Debug, Clone)]
pub struct SignatureService {
    /// Collects and aggregates signatures.
    pub aggregator: Arc<Aggregator>,
    /// Reads P-Chain txs and L1 validations.
    pub pchain: Arc<dyn JustificationSource>,
}

/// The POST body (the official `SignatureAggregatorRequest`; every field optional). Clients
/// (`firn relay --aggregator`) send it too.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignatureAggregatorRequest {
    /// The unsigned Warp message, hex (`0x` optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The ACP-118 justification, hex (`0x` optional).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub justification: Option<String>,
    /// The signing subnet, hex or cb58; defaults to the subnet of the source chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signing_subnet_id: Option<String>,
    /// Integer 0–100; 0 or absent: 67 (as icm-services' aggregator reads it).
    #[schema(value_type = Option<u64>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quorum_percentage: Option<Value>,
    /// Integer 0–100, default 0; with `quorumPercentage` at most 100.
    #[schema(value_type = Option<u64>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quorum_percentage_buffer: Option<Value>,
    /// The P-Chain height of the validator set; 0 = current.
    #[schema(value_type = Option<u64>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_chain_height: Option<Value>,
}

/// The official `SignatureAggregationResponse`.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignatureAggregationResponse {
    /// The signed Warp message, hex without `0x`.
    pub signed_message: String,
}

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/v1/signatureAggregator/{network}/aggregateSignatures",
            post(aggregate_signatures),
        )
        .route(
            "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}",
            get(get_aggregated_signatures),
        )
}

fn service(state: &AppState) -> Result<&SignatureService, ApiError> {
    state.signatures.as_ref().ok_or_else(|| {
        ApiError::Unavailable(
            "signature aggregation is not available: this server is not connected to validators"
                .to_owned(),
        )
    })
}

/// Aggregates signatures of a subnet's validators for a Warp message.
#[utoipa::path(post, path = "/v1/signatureAggregator/{network}/aggregateSignatures",
    operation_id = "aggregateSignatures", tag = "Signature Aggregator",
    summary = "Aggregate Signatures",
    params(("network" = String, Path, description = "mainnet, fuji or testnet")),
    request_body = SignatureAggregatorRequest,
    responses((status = 201, description = "The signed message", body = SignatureAggregationResponse),
              (status = 400, description = "Bad request", body = crate::error::ErrorBody),
              (status = 415, description = "The body is not declared application/json", body = crate::error::ErrorBody),
              (status = 503, description = "Not enough signature weight", body = crate::error::ErrorBody)))]
pub async fn aggregate_signatures(
    State(state): State<AppState>,
    Path(network): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    check_network(&state.config.network, &network)?;
    require_json(&headers)?;
    let service = service(&state)?;
    let network_id = service.aggregator.network().network_id();
    let body: SignatureAggregatorRequest = if body.iter().all(u8::is_ascii_whitespace) {
        SignatureAggregatorRequest::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad(format!("request body is not a valid JSON object: {e}")))?
    };
    let request = parse_request(body, network_id)?;
    let out = service
        .aggregator
        .aggregate(request)
        .await
        .map_err(aggregate_error)?;
    Ok(created(&out.message.bytes()))
}

/// Aggregates the primary network's signatures of the P-Chain Warp message an L1 tx justifies.
#[utoipa::path(get, path = "/v1/signatureAggregator/{network}/aggregateSignatures/{txHash}",
    operation_id = "getAggregatedSignatures", tag = "Signature Aggregator",
    summary = "Get Aggregated Signatures",
    params(("network" = String, Path, description = "mainnet, fuji or testnet"),
           ("txHash" = String, Path, description = "A P-Chain ConvertSubnetToL1Tx, RegisterL1ValidatorTx or SetL1ValidatorWeightTx ID")),
    responses((status = 201, description = "The signed message", body = SignatureAggregationResponse),
              (status = 400, description = "Bad request", body = crate::error::ErrorBody),
              (status = 404, description = "Unknown transaction", body = crate::error::ErrorBody),
              (status = 503, description = "Not enough signature weight", body = crate::error::ErrorBody)))]
pub async fn get_aggregated_signatures(
    State(state): State<AppState>,
    Path((network, tx_hash)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    check_network(&state.config.network, &network)?;
    let service = service(&state)?;
    let tx_id = parse_id(&tx_hash)
        .ok_or_else(|| ApiError::bad("txHash must be a transaction ID (cb58 or hex)"))?;
    let network_id = service.aggregator.network().network_id();
    let justified = message_for_tx(service.pchain.as_ref(), network_id, tx_id)
        .await
        .map_err(tx_error)?;
    let mut request = AggregationRequest::new(justified.message);
    request.justification = justified.justification;
    request.signing_subnet = Some(Id::ZERO);
    let out = service
        .aggregator
        .aggregate(request)
        .await
        .map_err(aggregate_error)?;
    Ok(created(&out.message.bytes()))
}

fn created(signed: &[u8]) -> Response {
    let body = SignatureAggregationResponse {
        signed_message: hex::encode(signed),
    };
    (StatusCode::CREATED, Json(body)).into_response()
}

/// Turns the body into an aggregation request, collecting every problem as a 400.
fn parse_request(
    body: SignatureAggregatorRequest,
    network_id: u32,
) -> Result<AggregationRequest, ApiError> {
    let mut problems = Vec::new();
    let message = hex_field(&mut problems, "message", body.message.as_deref());
    let justification = hex_field(
        &mut problems,
        "justification",
        body.justification.as_deref(),
    );
    let signing_subnet = body
        .signing_subnet_id
        .as_deref()
        .filter(|s| !s.is_empty())
        .and_then(|s| {
            let id = parse_id(s);
            if id.is_none() {
                problems.push("signingSubnetId must be a 32-byte ID in hex or cb58".to_owned());
            }
            id
        });
    let quorum = integer_field(
        &mut problems,
        "quorumPercentage",
        body.quorum_percentage.as_ref(),
    );
    let buffer = integer_field(
        &mut problems,
        "quorumPercentageBuffer",
        body.quorum_percentage_buffer.as_ref(),
    );
    let height = integer_field(&mut problems, "pChainHeight", body.p_chain_height.as_ref());
    if !problems.is_empty() {
        return Err(ApiError::BadRequest(problems));
    }
    // 0 is the default, as icm-services' aggregator (behind the hosted API) reads it: never
    // "any weight will do".
    let quorum = quorum.filter(|q| *q != 0);
    if quorum.is_some_and(|q| q > 100) {
        return Err(ApiError::bad(
            "quorumPercentage must be an integer from 0 to 100 (0 or none: 67)",
        ));
    }
    let quorum = Quorum::new(
        quorum.unwrap_or(DEFAULT_QUORUM_PERCENTAGE),
        buffer.unwrap_or(0),
    )
    .map_err(|e| match e {
        AggregateError::InvalidQuorum(why) => ApiError::bad(why),
        other => ApiError::bad(other.to_string()),
    })?;
    let justification = justification.unwrap_or_default();
    let message = match message.filter(|m| !m.is_empty()) {
        Some(bytes) => UnsignedMessage::from_bytes(&bytes)
            .map_err(|e| ApiError::bad(format!("message is not an unsigned Warp message: {e}")))?,
        None if justification.is_empty() => {
            return Err(ApiError::bad(
                "Either message or justification must be given",
            ));
        }
        None => message_for_justification(network_id, &justification)
            .map_err(|e| ApiError::bad(format!("justification names no message: {e}")))?,
    };
    Ok(AggregationRequest {
        message,
        justification,
        signing_subnet,
        quorum,
        pchain_height: height.filter(|h| *h != 0),
    })
}

fn hex_field(problems: &mut Vec<String>, name: &str, value: Option<&str>) -> Option<Vec<u8>> {
    let value = value?;
    match hex_decode_lenient(value) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            problems.push(format!("{name} must be a hex string (0x optional)"));
            None
        }
    }
}

fn integer_field(problems: &mut Vec<String>, name: &str, value: Option<&Value>) -> Option<u64> {
    match value? {
        Value::Null => None,
        Value::Number(n) => match n.as_u64() {
            Some(v) => Some(v),
            None => {
                problems.push(format!("{name} must be a non-negative integer"));
                None
            }
        },
        _ => {
            problems.push(format!("{name} must be a number"));
            None
        }
    }
}

/// A 32-byte ID in cb58 or hex (`0x` optional).
fn parse_id(s: &str) -> Option<Id> {
    if let Ok(id) = s.parse::<Id>() {
        return Some(id);
    }
    hex_decode_lenient(s)
        .ok()
        .and_then(|b| Id::from_slice(&b).ok())
}

fn aggregate_error(e: AggregateError) -> ApiError {
    match e.kind() {
        ErrorKind::BadRequest => ApiError::bad(e.to_string()),
        ErrorKind::Unavailable => ApiError::Unavailable(e.to_string()),
        ErrorKind::Internal => {
            tracing::error!(target: "api::signature_aggregator", error = %e, "aggregation failed");
            ApiError::Unavailable(format!("signature aggregation failed: {e}"))
        }
    }
}

fn tx_error(e: TxMessageError) -> ApiError {
    match e {
        TxMessageError::NotFound(_) | TxMessageError::UnknownValidation(_) => {
            ApiError::not_found(e.to_string())
        }
        TxMessageError::NotAnL1Tx { .. }
        | TxMessageError::BadEmbeddedMessage { .. }
        | TxMessageError::BadJustification(_) => ApiError::bad(e.to_string()),
        TxMessageError::Network(_) => ApiError::Unavailable(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_from_cb58_and_hex() {
        let id = Id([7; 32]);
        assert_eq!(parse_id(&id.to_string()), Some(id));
        assert_eq!(parse_id(&format!("0x{}", hex::encode(id.0))), Some(id));
        assert_eq!(parse_id(&hex::encode(id.0)), Some(id));
        assert_eq!(parse_id("nope"), None);
    }
}
