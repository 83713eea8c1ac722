//! Finds the pinned Claude Code CLI: `CLAUDE_CODE_BIN` when set, else an `npm install` of the
//! pinned version into a per-machine cache directory, done once under a file lock so parallel
//! test processes do not race. Decides whether a missing CLI skips or fails the scenario.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use hook_replay::bounded::run_bounded;

/// The CLI version the scenarios were written against.
pub const PINNED_VERSION: &str = "2.1.332";
/// The npm package that ships the CLI as a native binary.
pub const NPM_PACKAGE: &str = "@anthropic-ai/claude-code";
/// Where the binary lies inside the npm install folder.
const BIN_IN_PACKAGE: &str = "node_modules/@anthropic-ai/claude-code/bin/claude.exe";
/// Bound for `npm install` (about 400 MB; seconds on a warm npm cache, a minute or two cold).
const NPM_TIMEOUT: Duration = Duration::from_secs(15 * 60);
const VERSION_TIMEOUT: Duration = Duration::from_secs(60);

/// A located, version-checked CLI.
#[derive(Debug, Clone)]
pub struct ClaudeCli {
    pub path: PathBuf,
    /// What `claude --version` printed, trimmed.
    pub version: String,
}

/// True when a missing CLI must fail the test instead of skipping it: `CI=true` (or `1`) or
/// `AGENT_GUARDS_E2E_REQUIRED=1`.
pub fn cli_required() -> bool {
    let set = |name: &str| {
        std::env::var(name)
            .map(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes"))
            .unwrap_or(false)
    };
    set("CI") || set("AGENT_GUARDS_E2E_REQUIRED")
}

/// The CLI for this test process, located (and installed if needed) once. `Err` says why it
/// could not be had.
pub fn claude_cli() -> Result<ClaudeCli, String> {
    static CLI: OnceLock<Result<ClaudeCli, String>> = OnceLock::new();
    CLI.get_or_init(locate).clone()
}

fn locate() -> Result<ClaudeCli, String> {
    if let Some(path) = std::env::var_os("CLAUDE_CODE_BIN").filter(|p| !p.is_empty()) {
        // A maintainer may point at another version on purpose: report it, do not refuse it.
        let path = PathBuf::from(path);
        let version =
            cli_version(&path).map_err(|e| format!("CLAUDE_CODE_BIN={}: {e}", path.display()))?;
        if !version.starts_with(PINNED_VERSION) {
            eprintln!(
                "e2e-harness: CLAUDE_CODE_BIN is version {version:?}, scenarios are pinned to \
                 {PINNED_VERSION}"
            );
        }
        return Ok(ClaudeCli { path, version });
    }
    install_cached(&cache_dir())
}

/// `$AGENT_GUARDS_E2E_CACHE`, else `<cargo target dir>/e2e-cli`, else a temp-dir folder.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("AGENT_GUARDS_E2E_CACHE").filter(|p| !p.is_empty()) {
        return PathBuf::from(dir);
    }
    target_dir()
        .map(|t| t.join("e2e-cli"))
        .unwrap_or_else(|| std::env::temp_dir().join("agent-guards-e2e-cli"))
}

/// The cargo target directory this test binary was built into: test executables live in
/// `<target>/<profile>/deps/`.
pub(crate) fn target_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    if deps.file_name()? != "deps" {
        return None;
    }
    Some(deps.parent()?.parent()?.to_path_buf())
}

/// Installs the pinned CLI under `cache` unless a good install is there already.
pub fn install_cached(cache: &Path) -> Result<ClaudeCli, String> {
    let install_dir = cache.join(format!("claude-code-{PINNED_VERSION}"));
    let bin = install_dir.join(BIN_IN_PACKAGE);
    fs::create_dir_all(cache).map_err(|e| format!("create {}: {e}", cache.display()))?;
    let lock_path = cache.join("install.lock");
    let lock = File::create(&lock_path).map_err(|e| format!("{}: {e}", lock_path.display()))?;
    // Held until this function returns: other test processes wait here, then find the install.
    lock.lock()
        .map_err(|e| format!("lock {}: {e}", lock_path.display()))?;

    if let Ok(version) = cli_version(&bin) {
        if version.starts_with(PINNED_VERSION) {
            return Ok(ClaudeCli { path: bin, version });
        }
    }
    // Nothing usable (first run, or an interrupted install): start clean.
    if install_dir.exists() {
        fs::remove_dir_all(&install_dir)
            .map_err(|e| format!("remove {}: {e}", install_dir.display()))?;
    }
    fs::create_dir_all(&install_dir)
        .map_err(|e| format!("create {}: {e}", install_dir.display()))?;
    fs::write(
        install_dir.join("package.json"),
        r#"{"name":"agent-guards-e2e-cli","private":true}"#,
    )
    .map_err(|e| format!("write package.json: {e}"))?;
    eprintln!(
        "e2e-harness: installing {NPM_PACKAGE}@{PINNED_VERSION} into {} (once per machine)",
        install_dir.display()
    );
    let mut npm = Command::new("npm");
    npm.current_dir(&install_dir).args([
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        &format!("{NPM_PACKAGE}@{PINNED_VERSION}"),
    ]);
    let out = run_bounded(&mut npm, NPM_TIMEOUT).map_err(|e| format!("npm install: {e}"))?;
    if !out.success() {
        return Err(format!(
            "npm install {NPM_PACKAGE}@{PINNED_VERSION} failed ({}): {}",
            out.status_text(),
            out.stderr.trim()
        ));
    }
    let version = cli_version(&bin)?;
    if !version.starts_with(PINNED_VERSION) {
        return Err(format!(
            "installed CLI says {version:?}, expected {PINNED_VERSION}"
        ));
    }
    Ok(ClaudeCli { path: bin, version })
}

/// Runs `<bin> --version` (bounded) and returns its trimmed output.
pub fn cli_version(bin: &Path) -> Result<String, String> {
    if !bin.is_file() {
        return Err(format!("{} does not exist", bin.display()));
    }
    let out = run_bounded(Command::new(bin).arg("--version"), VERSION_TIMEOUT)
        .map_err(|e| format!("{} --version: {e}", bin.display()))?;
    if !out.success() {
        return Err(format!(
            "{} --version failed ({}): {}",
            bin.display(),
            out.status_text(),
            out.stderr.trim()
        ));
    }
    Ok(out.stdout.trim().to_owned())
}

/// The loud notice printed when a scenario is skipped for want of the CLI.
pub fn skip_notice(reason: &str) -> String {
    format!(
        "\n==================== e2e-harness: SKIPPED ====================\n\
         The real Claude Code CLI is not available, so this end-to-end scenario did NOT run.\n\
         Reason: {reason}\n\
         Fix: have `npm` on PATH (the harness installs {NPM_PACKAGE}@{PINNED_VERSION} itself)\n\
         or set CLAUDE_CODE_BIN. Set CI=true or AGENT_GUARDS_E2E_REQUIRED=1 to make this a failure.\n\
         ==============================================================\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn cached_install_is_reused_without_npm() {
        // A fake "installed CLI" that reports the pinned version: the locator must take it as
        // is, proving the second and later test processes never call npm.
        let cache = tempfile::tempdir().unwrap();
        let bin = cache
            .path()
            .join(format!("claude-code-{PINNED_VERSION}"))
            .join(BIN_IN_PACKAGE);
        fs::create_dir_all(bin.parent().unwrap()).unwrap();
        fs::write(
            &bin,
            format!("#!/bin/sh\necho '{PINNED_VERSION} (Claude Code)'\n"),
        )
        .unwrap();
        fs::set_permissions(&bin, fs::Permissions::from_mode(0o755)).unwrap();
        let cli = install_cached(cache.path()).unwrap();
        assert_eq!(cli.path, bin);
        assert_eq!(cli.version, format!("{PINNED_VERSION} (Claude Code)"));
    }

    #[test]
    fn version_of_missing_or_failing_binary_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(cli_version(&dir.path().join("nope")).is_err());
        let bad = dir.path().join("bad");
        fs::write(&bad, "#!/bin/sh\necho broken >&2\nexit 3\n").unwrap();
        fs::set_permissions(&bad, fs::Permissions::from_mode(0o755)).unwrap();
        let err = cli_version(&bad).unwrap_err();
        assert!(err.contains("broken"), "{err}");
    }

    #[test]
    fn target_dir_is_found_from_the_test_executable() {
        let t = target_dir().expect("tests run from <target>/<profile>/deps");
        assert!(t.join("debug").is_dir() || t.join("release").is_dir());
    }
}
