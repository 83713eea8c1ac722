//! C10.service (issue 40 item 2): under a system install the exec gate's supervisors run as the
//! suite's own user, started by the exec-gate service, and an agent command of another user
//! can neither stop, trace nor read them, nor take their listener; the gate still judges.
//!
//! Each test runs in a private mount namespace (`unshare -m`) with its own `/etc` (a copy with
//! the `agent-guards` account and a system config added), `/run` and `/var/lib`, so the host's
//! files are never touched; the service and the agent's commands are real processes there.

mod common;

use common::{is_root, nobodys_world, own_binary, text, World, BIN};
use std::process::Command;

/// Sets up the namespace (as root), then runs the rest of the script. `$SERVICE_UID` is the
/// service account's uid, `$AUDIT` the service's audit log for the session of uid 65534.
const SETUP: &str = r#"
set -e
T="$WORLD/ns"
mkdir -p "$T"
mount --make-rprivate /
cp -a /etc "$T/etc"
SERVICE_UID=
for u in $(seq 990 -1 900); do
  if ! getent passwd "$u" >/dev/null && ! getent group "$u" >/dev/null; then SERVICE_UID=$u; break; fi
done
echo "agent-guards:x:$SERVICE_UID:$SERVICE_UID:agent-guards:/nonexistent:/usr/sbin/nologin" >>"$T/etc/passwd"
echo "agent-guards:x:$SERVICE_UID:" >>"$T/etc/group"
mkdir -p "$T/etc/agent-guards"
printf '# the system config of a system install\n' >"$T/etc/agent-guards/config.toml"
mount --bind "$T/etc" /etc
mount -t tmpfs none /run
mount -t tmpfs none /var/lib
export SERVICE_UID
export AUDIT="/var/lib/agent-guards/users/65534/sessions/$CLAUDE_CODE_SESSION_ID/audit.jsonl"
set +e
"#;

/// Starts the service and waits (bounded) for its socket.
const START_SERVICE: &str = r#"
"$SERVICE_BIN" --exec-gate-service 2>"$WORLD/service.err" &
SERVICE_PID=$!
for i in $(seq 1 200); do [ -S /run/agent-guards/exec-gate.sock ] && break; sleep 0.02; done
"#;

/// The agent's attempts, in python as nobody under the gate (the file says what each is).
const ATTACKS: &str = include_str!("service_attacks.py");

fn run_in_namespace(w: &World, script: &str) -> (String, String) {
    let mut c = Command::new("unshare");
    c.args(["-m", "bash", "-c", script]);
    w.environ(&mut c);
    c.env("WORLD", w.dir.path())
        .env("SERVICE_BIN", BIN)
        .env("GATED", own_binary(w));
    let out = c.output().unwrap();
    (text(&out.stdout), text(&out.stderr))
}

fn world(name: &str) -> Option<World> {
    if !is_root() {
        hook_replay::skip::cannot_run(
            name,
            "needs root (a private /etc, /run and /var/lib; the service starts as root)",
        );
        return None;
    }
    let w = nobodys_world(name);
    std::fs::write(w.dir.path().join("attacks.py"), ATTACKS).unwrap();
    let _ = Command::new("chown")
        .args(["65534:65534"])
        .arg(w.dir.path().join("attacks.py"))
        .status();
    Some(w)
}

#[test]
fn the_supervisors_run_as_the_service_user_out_of_the_agents_reach_and_still_judge() {
    let Some(w) = world("service") else {
        return;
    };
    let script = format!(
        r#"{SETUP}{START_SERVICE}
setpriv --reuid=65534 --regid=65534 --clear-groups -- bash -c '"$GATED" python3 "$WORLD/attacks.py" 2>&1 | cat'
echo "agent-killing-the-service: $(setpriv --reuid=65534 --regid=65534 --clear-groups -- kill -STOP $SERVICE_PID 2>/dev/null && echo DONE || echo refused)"
echo "agent-erasing-the-record: $(setpriv --reuid=65534 --regid=65534 --clear-groups -- bash -c ': > "$AUDIT" || rm -f "$AUDIT"' 2>/dev/null && echo DONE || echo refused)"
echo "service-audit:"; cat "$AUDIT"
echo "service-dir: $(stat -c '%U %a' /var/lib/agent-guards/users/65534)"
echo "service-user: $(ps -o user= -p $SERVICE_PID)"
kill $SERVICE_PID
"#
    );
    let (out, err) = run_in_namespace(&w, &script);
    let service_err = std::fs::read_to_string(w.dir.path().join("service.err")).unwrap_or_default();
    let shown = format!("{out}\n--- stderr\n{err}\n--- service\n{service_err}");
    let seen: usize = out
        .lines()
        .find_map(|l| l.strip_prefix("service processes: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    // The service, this command's supervisor and its watchdog.
    assert!(seen >= 3, "the service's processes are visible: {shown}");
    assert!(!out.contains("DONE"), "an attack succeeded: {shown}");
    for attack in ["stop", "kill", "mem", "environ", "getfd", "ptrace"] {
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with(&format!("{attack} ")) && l.ends_with("refused"))
                .count(),
            seen,
            "{attack} refused for each service process: {shown}"
        );
    }
    assert!(out.contains("claude fable: refused"), "{shown}");
    assert!(
        out.contains("claude sonnet: ran stand-in claude"),
        "{shown}"
    );
    assert!(
        out.contains("agent-killing-the-service: refused"),
        "{shown}"
    );
    assert!(out.contains("agent-erasing-the-record: refused"), "{shown}");
    assert!(out.contains("service-dir: agent-guards 711"), "{shown}");
    assert!(out.contains("service-user: agent-guards"), "{shown}");
    let audit = out.split("service-audit:").nth(1).unwrap_or_default();
    assert!(
        audit.contains("M3.launch") && audit.contains("fable"),
        "the refusal is in the service's record: {shown}"
    );
}

#[test]
fn with_a_system_install_and_no_service_the_command_is_refused_before_it_runs() {
    let Some(w) = world("service-down") else {
        return;
    };
    let marker = w.dir.path().join("ran");
    let script = format!(
        r#"{SETUP}
setpriv --reuid=65534 --regid=65534 --clear-groups -- "$GATED" bash -c 'touch "$WORLD/ran"; echo ran'
echo "exit: $?"
"#
    );
    let (out, err) = run_in_namespace(&w, &script);
    let shown = format!("{out}\n--- stderr\n{err}");
    assert!(out.contains("exit: 126"), "{shown}");
    assert!(!marker.exists(), "nothing ran: {shown}");
    assert!(
        err.contains("refused (C10.service)") && err.contains("does not answer"),
        "{shown}"
    );
}
