//! A temp HOME for running a binary in tests and benchmarks: `HOME`, `XDG_CONFIG_HOME`
//! (`<home>/config`) and `XDG_STATE_HOME` (`<home>/state`) all point inside one temp dir that is
//! removed on drop, so a run never reads or writes the real `~/.claude`, `~/.config/agent-guards`
//! or state dir.

use serde_json::Value;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// One test's temp HOME (removed when dropped) and the binary it runs.
pub struct Sandbox {
    dir: tempfile::TempDir,
    exe: OsString,
}

impl Sandbox {
    /// A fresh temp HOME for running `exe`; panics (a test failure) when no temp dir can be made.
    pub fn new(exe: impl Into<OsString>) -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().expect("a temp dir for HOME"),
            exe: exe.into(),
        }
    }

    /// The HOME dir.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `XDG_CONFIG_HOME`.
    pub fn config_home(&self) -> PathBuf {
        self.path().join("config")
    }

    /// `XDG_STATE_HOME`.
    pub fn state_home(&self) -> PathBuf {
        self.path().join("state")
    }

    /// Points `command`'s HOME and XDG config and state dirs into the sandbox; the rest of the
    /// environment is inherited (for binaries that need the host's, such as a cgroup wrapper).
    pub fn isolate<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command
            .env("HOME", self.path())
            .env("XDG_CONFIG_HOME", self.config_home())
            .env("XDG_STATE_HOME", self.state_home())
    }

    /// The binary with a clean environment: `PATH` and the sandbox's HOME and XDG dirs only, so
    /// no setting of the developer's (`AGENT_GUARDS_CONFIG`, grants, `CLAUDE_*`) leaks in.
    pub fn command(&self) -> Command {
        let mut c = crate::process::clean_command(&self.exe);
        self.isolate(&mut c);
        c
    }

    /// Runs the binary ([`Sandbox::command`]) with `stdin`; returns its status, stdout and stderr.
    pub fn run(&self, stdin: &[u8]) -> Output {
        self.run_with_env(stdin, &[])
    }

    /// [`Sandbox::run`] with `env` added to the clean environment.
    pub fn run_with_env(&self, stdin: &[u8], env: &[(&str, &str)]) -> Output {
        let mut c = self.command();
        c.envs(env.iter().copied());
        run(&mut c, stdin)
    }

    /// Writes `~/.config/agent-guards/config.toml`.
    pub fn write_config(&self, toml: &str) {
        let dir = self.config_home().join("agent-guards");
        std::fs::create_dir_all(&dir).expect("config dir");
        std::fs::write(dir.join("config.toml"), toml).expect("config file");
    }

    /// The state dir of `session` (it need not exist).
    pub fn session_dir(&self, session: &str) -> PathBuf {
        session_dir(&self.state_home(), session)
    }

    /// The audit records of `session`, oldest first (none when the log does not exist).
    pub fn audit_records(&self, session: &str) -> Vec<Value> {
        audit_records(&self.state_home(), session)
    }
}

/// Runs `command` with `stdin` (see [`crate::process::run`]); panics (a test failure) when it
/// cannot start.
pub fn run(command: &mut Command, stdin: &[u8]) -> Output {
    crate::process::run(command, stdin).expect("the binary starts")
}

/// The state dir of `session` under the state home `state`.
pub fn session_dir(state: &Path, session: &str) -> PathBuf {
    state.join("agent-guards/sessions").join(session)
}

/// The audit records of `session` under the state home `state`, oldest first (none when the log
/// does not exist); panics on a line that is not an [`session_store::AuditRecord`] (the log's
/// contract: one typed record a line, so every test that reads a log checks its records' type).
pub fn audit_records(state: &Path, session: &str) -> Vec<Value> {
    std::fs::read_to_string(session_dir(state, session).join("audit.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| {
            if let Err(e) = session_store::AuditRecord::parse(l) {
                panic!("{e}");
            }
            serde_json::from_str(l).expect("an audit line is JSON")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_sees_only_path_the_sandbox_and_what_the_test_adds() {
        let s = Sandbox::new("env");
        let out = s.run_with_env(b"", &[("EXTRA", "x")]);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut vars: Vec<&str> = text.lines().collect();
        vars.sort();
        let home = s.path().display().to_string();
        let path = format!("PATH={}", std::env::var("PATH").unwrap_or_default());
        let mut expected = vec![
            "EXTRA=x".to_string(),
            format!("HOME={home}"),
            path,
            format!("XDG_CONFIG_HOME={home}/config"),
            format!("XDG_STATE_HOME={home}/state"),
        ];
        expected.sort();
        assert_eq!(vars, expected);
    }

    #[test]
    fn audit_records_are_read_from_the_state_home() {
        let s = Sandbox::new("sh");
        std::fs::create_dir_all(s.session_dir("s1")).unwrap();
        let mut c = s.command();
        c.arg("-c")
            .arg("cat >> \"$XDG_STATE_HOME/agent-guards/sessions/s1/audit.jsonl\"");
        let line = br#"{"binary":"b","decision":"allow","n":1}
"#;
        assert!(run(&mut c, line).status.success());
        assert_eq!(
            s.audit_records("s1"),
            [serde_json::json!({"binary": "b", "decision": "allow", "n": 1})]
        );
        assert!(s.audit_records("other").is_empty());
    }

    #[test]
    #[should_panic(expected = "not an audit record")]
    fn a_line_that_is_not_an_audit_record_fails_the_reader() {
        let s = Sandbox::new("sh");
        std::fs::create_dir_all(s.session_dir("s1")).unwrap();
        std::fs::write(s.session_dir("s1").join("audit.jsonl"), "{\"n\":1}\n").unwrap();
        s.audit_records("s1");
    }

    #[test]
    fn config_lands_where_guard_config_reads_it() {
        let s = Sandbox::new("true");
        s.write_config("mode = \"enforce\"\n");
        let text = std::fs::read_to_string(s.path().join("config/agent-guards/config.toml"));
        assert_eq!(text.unwrap(), "mode = \"enforce\"\n");
    }
}
