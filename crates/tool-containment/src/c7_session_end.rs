//! C7: session end.
//!
//! Registered on SessionEnd, the binary stops every group of the ended session that still holds
//! processes (v2: `cgroup.kill`, then kill until empty; v1: kill until empty — the task ceiling
//! keeps a fork bomb from outrunning it), removes the empty groups, and reports what it stopped:
//! per group, the processes with their commands and ages. A failure to list or stop is reported
//! as loudly as a finding. Everything runs against a deadline inside the SessionEnd budget.

use crate::c3_groups::systemd_stop_args;
use crate::c4_backends::Backend;
use cgroups_rs::fs::pid::PidController;
use cgroups_rs::fs::Controller;
use proc_table::{format_age, read_entry, ProcEntry};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Processes listed per group in the report; the rest are counted.
const LISTED_PER_GROUP: usize = 8;

/// What happened to one command group.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct GroupOutcome {
    /// The group's path relative to the session group (`cmd-123-abc`).
    pub group: String,
    /// Processes it held when we came, as first seen.
    pub processes: Vec<ProcEntry>,
    /// Pids still alive when the deadline passed.
    pub survivors: Vec<i32>,
}

/// The SessionEnd result.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct EndReport {
    pub backend: String,
    pub session_group: String,
    pub stopped: Vec<GroupOutcome>,
    pub removed_groups: usize,
    pub failures: Vec<String>,
}

/// Every group directory under `session_dir`, relative, deepest first.
fn groups_under(session_dir: &Path, failures: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let dir = session_dir.join(&rel);
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                failures.push(format!("cannot list {}: {e}", dir.display()));
                continue;
            }
        };
        for entry in entries.flatten() {
            if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                let child = rel.join(entry.file_name());
                stack.push(child.clone());
                out.push(child);
            }
        }
    }
    // Children sort after their parents; reversing puts the deepest first.
    out.sort();
    out.dedup();
    out.reverse();
    out
}

fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat.get(i + 2..i + 3))
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

fn listed(dirs: &[PathBuf], mount_of: &dyn Fn(&Path) -> PathBuf, v2: bool) -> Vec<i32> {
    let mut pids: Vec<i32> = dirs
        .iter()
        .flat_map(|d| PidController::new(d.clone(), mount_of(d), v2).procs())
        .filter_map(|p| i32::try_from(p.pid).ok())
        .filter(|p| *p > 0 && alive(*p))
        .collect();
    pids.sort_unstable();
    pids.dedup();
    pids
}

/// Stops and removes every group of `session_group` under `backend`, until `deadline`.
pub fn stop_session(backend: &Backend, session_group: &str, deadline: Instant) -> EndReport {
    let mut report = EndReport {
        backend: backend.name().to_string(),
        session_group: session_group.to_string(),
        ..EndReport::default()
    };
    let (roots, mounts, v2): (Vec<PathBuf>, Vec<PathBuf>, bool) = match backend {
        Backend::V1(d) => (
            crate::c3_groups::session_dirs(backend, session_group),
            vec![d.pids_mount.clone(), d.memory_mount.clone()],
            false,
        ),
        Backend::V2 { mount, .. } => (
            crate::c3_groups::session_dirs(backend, session_group),
            vec![mount.clone()],
            true,
        ),
        Backend::Systemd { .. } => {
            stop_systemd(session_group, &mut report);
            return report;
        }
        Backend::None { .. } => return report,
    };
    let mount_of = |dir: &Path| {
        mounts
            .iter()
            .find(|m| dir.starts_with(m))
            .cloned()
            .unwrap_or_default()
    };
    let mut rels: Vec<PathBuf> = roots
        .iter()
        .flat_map(|r| groups_under(r, &mut report.failures))
        .collect();
    rels.sort();
    rels.dedup();
    rels.reverse();
    let uptime = proc_table::entry::uptime_secs(Path::new("/proc")).unwrap_or(0.0);
    for rel in &rels {
        let dirs: Vec<PathBuf> = roots
            .iter()
            .map(|r| r.join(rel))
            .filter(|d| d.is_dir())
            .collect();
        let first = listed(&dirs, &mount_of, v2);
        if !first.is_empty() {
            let processes = first
                .iter()
                .filter_map(|p| read_entry(Path::new("/proc"), *p, false, uptime))
                .collect();
            let survivors = kill_until_empty(&dirs, &mount_of, v2, deadline, &mut report.failures);
            report.stopped.push(GroupOutcome {
                group: rel.display().to_string(),
                processes,
                survivors,
            });
        }
        for d in &dirs {
            match std::fs::remove_dir(d) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => report
                    .failures
                    .push(format!("cannot remove {}: {e}", d.display())),
            }
        }
        if dirs.iter().all(|d| !d.exists()) && !dirs.is_empty() {
            report.removed_groups += 1;
        }
    }
    for r in &roots {
        match std::fs::remove_dir(r) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => report
                .failures
                .push(format!("cannot remove {}: {e}", r.display())),
        }
    }
    report
}

/// v2: `cgroup.kill` first (atomic against forks); then, on both versions, SIGKILL whatever is
/// still listed until the group is empty or the deadline passes. Returns the survivors.
fn kill_until_empty(
    dirs: &[PathBuf],
    mount_of: &dyn Fn(&Path) -> PathBuf,
    v2: bool,
    deadline: Instant,
    failures: &mut Vec<String>,
) -> Vec<i32> {
    if v2 {
        for d in dirs {
            let kill = d.join("cgroup.kill");
            if kill.exists() {
                if let Err(e) = std::fs::write(&kill, "1") {
                    failures.push(format!("cannot write {}: {e}", kill.display()));
                }
            }
        }
    }
    loop {
        let pids = listed(dirs, mount_of, v2);
        if pids.is_empty() {
            return pids;
        }
        if Instant::now() >= deadline {
            failures.push(format!(
                "deadline passed with {} process(es) still running in {}",
                pids.len(),
                dirs.first()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default()
            ));
            return pids;
        }
        for p in &pids {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(*p),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn stop_systemd(session_group: &str, report: &mut EndReport) {
    let slice = crate::c3_groups::systemd_slice(session_group);
    match std::process::Command::new("systemctl")
        .args(systemd_stop_args(session_group))
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(out) if out.status.success() => report.stopped.push(GroupOutcome {
            group: format!("{slice} (systemd; processes are not listed on this backend)"),
            ..GroupOutcome::default()
        }),
        // 5: the unit was never loaded — the session ran no contained command.
        Ok(out) if out.status.code() == Some(5) => {}
        Ok(out) => report.failures.push(format!(
            "systemctl --user stop {slice} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => report.failures.push(format!("cannot run systemctl: {e}")),
    }
}

/// The text the user sees (stderr, exit 2), or `None` when there is nothing to say.
pub fn render(report: &EndReport, session_id: &str) -> Option<String> {
    if report.stopped.is_empty() && report.failures.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    if !report.stopped.is_empty() {
        out.push(format!(
            "tool-containment (C7): session {session_id} left processes running in its containment groups; stopped them:"
        ));
        for g in &report.stopped {
            out.push(format!(
                "  group {}: {} process(es)",
                g.group,
                g.processes.len()
            ));
            for p in g.processes.iter().take(LISTED_PER_GROUP) {
                out.push(format!(
                    "    pid {} age {} {}",
                    p.pid,
                    format_age(p.age_secs),
                    p.cmdline
                ));
            }
            if g.processes.len() > LISTED_PER_GROUP {
                out.push(format!(
                    "    ... and {} more",
                    g.processes.len() - LISTED_PER_GROUP
                ));
            }
            if !g.survivors.is_empty() {
                out.push(format!("    STILL RUNNING: {:?}", g.survivors));
            }
        }
    }
    for f in &report.failures {
        out.push(format!("tool-containment (C7) FAILED: {f}"));
    }
    Some(out.join("\n"))
}
