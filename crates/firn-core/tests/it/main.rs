//! firn-core's integration tests: every vector in `tests/vectors/` (a copy of
//! `shared/vectors/`, see its SOURCES.md) and the decoders' resistance to hostile bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod atomic;
mod avm;
mod avm_genesis;
mod avm_json;
mod avm_vertices;
mod encoding;
mod hostile;
mod keys;
mod pchain;
mod proposervm;
mod props;
mod txn_format_docs;
mod vectors;
mod warp;
