//! Issue 40 item 3: the audit trail also goes where the agent cannot erase it.
//!
//! The real systemd-journald runs in a private mount namespace (tmpfs over `/run/systemd`,
//! `/run/log` and `/var/log`, so it binds its own sockets and keeps a volatile journal that is
//! never the host's); the real gh-write-guard hook, run as the agent's user (uid 65534), refuses a
//! commit in a primary checkout; the real `journalctl` reads the copy back. The agent then erases
//! its `audit.jsonl` and tries to erase the journal (`rm`, `journalctl --vacuum-time`,
//! `journalctl --rotate`), and `agent-guards report` names the records the log lost.
//!
//! Needs root (mount namespaces, becoming uid 65534) and systemd-journald; without them the test
//! says SKIPPED and why, and fails under CI (`.ci/run` installs the package).

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const JOURNALD: &str = "/lib/systemd/systemd-journald";
const AGENT: &str = "65534";
const SESSION: &str = "journal-copy-session";

/// Why this host cannot run the check, if it cannot.
fn cannot_run() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root (a private mount namespace and uid 65534)".into());
    }
    for tool in [
        JOURNALD,
        "/usr/bin/journalctl",
        "/usr/bin/unshare",
        "/usr/bin/nsenter",
    ] {
        if !Path::new(tool).exists() {
            return Some(format!(
                "{tool} is not installed (package systemd / util-linux)"
            ));
        }
    }
    None
}

/// Says why the check did not run: a failure under CI, a loud skip elsewhere.
fn skip(reason: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("the audit journal test cannot run under CI: {reason}");
    }
    eprintln!("SKIPPED: the audit journal test did not run its check: {reason}");
}

/// A journald of our own in a private mount namespace; killed (by its pid) when dropped.
struct Journald {
    child: Child,
}

impl Journald {
    fn start(log: &Path) -> Result<Journald, String> {
        let script = format!(
            "set -e; mount -t tmpfs tmpfs /run/systemd; mount -t tmpfs tmpfs /run/log; \
             mount -t tmpfs tmpfs /var/log; exec {JOURNALD}"
        );
        let child = Command::new("unshare")
            .args(["--mount", "--propagation", "private", "sh", "-c", &script])
            // Its own messages to its stderr, not the host's kernel log.
            .env("SYSTEMD_LOG_TARGET", "console")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).map_err(|e| e.to_string())?)
            .spawn()
            .map_err(|e| format!("unshare: {e}"))?;
        let j = Journald { child };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(15) {
            let up = j.run(None, &["test", "-S", "/run/systemd/journal/socket"], &[]);
            if up.status.success() {
                return Ok(j);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!(
            "systemd-journald did not bind its socket within 15 s: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        ))
    }

    /// Runs `argv` in the journal's namespace, as the agent (`Some(uid)`) or as root.
    fn run(&self, uid: Option<&str>, argv: &[&str], env: &[(&str, &Path)]) -> Output {
        let pid = self.child.id().to_string();
        let mut cmd = Command::new("nsenter");
        cmd.args(["--target", &pid, "--mount", "--"]);
        if let Some(uid) = uid {
            cmd.args([
                "setpriv",
                &format!("--reuid={uid}"),
                &format!("--regid={uid}"),
            ]);
            cmd.arg("--clear-groups");
        }
        cmd.args(argv).envs(env.iter().map(|(k, v)| (k, v)));
        cmd.stdin(Stdio::null()).output().expect("nsenter")
    }

    /// The journal's records of the suite, as root (the maintainer) reads them.
    fn records(&self) -> Vec<Value> {
        let out = self.run(
            None,
            &[
                "journalctl",
                "-o",
                "json",
                "--no-pager",
                "--all",
                "SYSLOG_IDENTIFIER=agent-guards",
            ],
            &[],
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for Journald {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A folder the agent's user owns: a git repository (a primary checkout), its home, its state
/// dir, its config, and copies of the binaries it runs.
fn agent_folder(root: &Path, config: &str) -> PathBuf {
    std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = root.join("agent");
    for sub in ["repo", "home", "state", "bin"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("config.toml"), config).unwrap();
    for bin in ["gh-write-guard", "agent-guards"] {
        let from = e2e_harness::bin(bin);
        std::fs::copy(&from, dir.join("bin").join(bin)).unwrap();
    }
    // A plain refusal, and one whose record is too long for one datagram (journald's memfd).
    let long = format!("git commit -am wip # {}", "x".repeat(300_000));
    for (name, command) in [("payload.json", "git commit -am wip"), ("long.json", &long)] {
        let payload = serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "session_id": SESSION, "cwd": dir.join("repo"),
            "tool_input": {"command": command}});
        std::fs::write(dir.join(name), payload.to_string()).unwrap();
    }
    let chown = Command::new("chown")
        .args(["-R", &format!("{AGENT}:{AGENT}")])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(chown.success());
    dir
}

/// The hook's environment: the agent's home, state dir and config.
fn hook_env(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("HOME", dir.join("home")),
        ("XDG_STATE_HOME", dir.join("state")),
        ("AGENT_GUARDS_CONFIG", dir.join("config.toml")),
    ]
}

/// Runs the hook on `payload` in `dir` as the agent, through `sh` (stdin from the file):
/// `(its answer, how long it took)`.
fn refuse_commit(
    dir: &Path,
    payload: &str,
    via: impl Fn(&[&str], &[(&str, &Path)]) -> Output,
) -> (String, Duration) {
    let script = format!(
        "cd {d}/repo && git init -q . && exec {d}/bin/gh-write-guard < {d}/{payload}",
        d = dir.display()
    );
    let env = hook_env(dir);
    let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let start = Instant::now();
    let out = via(&["sh", "-c", &script], &env);
    (text(&out), start.elapsed())
}

#[test]
fn the_journal_keeps_what_the_agent_erased_from_its_log_and_report_names_it() {
    if let Some(reason) = cannot_run() {
        return skip(&reason);
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = agent_folder(tmp.path(), "");
    let journald = match Journald::start(&tmp.path().join("journald.log")) {
        Ok(j) => j,
        Err(reason) => return skip(&reason),
    };

    // The hook, as the agent's user, refuses the commits; each record goes to both places.
    for payload in ["payload.json", "long.json"] {
        let (answer, took) = refuse_commit(&dir, payload, |argv, env| {
            journald.run(Some(AGENT), argv, env)
        });
        assert!(
            answer.contains("\"permissionDecision\":\"deny\""),
            "{answer}"
        );
        eprintln!("{payload}: the hook answered and exited in {took:?}");
    }
    let log = dir.join(format!("state/agent-guards/sessions/{SESSION}/audit.jsonl"));
    let lines = std::fs::read_to_string(&log).expect("the hook wrote its audit.jsonl");
    let lines: Vec<String> = lines.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let (line, long_line) = (&lines[0], &lines[1]);
    assert!(
        long_line.len() > 300_000,
        "the long record is whole in the log"
    );
    let record: Value = serde_json::from_str(line).unwrap();
    assert_eq!(record["decision"], "deny", "{line}");

    let start = Instant::now();
    let ours = loop {
        let ours: Vec<Value> = journald.records();
        if ours.len() >= 2 || start.elapsed() > Duration::from_secs(10) {
            break ours;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(ours.len(), 2, "two records in the journal");
    // The long one came through the memfd, whole.
    assert!(ours[1]["AGENT_GUARDS_RECORD"] == long_line.as_str());
    assert!(ours[1].get("AGENT_GUARDS_CLIPPED").is_none());
    let entry = &ours[0];
    // The same typed record, byte for byte, and the fields a journal reader filters on.
    assert_eq!(entry["AGENT_GUARDS_RECORD"], line.as_str(), "{entry}");
    assert_eq!(entry["AGENT_GUARDS_SESSION"], SESSION);
    assert_eq!(entry["AGENT_GUARDS_CODE"], record["code"], "{entry}");
    assert_eq!(entry["PRIORITY"], "4", "a refusal is a warning: {entry}");
    assert_eq!(
        entry["_UID"], AGENT,
        "journald's own field names the sender"
    );
    let message = entry["MESSAGE"].as_str().unwrap_or_default();
    assert!(message.starts_with("gh-write-guard deny "), "{message}");

    // The agent erases its log (it may: the file is its own) and then tries the journal.
    let agent = |argv: &[&str]| journald.run(Some(AGENT), argv, &[]);
    let erased = agent(&["sh", "-c", &format!(": > {}", log.display())]);
    assert!(erased.status.success(), "{}", text(&erased));
    for attack in [
        &["sh", "-c", "rm -rf /run/log/journal/* /run/log/journal"][..],
        &["journalctl", "--vacuum-time=1s"],
        &["journalctl", "--vacuum-size=1"],
        &["journalctl", "--rotate"],
        &[
            "sh",
            "-c",
            "for f in /run/log/journal/*/*; do : > \"$f\"; done",
        ],
    ] {
        let _ = agent(attack);
    }
    let after = journald.records();
    for l in &lines {
        assert_eq!(
            after
                .iter()
                .filter(|e| e["AGENT_GUARDS_RECORD"] == l.as_str())
                .count(),
            1,
            "the journal's copy outlived every attack of the agent's user"
        );
    }

    // The report, as the maintainer, names the record the log lost.
    let env = hook_env(&dir);
    let env: Vec<(&str, &Path)> = env.iter().map(|(k, v)| (*k, v.as_path())).collect();
    let bin = dir.join("bin/agent-guards");
    let report = journald.run(None, &[bin.to_str().unwrap(), "report", "--json"], &env);
    let json: Value = serde_json::from_slice(&report.stdout)
        .unwrap_or_else(|e| panic!("report --json: {e}: {}", text(&report)));
    let j = &json["audit_journal"];
    assert_eq!(j["status"], "read", "{j}");
    assert_eq!(j["records"], 2, "{j}");
    let missing = j["missing"].as_array().expect("a list of findings");
    assert_eq!(missing.len(), 1, "{j}");
    assert_eq!(missing[0]["session"], SESSION);
    assert_eq!(missing[0]["count"], 2);
    assert_eq!(missing[0]["first"], record, "{j}");
    let shown = journald.run(None, &[bin.to_str().unwrap(), "report"], &env);
    assert_eq!(shown.status.code(), Some(1), "a finding fails the report");
    let shown = text(&shown);
    assert!(
        shown.contains(&format!("FINDING: session {SESSION}: 2 audit record")),
        "{shown}"
    );
}

#[test]
fn a_fifo_or_nothing_at_the_journal_socket_neither_delays_the_answer_nor_passes_silently() {
    if let Some(reason) = cannot_run() {
        return skip(&reason);
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = agent_folder(tmp.path(), "audit_journal = \"on\"\n");
    for (what, setup) in [
        (
            "a FIFO",
            "mkdir -p /run/systemd/journal && mkfifo /run/systemd/journal/socket && ",
        ),
        ("nothing", ""),
    ] {
        let state = dir.join("state/agent-guards");
        let _ = std::fs::remove_dir_all(&state);
        let (answer, took) = refuse_commit(&dir, "payload.json", |argv, env| {
            let script = format!(
                "set -e; mount -t tmpfs tmpfs /run/systemd; {setup}\
                 if [ -e /dev/log ]; then mount --bind /dev/null /dev/log; fi; \
                 exec setpriv --reuid={AGENT} --regid={AGENT} --clear-groups \"$@\""
            );
            let mut cmd = Command::new("unshare");
            cmd.args([
                "--mount",
                "--propagation",
                "private",
                "sh",
                "-c",
                &script,
                "sh",
            ]);
            cmd.args(argv).envs(env.iter().map(|(k, v)| (k, v)));
            cmd.stdin(Stdio::null()).output().unwrap()
        });
        assert!(
            answer.contains("\"permissionDecision\":\"deny\""),
            "{what}: {answer}"
        );
        assert!(
            took < Duration::from_secs(3),
            "{what}: the hook took {took:?}"
        );
        eprintln!("{what} at the socket: the hook answered and exited in {took:?}");
        // The JSONL record is written, and the journal copy that could not be sent is said.
        assert!(state
            .join(format!("sessions/{SESSION}/audit.jsonl"))
            .exists());
        let said = std::fs::read_to_string(state.join("undelivered.jsonl")).unwrap_or_default();
        assert!(
            said.contains("journal"),
            "{what}: the copy that did not go is said: {said:?}"
        );
    }
}
