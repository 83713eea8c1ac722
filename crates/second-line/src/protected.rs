//! Which paths are the suite's own (I3) inside an agent command: the same set integrity-signals
//! protects at PreToolUse (binaries, config, state dir, every `settings*.json` directly in a
//! `.claude` folder), plus the managed settings folder, as the list of existing paths the mount
//! layer makes read-only and the predicate the notifier checks a written path against.

use integrity_signals::face::{Protected, Protects};
use std::path::{Path, PathBuf};

/// Managed (policy) settings of Claude Code on Linux.
pub const MANAGED_SETTINGS_DIR: &str = "/etc/claude-code";

/// The protected set of one session.
#[derive(Debug, Clone)]
pub struct ProtectedSet {
    pub rules: Protected,
    /// Folders whose `settings*.json` are hook registrations (`~/.claude`, `$CLAUDE_CONFIG_DIR`,
    /// the project's `.claude` and those of the cwd's ancestors).
    pub claude_dirs: Vec<PathBuf>,
}

/// `env`, answering `CLAUDE_PROJECT_DIR` with the project folder gh-write-guard's hook recorded
/// in the session's state when the environment has none (agent commands do not get it), so the
/// project's `.claude` is protected even when a command starts outside the project.
pub fn with_recorded_project<'e>(
    env: &'e dyn Fn(&str) -> Option<String>,
    state_dir: Option<&Path>,
    session_id: Option<&str>,
) -> impl Fn(&str) -> Option<String> + 'e {
    let recorded = match env("CLAUDE_PROJECT_DIR") {
        Some(_) => None,
        None => state_dir
            .map(|s| session_store::Session::new(s, session_id))
            .and_then(|s| s.project_dir())
            .and_then(|p| p.to_str().map(String::from)),
    };
    move |k: &str| match (k, &recorded) {
        ("CLAUDE_PROJECT_DIR", Some(p)) => Some(p.clone()),
        _ => env(k),
    }
}

impl ProtectedSet {
    /// From the prefix's environment, the installed binary and the command's cwd.
    pub fn from_env(
        env: &dyn Fn(&str) -> Option<String>,
        exe: Option<&Path>,
        cwd: Option<&Path>,
    ) -> ProtectedSet {
        let mut rules = Protected::from_env(env, exe);
        rules.roots.push(PathBuf::from(MANAGED_SETTINGS_DIR));
        let mut claude_dirs = Vec::new();
        let mut push = |p: PathBuf| {
            if !claude_dirs.contains(&p) {
                claude_dirs.push(p);
            }
        };
        if let Some(h) = env("HOME").filter(|h| h.starts_with('/')) {
            push(Path::new(&h).join(".claude"));
        }
        if let Some(c) = env("CLAUDE_CONFIG_DIR").filter(|h| h.starts_with('/')) {
            push(PathBuf::from(c));
        }
        if let Some(p) = env("CLAUDE_PROJECT_DIR").filter(|h| h.starts_with('/')) {
            push(Path::new(&p).join(".claude"));
        }
        if let Some(c) = cwd {
            for a in c.ancestors() {
                push(a.join(".claude"));
            }
        }
        ProtectedSet { rules, claude_dirs }
    }

    /// Why a written path (absolute, normalised) is protected, if it is.
    pub fn protects(&self, path: &Path) -> Option<&'static str> {
        self.protection(path).map(|(what, _)| what)
    }

    /// What `path` (absolute) is and the I3 sub-code a write to it carries (`I3.settings`, ...),
    /// if it is protected.
    pub fn protection(&self, path: &Path) -> Option<(&'static str, &'static str)> {
        let what = self.rules.protection(path)?;
        let folder = path.parent();
        let sessions =
            |f: Option<&Path>| f.is_some_and(|f| self.claude_dirs.iter().any(|d| d == f));
        let held = match what {
            // The CLI's own state file (see `is_cli_state`).
            Protects::Registration if is_cli_state(path) => false,
            // A registration this session reads: in one of its `.claude` folders, or the
            // `.mcp.json` beside one. Another folder's (a new worktree's or clone's, written by
            // git from the repository; issue 41 item 6) is no registration of this session:
            // the first line judges the command that writes it.
            Protects::HookRegistration => sessions(folder),
            Protects::Registration if integrity_signals::face::is_outside_registration(path) => {
                sessions(folder.map(|f| f.join(".claude")).as_deref())
            }
            _ => true,
        };
        held.then(|| (what.describe(), integrity_signals::face::tamper_code(what)))
    }

    /// The registrations of commands run outside containment the second line holds: the
    /// plugin folders (`~/.claude/plugins`), not the CLI's own state file (see [`is_cli_state`]).
    fn held_registrations(&self) -> impl Iterator<Item = &PathBuf> {
        self.rules.registrations.iter().filter(|r| !is_cli_state(r))
    }

    /// What a write, rename or removal of `path` (absolute, normalised) would change that is
    /// protected: the path itself ([`ProtectedSet::protection`]), or a protected folder or file
    /// that exists below it (issue 41: renaming `~/.claude`, `~/.config` or any other parent of a
    /// protected path replaced everything under it, read-only mounts included, since they move
    /// with the folder). The root folder is no one's parent here.
    pub fn guards(&self, path: &Path) -> Option<(&'static str, &'static str)> {
        if let Some(p) = self.protection(path) {
            return Some(p);
        }
        // The root folder is no one's parent here.
        path.parent()?;
        let below = |p: &Path| p != path && p.starts_with(path) && p.exists();
        let held = self
            .rules
            .roots
            .iter()
            .chain(&self.rules.files)
            .chain(self.held_registrations())
            .find(|p| below(p))
            .and_then(|p| self.protection(p));
        // A `.claude` folder itself too: renamed, its registrations go with it.
        held.or_else(|| {
            let holds = |d: &PathBuf| d.starts_with(path) && d.exists();
            self.claude_dirs.iter().any(holds).then_some((
                "a folder that holds hook registrations",
                integrity_signals::face::I3_SETTINGS,
            ))
        })
    }

    /// The existing paths to mount read-only: protected folders and files, and each existing
    /// `settings*.json` in the `.claude` folders. A registration file that does not exist yet
    /// cannot be a mount point; the notifier refuses creating it (see the crate README).
    pub fn existing_mount_points(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        let mut push = |p: &Path| {
            if p.exists() && !out.iter().any(|o| p.starts_with(o)) {
                out.retain(|o| !o.starts_with(p));
                out.push(p.to_path_buf());
            }
        };
        for r in &self.rules.roots {
            push(r);
        }
        for f in &self.rules.files {
            push(f);
        }
        let held: Vec<PathBuf> = self.held_registrations().cloned().collect();
        for r in &held {
            push(r);
        }
        // Project-scope MCP servers of the folders whose `.claude` is read (the project, the
        // cwd's ancestors).
        for d in &self.claude_dirs {
            if let Some(parent) = d.parent() {
                push(&parent.join(".mcp.json"));
            }
        }
        for d in &self.claude_dirs {
            let Ok(entries) = std::fs::read_dir(d) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if integrity_signals::face::is_hook_registration(&p) {
                    push(&p);
                }
            }
        }
        out
    }
}

/// `~/.claude.json` (or `$CLAUDE_CONFIG_DIR/.claude.json`): besides MCP servers it holds the
/// CLI's own state, which every nested `claude` an agent command runs rewrites; read-only, the
/// launches M3 allows would fail. The first line judges writes to it (I3.registration); the
/// second line leaves it writable (spec/tool-containment.md, C10's known limits).
fn is_cli_state(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".claude.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn existing_registrations_state_and_config_become_mount_points_once() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let project = t.path().join("work/app");
        for d in [
            home.join(".claude"),
            home.join(".local/state/agent-guards/sessions"),
            home.join(".config/agent-guards"),
            project.join(".claude/agents"),
            project.join("src"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        for f in [
            home.join(".claude/settings.json"),
            project.join(".claude/settings.local.json"),
            project.join(".claude/other.json"),
            home.join(".config/agent-guards/config.toml"),
        ] {
            std::fs::write(f, "{}").unwrap();
        }
        let h = home.display().to_string();
        let env = move |k: &str| (k == "HOME").then(|| h.clone());
        let set = ProtectedSet::from_env(&env, None, Some(&project.join("src")));
        let points = set.existing_mount_points();
        assert!(points.contains(&home.join(".claude/settings.json")));
        assert!(points.contains(&project.join(".claude/settings.local.json")));
        assert!(points.contains(&home.join(".local/state/agent-guards")));
        // The config file is inside the protected config folder: one mount covers it.
        assert!(points.contains(&home.join(".config/agent-guards")));
        assert!(!points.contains(&home.join(".config/agent-guards/config.toml")));
        assert!(!points
            .iter()
            .any(|p| p.ends_with("other.json") || p.ends_with("agents")));
        // A registration that does not exist yet is still protected for the notifier.
        assert!(set
            .protects(&project.join(".claude/settings.json"))
            .is_some());
        assert!(set.protects(&project.join("src/main.rs")).is_none());
    }

    #[test]
    fn the_recorded_projects_settings_are_mounted_read_only_for_a_command_started_outside_it() {
        let t = tempfile::tempdir().unwrap();
        let (state, project, elsewhere) = (
            t.path().join("state"),
            t.path().join("work/app"),
            t.path().join("tmp/wt"),
        );
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(project.join(".claude/settings.json"), "{}").unwrap();
        session_store::Session::new(&state, Some("s1"))
            .record_project_dir(&project)
            .unwrap();
        let settings = project.join(".claude/settings.json");
        let no_env = |_: &str| None;
        let protects = |session: &str| {
            let env = with_recorded_project(&no_env, Some(&state), Some(session));
            // The notifier refuses a write to any `settings*.json` of a `.claude` folder; the
            // read-only mounts need to know the folder.
            ProtectedSet::from_env(&env, None, Some(&elsewhere))
                .existing_mount_points()
                .contains(&settings)
        };
        assert!(protects("s1"));
        // Another session recorded nothing: only the cwd's ancestors and HOME count.
        assert!(!protects("s2"));
        // The environment's own variable wins over the record.
        let other = t.path().join("other").display().to_string();
        let env_with = move |k: &str| (k == "CLAUDE_PROJECT_DIR").then(|| other.clone());
        let env = with_recorded_project(&env_with, Some(&state), Some("s1"));
        assert_eq!(
            env("CLAUDE_PROJECT_DIR"),
            Some(t.path().join("other").display().to_string())
        );
    }

    #[test]
    fn mcp_servers_and_plugins_are_held_and_the_clis_own_state_is_not() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let project = t.path().join("work/app");
        std::fs::create_dir_all(home.join(".claude/plugins/helper/hooks")).unwrap();
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::write(project.join(".mcp.json"), "{}").unwrap();
        std::fs::write(home.join(".claude.json"), "{}").unwrap();
        let h = home.display().to_string();
        let env = move |k: &str| (k == "HOME").then(|| h.clone());
        let set = ProtectedSet::from_env(&env, None, Some(&project.join("src")));
        let points = set.existing_mount_points();
        assert!(points.contains(&project.join(".mcp.json")), "{points:?}");
        assert!(points.contains(&home.join(".claude/plugins")), "{points:?}");
        assert!(!points.contains(&home.join(".claude.json")), "{points:?}");
        let code = |p: &Path| set.guards(p).map(|(_, code)| code);
        assert_eq!(code(&project.join(".mcp.json")), Some("I3.registration"));
        // One that does not exist yet beside a `.claude` folder this session reads (the cwd's
        // ancestors); another folder's (a clone's, a new worktree's) is not this session's.
        assert_eq!(
            code(&t.path().join("work/.mcp.json")),
            Some("I3.registration")
        );
        assert_eq!(code(&t.path().join("x/.mcp.json")), None);
        assert_eq!(code(&t.path().join("x/.claude/settings.json")), None);
        assert_eq!(
            code(&project.join(".claude/settings.local.json")),
            Some("I3.settings")
        );
        assert_eq!(
            code(&home.join(".claude/plugins/helper/hooks/hooks.json")),
            Some("I3.registration")
        );
        // Renaming the folder that holds the plugins moves them.
        assert!(code(&home.join(".claude")).is_some());
        assert_eq!(code(&home.join(".claude.json")), None);
        assert_eq!(code(&project.join("mcp.json")), None);
    }
}
