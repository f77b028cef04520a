//! One module per subcommand.

mod decode;
mod devnet;
mod evm;
mod index;
mod keys;
mod serve;
mod signers;
mod up;

use crate::cli::Command;

/// Runs a parsed subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Up(args) => up::run(&args),
        Command::Index(args) => index::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Devnet(args) => devnet::run(&args),
        Command::Decode(args) => decode::run(&args),
        Command::Keys(args) => keys::run(&args),
    }
}
