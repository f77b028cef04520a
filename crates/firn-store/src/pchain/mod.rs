//! P-Chain queries: [`crate::PChainWriter`] in `write`, [`crate::PChainReader`] in `read`
//! (rows decoded in `decode`).

mod decode;
mod read;
mod write;
