//! EVM queries: [`crate::EvmWriter`] in `write`, which stages a batch of blocks and writes
//! their plain rows set-wise (`insert`), folds collectible balances and deployments
//! (`derived`) and the chain totals and metrics rows (`counters`) over the batch;
//! [`crate::EvmReader`] in `read`.

mod counters;
mod derived;
mod insert;
mod read;
mod write;
