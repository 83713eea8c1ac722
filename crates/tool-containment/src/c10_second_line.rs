//! C10: the second line (crate `second-line`) wired into the prefix, SessionEnd and `--report`.
//! The prefix calls [`prepare`] for an agent command before it places itself in the command's
//! group, so the supervisor it starts stays outside the group, the mount namespace and the
//! filter, and [`finish`] (the filter) after the group and its ceilings are set. A layer the host cannot offer is reported, never fatal.

/// Phase one of the second line, before the prefix enters the command's group: the launch
/// credentials hidden, the supervisor (so it stays outside the group), the credential broker
/// (C11) and the mount namespace.
#[cfg(target_os = "linux")]
pub fn prepare() -> second_line::enter::Prepared {
    second_line::enter::hide_launch_credentials();
    let env = |k: &str| std::env::var(k).ok();
    second_line::enter::prepare(&env)
}

/// Phase two, the last step before the exec (after the group and its ceilings are set: the
/// filter would otherwise judge the prefix's own cgroup writes); prints what failed.
#[cfg(target_os = "linux")]
pub fn finish(prepared: second_line::enter::Prepared) {
    let entered = second_line::enter::finish(prepared);
    for n in &entered.notices {
        eprintln!("{n}");
    }
    if let Some(why) = entered.refused {
        // C10.service: the command does not run (126: found but not run, as bash says it).
        eprintln!("{why}");
        std::process::exit(126);
    }
}

/// Stops the ended session's supervisors and their watchdogs, after its processes were killed:
/// each gets a moment to exit by itself (its tree is gone) and write its last records, the rest
/// are killed; returns when none runs, or at `until`.
#[cfg(target_os = "linux")]
pub fn stop(session_id: &str, until: std::time::Instant) -> Vec<u32> {
    use std::time::{Duration, Instant};
    let env = |k: &str| std::env::var(k).ok();
    let Ok(dir) = session_store::state_dir(&env) else {
        return Vec::new();
    };
    let left = until.saturating_duration_since(Instant::now());
    let grace = SUPERVISOR_GRACE.min(left / 2);
    let wait = left.saturating_sub(grace).min(Duration::from_secs(2));
    let session = session_store::Session::new(&dir, Some(session_id));
    second_line::stop_session_after(session.dir(), grace, wait)
}

/// How long SessionEnd lets a supervisor whose processes were killed exit by itself.
#[cfg(target_os = "linux")]
const SUPERVISOR_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

/// The layers for `--report`.
#[cfg(target_os = "linux")]
pub fn report_lines() -> Vec<String> {
    let env = |k: &str| std::env::var(k).ok();
    let layers = second_line::layers::report(&env);
    let mount = layers
        .iter()
        .any(|l| l.name == second_line::layers::MOUNT && l.state.active);
    let mut lines = second_line::layers::report_lines(&layers);
    lines.extend(second_line::broker::report_lines(&env, mount));
    lines
}

/// `--exec-gate-service`: the system install's exec-gate service; returns only when it fails.
#[cfg(target_os = "linux")]
pub fn exec_gate_service() -> i32 {
    second_line::service::serve_until_failure("tool-containment")
}

/// No exec-gate service off Linux.
#[cfg(not(target_os = "linux"))]
pub fn exec_gate_service() -> i32 {
    eprintln!("tool-containment --exec-gate-service: Linux only");
    2
}

/// No second line off Linux.
#[cfg(not(target_os = "linux"))]
pub struct Prepared;

#[cfg(not(target_os = "linux"))]
pub fn prepare() -> Prepared {
    Prepared
}

#[cfg(not(target_os = "linux"))]
pub fn finish(_prepared: Prepared) {}

#[cfg(not(target_os = "linux"))]
pub fn stop(_session_id: &str, _until: std::time::Instant) -> Vec<u32> {
    Vec::new()
}

#[cfg(not(target_os = "linux"))]
pub fn report_lines() -> Vec<String> {
    vec!["second line: off (Linux only: mount namespaces and seccomp user notification)".into()]
}
