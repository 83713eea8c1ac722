//! The second line inside agent commands (requirement C10, issue 17): what really runs is judged
//! where it runs, with the kernel's own mechanisms, on Linux.
//!
//! * [`enter`] — the prefix's side: start the command's supervisor, enter a private mount
//!   namespace with the suite's files read-only ([`mounts`], [`protected`]), install the
//!   seccomp filter ([`syscalls`]) and hand its listener over;
//! * [`supervisor`] — answers every notification of the command's process tree: execs judged by
//!   the [`judge::ExecJudge`]s (folded with K1), writes to protected paths refused (I3);
//! * [`network`] — `connect` to a non-local address: I1 evidence, K5 taint, `network_allow`;
//! * [`rules_adapter`] — the guards' own rule code as judges (G2–G6, M3);
//! * [`layers`] — which layers this host and user can have, for `--report`;
//! * [`stop_session`] — SessionEnd: stop the session's supervisors that are still running.
//!
//! The pure parts ([`judge`], [`protected`], [`layers`]'s plan) build everywhere; the kernel
//! parts only on Linux.

pub mod judge;
pub mod protected;
pub mod rules_adapter;

#[cfg(target_os = "linux")]
pub mod enter;
#[cfg(target_os = "linux")]
pub mod layers;
#[cfg(target_os = "linux")]
pub mod mounts;
#[cfg(target_os = "linux")]
pub mod network;
#[cfg(target_os = "linux")]
pub mod notify;
#[cfg(target_os = "linux")]
pub mod supervisor;
#[cfg(target_os = "linux")]
pub mod syscalls;

/// Folder of the session dir where each running supervisor keeps a file named by its pid
/// (holding its start time), so SessionEnd can stop them.
pub const PID_DIR: &str = "second-line";

/// The start time of a process (field 22 of `/proc/<pid>/stat`), which tells a live process
/// from a later one that reuses its pid.
#[cfg(target_os = "linux")]
pub fn start_time(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19).map(str::to_string)
}

/// SessionEnd: stops the supervisors of a session that are still running (SIGKILL; each one
/// also exits by itself once the processes it serves are gone). Returns the pids stopped.
#[cfg(target_os = "linux")]
pub fn stop_session(session_dir: &std::path::Path) -> Vec<u32> {
    let dir = session_dir.join(PID_DIR);
    let mut stopped = Vec::new();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        // The file holds the supervisor's start time: a reused pid is not ours to stop.
        let recorded = std::fs::read_to_string(e.path()).unwrap_or_default();
        if start_time(pid).is_some_and(|t| !recorded.is_empty() && t == recorded.trim()) {
            // SAFETY: signalling the process we verified is the supervisor we started.
            if unsafe { libc::kill(pid as i32, libc::SIGKILL) } == 0 {
                stopped.push(pid);
            }
        }
        let _ = std::fs::remove_file(e.path());
    }
    stopped
}
