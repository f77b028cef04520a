//! P-Chain queries: [`crate::PChainWriter`] in `write`, [`crate::PChainReader`] in `read`
//! (rows decoded in `decode`; the totals of what is staked now in `totals`).

mod decode;
mod read;
mod totals;
mod write;
