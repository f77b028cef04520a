//! P-Chain txs and blocks.
