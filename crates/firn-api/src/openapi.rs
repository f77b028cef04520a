//! The OpenAPI document at `/api-json` and a browsable reference at `/api`, both generated
//! from the handlers' `#[utoipa::path]` attributes and the wire types' `ToSchema` derives, so
//! they cannot drift from the code.

use axum::Router;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use utoipa::OpenApi;
use utoipa::openapi::path::{Operation, ParameterIn};

use crate::routes::{
    evm, evm_address, evm_balances, evm_contracts, evm_latest, evm_txs, health, icm, l1_validators,
    nfts, primary, primary_lookups, signature_aggregator, staking, subnets, supply, utxos,
    validators, xchain,
};
use crate::state::AppState;
use crate::usage::routes as usage;
use crate::webhooks::routes as webhooks;

/// The Data API's OpenAPI document.
#[derive(Debug, OpenApi)]
#[openapi(
    info(title = "firn Data API", description = "A self-hosted Avalanche Data API (Glacier-compatible) over firn's store."),
    paths(
        health::health_check, health::live_check,
        primary::list_latest_transactions, primary::list_staking_transactions,
        primary::list_latest_blocks, primary::list_blocks_by_node, primary::list_chain_ids,
        primary_lookups::get_tx_by_hash, primary_lookups::get_block_by_id,
        xchain::get_asset_details, xchain::list_asset_transactions, xchain::list_latest_vertices,
        xchain::get_vertex_by_hash, xchain::list_vertices_by_height,
        subnets::list_subnets, subnets::get_subnet, subnets::list_blockchains,
        subnets::get_blockchain,
        staking::list_rewards, staking::list_delegators, staking::get_network_details,
        validators::list_validators, validators::get_single_validator_details,
        staking::list_pending_rewards, supply::get_avax_supply,
        utxos::get_utxos_by_addresses, utxos::get_utxos_by_addresses_v2,
        utxos::get_balances_by_addresses, utxos::get_last_activity, utxos::get_last_activity_v2,
        l1_validators::list_l1_validators,
        evm::list_chains, evm::get_chain, evm::list_blocks, evm::get_block,
        evm::list_erc20, evm::list_erc721, evm::list_erc1155, evm::list_collectibles,
        evm_txs::get_transaction, evm_txs::get_deployment, evm_txs::list_latest,
        evm_txs::list_block_transactions, evm_txs::list_native,
        evm_address::list_transactions, evm_address::list_transactions_v2,
        evm_address::list_internal, evm_contracts::get_contract, evm_contracts::list_deployments,
        evm_contracts::list_token_transfers, evm_latest::list_latest_transactions,
        evm_latest::list_latest_blocks, evm_balances::get_native_balance, evm::list_address_chains,
        evm_balances::list_erc20_balances, evm_balances::list_erc721_balances,
        evm_balances::list_erc1155_balances,
        nfts::list_tokens, nfts::get_token, nfts::reindex_nft,
        icm::get_icm_message, icm::list_icm_messages, icm::list_icm_messages_by_address,
        signature_aggregator::aggregate_signatures, signature_aggregator::get_aggregated_signatures,
        crate::operations::routes::create_export, crate::operations::routes::get_operation,
        webhooks::create_webhook, webhooks::list_webhooks, webhooks::get_webhook,
        webhooks::deactivate_webhook, webhooks::update_webhook,
        webhooks::generate_or_rotate_shared_secret, webhooks::get_shared_secret,
        webhooks::add_addresses, webhooks::remove_addresses, webhooks::list_addresses,
        usage::api_usage_metrics, usage::api_logs, usage::subnet_rpc_metrics,
        usage::primary_network_rpc_metrics,
    ),
    // A delivery's body is no route's response, but receivers parse it.
    components(schemas(crate::error::ErrorBody, crate::webhooks::wire::WebhookEvent)),
    modifiers(&ApiKeyHeader)
)]
pub struct ApiDoc;

#[derive(Debug)]
struct ApiKeyHeader;

impl utoipa::Modify for ApiKeyHeader {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "apiKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("x-glacier-api-key"))),
        );
    }
}

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route("/api-json", get(api_json))
        .route("/api", get(api_html))
}

async fn api_json() -> Response {
    axum::Json(ApiDoc::openapi()).into_response()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn operation_html(out: &mut String, method: &str, path: &str, op: &Operation) {
    let id = op.operation_id.clone().unwrap_or_default();
    out.push_str(&format!(
        "<section id=\"{}\"><h3><code>{method} {}</code></h3>",
        escape(&id),
        escape(path)
    ));
    if let Some(s) = &op.summary {
        out.push_str(&format!("<p><b>{}</b></p>", escape(s)));
    }
    if let Some(d) = &op.description {
        out.push_str(&format!("<p>{}</p>", escape(d)));
    }
    if let Some(params) = &op.parameters {
        out.push_str(
            "<table><tr><th>parameter</th><th>in</th><th>required</th><th>description</th></tr>",
        );
        for p in params {
            let place = match p.parameter_in {
                ParameterIn::Path => "path",
                ParameterIn::Query => "query",
                ParameterIn::Header => "header",
                ParameterIn::Cookie => "cookie",
            };
            let required = matches!(p.required, utoipa::openapi::Required::True);
            out.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{place}</td><td>{}</td><td>{}</td></tr>",
                escape(&p.name),
                if required { "yes" } else { "no" },
                escape(p.description.as_deref().unwrap_or(""))
            ));
        }
        out.push_str("</table>");
    }
    let statuses: Vec<&String> = op.responses.responses.keys().collect();
    out.push_str(&format!(
        "<p>responses: {}</p></section>",
        escape(
            &statuses
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    ));
}

/// A plain HTML reference rendered from the same document as `/api-json`.
async fn api_html() -> Html<String> {
    let doc = ApiDoc::openapi();
    let mut out = String::from(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>firn Data API</title>\
         <style>body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:collapse}\
         td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}section{margin-bottom:2em}</style>\
         </head><body><h1>firn Data API</h1><p>The machine-readable document is at \
         <a href=\"/api-json\">/api-json</a>.</p>",
    );
    for (path, item) in &doc.paths.paths {
        let ops = [
            ("GET", &item.get),
            ("POST", &item.post),
            ("PUT", &item.put),
            ("PATCH", &item.patch),
            ("DELETE", &item.delete),
        ];
        for (method, op) in ops {
            if let Some(op) = op {
                operation_html(&mut out, method, path, op);
            }
        }
    }
    out.push_str("</body></html>");
    Html(out)
}
