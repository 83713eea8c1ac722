//! Shared parts of the real-cgroup tests: a unique session per test, the CLI's wrapper shape, and
//! a guard that stops and removes the session's groups even when the test fails.

#![allow(dead_code)]

use hook_replay::sandbox::Sandbox;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tool_containment::c3_groups::{session_dirs, session_group_name};
use tool_containment::c4_backends::{choose, probe, Backend};
use tool_containment::c7_session_end::stop_session;

pub const BIN: &str = env!("CARGO_BIN_EXE_tool-containment");

/// The CLI's Bash tool wrapper around `command` (the shape C2 recognises).
pub fn tool_call(command: &str) -> String {
    let quoted = command.replace('\'', r"'\''");
    format!(
        "source /nonexistent/.claude/shell-snapshots/snapshot-bash-0-test.sh 2>/dev/null || true && eval '{quoted}' < /dev/null && pwd -P >| /tmp/claude-test-{}-cwd",
        std::process::id()
    )
}

/// The backend this machine offers the test process (same as the binary will find).
pub fn backend() -> Backend {
    let b = choose(&probe(
        Path::new("/proc/self"),
        nix::unistd::geteuid().as_raw(),
        &|k| std::env::var(k).ok(),
    ));
    assert!(
        matches!(b, Backend::V1(_) | Backend::V2 { .. }),
        "these tests need a cgroup backend (run as root on cgroup v1 or v2): {b:?}"
    );
    b
}

/// One test's session: unique id, private HOME/XDG dirs, cleanup on drop.
pub struct TestSession {
    pub id: String,
    pub home: Sandbox,
    pub backend: Backend,
}

impl TestSession {
    pub fn new(tag: &str) -> TestSession {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        TestSession {
            id: format!("test-{tag}-{}-{nanos:x}", std::process::id()),
            home: Sandbox::new(BIN),
            backend: backend(),
        }
    }

    pub fn group(&self) -> String {
        session_group_name(Some(&self.id))
    }

    /// The session group's directories (one per hierarchy).
    pub fn dirs(&self) -> Vec<PathBuf> {
        session_dirs(&self.backend, &self.group())
    }

    /// The command groups currently under the session (first hierarchy).
    pub fn command_groups(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = std::fs::read_dir(&self.dirs()[0])
            .map(|rd| {
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.is_dir())
                    .collect()
            })
            .unwrap_or_default();
        out.sort();
        out
    }

    /// A prefix invocation with this session's environment.
    pub fn prefix(&self, script: impl AsRef<std::ffi::OsStr>) -> Command {
        self.prefix_with(Path::new(BIN), script)
    }

    /// A prefix invocation of the binary at `bin` (a copy, for tests that change user).
    pub fn prefix_with(&self, bin: &Path, script: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(bin);
        self.home
            .isolate(&mut c)
            .arg(script)
            .env("CLAUDE_CODE_SESSION_ID", &self.id)
            .env_remove("AI_AGENT")
            .env_remove("AGENT_GUARDS_CONFIG")
            .stdin(Stdio::null());
        c
    }

    /// The prefix (the copy at `bin`) run as uid 65534 in `cwd` on `script`, with `env` added;
    /// its stdout and stderr.
    pub fn prefix_as_nobody(
        &self,
        bin: &Path,
        script: &str,
        cwd: &Path,
        env: &[(&str, &str)],
    ) -> (String, String) {
        use std::os::unix::process::CommandExt;
        let out = self
            .prefix_with(bin, script)
            .current_dir(cwd)
            .envs(env.iter().copied())
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (text(&out.stdout), text(&out.stderr))
    }

    /// The CLI's tool call of `command` through the prefix, with `env` added (the ceilings,
    /// `AI_AGENT`, ...).
    pub fn call(&self, command: &str, env: &[(&str, &str)]) -> Command {
        let mut c = self.prefix(tool_call(command));
        c.envs(env.iter().copied());
        c
    }

    /// A tool call of this session through the prefix, as the CLI's child session runs it.
    pub fn tool_command(&self, command: &str) -> Command {
        let mut c = self.prefix(tool_call(command));
        c.env("CLAUDE_CODE_CHILD_SESSION", "1");
        c
    }

    /// Starts a command that leaves one `sleep` behind in the session and waits until the sleep
    /// runs; returns its command line (unique on the host: [`unique_sleep`] with `tag`).
    pub fn leave_sleeper(&self, tag: u32) -> String {
        let arg = unique_sleep(tag);
        let st = self
            .tool_command(&format!("sleep {arg} &"))
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
        let cmd = format!("sleep {arg}");
        assert!(wait_for(Duration::from_secs(10), || running(&cmd).len() == 1));
        cmd
    }

    /// Runs the SessionEnd mode; returns (exit code, stderr).
    pub fn session_end(&self) -> (i32, String) {
        let mut c = Command::new(BIN);
        self.home.isolate(&mut c);
        let payload = serde_json::json!({
            "hook_event_name": "SessionEnd",
            "session_id": self.id,
            "reason": "other",
        });
        let (code, _, err) = hook_replay::run_with_payload(c, &payload).unwrap();
        (code, err)
    }
}

impl Drop for TestSession {
    fn drop(&mut self) {
        // Also on failure: stop whatever the test left and remove the groups.
        let _ = stop_session(
            &self.backend,
            &self.group(),
            Instant::now() + Duration::from_secs(5),
        );
    }
}

/// Pids listed in a group's `cgroup.procs`.
pub fn procs(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

pub fn cmdline(pid: i32) -> String {
    hook_replay::process::cmdline(pid as u32)
}

/// Polls `cond` every 20 ms until it holds or `limit` passes.
pub fn wait_for(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// A sleep argument no other process on the host has (GNU sleep takes a fraction): the tag keeps
/// one binary's tests apart, the nanoseconds the runs.
pub fn unique_sleep(tag: u32) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{}.{:09}", 3000 + tag, nanos)
}

/// Live (not zombie) pids whose command line is exactly `cmd`.
pub fn running(cmd: &str) -> Vec<i32> {
    hook_replay::process::processes_running(cmd)
        .into_iter()
        .map(|p| p as i32)
        .filter(|p| alive(*p))
        .collect()
}

/// The pids still running `cmd`, each killed once listed: a test asserts on the list after
/// cleaning up, so a failure leaves no stray behind.
pub fn survivors(cmd: &str) -> Vec<i32> {
    let still = running(cmd);
    kill_all(cmd);
    still
}

/// Kills whatever still runs `cmd` (cleanup only; the assertions come first).
pub fn kill_all(cmd: &str) {
    for pid in running(cmd) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Gives `home` to uid 65534 with a copy of the prefix it can run, in a folder of its own (the
/// binary's folder is protected); the copy's path.
pub fn hand_to_nobody(home: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(home.join("suite")).unwrap();
    let bin = home.join("suite/tool-containment");
    std::fs::copy(BIN, &bin).unwrap();
    let owned = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(home)
        .status()
        .unwrap();
    assert!(owned.success());
    bin
}

/// `bin --report` as uid 65534 with `home` as its HOME; its stdout.
pub fn report_as_nobody(bin: &Path, home: &Path) -> String {
    use std::os::unix::process::CommandExt;
    let report = Command::new(bin)
        .arg("--report")
        .env("HOME", home)
        .uid(65534)
        .gid(65534)
        .current_dir("/")
        .output()
        .unwrap();
    String::from_utf8_lossy(&report.stdout).into_owned()
}
