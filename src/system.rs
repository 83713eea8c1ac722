//! The system install (issue 40 item 1): the guards' files outside the agent's reach.
//!
//! A per-user install keeps every file the guards rely on — binaries, hook registrations, config —
//! in folders the agent's own user owns, so an agent command can rename or replace them and the
//! guards are gone. Here root owns all of it: the binaries under `/usr/local/lib/agent-guards/bin`
//! (or `--prefix`), the config `/etc/agent-guards/config.toml` (a per-user file may only tighten
//! it, `guard_config::layered`), and the registrations in Claude Code's managed settings
//! (`/etc/claude-code/managed-settings.json`), which no lower settings scope can remove. Nothing
//! is installed into a folder another user could rename or write ([`unsafe_component`]).
//!
//! Uninstall gives every file back byte for byte: the install writes a manifest (the folders it
//! created, the config text it wrote, whether it created the managed settings file and set
//! `allowManagedHooksOnly`), and the uninstall removes exactly that and nothing else.
//!
//! Tests re-root `/etc` with `AGENT_GUARDS_SYSTEM_ETC` (read by this admin binary only, never by
//! a hook: the hooks read the fixed path, so no variable in the agent's settings moves it).

use crate::install::{self, Target};
use crate::settings_merge;
use serde_json::{json, Value};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, String>;

/// The default prefix of a system install.
pub const DEFAULT_PREFIX: &str = "/usr/local/lib/agent-guards";

/// The variable that re-roots `/etc` for the admin binary (tests).
pub const ETC_VAR: &str = "AGENT_GUARDS_SYSTEM_ETC";

/// The install's record of what it changed, in the prefix.
pub const MANIFEST: &str = "system-install.json";

/// Where a system install puts its config and registrations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPaths {
    /// The system config (`/etc/agent-guards/config.toml`).
    pub config: PathBuf,
    /// Claude Code's managed settings (`/etc/claude-code/managed-settings.json` on Linux).
    pub managed_settings: PathBuf,
}

/// The system paths, `/etc` replaced by `$AGENT_GUARDS_SYSTEM_ETC` when set.
pub fn paths(env: &dyn Fn(&str) -> Option<String>) -> SystemPaths {
    let etc = env(ETC_VAR)
        .filter(|e| e.starts_with('/'))
        .unwrap_or_else(|| "/etc".into());
    let etc = Path::new(&etc);
    let managed = if cfg!(target_os = "macos") && etc == Path::new("/etc") {
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")
    } else {
        etc.join("claude-code/managed-settings.json")
    };
    SystemPaths {
        config: etc.join("agent-guards/config.toml"),
        managed_settings: managed,
    }
}

/// One existing path component: who owns it and its mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    pub path: PathBuf,
    pub uid: u32,
    pub mode: u32,
    pub is_dir: bool,
}

/// The first component another user could rename, replace or write, with why; `None` when every
/// one is root's and written only by root. A world-writable folder with the sticky bit (`/tmp`)
/// is safe: others cannot rename or remove what they do not own in it. Pure.
pub fn unsafe_component(chain: &[Component]) -> Option<String> {
    chain.iter().find_map(|c| {
        let sticky_dir = c.is_dir && c.mode & 0o1000 != 0;
        if c.uid != 0 {
            Some(format!(
                "{} is owned by uid {}, not root: that user could rename or replace it",
                c.path.display(),
                c.uid
            ))
        } else if c.mode & 0o022 != 0 && !sticky_dir {
            Some(format!(
                "{} is writable by group or others (mode {:o}): they could rename or replace what is in it",
                c.path.display(),
                c.mode & 0o7777
            ))
        } else {
            None
        }
    })
}

/// The existing components of `path` and its ancestors, nearest first.
fn chain_of(path: &Path) -> Vec<Component> {
    path.ancestors()
        .filter_map(|p| {
            let m = std::fs::symlink_metadata(p).ok()?;
            Some(Component {
                path: p.to_path_buf(),
                uid: m.uid(),
                mode: m.mode(),
                is_dir: m.is_dir(),
            })
        })
        .collect()
}

fn check_reach(path: &Path) -> Result<()> {
    match unsafe_component(&chain_of(path)) {
        None => Ok(()),
        Some(why) => Err(format!(
            "{why}; a system install there would be no stronger than a per-user one, so nothing was installed"
        )),
    }
}

/// What the install changed, so that the uninstall undoes exactly that.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Manifest {
    /// Folders the install created, parents first.
    pub created_dirs: Vec<PathBuf>,
    /// The config text the install wrote (`None`: a config was there already).
    pub config_written: Option<String>,
    /// Whether the managed settings file did not exist before the install.
    pub managed_settings_created: bool,
    /// Whether the install added `"allowManagedHooksOnly": true`.
    pub set_allow_managed_hooks_only: bool,
    /// What the install appended to each password-database file for the service account.
    pub account_added: Vec<(PathBuf, String)>,
    /// The systemd units the install wrote, with their text.
    pub units_written: Vec<(PathBuf, String)>,
}

fn pairs(v: &Value) -> Vec<(PathBuf, String)> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((PathBuf::from(p[0].as_str()?), p[1].as_str()?.to_string())))
        .collect()
}

impl Manifest {
    fn to_json(&self) -> Value {
        json!({
            "kind": "system",
            "created_dirs": self.created_dirs,
            "config_written": self.config_written,
            "managed_settings_created": self.managed_settings_created,
            "set_allow_managed_hooks_only": self.set_allow_managed_hooks_only,
            "account_added": self.account_added,
            "units_written": self.units_written,
        })
    }

    fn from_json(v: &Value) -> Manifest {
        Manifest {
            created_dirs: v["created_dirs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_str().map(PathBuf::from))
                .collect(),
            config_written: v["config_written"].as_str().map(str::to_string),
            managed_settings_created: v["managed_settings_created"] == true,
            set_allow_managed_hooks_only: v["set_allow_managed_hooks_only"] == true,
            account_added: pairs(&v["account_added"]),
            units_written: pairs(&v["units_written"]),
        }
    }
}

/// The key that makes Claude Code run managed hooks only.
pub const MANAGED_ONLY_KEY: &str = "allowManagedHooksOnly";

/// What `--allow-managed-hooks-only` gives and costs, said at every system install.
pub fn managed_only_explanation(chosen: bool) -> Vec<String> {
    let head = if chosen {
        format!("{MANAGED_ONLY_KEY}: set (--allow-managed-hooks-only).")
    } else {
        format!("{MANAGED_ONLY_KEY}: not set; add --allow-managed-hooks-only to set it.")
    };
    vec![
        head,
        "  what it gives: only managed hooks run (ours and any other in managed settings); a hook the agent writes into a project's .claude/settings.json, your ~/.claude/settings.json or a plugin runs nowhere (such a hook runs as you, outside containment and unjudged by the guards)".into(),
        "  what it costs: every hook of yours, your projects' and your plugins' (unless force-enabled in managed enabledPlugins) stops running, including other tools' hooks you rely on".into(),
    ]
}

fn require_root(what: &str) -> Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        Ok(())
    } else {
        Err(format!(
            "{what} --system needs root (the files must be root's so the agent's user cannot change them): sudo agent-guards {what} --system, or sudo ./install.sh --system"
        ))
    }
}

/// Creates `dir` and the missing folders above it, root's and 0755, recording each one created.
fn make_dirs(dir: &Path, created: &mut Vec<PathBuf>) -> Result<()> {
    let missing: Vec<&Path> = dir.ancestors().take_while(|p| !p.exists()).collect();
    for d in missing.into_iter().rev() {
        std::fs::create_dir(d).map_err(|e| format!("{}: {e}", d.display()))?;
        own_by_root(d, 0o755)?;
        created.push(d.to_path_buf());
    }
    Ok(())
}

fn own_by_root(path: &Path, mode: u32) -> Result<()> {
    std::os::unix::fs::chown(path, Some(0), Some(0))
        .and_then(|()| std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Adds `"allowManagedHooksOnly": true` when asked and absent; `true` when it was added. A value
/// someone else set is left as it is.
fn set_managed_only(text: &str, wanted: bool) -> (String, bool) {
    let Ok(root) = crate::json_text::scan(text) else {
        return (text.to_string(), false);
    };
    if !wanted || root.get(MANAGED_ONLY_KEY).is_some() {
        return (text.to_string(), false);
    }
    let style = crate::json_text::Style::of(text, &root);
    let edited =
        crate::json_text::append(text, &root, Some(MANAGED_ONLY_KEY), &json!(true), &style);
    (edited, true)
}

/// Removes the `"allowManagedHooksOnly"` member (the install added it).
fn unset_managed_only(text: &str) -> String {
    let Ok(root) = crate::json_text::scan(text) else {
        return text.to_string();
    };
    match root
        .members()
        .iter()
        .position(|m| m.key == MANAGED_ONLY_KEY)
    {
        Some(i) => crate::json_text::remove(text, &root, i),
        None => text.to_string(),
    }
}

/// `agent-guards install --system`.
pub fn install(t: &Target, managed_only: bool) -> Result<Vec<String>> {
    if !t.dry_run {
        require_root("install")?;
    }
    let config = t.config.clone().ok_or("no system config path")?;
    let before = install::read_settings(&t.settings)?;
    for p in [&t.prefix, &config, &t.settings] {
        check_reach(p)?;
    }
    let mut log = Vec::new();
    let bin_dir = t.bin_dir();
    let mut manifest = read_manifest(&t.prefix).unwrap_or_default();
    let first_install = !t.prefix.join(MANIFEST).exists();
    if first_install {
        manifest = Manifest {
            managed_settings_created: before.is_none(),
            ..Manifest::default()
        };
    }
    let staging_parent = if t.dry_run {
        std::env::temp_dir()
    } else {
        make_dirs(&t.prefix, &mut manifest.created_dirs)?;
        t.prefix.clone()
    };
    let staging = staging_parent.join(format!(".agent-guards-staging-{}", std::process::id()));
    let tested = install::stage_and_test(t, &staging);
    let backend = match tested {
        Ok(said) => {
            log.push(said);
            install::containment_backend(&staging.join(crate::registry::SHELL_PREFIX_BINARY))
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&staging);
            // What the install created so far goes again: nothing was installed.
            if !t.dry_run && first_install {
                remove_created(&manifest.created_dirs);
            }
            return Err(format!("{e}; nothing was installed"));
        }
    };
    let base = settings_merge::base_text(before.as_deref());
    let after = settings_merge::install(&base, crate::registry::REGISTRATIONS, &bin_dir);
    let shell_prefix = backend
        .as_ref()
        .ok()
        .map(|_| bin_dir.join(crate::registry::SHELL_PREFIX_BINARY));
    let (after, note) = settings_merge::set_shell_prefix(&after, &bin_dir, shell_prefix.as_deref());
    log.extend(note);
    let (after, added) = set_managed_only(&after, managed_only);
    manifest.set_allow_managed_hooks_only |= added;
    if t.dry_run {
        let _ = std::fs::remove_dir_all(&staging);
        log.push(format!(
            "would install {} into {} (root's, 0755)",
            install::installed_names().join(", "),
            bin_dir.display()
        ));
        log.push(install::describe_change(
            &t.settings,
            before.as_deref(),
            &after,
            "would register the hooks (managed settings)",
        ));
        log.extend(managed_only_explanation(managed_only));
        return Ok(log);
    }
    make_dirs(&bin_dir, &mut manifest.created_dirs)?;
    for name in install::installed_names() {
        let dest = bin_dir.join(name);
        std::fs::rename(staging.join(name), &dest)
            .map_err(|e| format!("{}: {e}", dest.display()))?;
        own_by_root(&dest, 0o755)?;
        log.push(format!("installed {} (root's, 0755)", dest.display()));
    }
    let _ = std::fs::remove_dir_all(&staging);
    if !config.exists() {
        make_dirs(
            config.parent().unwrap_or(Path::new("/")),
            &mut manifest.created_dirs,
        )?;
        let text = guard_config::layered::system_default_config();
        install::write_file(&config, text.as_bytes(), Some(0o644))?;
        own_by_root(&config, 0o644)?;
        manifest.config_written = Some(text);
        log.push(format!(
            "wrote the system config {} (root's, 0644; a per-user config may only tighten it)",
            config.display()
        ));
    }
    if before.as_deref() != Some(after.as_str()) {
        make_dirs(
            t.settings.parent().unwrap_or(Path::new("/")),
            &mut manifest.created_dirs,
        )?;
        if let Some(old) = &before {
            let backups = t.prefix.join("backups");
            make_dirs(&backups, &mut manifest.created_dirs)?;
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let backup = backups.join(format!("managed-settings.json.{stamp}"));
            install::write_new_file(&backup, old.as_bytes(), Some(0o600))?;
            log.push(format!(
                "previous managed settings saved as {}",
                backup.display()
            ));
        }
        // Claude Code runs as the user and must read the file: a new one is 0644.
        let mode = if before.is_some() { None } else { Some(0o644) };
        install::write_file(&t.settings, after.as_bytes(), mode)?;
        log.push(format!(
            "registered the hooks in the managed settings {} (no lower settings scope can remove them)",
            t.settings.display()
        ));
    } else {
        log.push(format!("{}: already up to date", t.settings.display()));
    }
    // The exec-gate service: its account, then its units (recorded before anything can fail
    // after them, so an uninstall finds them).
    let etc = config
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/etc"));
    if manifest.account_added.is_empty() {
        let (added, line) = crate::service_install::add_account(etc)?;
        manifest.account_added = added;
        log.push(line);
    }
    write_manifest(&t.prefix, &manifest)?;
    log.extend(crate::service_install::register_units(
        etc,
        &bin_dir,
        &mut manifest.units_written,
    ));
    write_manifest(&t.prefix, &manifest)?;
    log.extend(managed_only_explanation(
        managed_only || manifest.set_allow_managed_hooks_only,
    ));
    log.extend(install::config_lines(Some(&config)));
    log.push(format!(
        "admin tool: {} (report, explain '<command>', sudo ... uninstall --system)",
        bin_dir.join(crate::registry::ADMIN_BINARY).display()
    ));
    Ok(log)
}

fn write_manifest(prefix: &Path, m: &Manifest) -> Result<()> {
    let path = prefix.join(MANIFEST);
    let text = serde_json::to_string_pretty(&m.to_json()).unwrap_or_default() + "\n";
    install::write_file(&path, text.as_bytes(), Some(0o644))?;
    own_by_root(&path, 0o644)
}

fn read_manifest(prefix: &Path) -> Option<Manifest> {
    let text = settings_merge::read_file(&prefix.join(MANIFEST)).ok()??;
    let v: Value = serde_json::from_str(&text).ok()?;
    (v["kind"] == "system").then(|| Manifest::from_json(&v))
}

/// Removes the folders the install created, deepest first, where they are empty.
fn remove_created(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut left = Vec::new();
    for d in dirs.iter().rev() {
        if d.exists() && std::fs::remove_dir(d).is_err() {
            left.push(d.clone());
        }
    }
    left
}

/// `agent-guards uninstall --system`: gives back every file the install changed.
pub fn uninstall(t: &Target) -> Result<Vec<String>> {
    if !t.dry_run {
        require_root("uninstall")?;
    }
    let manifest = read_manifest(&t.prefix);
    let mut log = Vec::new();
    let before = install::read_settings(&t.settings)?;
    if let Some(before) = &before {
        let bin_dir = t.bin_dir();
        let after = settings_merge::remove_ours(before, &bin_dir);
        let (mut after, _) = settings_merge::set_shell_prefix(&after, &bin_dir, None);
        if manifest
            .as_ref()
            .is_some_and(|m| m.set_allow_managed_hooks_only)
        {
            after = unset_managed_only(&after);
        }
        let created = manifest
            .as_ref()
            .is_some_and(|m| m.managed_settings_created);
        let empty = settings_merge::parse(&after).is_ok_and(|m| m.is_empty());
        if t.dry_run {
            log.push(install::describe_change(
                &t.settings,
                Some(before),
                &after,
                "would remove the hooks of agent-guards",
            ));
            return Ok(log);
        }
        if created && empty {
            std::fs::remove_file(&t.settings)
                .map_err(|e| format!("{}: {e}", t.settings.display()))?;
            log.push(format!(
                "removed {} (the install had created it)",
                t.settings.display()
            ));
        } else if after != *before {
            install::write_file(&t.settings, after.as_bytes(), None)?;
            log.push(format!(
                "removed the hooks of agent-guards from {}",
                t.settings.display()
            ));
        } else {
            log.push(format!(
                "{}: no hooks of agent-guards",
                t.settings.display()
            ));
        }
    } else if t.dry_run {
        return Ok(vec![format!("{} does not exist", t.settings.display())]);
    }
    let Some(manifest) = manifest else {
        log.push(format!(
            "no {} in {}: the binaries and the config were left (not installed by install --system)",
            MANIFEST,
            t.prefix.display()
        ));
        return Ok(log);
    };
    if let (Some(cfg), Some(written)) = (&t.config, &manifest.config_written) {
        match settings_merge::read_file(cfg) {
            Ok(Some(now)) if now == *written => {
                std::fs::remove_file(cfg).map_err(|e| format!("{}: {e}", cfg.display()))?;
                log.push(format!(
                    "removed the system config {} (as installed)",
                    cfg.display()
                ));
            }
            Ok(Some(_)) => log.push(format!(
                "left the system config {}: it was edited since the install (rm {} to remove it)",
                cfg.display(),
                install::shell_quote(cfg)
            )),
            _ => {}
        }
    }
    let etc = t
        .config
        .as_deref()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .unwrap_or(Path::new("/etc"));
    log.extend(crate::service_install::unregister_units(
        &manifest.units_written,
    ));
    log.extend(crate::service_install::remove_account(
        etc,
        &manifest.account_added,
    ));
    let bin_dir = t.bin_dir();
    for name in install::installed_names() {
        let p = bin_dir.join(name);
        if p.exists() {
            std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    let _ = std::fs::remove_dir_all(t.prefix.join("backups"));
    std::fs::remove_file(t.prefix.join(MANIFEST))
        .map_err(|e| format!("{}: {e}", t.prefix.join(MANIFEST).display()))?;
    log.push(format!("removed the binaries from {}", bin_dir.display()));
    for d in remove_created(&manifest.created_dirs) {
        log.push(format!(
            "left {}: it holds files the install did not put there",
            d.display()
        ));
    }
    log.extend(crate::service_install::left_running_or_kept());
    Ok(log)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(path: &str, uid: u32, mode: u32) -> Component {
        Component {
            path: path.into(),
            uid,
            mode,
            is_dir: true,
        }
    }

    #[test]
    fn only_root_owned_folders_no_one_else_writes_are_safe() {
        let table: &[(&[Component], Option<&str>)] = &[
            (&[c("/usr/local/lib", 0, 0o40755), c("/", 0, 0o40755)], None),
            // /tmp: world-writable with the sticky bit; others cannot rename root's entries.
            (&[c("/tmp/x", 0, 0o40700), c("/tmp", 0, 0o41777)], None),
            (&[c("/home/me/x", 1000, 0o40755)], Some("owned by uid 1000")),
            (
                &[c("/opt/g", 0, 0o40775)],
                Some("writable by group or others (mode 775)"),
            ),
            (
                &[c("/srv/w", 0, 0o40777)],
                Some("writable by group or others"),
            ),
            // A world-writable file is not saved by a sticky bit.
            (
                &[Component {
                    path: "/etc/f".into(),
                    uid: 0,
                    mode: 0o101666,
                    is_dir: false,
                }],
                Some("writable by group or others"),
            ),
        ];
        for (chain, want) in table {
            let got = unsafe_component(chain);
            match want {
                None => assert_eq!(got, None, "{chain:?}"),
                Some(w) => assert!(
                    got.as_deref().is_some_and(|g| g.contains(w)),
                    "{chain:?}: {got:?}"
                ),
            }
        }
    }

    #[test]
    fn the_etc_override_moves_both_files() {
        let p = paths(&|k| (k == ETC_VAR).then(|| "/tmp/root/etc".to_string()));
        assert_eq!(
            p.config,
            PathBuf::from("/tmp/root/etc/agent-guards/config.toml")
        );
        assert_eq!(
            p.managed_settings,
            PathBuf::from("/tmp/root/etc/claude-code/managed-settings.json")
        );
        let p = paths(&|_| None);
        assert_eq!(p.config, PathBuf::from("/etc/agent-guards/config.toml"));
    }

    #[test]
    fn managed_only_is_added_once_and_removed_again() {
        let text = "{\n  \"// note\": \"kept\",\n  \"model\": \"x\"\n}\n";
        let (added, yes) = set_managed_only(text, true);
        assert!(yes);
        assert!(added.contains("\"allowManagedHooksOnly\": true"), "{added}");
        assert_eq!(unset_managed_only(&added), text);
        let (again, no) = set_managed_only(&added, true);
        assert!(!no);
        assert_eq!(again, added);
        let (untouched, no) = set_managed_only(text, false);
        assert!(!no);
        assert_eq!(untouched, text);
    }
}
