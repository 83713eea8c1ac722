//! Shared parts of the real-process tests: a private HOME with the suite's files in it, a
//! project folder, a stand-in `claude`, running a command under the second line, and reading
//! the session's audit log.

#![allow(dead_code)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_second-line-exec");

pub fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// A world for a test that needs root (mount namespace, seccomp without `no_new_privs`);
/// elsewhere `None`, with a line saying the test is skipped.
pub fn root_world(name: &str) -> Option<World> {
    if !is_root() {
        hook_replay::skip::cannot_run(
            name,
            "needs root (mount namespace, seccomp without no_new_privs)",
        );
        return None;
    }
    Some(World::new(name))
}

/// A world whose files belong to nobody (uid 65534), so it can run its commands there.
pub fn nobodys_world(name: &str) -> World {
    let w = World::new(name);
    // A copy that uid 65534 can run even when the checkout sits in a private folder (a clone
    // under `mktemp -d` is 0700).
    std::fs::create_dir_all(w.dir.path().join("suite")).unwrap();
    std::fs::copy(BIN, own_binary(&w)).unwrap();
    let ok = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(w.dir.path())
        .status()
        .unwrap();
    assert!(ok.success());
    w
}

/// A [`nobodys_world`]'s own copy of the binary, in a folder of its own: the binary's folder is
/// protected (I3.binaries) inside its commands.
pub fn own_binary(w: &World) -> PathBuf {
    w.dir.path().join("suite/second-line-exec")
}

/// `bash -c script` as nobody (a [`nobodys_world`]), under the second line (`gated`) or plain;
/// stdout and stderr as one text. They are one pipe that nobody's own shell made, as the CLI
/// makes them for its user (the gate writes its line through `/proc/<pid>/fd/2`, which a pipe
/// of another user would refuse).
pub fn as_nobody(w: &World, gated: bool, script: &str) -> String {
    let mut c = Command::new("setpriv");
    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]);
    c.args(["bash", "-c", "\"$@\" 2>&1 | cat", "_"]);
    if gated {
        c.arg(own_binary(w));
    }
    c.args(["bash", "-c", script]);
    w.environ(&mut c);
    text(&c.output().unwrap().stdout)
}

/// One test's world: HOME with hook registrations, the suite's config, state and binaries.
pub struct World {
    pub dir: tempfile::TempDir,
    pub session: String,
    pub extra_env: Vec<(String, String)>,
}

impl World {
    pub fn new(name: &str) -> World {
        let dir = tempfile::tempdir().unwrap();
        let w = World {
            dir,
            session: format!("{name}-{}", std::process::id()),
            extra_env: Vec::new(),
        };
        for d in [
            w.home().join(".claude"),
            w.home().join(".config/agent-guards"),
            w.home().join(".local/share/agent-guards/bin"),
            w.home().join(".local/state/agent-guards"),
            w.project().join(".claude"),
            w.project().join("src"),
            w.bin_dir(),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        for (f, text) in [
            (w.home().join(".claude/settings.json"), "{\"hooks\":{}}"),
            (w.project().join(".claude/settings.json"), "{\"hooks\":{}}"),
            (
                w.home().join(".config/agent-guards/config.toml"),
                "mode = \"observe\"\n",
            ),
            (
                w.home()
                    .join(".local/share/agent-guards/bin/gh-write-guard"),
                "binary",
            ),
        ] {
            std::fs::write(f, text).unwrap();
        }
        let claude = w.bin_dir().join("claude");
        std::fs::write(&claude, "#!/bin/sh\necho \"stand-in claude $*\"\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        w
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    pub fn project(&self) -> PathBuf {
        self.dir.path().join("work/app")
    }
    pub fn bin_dir(&self) -> PathBuf {
        self.dir.path().join("bin")
    }
    pub fn session_dir(&self) -> PathBuf {
        self.home()
            .join(".local/state/agent-guards/sessions")
            .join(&self.session)
    }

    pub fn env(&mut self, k: &str, v: &str) -> &mut World {
        self.extra_env.push((k.into(), v.into()));
        self
    }

    /// `program args...` under the second line (the prefix's steps, then exec), in the project.
    pub fn command(&self, program: &str, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.arg(program).args(args);
        self.environ(&mut c);
        c
    }

    /// The same without the second line (the baseline).
    pub fn plain(&self, program: &str, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args);
        self.environ(&mut c);
        c
    }

    pub fn environ(&self, c: &mut Command) {
        let path = format!(
            "{}:{}",
            self.bin_dir().display(),
            std::env::var("PATH").unwrap()
        );
        c.env_clear()
            .env("PATH", path)
            .env("HOME", self.home())
            .env("CLAUDE_CODE_SESSION_ID", &self.session)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LANG", "C.UTF-8")
            .current_dir(self.project())
            .stdin(Stdio::null());
        if let Ok(p) = std::env::var("PYENV_ROOT") {
            c.env("PYENV_ROOT", p);
        }
        for (k, v) in &self.extra_env {
            c.env(k, v);
        }
    }

    pub fn run(&self, program: &str, args: &[&str]) -> Output {
        self.command(program, args).output().unwrap()
    }

    /// [`World::run`], its output as text.
    pub fn ran(&self, program: &str, args: &[&str]) -> Ran {
        Ran::from(self.run(program, args))
    }

    /// Writes `text` to `rel` in the project.
    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.project().join(rel), text).unwrap();
    }

    /// The audit records of the session, waiting (bounded) until `pred` holds for one of them:
    /// the supervisor writes after it answered.
    pub fn wait_record(&self, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let all = self.records();
            if all.iter().any(&pred) || start.elapsed() > Duration::from_secs(10) {
                return all;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The session's audit records; panics on a line that is not a `session_store::AuditRecord`
    /// (every test that reads the log checks its records' type, issue 44).
    pub fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.session_dir().join("audit.jsonl"))
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

    /// The session's supervisors that are still running.
    pub fn supervisors(&self) -> Vec<u32> {
        std::fs::read_dir(self.session_dir().join("second-line"))
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse().ok())
            .filter(|pid| Path::new(&format!("/proc/{pid}")).exists())
            .collect()
    }
}

impl Drop for World {
    fn drop(&mut self) {
        second_line::stop_session(&self.session_dir());
    }
}

/// A finished command: its exit status and its output as text.
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Ran {
    fn from(out: Output) -> Ran {
        Ran {
            status: out.status,
            stdout: text(&out.stdout),
            stderr: text(&out.stderr),
        }
    }
}

impl Ran {
    /// Asserts that stdout holds each of `wanted`; a failure shows both streams.
    pub fn prints(&self, wanted: &[&str]) -> &Ran {
        for w in wanted {
            assert!(
                self.stdout.contains(w),
                "stdout lacks {w:?}:\n{}\n{}",
                self.stdout,
                self.stderr
            );
        }
        self
    }

    /// Asserts that stderr holds each of `wanted`.
    pub fn says(&self, wanted: &[&str]) -> &Ran {
        for w in wanted {
            assert!(
                self.stderr.contains(w),
                "stderr lacks {w:?}:\n{}",
                self.stderr
            );
        }
        self
    }

    /// How many times stderr holds `what`.
    pub fn said(&self, what: &str) -> usize {
        self.stderr.matches(what).count()
    }
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A listener on a free 127.0.0.1 port, and the port as an argument for a script.
pub fn loopback_listener() -> (std::net::TcpListener, String) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port().to_string();
    (l, port)
}

/// Waits (bounded) for `cond`.
pub fn eventually(what: &str, cond: impl Fn() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(20), "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Who a [`gated_script`] runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunAs {
    Root,
    /// uid 65534, through `setpriv` (needs root to become it).
    Nobody,
}

/// `bash -c script(world)` under the second line in a fresh world made for `who` and set up by
/// `prepare` (as root, before the world is handed to uid 65534); the world and all output.
/// `None` where the test cannot run (said by `hook_replay::skip`).
pub fn gated_script(
    name: &str,
    who: RunAs,
    prepare: impl Fn(&World),
    script: impl Fn(&World) -> String,
) -> Option<(World, String)> {
    let w = root_world(name)?;
    if who == RunAs::Root {
        prepare(&w);
        let out = w.ran("bash", &["-c", &script(&w)]);
        return Some((w, format!("{}\n{}", out.stdout, out.stderr)));
    }
    drop(w);
    let w = nobodys_world(name);
    prepare(&w);
    let owned = Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(w.dir.path())
        .status()
        .is_ok_and(|s| s.success());
    assert!(owned, "the world is handed to uid 65534");
    let out = as_nobody(&w, true, &script(&w));
    Some((w, out))
}
