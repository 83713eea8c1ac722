//! The maintainer's configuration (section 0 of the requirements).
//!
//! One flat TOML table, every key optional. The file is found at `$AGENT_GUARDS_CONFIG`, else
//! `$XDG_CONFIG_HOME/agent-guards/config.toml`, else `~/.config/agent-guards/config.toml`. A file
//! that cannot be read or parsed is an error every hook reports on every call; the guards then run
//! on their defaults, never with everything off.

#![warn(missing_docs)]

pub mod ceilings;
pub mod layered;
pub mod read;
pub mod values;

pub use ceilings::{MemoryMax, TasksMax};
pub use values::{AuditJournal, CheckoutConfig, CredentialBroker, EgressMode, IntegrityMode};

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The one table of keys, and the diagnosis of a config file against it.
pub mod diagnose;

/// Every key the suite reads. A value of a known key that is not understood never fails the file:
/// word-valued keys read as their default ([`values`]), the ceilings keep what was written for
/// tool-containment's per-key fallback ([`ceilings`]), and [`diagnose`] names the value.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default)]
pub struct Config {
    /// G5: the maintainer's review helper command.
    pub review_helper: Option<String>,
    /// G4: branches protected by default in addition to main/master/develop.
    pub protected_branches: Vec<String>,
    /// G6: `"deny"`/`"allow"`, or a table of repository paths to `"allow"`/`"deny"`.
    pub primary_checkout: Option<CheckoutConfig>,
    /// G4: API base override.
    pub github_api: Option<String>,
    /// G4: total deadline of the rules lookup.
    pub rules_timeout_ms: Option<u64>,
    /// M1: tiers only the maintainer may use (default `["fable"]`).
    pub maintainer_only_tiers: Option<Vec<String>>,
    /// K5: MCP servers whose tools do not taint.
    pub trusted_mcp_servers: Vec<String>,
    /// I5: `"observe"` (default) or `"enforce"`; the older key `mode` is read the same.
    #[serde(alias = "mode", deserialize_with = "values::lenient")]
    pub integrity_mode: Option<IntegrityMode>,
    /// I1: default the session's project dir.
    pub workspace_root: Option<String>,
    /// I1: restricted paths beyond the baseline.
    pub restricted_paths: Vec<String>,
    /// I1: network host allow-list.
    pub network_allow: Vec<String>,
    /// E5: `"enforce"` (default) or `"report"`.
    #[serde(deserialize_with = "values::lenient")]
    pub egress_mode: Option<EgressMode>,
    /// E6: extra phrases per phrase family.
    pub egress_extra_phrases: BTreeMap<String, Vec<String>>,
    /// C5: task ceiling (`N` or `"max"`).
    pub tasks_max: Option<TasksMax>,
    /// C5: memory ceiling (`"N%"`, `"512M"`, bytes, or `"max"`).
    pub memory_max: Option<MemoryMax>,
    /// Section 0: the watchdog deadline of a hook.
    pub hook_deadline_ms: Option<u64>,
    /// I1/I2: extra phrases per integrity phrase family (`judge_manipulation`, `claim_*`).
    pub integrity_extra_phrases: BTreeMap<String, Vec<String>>,
    /// I1: calibrated reference time of a run, in seconds (time-manipulation signal).
    pub integrity_reference_secs: Option<u64>,
    /// Issue 45: the OTLP/HTTP collector audit records are exported to (a base URL; off when
    /// unset; `OTEL_EXPORTER_OTLP_ENDPOINT` at launch wins).
    pub otlp_endpoint: Option<String>,
    /// C11 (issue 38): `"on"` (default) or `"off"`: whether agent commands hold placeholders
    /// and reach GitHub through the session's credential broker.
    #[serde(deserialize_with = "values::lenient")]
    pub credential_broker: Option<CredentialBroker>,
    /// Issue 40: `"auto"` (default), `"on"` or `"off"`: whether each audit record is also sent
    /// to journald (or syslog), where the agent's user cannot erase it.
    #[serde(deserialize_with = "values::lenient")]
    pub audit_journal: Option<AuditJournal>,
}

/// The result of loading: the config to use and what went wrong, if anything.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The config to use: the file's values, or the defaults where it could not be used.
    pub config: Config,
    /// Where the file was looked for.
    pub path: Option<PathBuf>,
    /// A one-line error when the file exists but could not be used (defaults are in `config`).
    pub error: Option<String>,
    /// Keys we do not know (likely typos); reported, not fatal.
    pub unknown_keys: Vec<String>,
    /// Every problem [`diagnose`] names in the file (unknown keys with the nearest known one,
    /// values outside what is allowed); reported, not fatal.
    pub problems: Vec<String>,
    /// The keys the file sets (the older name `mode` counts as `integrity_mode`).
    pub keys: BTreeSet<String>,
    /// The system config that was combined with this file ([`layered`]), when one exists.
    pub system_path: Option<PathBuf>,
}

/// Where the config file lives, from an environment lookup.
pub fn config_path(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if let Some(p) = env("AGENT_GUARDS_CONFIG").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    if let Some(x) = env("XDG_CONFIG_HOME").filter(|p| p.starts_with('/')) {
        return Some(Path::new(&x).join("agent-guards/config.toml"));
    }
    env("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| Path::new(&h).join(".config/agent-guards/config.toml"))
}

/// Loads the config from the process environment (see [`load_with`]).
pub fn load() -> Loaded {
    load_with(&|k| std::env::var(k).ok())
}

/// Loads the config using `env` for lookups: the per-user file, tightened by the system file
/// [`layered::SYSTEM_CONFIG_PATH`] where one exists. The system file's path is fixed: no variable
/// the agent's settings could set moves it. Every hook loads through here (or [`load`]).
pub fn load_with(env: &dyn Fn(&str) -> Option<String>) -> Loaded {
    load_layered(Path::new(layered::SYSTEM_CONFIG_PATH), env)
}

/// The per-user file (found through `env`) combined with the system file at `system`: without a
/// system file, exactly [`load_user_with`]; with one, [`layered::tighten`] decides every key the system
/// file sets, and each user value that was not applied is a problem. An unusable system file
/// fails closed (the defaults stand as the system's values) and is the error.
pub fn load_layered(system: &Path, env: &dyn Fn(&str) -> Option<String>) -> Loaded {
    // The common case (no system install) costs one lstat, not a reader thread.
    if std::fs::symlink_metadata(system).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        return load_user_with(env);
    }
    let sys = match read::read_regular(system, read::MAX_CONFIG_BYTES, read::READ_TIME_BOUND) {
        Ok(None) => return load_user_with(env),
        Ok(Some(bytes)) => match String::from_utf8(bytes) {
            Ok(text) => parse(&text),
            Err(_) => failed(None, "is not valid UTF-8".into()),
        },
        Err(e) => failed(None, e.to_string()),
    };
    let user = load_user_with(env);
    let system_layer = match &sys.error {
        Some(_) => layered::Layer::defaults_everywhere(),
        None => layered::Layer {
            config: sys.config.clone(),
            keys: sys.keys.clone(),
        },
    };
    let user_layer = layered::Layer {
        config: user.config.clone(),
        keys: user.keys.clone(),
    };
    let t = layered::tighten(&system_layer, &user_layer, system);
    let sys_name = system.display();
    let error = match (&sys.error, &user.error) {
        (Some(e), _) => Some(format!(
            "system config {sys_name}: {e}; its keys stand at their defaults, which your file may only tighten"
        )),
        (None, e) => e.clone(),
    };
    let problems = sys
        .problems
        .iter()
        .map(|p| format!("system config {sys_name}: {p}"))
        .chain(user.problems.iter().cloned())
        .chain(t.not_applied)
        .collect();
    Loaded {
        config: t.config,
        path: user.path,
        error,
        unknown_keys: user.unknown_keys,
        problems,
        keys: user.keys,
        system_path: Some(system.to_path_buf()),
    }
}

/// Loads the per-user file alone, using `env` for lookups (tests pass their own). Never blocks: the file is
/// read by [`read::read_regular`] (regular files only, at most 1 MiB, within
/// [`read::READ_TIME_BOUND`]); anything else is an error and the defaults apply.
pub fn load_user_with(env: &dyn Fn(&str) -> Option<String>) -> Loaded {
    let path = config_path(env);
    let Some(p) = path.clone() else {
        return Loaded::default();
    };
    let bytes = match read::read_regular(&p, read::MAX_CONFIG_BYTES, read::READ_TIME_BOUND) {
        Ok(None) => {
            return Loaded {
                path,
                ..Loaded::default()
            }
        }
        Ok(Some(b)) => b,
        Err(e) => return failed(path, format!("{} {e}", p.display())),
    };
    match String::from_utf8(bytes) {
        Ok(text) => {
            let mut loaded = parse(&text);
            if let Some(e) = loaded.error.take() {
                loaded.error = Some(format!("{}: {e}", p.display()));
            }
            loaded.path = path;
            loaded
        }
        Err(_) => failed(path, format!("{} is not valid UTF-8", p.display())),
    }
}

fn failed(path: Option<PathBuf>, error: String) -> Loaded {
    Loaded {
        path,
        error: Some(error),
        ..Loaded::default()
    }
}

/// Parses config text. Errors are one line; the config falls back to defaults whole, so a typo in
/// one key can never switch another guard off.
pub fn parse(text: &str) -> Loaded {
    let table: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => return failed(None, format!("invalid TOML: {}", one_line(&e.to_string()))),
    };
    let keys = table
        .keys()
        .map(|k| {
            if k == "mode" {
                "integrity_mode".to_string()
            } else {
                k.clone()
            }
        })
        .collect();
    let unknown_keys = table
        .keys()
        .filter(|k| diagnose::key(k).is_none())
        .cloned()
        .collect();
    let problems = diagnose::diagnose_table(&table)
        .into_iter()
        .map(|(_, message)| message)
        .collect();
    match Config::deserialize(toml::Value::Table(table)) {
        Ok(config) => Loaded {
            config,
            unknown_keys,
            problems,
            keys,
            ..Loaded::default()
        },
        Err(e) => failed(
            None,
            format!("invalid config: {}", one_line(&e.to_string())),
        ),
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The CLI's timeout for every event a hook of ours answers a call or a stop on, as the installer
/// registers it (`timeout: 10` in `src/registry.rs`; SessionEnd and PreModelSwitch have more).
pub const CLI_TIMEOUT_MS: u64 = 10_000;

/// What a hook needs after its deadline and before the CLI's timeout: starting the process, the
/// failure answer, the writes done after the answer (600 ms at most) and a loaded machine.
pub const ANSWER_MARGIN_MS: u64 = 1_500;

/// The longest watchdog deadline: the answer always comes within [`CLI_TIMEOUT_MS`] (issue 47:
/// `hook_deadline_ms = 15000` answered after the CLI had let the call through).
pub const MAX_HOOK_DEADLINE_MS: u64 = CLI_TIMEOUT_MS - ANSWER_MARGIN_MS;

/// The shortest: below it a typo would starve every judge.
pub const MIN_HOOK_DEADLINE_MS: u64 = 100;

/// The default watchdog deadline.
pub const DEFAULT_HOOK_DEADLINE_MS: u64 = 2_000;

/// The default total deadline of a live branch-rules lookup.
pub const DEFAULT_RULES_TIMEOUT_MS: u64 = 3_000;

/// How much of the hook's deadline a rules lookup leaves for the rest of the judgement, so the
/// hook answers itself rather than through its watchdog.
pub const RULES_HEADROOM_MS: u64 = 300;

impl Config {
    /// Section 0: a hook's watchdog deadline, `hook_deadline_ms` (default 2 s) kept between
    /// [`MIN_HOOK_DEADLINE_MS`] and [`MAX_HOOK_DEADLINE_MS`], so a typo can neither starve the
    /// judge nor make the answer come after the CLI stopped waiting. The one place it is worked
    /// out.
    pub fn hook_deadline(&self) -> Duration {
        Duration::from_millis(
            self.hook_deadline_ms
                .unwrap_or(DEFAULT_HOOK_DEADLINE_MS)
                .clamp(MIN_HOOK_DEADLINE_MS, MAX_HOOK_DEADLINE_MS),
        )
    }

    /// The live branch-rules lookup's deadline: `rules_timeout_ms` (default 3 s), cut to the hook
    /// deadline less [`RULES_HEADROOM_MS`] (never under 50 ms). The one place it is worked out.
    pub fn rules_deadline(&self) -> Duration {
        let hook = self.hook_deadline().as_millis() as u64;
        let wanted = self.rules_timeout_ms.unwrap_or(DEFAULT_RULES_TIMEOUT_MS);
        Duration::from_millis(wanted.min(hook.saturating_sub(RULES_HEADROOM_MS)).max(50))
    }
}

impl Loaded {
    /// A one-line notice for the user when something is wrong with the config.
    pub fn notice(&self) -> Option<String> {
        if let Some(e) = &self.error {
            return Some(format!("agent-guards config error (defaults in use): {e}"));
        }
        if !self.problems.is_empty() {
            let file = self
                .path
                .as_ref()
                .map(|p| format!(" {}", p.display()))
                .unwrap_or_default();
            return Some(format!(
                "agent-guards config{file}: {} (`agent-guards report` lists them)",
                self.problems.join("; ")
            ));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| {
            owned
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn path_precedence() {
        let e = env_of(&[("AGENT_GUARDS_CONFIG", "/x/c.toml"), ("HOME", "/h")]);
        assert_eq!(config_path(&e), Some(PathBuf::from("/x/c.toml")));
        let e = env_of(&[("XDG_CONFIG_HOME", "/xdg"), ("HOME", "/h")]);
        assert_eq!(
            config_path(&e),
            Some(PathBuf::from("/xdg/agent-guards/config.toml"))
        );
        let e = env_of(&[("HOME", "/h")]);
        assert_eq!(
            config_path(&e),
            Some(PathBuf::from("/h/.config/agent-guards/config.toml"))
        );
    }

    #[test]
    fn parses_every_key() {
        let l = parse(
            r#"
review_helper = "scripts/reply.sh"
protected_branches = ["release"]
primary_checkout = { "/src/a" = "allow" }
egress_mode = "report"
egress_extra_phrases = { command_displacement = ["please execute"] }
tasks_max = 1024
memory_max = "2G"
hook_deadline_ms = 1500
"#,
        );
        assert!(l.error.is_none(), "{:?}", l.error);
        assert_eq!(l.config.protected_branches, vec!["release"]);
        assert_eq!(l.config.egress_mode, Some(EgressMode::Report));
        assert_eq!(
            l.config.primary_checkout,
            Some(CheckoutConfig::PerRepo(vec![("/src/a".into(), true)]))
        );
        assert_eq!(
            l.config.tasks_max,
            Some(TasksMax(ceilings::Raw::Integer(1024)))
        );
        assert_eq!(
            l.config.memory_max,
            Some(MemoryMax(ceilings::Raw::Text("2G".into())))
        );
        assert_eq!(
            l.config.egress_extra_phrases["command_displacement"],
            vec!["please execute"]
        );
        assert_eq!(l.config.hook_deadline_ms, Some(1500));
        assert_eq!(l.config.hook_deadline(), Duration::from_millis(1500));
        assert!(l.notice().is_none());
    }

    #[test]
    fn the_hook_deadline_defaults_to_two_seconds_and_is_bounded() {
        let deadline = |text: &str| parse(text).config.hook_deadline();
        assert_eq!(deadline(""), Duration::from_secs(2));
        assert_eq!(deadline("hook_deadline_ms = 5"), Duration::from_millis(100));
        // Never past the CLI's timeout: 15 s answered after the CLI had let the call through.
        assert_eq!(
            deadline("hook_deadline_ms = 15000"),
            Duration::from_millis(MAX_HOOK_DEADLINE_MS)
        );
        let rules = |text: &str| parse(text).config.rules_deadline();
        assert_eq!(
            rules("hook_deadline_ms = 15000\nrules_timeout_ms = 14000"),
            Duration::from_millis(MAX_HOOK_DEADLINE_MS - RULES_HEADROOM_MS)
        );
        assert_eq!(rules(""), Duration::from_millis(1_700));
        assert_eq!(
            rules("hook_deadline_ms = 5000"),
            Duration::from_millis(3_000)
        );
        assert_eq!(
            deadline("hook_deadline_ms = 600000"),
            Duration::from_millis(MAX_HOOK_DEADLINE_MS)
        );
    }

    #[test]
    fn invalid_config_falls_back_to_defaults_and_says_so() {
        let l = parse("egress_mode = [1");
        assert!(l.error.as_deref().unwrap().starts_with("invalid TOML"));
        assert_eq!(l.config, Config::default());
        let l = parse("protected_branches = \"main\"");
        assert!(l.error.as_deref().unwrap().starts_with("invalid config"));
        assert!(l.notice().unwrap().contains("defaults in use"));
        assert!(!l.notice().unwrap().contains('\n'));
    }

    #[test]
    fn integrity_mode_is_also_read_as_mode() {
        for text in ["integrity_mode = \"enforce\"", "mode = \"Enforce\""] {
            let l = parse(text);
            assert!(l.error.is_none() && l.problems.is_empty(), "{text}: {l:?}");
            assert_eq!(
                l.config.integrity_mode,
                Some(IntegrityMode::Enforce),
                "{text}"
            );
        }
        // Both names at once: which one wins is not guessed; the file is an error, defaults apply.
        let l = parse("mode = \"enforce\"\nintegrity_mode = \"observe\"\negress_mode = \"report\"");
        assert!(l.notice().unwrap().contains("defaults in use"), "{l:?}");
        assert_eq!(l.config, Config::default());
    }

    #[test]
    fn a_bad_value_keeps_the_other_keys_and_is_named() {
        let l = parse(
            "mode = \"strict\"\negress_mode = \"block\"\nprimary_checkout = \"alow\"\n\
             tasks_max = 3\nmemory_max = true\nprotected_branches = [\"release\"]\n",
        );
        assert!(l.error.is_none(), "{:?}", l.error);
        assert_eq!(l.config.protected_branches, vec!["release"]);
        // Each bad word reads as its key's default; the ceilings keep what was written.
        assert_eq!(l.config.integrity_mode, None);
        assert_eq!(l.config.egress_mode, None);
        assert_eq!(
            l.config.integrity_mode.unwrap_or_default(),
            IntegrityMode::Observe
        );
        assert_eq!(
            l.config.egress_mode.unwrap_or_default(),
            EgressMode::Enforce
        );
        assert_eq!(l.config.primary_checkout, Some(CheckoutConfig::Deny));
        assert_eq!(
            l.config.tasks_max,
            Some(TasksMax(ceilings::Raw::Integer(3)))
        );
        assert_eq!(l.problems.len(), 5, "{:?}", l.problems);
    }

    #[test]
    fn unknown_keys_are_reported() {
        let l = parse("egres_mode = \"report\"");
        assert!(l.error.is_none());
        assert_eq!(l.unknown_keys, vec!["egres_mode"]);
        assert!(l.notice().unwrap().contains("egres_mode"));
    }

    #[test]
    fn missing_file_is_not_an_error_but_unreadable_is() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("none.toml");
        let ps = p.to_string_lossy().to_string();
        let l = load_user_with(&env_of(&[("AGENT_GUARDS_CONFIG", &ps)]));
        assert!(l.error.is_none());
        std::fs::create_dir(&p).unwrap();
        let l = load_user_with(&env_of(&[("AGENT_GUARDS_CONFIG", &ps)]));
        assert!(l.error.is_some(), "a directory is not a config");
    }

    #[test]
    fn a_fifo_config_is_an_error_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let ps = p.to_string_lossy().to_string();
        let l = load_user_with(&env_of(&[("AGENT_GUARDS_CONFIG", &ps)]));
        let e = l.error.as_deref().unwrap();
        assert!(e.contains("is a FIFO, not a regular file"), "{e}");
        assert_eq!(l.config, Config::default());
        assert!(l.notice().unwrap().contains("defaults in use"));
    }
}
