//! The command line, as clap types. Each subcommand's arguments live here; what it does lives
//! in `cmd`.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// firn: the Avalanche Data API, Metrics API and node RPC on your own machine.
#[derive(Debug, Parser)]
#[command(name = "firn", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// More log output (-v info, -vv debug, -vvv trace). FIRN_LOG overrides, e.g. FIRN_LOG=firn=debug.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run everything: devnet (with generated history on a new data dir), indexer, Data API,
    /// Metrics API and signature aggregator.
    Up(UpArgs),
    /// Run only the local network (the devnet P-Chain) and its AvalancheGo-compatible node RPC.
    Devnet(DevnetArgs),
    /// Follow a node's P-Chain RPC into a store (SQLite in the data dir, or --database).
    Index(IndexArgs),
    /// Serve the Data API from a store (SQLite file or PostgreSQL URL).
    Serve(ServeArgs),
    /// Relay Teleporter messages between EVM chains behind any nodes' RPC, signing them with
    /// firn's aggregator through a firn node's validators, or through a Data API.
    Relay(RelayArgs),
    /// Decode Avalanche bytes (hex, with or without checksum) and print them as AvalancheGo's JSON.
    Decode(DecodeArgs),
    /// Print deterministic secp256k1 keys with their P-Chain and EVM addresses.
    Keys(KeysArgs),
}

#[derive(Debug, Args)]
pub struct DevnetArgs {
    /// Directory holding the chain; a new one is created with a genesis starting now.
    #[arg(long, default_value = "./.firn")]
    pub data_dir: std::path::PathBuf,

    /// Network identity of a new data dir (fuji: network 5 and Fuji's chain IDs; local: 12345).
    #[arg(long, value_enum)]
    pub profile: Option<ProfileArg>,

    /// Seed of a new data dir's keys and validators.
    #[arg(long)]
    pub seed: Option<String>,

    /// Address the node RPC listens on.
    #[arg(long, default_value = "127.0.0.1:9650")]
    pub rpc_addr: std::net::SocketAddr,

    /// A devnet configuration (TOML, the fields of `DevnetConfig`) for a new data dir.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,

    /// An unsigned Warp message (hex) the validators of the EVM chain it names as its source
    /// sign on request, as subnet-EVM's `warp-off-chain-messages` (say, a Teleporter registry
    /// upgrade). Repeat for more.
    #[arg(long = "warp-off-chain-message", value_name = "HEX", value_parser = parse_hex_bytes)]
    pub warp_off_chain_messages: Vec<Vec<u8>>,

    /// Print nothing at start-up.
    #[arg(long)]
    pub silent: bool,

    /// Print the start-up banner as one JSON object.
    #[arg(long, conflicts_with = "silent")]
    pub json: bool,
}

/// `firn up`. Every option can also come from an environment variable (shown) or from the TOML
/// file of `--config`, in that order of precedence: flag, environment, file, default.
#[derive(Debug, Args)]
pub struct UpArgs {
    /// A TOML file with any of these options (snake_case keys, e.g. `days = 7`) and a `[devnet]`
    /// table of devnet settings for a new data dir.
    #[arg(long, env = "FIRN_CONFIG")]
    pub config: Option<std::path::PathBuf>,

    /// Directory holding the chains and the embedded store [default: ./.firn].
    #[arg(long, env = "FIRN_DATA_DIR")]
    pub data_dir: Option<std::path::PathBuf>,

    /// Network identity of a new data dir [default: fuji].
    #[arg(long, value_enum, env = "FIRN_PROFILE")]
    pub profile: Option<ProfileArg>,

    /// Seed of a new data dir's keys, validators and history [default: firn].
    #[arg(long, env = "FIRN_SEED")]
    pub seed: Option<String>,

    /// Days of history a new data dir starts with, ending now (0: none) [default: 30].
    #[arg(long, env = "FIRN_DAYS")]
    pub days: Option<u32>,

    /// P-Chain transfers per day of generated history [default: 96].
    #[arg(long, env = "FIRN_TRANSFERS_PER_DAY")]
    pub transfers_per_day: Option<u32>,

    /// EVM txs per day of generated history, across the C-Chain and the L1's EVM chain:
    /// token deployments, mints and transfers, native transfers, router calls [default: 48].
    #[arg(long, env = "FIRN_EVM_TXS_PER_DAY")]
    pub evm_txs_per_day: Option<u32>,

    /// Seconds between rounds of live activity once history is done [default: 5].
    #[arg(long, env = "FIRN_ACTIVITY_INTERVAL")]
    pub activity_interval: Option<u64>,

    /// No live activity: the chains only move when you send txs.
    #[arg(long, env = "FIRN_QUIET_CHAIN")]
    pub quiet_chain: bool,

    /// Address the node RPC listens on [default: 127.0.0.1:9650].
    #[arg(long, env = "FIRN_RPC_ADDR")]
    pub rpc_addr: Option<std::net::SocketAddr>,

    /// Address the Data API listens on [default: 127.0.0.1:8080].
    #[arg(long, env = "FIRN_API_ADDR")]
    pub api_addr: Option<std::net::SocketAddr>,

    /// Address the Metrics API listens on [default: 127.0.0.1:8081].
    #[arg(long, env = "FIRN_METRICS_ADDR")]
    pub metrics_addr: Option<std::net::SocketAddr>,

    /// Store URL: `postgres://…`, or a SQLite path [default: firn.db in the data dir].
    #[arg(long, env = "FIRN_DATABASE")]
    pub database: Option<String>,

    /// SQLite page cache budget in MiB, across the writer and the readers: the bulk of the
    /// memory a large embedded store costs (PostgreSQL ignores it) [default: 192].
    #[arg(long, env = "FIRN_STORE_CACHE_MIB", value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub store_cache_mib: Option<u32>,

    /// Print nothing at start-up.
    #[arg(long)]
    pub silent: bool,

    /// Print the start-up banner as one JSON object.
    #[arg(long, conflicts_with = "silent")]
    pub json: bool,

    /// Fetch NFT metadata from loopback and private-network URLs too (a dev server on this
    /// machine or LAN). Off by default: token URIs come from chain data, and anyone who can
    /// deploy a contract could otherwise make firn request them.
    #[arg(long, env = "FIRN_METADATA_PRIVATE_URLS")]
    pub metadata_private_urls: bool,

    /// An unsigned Warp message (hex) the validators of the EVM chain it names as its source
    /// sign on request, as subnet-EVM's `warp-off-chain-messages` (say, a Teleporter registry
    /// upgrade). Repeat for more; in the `--config` file, `warp_off_chain_messages = ["0x…"]`.
    #[arg(long = "warp-off-chain-message", value_name = "HEX", value_parser = parse_hex_bytes)]
    pub warp_off_chain_messages: Vec<Vec<u8>>,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The node's RPC base URL (AvalancheGo or `firn devnet`).
    #[arg(long, default_value = "http://127.0.0.1:9650")]
    pub rpc: String,

    /// Store URL: `postgres://…`, or a SQLite path. Default: firn.db in the data dir.
    #[arg(long)]
    pub database: Option<String>,

    /// Directory of the default SQLite store.
    #[arg(long, default_value = "./.firn")]
    pub data_dir: std::path::PathBuf,

    /// SQLite page cache budget in MiB, across the writer and the readers: the bulk of the
    /// memory a large embedded store costs (PostgreSQL ignores it).
    #[arg(long, env = "FIRN_STORE_CACHE_MIB", default_value_t = firn_store::DEFAULT_CACHE_MIB,
          value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub store_cache_mib: u32,

    /// Blocks fetched and committed per database transaction, at most (a run starts at 16 and
    /// doubles).
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub batch_blocks: u64,

    /// RPC requests in flight while backfilling.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,

    /// Stop once caught up with the node's height at start, instead of following the tip.
    #[arg(long)]
    pub once: bool,

    /// EVM chains to index, by blockchain ID, name or `C` (comma-separated). Default: every
    /// chain the node serves; chains it lists but does not serve are skipped and probed later.
    #[arg(long, value_delimiter = ',')]
    pub evm_chains: Vec<String>,

    /// Fetch NFT metadata from loopback and private-network URLs too (a dev server on this
    /// machine or LAN). Off by default: token URIs come from chain data, and anyone who can
    /// deploy a contract could otherwise make firn request them.
    #[arg(long, env = "FIRN_METADATA_PRIVATE_URLS")]
    pub metadata_private_urls: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The store: a SQLite file path (created if missing) or a postgres:// URL.
    #[arg(long, env = "FIRN_DATABASE", default_value = "./.firn/firn.db")]
    pub database: String,

    /// SQLite page cache budget in MiB, across the writer and the readers: the bulk of the
    /// memory a large embedded store costs (PostgreSQL ignores it).
    #[arg(long, env = "FIRN_STORE_CACHE_MIB", default_value_t = firn_store::DEFAULT_CACHE_MIB,
          value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub store_cache_mib: u32,

    /// Address the Data API listens on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,

    /// Address the Metrics API listens on (its own listener, no API keys).
    #[arg(long, default_value = "127.0.0.1:8081")]
    pub metrics_listen: std::net::SocketAddr,

    /// Network the store's chains belong to, as `{network}` paths name it.
    #[arg(long, value_enum, default_value = "fuji")]
    pub network: NetworkArg,

    /// Accepted API key (repeat for more). Without any, keys are not checked.
    #[arg(
        long = "api-key",
        env = "FIRN_API_KEYS",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub api_keys: Vec<String>,

    /// Refuse requests without an accepted key (401): the keys become access control.
    #[arg(long, env = "FIRN_REQUIRE_API_KEY")]
    pub require_api_key: bool,

    /// The secret page tokens are signed with. Give every `firn serve` behind one load balancer
    /// the same one, so that each accepts the tokens the others issued (default: a random key
    /// of this process).
    #[arg(long, env = "FIRN_PAGE_TOKEN_SECRET", hide_env_values = true)]
    pub page_token_secret: Option<String>,

    /// MiB of rendered responses kept between the index's commits: a page asked for again
    /// before the next commit is answered with the bytes rendered the first time (0: render
    /// every request).
    #[arg(long, default_value_t = 64, env = "FIRN_RESPONSE_CACHE_MB")]
    pub response_cache_mb: usize,

    /// Deliver webhooks to loopback and private addresses too (this machine, the LAN, cloud
    /// metadata services). Off by default: webhook URLs come from API clients.
    #[arg(long, env = "FIRN_WEBHOOK_PRIVATE_TARGETS")]
    pub webhook_private_targets: bool,

    /// Do not deliver webhooks from this process (another `firn serve` on the same database
    /// does; the routes still manage them).
    #[arg(long, env = "FIRN_NO_WEBHOOK_DELIVERY")]
    pub no_webhook_delivery: bool,

    /// Requests per minute allowed per API key (default: unlimited).
    #[arg(long)]
    pub rate_limit_per_key: Option<u64>,

    /// Requests per minute allowed per client IP without a key (default: unlimited).
    #[arg(long)]
    pub rate_limit_per_ip: Option<u64>,

    /// A price table (TOML: `[usd] AVAX = 25.0`); without one, price fields are left out.
    #[arg(long)]
    pub prices: Option<std::path::PathBuf>,

    /// A token list (Uniswap token-list JSON: `{"tokens": [{"chainId", "address", "logoURI"}]}`)
    /// whose logos become `logoUri` on tokens; without one, `logoUri` is left out.
    #[arg(long, env = "FIRN_TOKEN_LIST")]
    pub token_list: Option<std::path::PathBuf>,

    /// The BTC.b token on chain 43114 whose mints and burns the Metrics API's
    /// `/v2/chains/43114/btcb/bridged:getAddresses` adds up (default: the Avalanche Bridge's,
    /// 0x152b9d0FdC40C096757F570A51E494bd4b943E50).
    #[arg(long, env = "FIRN_BTCB_TOKEN")]
    pub btcb_token: Option<firn_store::types::Address>,

    /// Longest a request may run, in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout: u64,

    /// Node RPC base URL whose validators sign for the signature aggregator
    /// (`/v1/signatureAggregator/…`): a `firn devnet` (AvalancheGo answers signature requests
    /// only over p2p, so against it aggregation fails saying so). Without it, those routes
    /// answer 503.
    #[arg(long, env = "FIRN_RPC")]
    pub rpc: Option<String>,

    /// Name called methods from firn's own contract ABIs only, without 4byte.directory's
    /// signatures (which cost ~100 MB of memory and a few seconds of one core at start).
    #[arg(long, env = "FIRN_NO_METHOD_DIRECTORY")]
    pub no_method_directory: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NetworkArg {
    /// The test network (`fuji` / `testnet`).
    Fuji,
    /// Mainnet.
    Mainnet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProfileArg {
    /// Fuji's identity.
    Fuji,
    /// AvalancheGo's local network identity.
    Local,
}

#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// What the bytes are.
    #[arg(value_enum)]
    pub kind: DecodeKind,

    /// The bytes as hex (`0x` optional, AvalancheGo's trailing checksum optional), a path to a file
    /// holding such hex, or `-` for standard input.
    pub input: String,

    /// Network whose HRP addresses are printed with: a network ID or a name (mainnet, fuji, local).
    #[arg(long, default_value = "fuji")]
    pub network: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DecodeKind {
    /// A P-Chain block (`platform.getBlock`).
    Block,
    /// A signed P-Chain tx (`platform.getTx`).
    Tx,
    /// An unsigned P-Chain tx (the bytes credentials sign).
    UnsignedTx,
    /// A signed Warp message.
    WarpMessage,
    /// An unsigned Warp message (the bytes validators sign).
    WarpUnsigned,
}

#[derive(Debug, Args)]
pub struct KeysArgs {
    /// Seed the keys derive from: the same seed gives the same keys, as the devnet's funded keys.
    #[arg(long, default_value = "firn")]
    pub seed: String,

    /// How many keys.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub count: u32,

    /// Network the P-Chain addresses are for: a network ID or a name (mainnet, fuji, local).
    #[arg(long, default_value = "fuji")]
    pub network: String,

    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `firn relay`.
#[derive(Debug, Args)]
pub struct RelayArgs {
    /// An EVM chain's RPC URL (`http://host:9650/ext/bc/<chain>/rpc`); give two or more.
    #[arg(long = "chain", required = true, num_args = 1)]
    pub chains: Vec<String>,

    /// The node whose validators sign (its P-Chain RPC and signature requests), as `firn
    /// serve --rpc` takes it: `http://host:9650`. A firn node; for AvalancheGo, use
    /// `--aggregator`.
    #[arg(
        long,
        required_unless_present = "aggregator",
        conflicts_with = "aggregator"
    )]
    pub node: Option<String>,

    /// A Data API that signs instead, through its `aggregateSignatures`: firn's
    /// (`http://127.0.0.1:8080`) or a hosted one.
    #[arg(long)]
    pub aggregator: Option<String>,

    /// The API key sent to `--aggregator` (`x-glacier-api-key`).
    #[arg(
        long,
        env = "FIRN_AGGREGATOR_API_KEY",
        hide_env_values = true,
        requires = "aggregator"
    )]
    pub aggregator_api_key: Option<String>,

    /// The key that pays for deliveries and collects their fees: `PrivateKey-…` or 0x hex.
    #[arg(long, env = "FIRN_RELAYER_KEY", hide_env_values = true)]
    pub key: String,

    /// Where the relayer keeps how far it has read each chain, so that a restart relays what
    /// was sent while it was down.
    #[arg(long, default_value = "./relayer.json")]
    pub cursor: std::path::PathBuf,
}

/// `0x`-prefixed or bare hex bytes.
pub fn parse_hex_bytes(s: &str) -> Result<Vec<u8>, String> {
    firn_core::encoding::hex_decode_lenient(s).map_err(|e| format!("not hex bytes: {e}"))
}
