//! One module per subcommand.

mod decode;
mod devnet;
mod index;
mod keys;
mod relay;
mod serve;
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
        Command::Relay(args) => relay::run(&args),
    }
}

/// Writes `contents` to `path` so that a crash leaves either the old file or the whole new
/// one: a temporary file beside it, fsynced, renamed over it, and the directory fsynced (the
/// data directory's files decide what `firn up` does on its next start).
fn write_durably(path: &std::path::Path, contents: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;

    use anyhow::Context;

    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = dir.join(name);
    let written = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(contents)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.with_context(|| format!("couldn't write {}", path.display()))
}

/// Creates `dir` (and its parents) and fsyncs the directory that holds it, so the new data
/// directory survives a crash along with the files fsynced into it.
fn create_dir_durably(dir: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;

    std::fs::create_dir_all(dir).with_context(|| format!("couldn't create {}", dir.display()))?;
    let parent = dir
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    std::fs::File::open(parent)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("couldn't sync {}", parent.display()))
}
