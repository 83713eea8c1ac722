//! Installing and uninstalling: stage, self-test, move into place, register hooks.
//!
//! Nothing is installed unless every staged binary passes its own `--selftest`; the settings file
//! is merged (never clobbered), backed up, and replaced atomically with its permissions kept.

use crate::registry::{BINARIES, REGISTRATIONS, SHELL_PREFIX_BINARY};
use crate::settings_merge;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where things go.
#[derive(Debug, Clone)]
pub struct Target {
    /// The built binaries to install.
    pub from: PathBuf,
    /// Install prefix; binaries go to `<prefix>/bin`.
    pub prefix: PathBuf,
    /// The settings file to register hooks in.
    pub settings: PathBuf,
    /// The maintainer config file (written with defaults when absent).
    pub config: Option<PathBuf>,
    pub dry_run: bool,
}

impl Target {
    pub fn bin_dir(&self) -> PathBuf {
        self.prefix.join("bin")
    }
}

type Result<T> = std::result::Result<T, String>;

fn io_err(path: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", path.display())
}

/// Runs `<binary> --selftest` with its state kept in a scratch dir; passes on exit 0 and a JSON
/// record whose status is "pass".
pub fn selftest(binary: &Path, scratch: &Path) -> Result<()> {
    let out = Command::new(binary)
        .arg("--selftest")
        .env("XDG_STATE_HOME", scratch.join("state"))
        .env("AGENT_GUARDS_CONFIG", scratch.join("no-config.toml"))
        .output()
        .map_err(|e| io_err(binary, e))?;
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    if out.status.success() && record["status"] == "pass" {
        Ok(())
    } else {
        Err(format!(
            "{} --selftest failed (exit {:?}): {}",
            binary.display(),
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).trim()
        ))
    }
}

/// Installs. Prints what it did; returns an error (nothing changed) on any refusal.
pub fn install(t: &Target) -> Result<Vec<String>> {
    let mut log = Vec::new();
    // Read the settings first: a file we cannot parse stops everything before anything moves.
    let (before, mut settings) = read_settings(&t.settings)?;
    let bin_dir = t.bin_dir();
    // Staging sits in the prefix so the final move is a rename on one file system; a dry run
    // stages in the temp dir and creates nothing in the prefix.
    let staging_parent = if t.dry_run {
        std::env::temp_dir()
    } else {
        std::fs::create_dir_all(&t.prefix).map_err(|e| io_err(&t.prefix, e))?;
        t.prefix.clone()
    };
    let staging = staging_parent.join(format!(".agent-guards-staging-{}", std::process::id()));
    // Self-tests run on the staged copies, also for a dry run: what would happen includes whether
    // containment works on this host.
    let backend = match stage_and_test(t, &staging) {
        Ok(()) => containment_backend(&staging.join(SHELL_PREFIX_BINARY)),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(format!("{e}; nothing was installed"));
        }
    };
    settings_merge::install(&mut settings, REGISTRATIONS, &bin_dir);
    let prefix = backend
        .as_ref()
        .ok()
        .map(|_| bin_dir.join(SHELL_PREFIX_BINARY));
    if let Some(note) = settings_merge::set_shell_prefix(&mut settings, &bin_dir, prefix.as_deref())
    {
        log.push(note);
    }
    log.push(match &backend {
        Ok(name) => format!("containment backend: {name}; CLAUDE_CODE_SHELL_PREFIX registered"),
        Err(why) => format!(
            "containment: no usable backend ({why}); commands run without ceilings, the prefix is not registered"
        ),
    });
    let after = settings_merge::render(&settings);
    if t.dry_run {
        let _ = std::fs::remove_dir_all(&staging);
        log.push(format!(
            "would install {} into {}",
            BINARIES.join(", "),
            bin_dir.display()
        ));
        log.push(describe_change(&t.settings, before.as_deref(), &after));
        return Ok(log);
    }
    std::fs::create_dir_all(&bin_dir).map_err(|e| io_err(&bin_dir, e))?;
    for name in BINARIES {
        let dest = bin_dir.join(name);
        std::fs::rename(staging.join(name), &dest).map_err(|e| io_err(&dest, e))?;
        log.push(format!("installed {}", dest.display()));
    }
    let _ = std::fs::remove_dir_all(&staging);
    if let Some(cfg) = &t.config {
        if !cfg.exists() {
            write_atomically(cfg, DEFAULT_CONFIG.as_bytes(), None)?;
            log.push(format!("wrote default config {}", cfg.display()));
        }
    }
    log.push(write_settings(&t.settings, before.as_deref(), &after)?);
    Ok(log)
}

/// Removes exactly what we registered; the binaries stay unless `remove_binaries`.
pub fn uninstall(t: &Target) -> Result<Vec<String>> {
    let (before, mut settings) = read_settings(&t.settings)?;
    if before.is_none() {
        return Ok(vec![format!(
            "{} does not exist; nothing to do",
            t.settings.display()
        )]);
    }
    settings_merge::remove_ours(&mut settings, &t.bin_dir());
    settings_merge::set_shell_prefix(&mut settings, &t.bin_dir(), None);
    let after = settings_merge::render(&settings);
    if t.dry_run {
        return Ok(vec![describe_change(
            &t.settings,
            before.as_deref(),
            &after,
        )]);
    }
    Ok(vec![write_settings(
        &t.settings,
        before.as_deref(),
        &after,
    )?])
}

/// The containment backend the staged `tool-containment --report` names, or why there is none.
fn containment_backend(binary: &Path) -> std::result::Result<String, String> {
    let out = crate::report::run_bounded(
        Command::new(binary).arg("--report"),
        std::time::Duration::from_secs(5),
    )
    .ok_or("tool-containment --report did not answer within 5 s")?;
    let first = out.1.lines().next().unwrap_or_default().to_string();
    match first.strip_prefix("tool-containment backend: ") {
        Some("none") | None => Err(out
            .1
            .lines()
            .find(|l| l.contains("WITHOUT ceilings"))
            .unwrap_or(&first)
            .trim()
            .to_string()),
        Some(name) => Ok(name.to_string()),
    }
}

fn stage_and_test(t: &Target, staging: &Path) -> Result<()> {
    std::fs::create_dir_all(staging).map_err(|e| io_err(staging, e))?;
    for name in BINARIES {
        let src = t.from.join(name);
        let dst = staging.join(name);
        std::fs::copy(&src, &dst).map_err(|e| io_err(&src, e))?;
        std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io_err(&dst, e))?;
    }
    let scratch = staging.join(".selftest");
    for name in BINARIES {
        selftest(&staging.join(name), &scratch)?;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}

/// Reads a settings file: (original text if it exists, parsed map). Refuses what it cannot merge.
fn read_settings(
    path: &Path,
) -> Result<(Option<String>, serde_json::Map<String, serde_json::Value>)> {
    match std::fs::read_to_string(path) {
        Ok(text) => {
            let map = settings_merge::parse(&text)
                .map_err(|e| format!("{}: {e}; the file was left untouched", path.display()))?;
            Ok((Some(text), map))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((None, serde_json::Map::new())),
        Err(e) => Err(io_err(path, e)),
    }
}

fn describe_change(path: &Path, before: Option<&str>, after: &str) -> String {
    if before == Some(after) {
        format!("{}: no change", path.display())
    } else {
        format!("{} would become:\n{after}", path.display())
    }
}

fn write_settings(path: &Path, before: Option<&str>, after: &str) -> Result<String> {
    if before == Some(after) {
        return Ok(format!("{}: already up to date", path.display()));
    }
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions().mode());
    if let Some(old) = before {
        let backup = backup_path(path);
        std::fs::write(&backup, old).map_err(|e| io_err(&backup, e))?;
    }
    write_atomically(path, after.as_bytes(), mode)?;
    Ok(format!("registered hooks in {}", path.display()))
}

fn backup_path(path: &Path) -> PathBuf {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    path.with_file_name(format!("{name}.agent-guards-backup-{stamp}"))
}

/// Writes a temp file beside `path` and renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default(),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes).map_err(|e| io_err(&tmp, e))?;
    if let Some(m) = mode {
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(m))
            .map_err(|e| io_err(&tmp, e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io_err(path, e)
    })
}

/// The default config: every key documented, none set.
pub const DEFAULT_CONFIG: &str = r#"# agent-guards configuration. Every key is optional; the values shown are the defaults.
# egress-audit (E5): "enforce" blocks a red final message once; "report" only records it.
# egress_mode = "enforce"
# egress-audit (E6): extra phrases per family.
# egress_extra_phrases = { command_displacement = [], execution_receipt = [] }
# Watchdog deadline of a hook, in milliseconds.
# hook_deadline_ms = 2000
# model-tier-guard (M1): model families only the maintainer may use.
# maintainer_only_tiers = ["fable"]
# Taint (K5): MCP servers whose tools do not taint the session.
# trusted_mcp_servers = []
# tool-containment (C5): ceilings per command ("max" for none).
# tasks_max = 4096
# memory_max = "25%"
"#;
