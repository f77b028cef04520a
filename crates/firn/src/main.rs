//! `firn`: a self-hostable Avalanche data platform.
//!
//! The binary is a thin shell: it parses the command line ([`cli`]), sets up logging, and hands
//! each subcommand to its module under [`cmd`]. Business logic lives in the library crates.

mod cli;
mod cmd;

use clap::Parser;
use std::process::ExitCode;

// mimalloc rather than glibc's malloc: the Data API allocates many small strings per request
// from several threads, where glibc's arenas and consolidation showed up in profiles.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    init_logging(cli.verbose);
    match cmd::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        // The indexer's progress lines are its output when stderr is not a terminal.
        0 => "warn,firn::index=info",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("FIRN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
