//! Vectors and properties of `firn_core::pchain`.
