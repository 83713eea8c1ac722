//! Installing and uninstalling: stage, self-test, move into place, register hooks.
//!
//! Nothing is installed unless every staged binary passes its own `--selftest`; the settings file
//! is merged (never clobbered), backed up, and replaced atomically with its permissions kept.

use crate::registry::{ADMIN_BINARY, BINARIES, REGISTRATIONS, SHELL_PREFIX_BINARY};
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
    /// The hooks' state dir (audit logs), named by uninstall.
    pub state_dir: Option<PathBuf>,
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
pub fn selftest(binary: &Path, scratch: &Path) -> Result<serde_json::Value> {
    let out = Command::new(binary)
        .arg("--selftest")
        .env("XDG_STATE_HOME", scratch.join("state"))
        .env("AGENT_GUARDS_CONFIG", scratch.join("no-config.toml"))
        .output()
        .map_err(|e| io_err(binary, e))?;
    let record: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    if out.status.success() && record["status"] == "pass" {
        Ok(record)
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
    let before = read_settings(&t.settings)?;
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
        Ok(said) => {
            log.push(said);
            containment_backend(&staging.join(SHELL_PREFIX_BINARY))
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(format!("{e}; nothing was installed"));
        }
    };
    let after = settings_merge::install(
        &settings_merge::base_text(before.as_deref()),
        REGISTRATIONS,
        &bin_dir,
    );
    let prefix = backend
        .as_ref()
        .ok()
        .map(|_| bin_dir.join(SHELL_PREFIX_BINARY));
    let (after, note) = settings_merge::set_shell_prefix(&after, &bin_dir, prefix.as_deref());
    log.extend(note);
    let would = if t.dry_run { "would be " } else { "" };
    log.push(match &backend {
        Ok(name) => format!("containment backend: {name}; CLAUDE_CODE_SHELL_PREFIX {would}registered"),
        Err(why) => format!(
            "containment: no usable backend ({why}); commands run without ceilings, the prefix is not registered"
        ),
    });
    if t.dry_run {
        let _ = std::fs::remove_dir_all(&staging);
        log.push(format!(
            "would install {} into {}",
            installed_names().join(", "),
            bin_dir.display()
        ));
        log.push(describe_change(
            &t.settings,
            before.as_deref(),
            &after,
            "would register the hooks",
        ));
        return Ok(log);
    }
    std::fs::create_dir_all(&bin_dir).map_err(|e| io_err(&bin_dir, e))?;
    for name in installed_names() {
        let dest = bin_dir.join(name);
        std::fs::rename(staging.join(name), &dest).map_err(|e| io_err(&dest, e))?;
        log.push(format!("installed {}", dest.display()));
    }
    let _ = std::fs::remove_dir_all(&staging);
    if let Some(cfg) = &t.config {
        if !cfg.exists() {
            write_file(
                cfg,
                guard_config::diagnose::default_config().as_bytes(),
                None,
            )?;
            log.push(format!("wrote default config {}", cfg.display()));
        }
    }
    log.push(write_settings(
        &t.settings,
        before.as_deref(),
        &after,
        "registered the hooks in",
    )?);
    log.extend(config_lines(t.config.as_deref()));
    log.push(format!(
        "admin tool: {} (report, explain '<command>', uninstall)",
        bin_dir.join(ADMIN_BINARY).display()
    ));
    log.push(format!(
        "to run it as `agent-guards`, put its folder on PATH: echo 'export PATH=\"{}:$PATH\"' >> ~/.bashrc (or ~/.zshrc)",
        bin_dir.display()
    ));
    Ok(log)
}

/// The binaries copied into the bin dir: the hooks and the admin binary beside them.
pub(crate) fn installed_names() -> Vec<&'static str> {
    BINARIES.iter().copied().chain([ADMIN_BINARY]).collect()
}

/// What `agent-guards report` says about the config, for the end of an install.
pub(crate) fn config_lines(config: Option<&Path>) -> Vec<String> {
    let Some(path) = config else {
        return Vec::new();
    };
    match crate::report::config_problems(path) {
        Ok(problems) if problems.is_empty() => vec![format!("config {}: ok", path.display())],
        Ok(problems) => std::iter::once(format!(
            "config {}: {} problem(s); the hooks report them until fixed:",
            path.display(),
            problems.len()
        ))
        .chain(problems.iter().map(|p| format!("  {p}")))
        .collect(),
        Err(e) => vec![format!("config {}: {e}", path.display())],
    }
}

/// Removes exactly what we registered; the binaries, the config and the logs stay (the message
/// says where they are and how to remove them).
pub fn uninstall(t: &Target) -> Result<Vec<String>> {
    let Some(before) = read_settings(&t.settings)? else {
        return Ok(vec![format!(
            "{} does not exist; no hooks to remove",
            t.settings.display()
        )]);
    };
    let after = settings_merge::remove_ours(&before, &t.bin_dir());
    let (after, _) = settings_merge::set_shell_prefix(&after, &t.bin_dir(), None);
    if t.dry_run {
        return Ok(vec![describe_change(
            &t.settings,
            Some(&before),
            &after,
            "would remove the hooks of agent-guards",
        )]);
    }
    let mut log = vec![write_settings(
        &t.settings,
        Some(&before),
        &after,
        "removed the hooks of agent-guards from",
    )?];
    log.push("left in place (remove them yourself if you want them gone):".into());
    let bin_dir = t.bin_dir();
    if bin_dir.exists() {
        log.push(format!("  binaries: rm -r {}", shell_quote(&t.prefix)));
    }
    if let Some(cfg) = t.config.as_ref().filter(|c| c.exists()) {
        log.push(format!("  config:   rm {}", shell_quote(cfg)));
    }
    if let Some(state) = t.state_dir.as_ref().filter(|s| s.exists()) {
        log.push(format!(
            "  audit logs and session state: rm -r {}",
            shell_quote(state)
        ));
    }
    let backups = backups_of(&t.settings);
    if let Some((newest, older)) = backups.split_last() {
        log.push(format!(
            "  backups of {} ({}): the newest is {}",
            t.settings.display(),
            backups.len(),
            shell_quote(newest)
        ));
        if !older.is_empty() {
            let paths: Vec<String> = older.iter().map(|p| shell_quote(p)).collect();
            log.push(format!(
                "  the {} older backup(s), to remove them: rm {}",
                older.len(),
                paths.join(" ")
            ));
        }
    }
    log.push(format!(
        "  the PATH line, if you added it to ~/.bashrc or ~/.zshrc: export PATH=\"{}:$PATH\"",
        bin_dir.display()
    ));
    Ok(log)
}

/// The backups [`write_settings`] left beside `settings`, oldest first (by their stamp, then
/// their collision number).
fn backups_of(settings: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (settings.parent(), settings.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.agent-guards-backup-", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<((u64, u64), PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let stamp = file.strip_prefix(&prefix)?;
            let (secs, n) = stamp.split_once('-').unwrap_or((stamp, "1"));
            Some(((secs.parse().ok()?, n.parse().ok()?), e.path()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p).collect()
}

pub(crate) fn shell_quote(p: &Path) -> String {
    let s = p.to_string_lossy();
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@".contains(&b))
    {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The containment backend the staged `tool-containment --report` names, or why there is none.
pub(crate) fn containment_backend(binary: &Path) -> std::result::Result<String, String> {
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

/// Stages the binaries and runs every `--selftest` on the staged copies; returns the line that
/// says so (issue 46: the install ran them and said nothing).
pub(crate) fn stage_and_test(t: &Target, staging: &Path) -> Result<String> {
    std::fs::create_dir_all(staging).map_err(|e| io_err(staging, e))?;
    for name in installed_names() {
        let src = t.from.join(name);
        let dst = staging.join(name);
        std::fs::copy(&src, &dst).map_err(|e| io_err(&src, e))?;
        std::fs::set_permissions(&dst, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| io_err(&dst, e))?;
    }
    let scratch = staging.join(".selftest");
    let mut cases = 0;
    for name in BINARIES {
        let record = selftest(&staging.join(name), &scratch)?;
        // The replayed records count fixture files as `cases`; egress-audit's own contract
        // record counts `fixture_case_count`.
        cases += record["cases"]
            .as_u64()
            .or_else(|| record["fixture_case_count"].as_u64())
            .unwrap_or(0);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    // The admin binary has no fixtures to replay; it must at least run.
    let admin = staging.join(ADMIN_BINARY);
    match crate::report::run_bounded(
        Command::new(&admin).arg("--version"),
        std::time::Duration::from_secs(5),
    ) {
        Some((0, _)) => Ok(format!(
            "self-test passed: each of the {} hook binaries replayed its embedded fixtures on the staged copy ({cases} fixtures in all)",
            BINARIES.len()
        )),
        _ => Err(format!("{} --version failed", admin.display())),
    }
}

/// Reads a settings file: its text if it exists. Refuses what it cannot merge, untouched.
pub(crate) fn read_settings(path: &Path) -> Result<Option<String>> {
    match settings_merge::read_file(path) {
        Ok(Some(text)) => {
            settings_merge::parse(&text)
                .map_err(|e| format!("{}: {e}; the file was left untouched", path.display()))?;
            Ok(Some(text))
        }
        Ok(None) => Ok(None),
        Err(e) => Err(format!(
            "{}: {e}; the file was left untouched",
            path.display()
        )),
    }
}

pub(crate) fn describe_change(
    path: &Path,
    before: Option<&str>,
    after: &str,
    action: &str,
) -> String {
    if before == Some(after) {
        format!("{}: no change", path.display())
    } else {
        format!("{action} in {}; it would become:\n{after}", path.display())
    }
}

/// Writes the new settings: a backup of the old text beside `path` with the old file's mode, then
/// the new text through a symlink (the link stays, its target is replaced), mode kept.
fn write_settings(path: &Path, before: Option<&str>, after: &str, action: &str) -> Result<String> {
    if before == Some(after) {
        return Ok(format!("{}: already up to date", path.display()));
    }
    // A dotfile manager's symlink must stay a symlink: write where it points.
    let target = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(path).map_err(|e| io_err(path, e))?
        }
        _ => path.to_path_buf(),
    };
    let mode = std::fs::metadata(&target)
        .ok()
        .map(|m| m.permissions().mode() & 0o7777);
    let mut backup_note = String::new();
    if let Some(old) = before {
        let backup = backup_path(path);
        write_new_file(&backup, old.as_bytes(), Some(mode.unwrap_or(0o600)))?;
        backup_note = format!(" (previous file saved as {})", backup.display());
    }
    write_file(&target, after.as_bytes(), mode)?;
    Ok(format!("{action} {}{backup_note}", path.display()))
}

/// Creates `path` (it must not exist) with `mode` from the start: settings often hold tokens.
pub(crate) fn write_new_file(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode.unwrap_or(0o666))
        .open(path)
        .map_err(|e| io_err(path, e))?;
    // The umask may have narrowed a kept mode; set it exactly. A new file follows the umask.
    if let Some(m) = mode {
        f.set_permissions(std::fs::Permissions::from_mode(m))
            .map_err(|e| io_err(path, e))?;
    }
    f.write_all(bytes).map_err(|e| io_err(path, e))
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
    let first = path.with_file_name(format!("{name}.agent-guards-backup-{stamp}"));
    (1..)
        .map(|n| {
            if n == 1 {
                first.clone()
            } else {
                path.with_file_name(format!("{name}.agent-guards-backup-{stamp}-{n}"))
            }
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .unwrap_or(first)
}

/// Creates `path`'s folder and writes `path` new-then-rename (the workspace's one atomic write,
/// [`primitives::atomic`]): `mode` when given, else an existing file's mode is kept.
pub fn write_file(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
    primitives::atomic::write_atomically(path, bytes, mode).map_err(|e| io_err(path, e))
}
