//! firn-store integration tests: one suite, generated for SQLite and PostgreSQL.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod activity;
mod atomic;
mod basics;
mod evm;
mod exports;
mod fixtures;
mod history;
mod icm;
mod l1_fees;
mod limits;
mod metrics;
mod mints;
mod pchain;
mod rollback;
mod staking;
mod supply;
mod upgraded;
mod usage;
mod utxos;
mod webhooks;
mod xchain;
mod xchain_vertices;

firn_store::backend_tests! {
    basics::migrations_from_empty,
    basics::bad_input_is_an_error,
    basics::generation_moves_with_every_commit,
    basics::evm_chain_registry,
    pchain::pchain_round_trip,
    pchain::pchain_failed_block_leaves_nothing,
    pchain::pchain_recommit_is_a_noop,
    pchain::pchain_tx_filters_and_paging,
    pchain::pchain_paging_is_stable_under_inserts,
    staking::pchain_stakers_and_rewards,
    staking::validator_statuses_delegations_and_observations,
    supply::supply_totals_follow_commits,
    supply::older_store_gets_supply_totals,
    activity::older_store_gets_address_activity,
    metrics::older_store_gets_week_and_month_rows,
    utxos::utxo_lists_balances_and_last_activity,
    utxos::older_store_gets_utxo_owners,
    utxos::older_store_gets_owner_balances,
    evm::evm_round_trip,
    evm::evm_failed_block_leaves_nothing,
    evm::evm_forged_collectible_transfers_never_fail_a_commit,
    evm::evm_recommit_is_a_noop,
    evm::evm_transfer_filters_and_paging,
    evm::evm_large_block_round_trip,
    evm::evm_tx_lists,
    history::evm_balances_at_past_blocks,
    history::evm_balance_mismatches,
    activity::evm_address_activity,
    rollback::evm_rollback_restores_what_was_there,
    rollback::evm_rollback_is_bounded,
    limits::reads_stop_at_their_timeout,
    limits::abandoned_reads_stop,
    limits::reads_cannot_write,
    metrics::chain_metrics_match_direct_computation,
    metrics::staking_metrics_match_direct_computation,
    l1_fees::l1_fee_ledger_and_daily_fees,
    mints::token_mints_and_burns_by_address,
    mints::token_moves_and_chain_addresses,
    usage::request_logs_page_filter_and_prune,
    webhooks::webhook_settings_addresses_and_secrets,
    webhooks::webhook_leases_matches_and_outbox,
    webhooks::rollbacks_rewind_webhooks,
    exports::export_jobs_leases_chunks_and_expiry,
    xchain::xchain_round_trip,
    xchain::xchain_filters,
    xchain::xchain_failed_batch_leaves_nothing,
    xchain::xchain_recommit_is_a_noop,
    xchain::xchain_older_store_gets_owner_balances,
    xchain_vertices::xchain_vertices_round_trip,
    xchain_vertices::xchain_vertex_failed_batch_leaves_nothing,
    atomic::atomic_memory_holds_exports_until_imported,
    atomic::xchain_burns_add_up,
    atomic::c_chain_atomic_txs_round_trip,
    icm::icm_messages_join_both_sides_and_roll_back,
    icm::icm_pages_stop_at_a_payload_budget,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_over_tls() {
    limits::postgres_over_tls().await;
}

/// The harness must not swallow a failing body, and still cleans up after it.
#[tokio::test]
#[should_panic(expected = "the body failed")]
async fn a_failing_test_body_fails_its_test() {
    firn_store::testing::sqlite(|_: firn_store::Store| async { panic!("the body failed") }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_page_caches_split_the_budget() {
    limits::sqlite_page_caches_split_the_budget().await;
}
