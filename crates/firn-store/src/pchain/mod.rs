//! P-Chain queries: [`crate::PChainWriter`] in `write`, [`crate::PChainReader`] in `read`
//! (rows decoded in `decode`; the totals of what is staked now in `totals`; what the validator
//! lists add, the node's observations and each validator's delegations, in `validators`).

mod decode;
mod read;
mod totals;
mod validators;
mod write;
