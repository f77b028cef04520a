//! EVM queries: [`crate::EvmWriter`] in `write` (with the derived balances, deployments and
//! metrics in `derived`), [`crate::EvmReader`] in `read`.

mod derived;
mod read;
mod write;
