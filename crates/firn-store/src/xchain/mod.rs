//! X-Chain queries: [`crate::XChainWriter`] in `write`, [`crate::XChainReader`] in `read`
//! (blocks, txs and assets; rows decoded in `decode`), the UTXOs and balances of owners in
//! `utxos`, the DAG's vertices before Cortina ([`crate::XVertexReader`]) in `vertices`.
//!
//! The X-Chain keeps one table per thing AvalancheGo names (`x_blocks`, `x_txs`, `x_utxos`,
//! `x_assets`) and three lookup tables written with them: `x_utxo_owners` (each UTXO under
//! each owner, marked when spent: UTXO lists and balances), `x_tx_parties` (each tx under each
//! owner and asset of a UTXO it consumed or produced) and `x_tx_assets` (each tx under each
//! asset it touched: tx lists by address and asset). Like the P-Chain's, a commit gathers its
//! rows over the whole batch and writes each table in a few multi-row statements at its end
//! (`pending`); the X-Chain carries no staking or supply state to derive.

mod decode;
mod pending;
mod read;
mod utxos;
mod vertices;
mod write;
