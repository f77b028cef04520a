//! firn-api integration tests: one suite, generated for SQLite and PostgreSQL, calling the app
//! in process and over real HTTP on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod fixtures;
mod harness;
mod paging;
mod schema;
mod service;
mod shapes;
mod signature_aggregator;
mod validation;

backend_tests! {
    validation::bad_parameters_are_400_naming_the_parameter,
    validation::unknown_things_are_404,
    validation::page_tokens_are_bound_to_their_query,
    validation::api_keys_and_rate_limits,
    validation::no_limits_by_default_and_body_limit,
    paging::pages_are_stable_under_inserts,
    paging::last_page_has_no_token,
    shapes::every_endpoint_matches_the_official_schema,
    shapes::values_match_the_store,
    service::prices_come_from_the_table_only,
    service::openapi_document_lists_every_operation,
}
