//! The node projects under `tests/js`, installed from their lock files. Tests in this process
//! run in parallel and several use the same project: a second `npm ci` would delete the first
//! one's `node_modules` under its feet, so installs take turns and each project is installed
//! once.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

static INSTALLING: Mutex<()> = Mutex::new(());

/// Whether `tool --version` runs.
pub fn runs(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `tests/js/<name>`, with its dependencies installed by `npm ci` unless every one of
/// `markers` (paths under `node_modules`) is there already. Panics if `npm ci` fails.
pub fn project(name: &str, markers: &[&str]) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/js")
        .join(name);
    let _turn = INSTALLING.lock().unwrap_or_else(|p| p.into_inner());
    let installed = markers
        .iter()
        .all(|m| dir.join("node_modules").join(m).exists());
    if !installed {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .expect("running npm ci");
        assert!(status.success(), "npm ci failed in {}", dir.display());
    }
    dir
}
