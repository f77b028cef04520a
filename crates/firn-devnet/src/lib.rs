//! firn's devnet P-Chain (placeholder docs, completed below).

pub mod builder;
pub mod clock;
pub mod error;
pub mod executor;
pub mod genesis;
pub mod math;
pub mod state;
pub mod store;
pub mod vm;
pub mod wallet;
