//! The throwaway world a scenario runs in: a temp HOME and a temp project folder whose
//! `.claude/settings.json` registers hooks in exec form, plus the environment the CLI gets.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};
use tempfile::TempDir;

/// Default per-hook timeout, in seconds (the CLI's unit).
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 30;

/// One hook handler registered in exec form:
/// `{"type":"command","command":"/abs/bin","args":[...],"timeout":N}`. With `args` present the
/// CLI spawns `command` directly, without a shell or `CLAUDE_CODE_SHELL_PREFIX`.
#[derive(Debug, Clone)]
pub struct HookSpec {
    pub event: String,
    /// `None` registers the group without a matcher (every tool / every occurrence).
    pub matcher: Option<String>,
    pub command: PathBuf,
    pub args: Vec<String>,
    pub timeout_secs: u64,
}

/// Temp HOME + temp project; everything is removed when this is dropped.
#[derive(Debug)]
pub struct Project {
    root: TempDir,
}

impl Project {
    /// Creates `<tmp>/home` and `<tmp>/project` (with `.claude/`).
    pub fn new() -> std::io::Result<Project> {
        let root = tempfile::Builder::new()
            .prefix("agent-guards-e2e-")
            .tempdir()?;
        fs::create_dir_all(root.path().join("home/.config"))?;
        fs::create_dir_all(root.path().join("home/.local/state"))?;
        fs::create_dir_all(root.path().join("home/.cache"))?;
        fs::create_dir_all(root.path().join("project/.claude"))?;
        // A space in this folder's name proves hooks run in exec form: a shell-form command
        // with this unquoted path would not start, and the scenario asserting the hook's
        // effect would fail.
        fs::create_dir_all(root.path().join("hook scripts"))?;
        Ok(Project { root })
    }

    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    pub fn dir(&self) -> PathBuf {
        self.root.path().join("project")
    }

    /// Writes an executable script (mode 755) outside the project and returns its absolute
    /// path, for hooks written as tiny test programs.
    pub fn write_script(&self, name: &str, body: &str) -> std::io::Result<PathBuf> {
        let path = self.root.path().join("hook scripts").join(name);
        fs::write(&path, body)?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755))?;
        Ok(path)
    }

    /// Where [`crate::Scenario::record_hook`] appends the payloads of `event`.
    pub fn payload_log(&self, event: &str) -> PathBuf {
        let safe: String = event
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        self.root
            .path()
            .join(format!("hook scripts/{safe}.payloads.jsonl"))
    }

    /// Writes `contents` at `relative` inside the project, creating folders.
    pub fn write_file(&self, relative: impl AsRef<Path>, contents: &str) -> std::io::Result<()> {
        let path = self.dir().join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, contents)
    }

    /// Writes `.claude/settings.json` from the hooks, `env` keys and extra top-level keys.
    pub fn write_settings(
        &self,
        hooks: &[HookSpec],
        env: &BTreeMap<String, String>,
        extra: &Map<String, Value>,
    ) -> std::io::Result<()> {
        let settings = settings_json(hooks, env, extra);
        let text = serde_json::to_string_pretty(&settings).map_err(std::io::Error::other)?;
        fs::write(self.dir().join(".claude/settings.json"), text)
    }

    /// The environment of the CLI run (besides `PATH`): everything the CLI or a hook might write
    /// lands under the temp HOME.
    pub fn cli_env(&self, base_url: &str) -> Vec<(String, String)> {
        let home = self.home();
        let h = |rel: &str| home.join(rel).to_string_lossy().into_owned();
        vec![
            ("HOME".into(), home.to_string_lossy().into_owned()),
            ("XDG_CONFIG_HOME".into(), h(".config")),
            ("XDG_STATE_HOME".into(), h(".local/state")),
            ("XDG_CACHE_HOME".into(), h(".cache")),
            ("ANTHROPIC_BASE_URL".into(), base_url.into()),
            ("ANTHROPIC_API_KEY".into(), "sk-ant-e2e-harness".into()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            ("DISABLE_TELEMETRY".into(), "1".into()),
            ("DISABLE_AUTOUPDATER".into(), "1".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ]
    }
}

/// The settings object: `hooks` grouped by event then matcher (in registration order), `env`,
/// then any extra keys.
pub fn settings_json(
    hooks: &[HookSpec],
    env: &BTreeMap<String, String>,
    extra: &Map<String, Value>,
) -> Value {
    let mut by_event: Map<String, Value> = Map::new();
    for hook in hooks {
        let handler = json!({
            "type": "command",
            "command": hook.command.to_string_lossy(),
            "args": hook.args,
            "timeout": hook.timeout_secs,
        });
        let groups = by_event
            .entry(hook.event.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            continue;
        };
        let wanted = hook.matcher.as_deref();
        let existing = groups
            .iter_mut()
            .find(|g| g.get("matcher").and_then(Value::as_str) == wanted);
        match existing {
            Some(group) => {
                if let Some(Value::Array(list)) = group.get_mut("hooks") {
                    list.push(handler);
                }
            }
            None => {
                let mut group = Map::new();
                if let Some(m) = wanted {
                    group.insert("matcher".into(), m.into());
                }
                group.insert("hooks".into(), json!([handler]));
                groups.push(Value::Object(group));
            }
        }
    }
    let mut settings = Map::new();
    if !by_event.is_empty() {
        settings.insert("hooks".into(), Value::Object(by_event));
    }
    if !env.is_empty() {
        settings.insert("env".into(), json!(env));
    }
    settings.extend(extra.clone());
    Value::Object(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(event: &str, matcher: Option<&str>, cmd: &str) -> HookSpec {
        HookSpec {
            event: event.into(),
            matcher: matcher.map(Into::into),
            command: cmd.into(),
            args: vec!["--hook".into()],
            timeout_secs: 5,
        }
    }

    #[test]
    fn groups_hooks_by_event_and_matcher_in_exec_form() {
        let hooks = [
            spec("PreToolUse", Some("Bash"), "/a"),
            spec("PreToolUse", Some("Bash"), "/b"),
            spec("PreToolUse", Some("Agent"), "/c"),
            spec("Stop", None, "/d"),
        ];
        let env = BTreeMap::from([("K".to_string(), "v".to_string())]);
        let mut extra = Map::new();
        extra.insert("skipWebFetchPreflight".into(), true.into());
        let s = settings_json(&hooks, &env, &extra);
        assert_eq!(
            s,
            json!({
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [
                            {"type": "command", "command": "/a", "args": ["--hook"], "timeout": 5},
                            {"type": "command", "command": "/b", "args": ["--hook"], "timeout": 5}]},
                        {"matcher": "Agent", "hooks": [
                            {"type": "command", "command": "/c", "args": ["--hook"], "timeout": 5}]}
                    ],
                    "Stop": [{"hooks": [
                        {"type": "command", "command": "/d", "args": ["--hook"], "timeout": 5}]}]
                },
                "env": {"K": "v"},
                "skipWebFetchPreflight": true
            })
        );
    }

    #[test]
    fn project_layout_and_files() {
        let p = Project::new().unwrap();
        let script = p.write_script("x.sh", "#!/bin/sh\n").unwrap();
        assert!(script.is_absolute());
        assert_eq!(
            fs::metadata(&script).unwrap().permissions().mode() & 0o777,
            0o755
        );
        p.write_file("sub/dir/f.txt", "hello").unwrap();
        assert_eq!(
            fs::read_to_string(p.dir().join("sub/dir/f.txt")).unwrap(),
            "hello"
        );
        p.write_settings(&[], &BTreeMap::new(), &Map::new())
            .unwrap();
        assert_eq!(
            fs::read_to_string(p.dir().join(".claude/settings.json")).unwrap(),
            "{}"
        );
        let env = p.cli_env("http://127.0.0.1:1");
        assert!(env
            .iter()
            .any(|(k, v)| k == "HOME" && Path::new(v).starts_with(p.root.path())));
    }
}
