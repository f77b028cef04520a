//! Identifiers: 32-byte [`Id`], 20-byte [`ShortId`] and [`NodeId`].
//!
//! All three print as cb58 (`NodeID-` + cb58 for node IDs) and serialize to JSON as those strings.

use crate::encoding::{EncodingError, cb58_decode, cb58_encode};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

macro_rules! fixed_bytes_id {
    ($(#[$doc:meta])* $name:ident, $len:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        pub struct $name(pub [u8; $len]);

        impl $name {
            /// Number of bytes.
            pub const LEN: usize = $len;
            /// The all-zero value.
            pub const ZERO: Self = Self([0u8; $len]);

            /// The raw bytes.
            pub fn as_bytes(&self) -> &[u8; $len] {
                &self.0
            }

            /// Builds one from a slice of exactly the right length.
            pub fn from_slice(bytes: &[u8]) -> Result<Self, EncodingError> {
                let arr: [u8; $len] = bytes.try_into().map_err(|_| EncodingError::WrongLength {
                    expected: $len,
                    actual: bytes.len(),
                })?;
                Ok(Self(arr))
            }

            /// True for the all-zero value.
            pub fn is_zero(&self) -> bool {
                self.0 == [0u8; $len]
            }
        }

        impl From<[u8; $len]> for $name {
            fn from(bytes: [u8; $len]) -> Self {
                Self(bytes)
            }
        }

        impl AsRef<[u8]> for $name {
            fn as_ref(&self) -> &[u8] {
                &self.0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

fixed_bytes_id!(
    /// A 32-byte ID: txs, blocks, chains, subnets, assets, validation IDs. Prints as cb58.
    Id,
    32
);
fixed_bytes_id!(
    /// A 20-byte ID: the raw form of addresses (`ripemd160(sha256(pubkey))`). Prints as cb58.
    ShortId,
    20
);
fixed_bytes_id!(
    /// A 20-byte node ID. Prints as `NodeID-` + cb58.
    NodeId,
    20
);

impl Id {
    /// An ID whose bytes are `s` followed by zeros, as AvalancheGo names its VMs and fxs
    /// (`secp256k1fx`, `platformvm`). `s` must be at most 32 bytes.
    pub const fn from_padded_str(s: &str) -> Self {
        let src = s.as_bytes();
        let mut out = [0u8; 32];
        let mut i = 0;
        while i < src.len() && i < 32 {
            out[i] = src[i];
            i += 1;
        }
        Self(out)
    }

    /// sha256 of the bytes: how tx, block, message and UTXO IDs are made.
    pub fn hash_of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// `sha256(u64 BE ‖ self)`: AvalancheGo's `ID.Prefix`, e.g. a UTXO's input ID from its
    /// tx ID and output index.
    pub fn prefix(&self, n: u64) -> Self {
        let mut h = Sha256::new();
        h.update(n.to_be_bytes());
        h.update(self.0);
        Self(h.finalize().into())
    }

    /// `sha256(self ‖ u32 BE)`: AvalancheGo's `ID.Append`, e.g. the validation ID of the
    /// `index`-th initial validator of a converted subnet.
    pub fn append(&self, n: u32) -> Self {
        let mut h = Sha256::new();
        h.update(self.0);
        h.update(n.to_be_bytes());
        Self(h.finalize().into())
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cb58_encode(&self.0))
    }
}

impl FromStr for Id {
    type Err = EncodingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_slice(&cb58_decode(s)?)
    }
}

impl fmt::Display for ShortId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&cb58_encode(&self.0))
    }
}

impl FromStr for ShortId {
    type Err = EncodingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_slice(&cb58_decode(s)?)
    }
}

/// The prefix of a node ID's string form.
pub const NODE_ID_PREFIX: &str = "NodeID-";

impl NodeId {
    /// `NodeID-111111111111111111116DBWJs`: carries the summed weight of inactive L1
    /// validators in P-Chain validator sets.
    pub const EMPTY: Self = Self::ZERO;
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{NODE_ID_PREFIX}{}", cb58_encode(&self.0))
    }
}

impl FromStr for NodeId {
    type Err = EncodingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let body = s
            .strip_prefix(NODE_ID_PREFIX)
            .ok_or(EncodingError::Address(
                s.to_string(),
                "node IDs start with NodeID-",
            ))?;
        Self::from_slice(&cb58_decode(body)?)
    }
}

impl From<ShortId> for NodeId {
    fn from(id: ShortId) -> Self {
        Self(id.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_id_and_empty_node_id_print_as_avalanchego_does() {
        assert_eq!(
            Id::ZERO.to_string(),
            "11111111111111111111111111111111LpoYY"
        );
        assert_eq!(
            NodeId::EMPTY.to_string(),
            "NodeID-111111111111111111116DBWJs"
        );
        assert_eq!(
            "NodeID-111111111111111111116DBWJs"
                .parse::<NodeId>()
                .unwrap(),
            NodeId::EMPTY
        );
    }

    #[test]
    fn ids_reject_wrong_lengths_and_prefixes() {
        let short = cb58_encode(&[1u8; 20]);
        assert_eq!(
            short.parse::<Id>(),
            Err(EncodingError::WrongLength {
                expected: 32,
                actual: 20
            })
        );
        assert!(short.parse::<NodeId>().is_err());
        assert_eq!(short.parse::<ShortId>().unwrap(), ShortId([1u8; 20]));
    }

    #[test]
    fn ids_serialize_as_strings() {
        let id = Id([9u8; 32]);
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, format!("\"{id}\""));
        assert_eq!(serde_json::from_str::<Id>(&json).unwrap(), id);
    }

    #[test]
    fn prefix_and_append_hash_in_the_documented_order() {
        let id = Id([3u8; 32]);
        let mut a = 5u64.to_be_bytes().to_vec();
        a.extend_from_slice(&id.0);
        assert_eq!(id.prefix(5), Id::hash_of(&a));
        let mut b = id.0.to_vec();
        b.extend_from_slice(&7u32.to_be_bytes());
        assert_eq!(id.append(7), Id::hash_of(&b));
    }
}
