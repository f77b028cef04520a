//! Loading the vector files.

use std::path::PathBuf;

/// Path of a file under `tests/vectors/`.
pub fn path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vectors")
        .join(rel)
}

/// A vector file's text.
pub fn text(rel: &str) -> String {
    std::fs::read_to_string(path(rel)).unwrap_or_else(|e| panic!("reading vector {rel}: {e}"))
}

/// A vector file parsed as JSON.
pub fn json(rel: &str) -> serde_json::Value {
    serde_json::from_str(&text(rel)).unwrap_or_else(|e| panic!("parsing vector {rel}: {e}"))
}

/// Lowercase hex (with or without `0x`) to bytes.
pub fn unhex(s: &str) -> Vec<u8> {
    hex::decode(s.trim().trim_start_matches("0x"))
        .unwrap_or_else(|e| panic!("bad hex in vector: {e}"))
}
