//! firn's devnet P-Chain (placeholder docs, completed below).

pub mod clock;
pub mod error;
pub mod executor;
pub mod genesis;
pub mod math;
pub mod state;
