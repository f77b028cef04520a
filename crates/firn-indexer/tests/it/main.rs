//! firn-indexer integration tests: an in-process devnet served over real HTTP, indexed into
//! SQLite and PostgreSQL, every derived record checked against what the node's RPC says.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod balances;
mod check;
mod devnet;
mod evm;
mod evm_devnet;
mod hostile;
mod pchain;
mod xchain;
mod xchain_vertices;

firn_store::backend_tests! {
    pchain::scripted_activity_matches_the_node,
    pchain::restart_continues_without_gaps_or_duplicates,
    pchain::follow_picks_up_new_blocks,
    pchain::unreachable_node_is_retried_then_reported,
    evm::evm_activity_matches_the_node,
    balances::rebasing_token_balances_are_flagged_at_the_tip,
    evm::evm_restart_continues_without_gaps_or_duplicates,
    evm::evm_unreachable_chain_is_retried_then_reported,
    evm::evm_discovery_lists_the_c_chain_and_l1s,
    evm::evm_discovery_follows_only_what_the_node_serves,
    hostile::hostile_contracts_never_stop_indexing,
    hostile::private_metadata_urls_are_fetched_only_when_allowed,
    hostile::a_diverged_node_is_followed_from_the_common_ancestor,
    hostile::hostile_chain_geneses_never_stop_pchain_indexing,
    xchain::xchain_activity_matches_the_node,
    xchain::xchain_restart_continues_without_gaps_or_duplicates,
    xchain::xchain_follow_picks_up_new_blocks,
    xchain_vertices::xchain_vertices_from_the_index_api,
}
