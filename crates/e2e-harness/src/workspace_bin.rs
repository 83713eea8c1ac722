//! Paths of the workspace's own binaries for scenarios. `env!("CARGO_BIN_EXE_<name>")` only
//! covers binaries of the package under test, and a stale `target/debug/<name>` would test old
//! code; so each binary is built with `cargo build -p <package> --bin <name>` once per test
//! process (a no-op when fresh) and its path is read from cargo's JSON messages, which is exact
//! for any target directory or profile.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde_json::Value;

use hook_replay::bounded::run_bounded;

/// Bound for one `cargo build` of a hook binary (a cold build of its dependencies on 2 cores).
const BUILD_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// The workspace root: this crate lives at `<root>/crates/e2e-harness`.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// Path of binary `name` of the workspace package of the same name, built fresh. Panics (a test
/// failure) when it cannot be built.
pub fn bin(name: &str) -> PathBuf {
    workspace_bin(name, name)
}

/// Path of binary `bin` of workspace package `package`, built fresh once per test process.
pub fn workspace_bin(package: &str, bin: &str) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<(String, String), PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let key = (package.to_owned(), bin.to_owned());
    // Held across the build: two tests asking for the same binary build it once.
    let mut cache = built.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(path) = cache.get(&key) {
        return path.clone();
    }
    let path = build(package, bin).unwrap_or_else(|e| panic!("e2e-harness: {e}"));
    cache.insert(key, path.clone());
    path
}

fn build(package: &str, bin: &str) -> Result<PathBuf, String> {
    // `CARGO` is set by cargo for the tests it runs: the same cargo and toolchain.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace_root()).args([
        "build",
        "--message-format=json-render-diagnostics",
        "-p",
        package,
        "--bin",
        bin,
    ]);
    if let Some(target) = crate::cli_locator::target_dir() {
        cmd.env("CARGO_TARGET_DIR", target);
    }
    let out = run_bounded(&mut cmd, BUILD_TIMEOUT)
        .map_err(|e| format!("cargo build -p {package} --bin {bin}: {e}"))?;
    if !out.success() {
        return Err(format!(
            "cargo build -p {package} --bin {bin} failed ({}):\n{}",
            out.status_text(),
            out.stderr
        ));
    }
    executable_from_messages(&out.stdout, bin).ok_or_else(|| {
        format!("cargo build -p {package} --bin {bin} reported no executable for {bin}")
    })
}

/// Finds the `executable` of the `bin` target in cargo's JSON message stream.
fn executable_from_messages(messages: &str, bin: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m.get("reason").and_then(Value::as_str) == Some("compiler-artifact"))
        .filter(|m| m.pointer("/target/name").and_then(Value::as_str) == Some(bin))
        .filter(|m| {
            m.pointer("/target/kind")
                .and_then(Value::as_array)
                .is_some_and(|k| k.iter().any(|k| k == "bin"))
        })
        .find_map(|m| {
            m.get("executable")
                .and_then(Value::as_str)
                .map(PathBuf::from)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_bin_executable_among_messages() {
        let msgs = r#"{"reason":"compiler-artifact","target":{"name":"x","kind":["lib"]},"executable":null}
not json
{"reason":"compiler-artifact","target":{"name":"x","kind":["bin"]},"executable":"/t/debug/x"}
{"reason":"build-finished","success":true}"#;
        assert_eq!(
            executable_from_messages(msgs, "x"),
            Some(PathBuf::from("/t/debug/x"))
        );
        assert_eq!(executable_from_messages(msgs, "y"), None);
    }

    #[test]
    fn workspace_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"));
    }
}
