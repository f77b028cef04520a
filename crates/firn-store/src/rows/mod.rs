//! Plain row types: what the indexer writes and what the APIs read. No JSON wire shapes here;
//! the API layer maps these to the Data API and Metrics API responses.

pub mod atomic;
pub mod evm;
pub mod exports;
pub mod icm;
pub mod l1_fees;
pub mod metrics;
pub mod pchain;
pub mod usage;
pub mod utxos;
pub mod webhooks;
pub mod xchain;

/// Chains the store keeps a cursor for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChainKey {
    /// The P-Chain.
    PChain,
    /// An EVM chain, by EVM chain ID.
    Evm(u64),
    /// The X-Chain's linear blocks.
    XChain,
    /// The X-Chain's DAG vertices, by the index API's acceptance index.
    XChainVertices,
}

impl ChainKey {
    /// The key's text form in the `cursors` table (`p-chain`, `x-chain`, `x-chain-vertices`,
    /// `evm:43113`).
    pub fn as_text(&self) -> String {
        match self {
            ChainKey::PChain => "p-chain".to_owned(),
            ChainKey::XChain => "x-chain".to_owned(),
            ChainKey::XChainVertices => "x-chain-vertices".to_owned(),
            ChainKey::Evm(id) => format!("evm:{id}"),
        }
    }
}

impl std::fmt::Display for ChainKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.as_text())
    }
}

/// What a batch commit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CommitOutcome {
    /// Blocks written.
    pub committed: usize,
    /// Blocks at or below the cursor, already stored, left untouched.
    pub skipped: usize,
}

macro_rules! text_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $($(#[$vdoc])* #[serde(rename = $text)] $variant),+
        }

        impl $name {
            /// The stored (and wire) text.
            pub fn as_str(&self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// Parses the stored (and wire) text.
            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }

            #[allow(dead_code)]
            pub(crate) fn decode(column: &'static str, s: &str) -> $crate::error::Result<Self> {
                Self::parse(s).ok_or_else(|| $crate::error::StoreError::Corrupt {
                    column,
                    reason: format!("unknown {} {s:?}", stringify!($name)),
                })
            }
        }
    };
}
pub(crate) use text_enum;
