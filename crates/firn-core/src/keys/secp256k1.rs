//! secp256k1 keys, recoverable signatures and the addresses derived from them.
