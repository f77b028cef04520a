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
    /// Run everything: devnet, indexer, Data API, Metrics API, signature aggregator. (Not built yet.)
    Up,
    /// Run only the local network (the devnet P-Chain) and its AvalancheGo-compatible node RPC.
    Devnet(DevnetArgs),
    /// Follow a node's RPC into a store. (Not built yet.)
    Index,
    /// Serve the Data API from a store (SQLite file or PostgreSQL URL).
    Serve(ServeArgs),
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

    /// Print nothing at start-up.
    #[arg(long)]
    pub silent: bool,

    /// Print the start-up banner as one JSON object.
    #[arg(long, conflicts_with = "silent")]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The store: a SQLite file path (created if missing) or a postgres:// URL.
    #[arg(long, env = "FIRN_DATABASE", default_value = "./.firn/firn.db")]
    pub database: String,

    /// Address the Data API listens on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,

    /// Network the store's chains belong to, as `{network}` paths name it.
    #[arg(long, value_enum, default_value = "fuji")]
    pub network: NetworkArg,

    /// Accepted API key (repeat for more). Without any, keys are not checked.
    #[arg(long = "api-key", env = "FIRN_API_KEYS", value_delimiter = ',')]
    pub api_keys: Vec<String>,

    /// Requests per minute allowed per API key (default: unlimited).
    #[arg(long)]
    pub rate_limit_per_key: Option<u64>,

    /// Requests per minute allowed per client IP without a key (default: unlimited).
    #[arg(long)]
    pub rate_limit_per_ip: Option<u64>,

    /// A price table (TOML: `[usd] AVAX = 25.0`); without one, price fields are left out.
    #[arg(long)]
    pub prices: Option<std::path::PathBuf>,

    /// Longest a request may run, in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum NetworkArg {
    /// The test network (`fuji` / `testnet`).
    Fuji,
    /// Mainnet.
    Mainnet,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
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
