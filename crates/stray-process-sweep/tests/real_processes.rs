//! S1–S3 against real process trees: a stand-in agent (bash started under the name `claude`, so
//! it is "the CLI" by name), a tool shell left running in its own session, a double-forked daemon
//! carrying the session's marker, a child sharing the agent's session and an MCP-like child
//! without the marker. The sweep must report exactly the first two and kill nothing.
//! Linux only (`/proc`); `tests/no_process_table.rs` covers the other systems.
#![cfg(all(target_os = "linux", not(agent_guards_portable)))]

use hook_replay::sandbox::Sandbox;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_stray-process-sweep");

fn environ_has(pid: i32, needle: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .map(|e| e.split(|b| *b == 0).any(|v| v == needle))
        .unwrap_or(false)
}

fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
}

fn pids_with_cmd(session: &str, cmd: &str) -> Vec<i32> {
    let needle = format!("CLAUDE_CODE_SESSION_ID={session}");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| environ_has(*p, needle.as_bytes()))
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).replace('\0', " ").trim() == cmd)
                .unwrap_or(false)
        })
        .collect()
}

/// Makes `cmd` start in a session of its own.
fn in_own_session(cmd: &mut Command) {
    // SAFETY: setsid is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            nix::unistd::setsid()
                .map(|_| ())
                .map_err(std::io::Error::from)
        });
    }
}

/// A stand-in agent and the processes it left, removed on drop (by the test, never the sweep).
struct Scene {
    session: String,
    agent: Child,
    /// HOME, the XDG dirs, the stand-in agent's binary and the project.
    tmp: Sandbox,
}

impl Scene {
    fn new(tag: &str) -> Scene {
        let tmp = Sandbox::new(BIN);
        let session = format!("sweep-{tag}-{}", std::process::id());
        let bindir = tmp.path().join("bin");
        std::fs::create_dir_all(&bindir).unwrap();
        let claude = bindir.join("claude");
        std::fs::copy("/bin/bash", &claude).unwrap();
        let script = format!(
            r#"
            export CLAUDE_CODE_SESSION_ID={session}
            CLAUDE_CODE_CHILD_SESSION=1 sleep 401 &
            setsid sleep 402 &
            CLAUDE_CODE_CHILD_SESSION=1 setsid sh -c 'sleep 403 & exit 0' &
            CLAUDE_CODE_CHILD_SESSION=1 setsid sleep 404 &
            wait
            "#
        );
        let mut cmd = Command::new(&claude);
        cmd.arg("-c")
            .arg(script)
            .env_remove("CLAUDE_CODE_SESSION_ID")
            .env_remove("CLAUDE_CODE_CHILD_SESSION")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // The agent gets a session of its own, like the CLI.
        in_own_session(&mut cmd);
        // A copy just written may be "text file busy" for a moment: a sibling test thread that
        // forked while our write descriptor was open holds it until its own exec. Retry briefly.
        let mut tries = 0;
        let agent = loop {
            match cmd.spawn() {
                Ok(child) => break child,
                Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("spawn the stand-in agent: {e}"),
            }
        };
        let scene = Scene {
            session,
            agent,
            tmp,
        };
        let deadline = Instant::now() + Duration::from_secs(5);
        while ["sleep 401", "sleep 402", "sleep 403", "sleep 404"]
            .iter()
            .any(|c| scene.pids(c).is_empty())
        {
            assert!(Instant::now() < deadline, "the scene did not come up");
            std::thread::sleep(Duration::from_millis(20));
        }
        scene
    }

    fn pids(&self, cmd: &str) -> Vec<i32> {
        pids_with_cmd(&self.session, cmd)
    }

    fn project(&self) -> PathBuf {
        self.tmp.path().join("project")
    }

    /// Runs the hook with `payload`; returns (exit code, stdout, stderr).
    fn hook(&self, payload: serde_json::Value, claude_pid: Option<i32>) -> (i32, String, String) {
        let mut c = Command::new(BIN);
        self.tmp
            .isolate(&mut c)
            .env("CLAUDE_PROJECT_DIR", self.project())
            .env("CLAUDE_CODE_SESSION_ID", &self.session)
            .env("CLAUDE_CODE_CHILD_SESSION", "1")
            .env("AI_AGENT", "claude-code_2-1-332_harness");
        match claude_pid {
            Some(p) => c.env("CLAUDE_PID", p.to_string()),
            None => c.env_remove("CLAUDE_PID"),
        };
        hook_replay::run_with_payload(c, &payload).unwrap()
    }

    fn end(&self, claude_pid: Option<i32>) -> (i32, String) {
        let (code, _, err) = self.hook(
            serde_json::json!({"hook_event_name": "SessionEnd", "session_id": self.session, "reason": "other"}),
            claude_pid,
        );
        (code, err)
    }

    fn stored(&self) -> serde_json::Value {
        let p = self
            .tmp
            .session_dir(&self.session)
            .join("stray-process-sweep.json");
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        for c in ["sleep 401", "sleep 402", "sleep 403", "sleep 404"] {
            for p in self.pids(c) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(p),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        let _ = self.agent.kill();
        let _ = self.agent.wait();
    }
}

#[test]
fn finds_the_daemon_and_the_left_tool_shell_and_kills_nothing() {
    let s = Scene::new("tree");
    let agent = s.agent.id() as i32;
    let (code, report) = s.end(Some(agent));
    assert_eq!(code, 2, "{report}");
    assert!(
        report.contains("sleep 403"),
        "daemonised grandchild found: {report}"
    );
    assert!(
        report.contains("sleep 404"),
        "tool shell in its own session found: {report}"
    );
    assert!(
        !report.contains("sleep 401"),
        "child sharing the agent's session: {report}"
    );
    assert!(
        !report.contains("sleep 402"),
        "MCP-like child without the marker: {report}"
    );
    assert!(report.contains("To end them: kill -TERM -- "), "{report}");
    assert!(!report.contains("COULD NOT COMPLETE"), "{report}");
    let stored = s.stored();
    assert_eq!(stored["agent"]["pid"], agent);
    let reported: Vec<i64> = stored["roots"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r["pids"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|p| p.as_i64())
        })
        .collect();
    assert_eq!(reported.len(), 2, "{stored}");
    for p in &reported {
        assert!(
            alive(*p as i32),
            "pid {p} was reported and must still be alive"
        );
    }
    for c in ["sleep 401", "sleep 402", "sleep 403", "sleep 404"] {
        assert!(s.pids(c).iter().all(|p| alive(*p)), "{c} still alive");
    }
    assert!(alive(agent));
}

#[test]
fn session_start_repeats_an_unread_report_once() {
    let s = Scene::new("start");
    let (code, _) = s.end(Some(s.agent.id() as i32));
    assert_eq!(code, 2);
    let start = serde_json::json!({"hook_event_name": "SessionStart", "session_id": "next", "source": "startup"});
    let (code, out, _) = s.hook(start.clone(), None);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains("sleep 403") && msg.contains(&s.session),
        "{msg}"
    );
    let (code, out, _) = s.hook(start, None);
    assert_eq!((code, out.trim()), (0, "{}"), "seen now");
}

#[test]
fn a_missing_agent_is_reported_loudly_and_the_marker_search_still_runs() {
    let s = Scene::new("noagent");
    // A live process that is not the CLI, and the sweep has no CLI ancestor.
    let (code, report) = s.end(Some(s.pids("sleep 401")[0]));
    assert_eq!(code, 2, "{report}");
    assert!(
        report.contains("COULD NOT COMPLETE") && report.contains("could not find the agent"),
        "{report}"
    );
    assert!(report.contains("sleep 403"), "{report}");
    let reported: Vec<i64> = s.stored()["roots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["pid"].as_i64().unwrap())
        .collect();
    assert!(reported.iter().all(|p| alive(*p as i32)));
}

/// Starts `exe args` as a leftover of the session (its marker, a session of its own) and
/// returns it with its start time (field 22 of its stat), as the exec gate records it.
fn leftover(session: &str, exe: &std::path::Path, arg: &str) -> (Child, u64) {
    let mut cmd = Command::new(exe);
    cmd.arg(arg)
        .env("CLAUDE_CODE_SESSION_ID", session)
        .env("CLAUDE_CODE_CHILD_SESSION", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    in_own_session(&mut cmd);
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    let deadline = Instant::now() + Duration::from_secs(5);
    let exe = std::fs::canonicalize(exe).unwrap();
    loop {
        let exe_now = std::fs::read_link(format!("/proc/{pid}/exe")).unwrap_or_default();
        if exe_now == exe {
            break;
        }
        assert!(Instant::now() < deadline, "the leftover never ran {exe:?}");
        std::thread::sleep(Duration::from_millis(5));
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let start = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .parse()
        .unwrap();
    (child, start)
}

#[test]
fn the_suites_own_supervisor_is_not_a_leftover_but_a_forged_record_hides_nothing() {
    // Issue 47: the exec gate's supervisor and watchdog (forks of tool-containment) were reported
    // as leftovers and put in the kill command. A record the agent writes for its own leftover
    // must not hide it: the recorded process must run the suite's binary.
    let s = Scene::new("own");
    let bin = s.tmp.path().join("bin");
    let supervisor_exe = bin.join("tool-containment");
    std::fs::copy("/bin/sleep", &supervisor_exe).unwrap();
    let (mut supervisor, sup_start) = leftover(&s.session, &supervisor_exe, "405");
    let (mut forged, forged_start) =
        leftover(&s.session, std::path::Path::new("/bin/sleep"), "406");
    let records = s.tmp.session_dir(&s.session).join("second-line");
    std::fs::create_dir_all(&records).unwrap();
    std::fs::write(
        records.join(supervisor.id().to_string()),
        format!("{sup_start}\n"),
    )
    .unwrap();
    std::fs::write(
        records.join(forged.id().to_string()),
        format!("{forged_start}\n"),
    )
    .unwrap();
    let (code, report) = s.end(Some(s.agent.id() as i32));
    for c in [&mut supervisor, &mut forged] {
        let _ = c.kill();
        let _ = c.wait();
    }
    assert_eq!(code, 2, "{report}");
    assert!(
        !report.contains("405"),
        "the suite's own supervisor: {report}"
    );
    assert!(
        report.contains("sleep 406"),
        "a forged record hides nothing: {report}"
    );
    assert!(report.contains("sleep 404"), "{report}");
}
