//! Every AvalancheGo-style method firn serves or calls, declared once: its wire name, its params
//! and its reply, as types the server ([`crate::AvaService::handle`]) and the clients
//! ([`crate::AvalancheClient::request`]) both use, so the two sides cannot drift apart.
//!
//! Shapes follow AvalancheGo's (`vms/platformvm/service.go`, `vms/avm/service.go`, coreth's `avax`
//! API, `api/info`, `api/health`, subnet-evm's `validators` API): numbers AvalancheGo writes as
//! `json.Uint64` are decimal strings here too ([`crate::avajson`]), and fields are declared in the
//! order AvalancheGo writes them. Params decode with Go's rules on the server ([`crate::params`]):
//! every field is optional and takes its zero value when absent. Params and replies that
//! AvalancheGo's `api` package shares between chains (UTXO pages, blocks and txs by ID, heights)
//! live in [`api`] and are re-exported by every chain module that uses them.
//!
//! ```
//! use firn_rpc::methods::{Method, platform};
//!
//! assert_eq!(platform::GetHeight::NAME, "platform.getHeight");
//! let reply: platform::HeightReply = serde_json::from_str(r#"{"height":"42"}"#).unwrap();
//! assert_eq!(reply.height, 42);
//! assert_eq!(serde_json::to_string(&reply).unwrap(), r#"{"height":"42"}"#);
//! ```

pub mod api;
pub mod avax;
pub mod avm;
pub mod debug;
pub mod eth;
pub mod firn;
pub mod health;
pub mod index;
pub mod info;
pub mod platform;
pub mod proposervm;
pub mod state;
pub mod validators;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// One method: `service.method`, what it takes and what it answers.
pub trait Method {
    /// The wire name, `service.method` (`platform.getHeight`).
    const NAME: &'static str;
    /// The params object.
    type Params: Serialize + DeserializeOwned + Send + 'static;
    /// The reply.
    type Reply: Serialize + DeserializeOwned + Send + 'static;
}

/// Declares a unit type per method and its [`Method`] impl.
macro_rules! methods {
    ($( $(#[$doc:meta])* $ty:ident = $name:literal ($params:ty) -> $reply:ty; )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $ty;

            impl $crate::methods::Method for $ty {
                const NAME: &'static str = $name;
                type Params = $params;
                type Reply = $reply;
            }
        )*
    };
}
pub(crate) use methods;

/// Params of methods that take none (any object is accepted, as AvalancheGo does).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct NoParams {}
