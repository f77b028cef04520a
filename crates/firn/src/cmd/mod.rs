//! One module per subcommand.

mod decode;
mod devnet;
mod evm;
mod keys;

use crate::cli::Command;

/// Runs a parsed subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Up | Command::Index | Command::Serve => not_built_yet(&command),
        Command::Devnet(args) => devnet::run(&args),
        Command::Decode(args) => decode::run(&args),
        Command::Keys(args) => keys::run(&args),
    }
}

fn not_built_yet(command: &Command) -> anyhow::Result<()> {
    let name = format!("{command:?}").to_lowercase();
    anyhow::bail!(
        "`firn {name}` is not built yet: this release has the Avalanche primitives (try `firn decode --help`); \
         the devnet, indexer and APIs land in the next releases"
    )
}
