//! firn-api integration tests: one suite, generated for SQLite and PostgreSQL, calling the app
//! in process and over real HTTP on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod balances;
mod cache;
mod cchain;
mod evm_address;
mod evm_txs;
mod fixtures;
mod harness;
mod metrics_composite;
mod metrics_history;
mod metrics_l1_fees;
mod metrics_looking_glass;
mod metrics_sdk;
mod metrics_v1;
mod metrics_v2;
mod operations;
mod paging;
mod schema;
mod service;
mod shapes;
mod signature_aggregator;
mod subnets;
mod supply;
mod usage;
mod utxos;
mod validation;
mod validators;
mod webhook_rollback;
mod webhook_thresholds;
mod webhooks;
mod xchain;

firn_store::backend_tests! {
    operations::exports_match_the_list_endpoints,
    operations::exports_are_bounded_scoped_and_validated,
    usage::data_api_requests_are_logged_per_key,
    usage::node_rpc_requests_count_in_rpc_metrics,
    webhooks::webhook_routes_match_the_official_schemas,
    webhooks::webhook_requests_are_validated,
    webhooks::webhooks_deliver_every_event_once_in_order,
    webhooks::failing_receivers_deactivate_and_resume,
    webhooks::pchain_webhooks_deliver_address_activity,
    webhook_rollback::a_rolled_back_chain_is_matched_again,
    webhook_thresholds::balance_thresholds_fire_once_per_crossing,
    webhook_thresholds::atomic_memory_thresholds_fire_once_per_crossing,
    webhook_thresholds::l1_balance_thresholds_fire_once_per_crossing,
    validation::bad_parameters_are_400_naming_the_parameter,
    validation::unknown_things_are_404,
    validation::page_tokens_are_bound_to_their_query,
    validation::api_keys_and_rate_limits,
    validation::required_keys_refuse_and_slow_down_guessing,
    validation::no_limits_by_default_and_body_limit,
    paging::pages_are_stable_under_inserts,
    cache::pages_are_rendered_once_per_commit,
    paging::last_page_has_no_token,
    shapes::every_endpoint_matches_the_official_schema,
    shapes::values_match_the_store,
    evm_txs::transaction_endpoints_match_the_store,
    evm_address::address_endpoints_match_the_store,
    evm_address::all_chain_lists_merge_by_time,
    evm_address::nft_collections_list_their_tokens,
    evm_address::nft_reindex_is_queued_once_an_hour,
    balances::native_balances_come_from_the_node,
    balances::address_chains_come_from_the_index,
    balances::token_balances_come_from_the_index,
    service::prices_come_from_the_table_only,
    service::token_logos_come_from_the_list_only,
    subnets::subnets_and_blockchains_match_the_store,
    subnets::pchain_tx_and_block_by_id_match_the_store,
    subnets::l1_validators_match_the_store,
    validators::validators_match_the_store,
    validators::network_details_match_the_store,
    supply::avax_supply_adds_up,
    utxos::utxo_endpoints_match_the_store,
    xchain::xchain_routes_match_the_node,
    cchain::c_chain_atomic_routes_match_the_node,
    xchain::xchain_vertices_are_served,
    service::openapi_document_lists_every_operation,
    metrics_v1::avg_tps_matches_the_blocks,
    metrics_v1::avg_tps_legacy_start_key,
    metrics_v1::avg_tps_tokens_expire_after_24_hours,
    metrics_v1::avg_tps_error_statuses,
    metrics_v2::chain_metrics_match_the_blocks,
    metrics_v2::hours_weeks_months_and_time_range,
    metrics_v2::rolling_windows_and_chains,
    metrics_v2::v2_error_statuses,
    metrics_v2::staking_metrics_follow_the_store,
    metrics_v2::responses_match_the_official_schemas,
    metrics_looking_glass::validator_addresses_over_a_time_frame,
    metrics_looking_glass::btcb_bridgers_above_a_threshold,
    metrics_composite::composite_queries_of_holders,
    metrics_l1_fees::l1_validator_fee_metrics,
}
