//! firn's Data API: the official Avalanche Data API's routes, served from firn's store.
//!
//! The key types:
//! - [`AppState`]: the [`firn_store::Store`] every handler reads, the [`ApiConfig`] (network
//!   identity, limits, API keys, rate limits, prices) and the service metrics;
//! - [`app`] builds the axum `Router` (testable in process with `tower::ServiceExt::oneshot`),
//!   [`serve`] runs it on a listener until a shutdown future completes;
//! - [`ApiError`]: every failure, mapped once to the official error body
//!   `{"message", "statusCode", "error"}`.
//!
//! A request flows: path fix-up (`%3A` → `:`) → router → metrics → size/time limits → API key
//! and rate limit → handler. A handler reads its parameters through [`params::Query`] (every
//! bad parameter becomes a 400 naming it), asks the store for a keyset page, and maps store
//! rows to the wire shapes in [`wire`]. Page tokens ([`paging`]) wrap the store's cursors and
//! are bound to the query that made them.
//!
//! Routes live in one module per resource group under `routes/`; the OpenAPI document
//! (`/api-json`, `/api`) is generated from the handlers' attributes ([`openapi::ApiDoc`]).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let store = firn_store::open("/var/lib/firn/firn.db").await?;
//! let state = firn_api::AppState::new(store, firn_api::ApiConfig::default());
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! firn_api::serve(listener, state, async { let _ = tokio::signal::ctrl_c().await; }).await?;
//! # Ok(()) }
//! ```

pub mod cache;
pub mod config;
pub mod error;
pub mod limits;
pub mod metrics;
pub mod metrics_api;
mod node;
pub mod openapi;
pub mod operations;
pub mod paging;
pub mod params;
pub mod routes;
mod server;
pub mod signing;
mod state;
pub mod token_list;
pub mod usage;
pub mod webhooks;
pub mod wire;

pub use config::{ApiConfig, BTCB_MAINNET, NetworkKind, NetworkProfile, PriceTable, RateLimit};
pub use error::{ApiError, ApiResult};
/// Loads 4byte.directory's signatures in the background, for `method.methodName`s beyond
/// firn's own contracts (see `firn_selectors`).
pub use firn_selectors::load_directory as load_method_directory;
pub use metrics_api::{MetricsState, metrics_router, serve_metrics};
pub use server::{app, serve};
pub use state::AppState;
pub use token_list::TokenLogos;
