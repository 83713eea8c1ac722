//! C7: session end — stop first, report second.
//!
//! Registered on SessionEnd, the binary stops every group of the ended session that still holds
//! processes and reports what it stopped. The order matters at scale (4,000 sleepers in one
//! command, 5,000 finished commands): nothing slow happens before the processes are held.
//!
//! 1. **Hold**: v2 writes `cgroup.freeze`; everywhere, every pid listed in a group's
//!    `cgroup.procs` gets SIGSTOP, pass after pass, until a pass lists no pid it has not stopped
//!    (a stopped process cannot fork; the task ceiling bounds what forks in between).
//! 2. **Name**: the held processes are read from `/proc` (command line, age) while they still
//!    exist.
//! 3. **Kill**: v2 `cgroup.kill`; SIGKILL to every listed pid until the groups are empty. A
//!    process that appears late is named first when there is time.
//! 4. **Verify**: the processes still alive that carry the session's marker
//!    (`CLAUDE_CODE_SESSION_ID`, `CLAUDE_CODE_CHILD_SESSION=1`, not a hook) are counted and named,
//!    wherever they are: group membership alone is not trusted.
//! 5. **Remove** the empty groups, deepest first, until the deadline; the rest are counted.
//!
//! Every step writes into a shared [`EndReport`], so when the watchdog fires the failure answer
//! reports exactly what was done, never more (see [`crate::c7_report`]).

use crate::c3_groups::systemd_stop_args;
use crate::c4_backends::Backend;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use proc_table::{read_entry, ProcEntry};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub use crate::c7_report::{render, CommandSummary, GroupOutcome};

/// The SessionEnd result, filled in step by step.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct EndReport {
    pub backend: String,
    pub session_group: String,
    /// The step under way (`hold`, `name`, `kill`, `verify`, `remove`, `done`).
    pub phase: &'static str,
    pub stopped: Vec<GroupOutcome>,
    /// Processes held (SIGSTOP or freeze) so far, over all groups.
    pub held: usize,
    /// Processes that were listed and are confirmed gone after the kill step.
    pub killed: usize,
    /// Still alive after the kill step, in a group of the session.
    pub survivors: Vec<i32>,
    /// Still alive afterwards and carrying the session's marker (verified by `/proc`).
    pub marker_survivors: Vec<ProcEntry>,
    /// The verify step ran to the end.
    pub verified: bool,
    pub removed_groups: usize,
    /// Empty groups left in place (deadline, or a removal that failed).
    pub groups_left: usize,
    pub failures: Vec<String>,
}

/// The shared, partial report the watchdog's failure answer can read.
pub type Shared = Arc<Mutex<EndReport>>;

/// When the steps must be done by.
#[derive(Debug, Clone, Copy)]
pub struct Deadlines {
    /// Holding, naming and killing stop here.
    pub stop: Instant,
    /// Removing groups stops here.
    pub remove: Instant,
}

impl Deadlines {
    /// All steps up to `end`, keeping back time for the verify step and the report.
    pub fn until(end: Instant) -> Deadlines {
        let now = Instant::now();
        let total = end.saturating_duration_since(now);
        Deadlines {
            stop: now + total.mul_f32(0.7),
            remove: now + total.mul_f32(0.9),
        }
    }
}

fn update(shared: &Shared, f: impl FnOnce(&mut EndReport)) {
    let mut guard = shared.lock().unwrap_or_else(|p| p.into_inner());
    f(&mut guard);
}

/// One command group: its directory in each hierarchy, and its name relative to the session.
#[derive(Debug, Clone)]
struct Group {
    rel: PathBuf,
    dirs: Vec<PathBuf>,
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
    out
}

/// The session's groups across `roots` (one root per hierarchy), deepest first.
fn session_groups(roots: &[PathBuf], failures: &mut Vec<String>) -> Vec<Group> {
    let mut rels: Vec<PathBuf> = roots
        .iter()
        .flat_map(|r| groups_under(r, failures))
        .collect();
    // Children sort after their parents; reversing puts the deepest first.
    rels.sort();
    rels.dedup();
    rels.reverse();
    rels.into_iter()
        .map(|rel| Group {
            dirs: roots.iter().map(|r| r.join(&rel)).collect(),
            rel,
        })
        .collect()
}

/// Pids listed in `dir/cgroup.procs` (empty when the group is gone).
pub fn listed_in(dir: &Path) -> Vec<i32> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .filter(|p: &i32| *p > 0)
        .collect()
}

fn listed(group: &Group) -> BTreeSet<i32> {
    group.dirs.iter().flat_map(|d| listed_in(d)).collect()
}

/// Alive and not a zombie: a zombie stays listed until its parent reaps it.
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rfind(')')
            .and_then(|i| stat.get(i + 2..i + 3))
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

fn signal(pid: i32, sig: Signal) {
    // ESRCH (already gone) is the outcome we want; nothing else can be done about EPERM here.
    let _ = kill(Pid::from_raw(pid), sig);
}

fn write_v2(groups: &[Group], file: &str, failures: &mut Vec<String>) {
    for d in groups.iter().flat_map(|g| &g.dirs) {
        let f = d.join(file);
        if f.exists() {
            if let Err(e) = std::fs::write(&f, "1") {
                failures.push(format!("cannot write {}: {e}", f.display()));
            }
        }
    }
}

/// Step 1: SIGSTOP every listed pid, pass after pass, until a pass finds nothing new.
fn hold(groups: &[Group], v2: bool, until: Instant, shared: &Shared) -> BTreeMap<usize, Vec<i32>> {
    let mut failures = Vec::new();
    if v2 {
        write_v2(groups, "cgroup.freeze", &mut failures);
    }
    let mut held: BTreeMap<usize, Vec<i32>> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    loop {
        let mut new = 0usize;
        for (i, g) in groups.iter().enumerate() {
            for pid in listed(g) {
                if seen.insert(pid) {
                    signal(pid, Signal::SIGSTOP);
                    held.entry(i).or_default().push(pid);
                    new += 1;
                }
            }
        }
        update(shared, |r| r.held = seen.len());
        if new == 0 || Instant::now() >= until {
            break;
        }
    }
    update(shared, |r| r.failures.extend(failures));
    held
}

/// Step 2: read each held process while it exists (stops at `until`; the rest stay counted).
fn name(pids: &[i32], until: Instant, uptime: f64) -> Vec<ProcEntry> {
    let proc_root = Path::new("/proc");
    let mut out = Vec::with_capacity(pids.len());
    for pid in pids {
        if Instant::now() >= until {
            break;
        }
        if let Some(e) = read_entry(proc_root, *pid, false, uptime) {
            out.push(e);
        }
    }
    out
}

/// Step 3: SIGKILL whatever is listed until every group is empty or `until` passes; late
/// arrivals are named first. Returns the pids still alive.
fn kill_all(
    groups: &[Group],
    outcomes: &mut [GroupOutcome],
    mut named: BTreeSet<i32>,
    v2: bool,
    until: Instant,
    uptime: f64,
    failures: &mut Vec<String>,
) -> Vec<i32> {
    if v2 {
        write_v2(groups, "cgroup.kill", failures);
    }
    loop {
        let mut remaining = Vec::new();
        for (g, outcome) in groups.iter().zip(outcomes.iter_mut()) {
            for pid in listed(g) {
                if named.insert(pid) && Instant::now() < until {
                    if let Some(e) = read_entry(Path::new("/proc"), pid, false, uptime) {
                        outcome.add(e);
                    }
                }
                signal(pid, Signal::SIGKILL);
                // A stopped process dies on SIGKILL; SIGCONT is not needed.
                remaining.push(pid);
            }
        }
        if remaining.is_empty() {
            return remaining;
        }
        std::thread::sleep(Duration::from_millis(2));
        let alive_now: Vec<i32> = remaining.into_iter().filter(|p| alive(*p)).collect();
        if alive_now.is_empty() {
            return alive_now;
        }
        if Instant::now() >= until {
            return alive_now;
        }
    }
}

/// Step 5: remove empty groups (deepest first), then the session roots, until `until`.
fn remove(groups: &[Group], roots: &[PathBuf], until: Instant, shared: &Shared) {
    let mut removed = 0usize;
    let mut left = 0usize;
    let mut failures = Vec::new();
    let rm = |d: &Path, failures: &mut Vec<String>| match std::fs::remove_dir(d) {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Err(e) => {
            if failures.len() < 8 {
                failures.push(format!("cannot remove {}: {e}", d.display()));
            }
            false
        }
    };
    for (i, g) in groups.iter().enumerate() {
        if Instant::now() >= until {
            left += groups.len() - i;
            break;
        }
        let mut all = true;
        for d in &g.dirs {
            all &= rm(d, &mut failures);
        }
        if all {
            removed += 1;
        } else {
            left += 1;
        }
        if i % 256 == 0 {
            update(shared, |r| r.removed_groups = removed);
        }
    }
    if left == 0 {
        for r in roots {
            rm(r, &mut failures);
        }
    }
    update(shared, |r| {
        r.removed_groups = removed;
        r.groups_left = left;
        r.failures.extend(failures);
    });
}

/// Stops and removes every group of `session_group` under `backend`, writing as it goes into
/// `shared`. `session_id` is the marker the verify step looks for (`None`: not verified);
/// `before_verify` runs between the kill and the verify step (SessionEnd stops the session's
/// second-line supervisors there: they carry the marker and exit just after their processes).
pub fn stop_session_into(
    backend: &Backend,
    session_group: &str,
    session_id: Option<&str>,
    deadlines: Deadlines,
    shared: &Shared,
    before_verify: &dyn Fn(),
) {
    update(shared, |r| {
        r.backend = backend.name().to_string();
        r.session_group = session_group.to_string();
        r.phase = "hold";
    });
    let v2 = matches!(backend, Backend::V2 { .. });
    match backend {
        Backend::V1(_) | Backend::V2 { .. } => {}
        Backend::Systemd { .. } => {
            let mut r = EndReport::default();
            stop_systemd(session_group, &mut r);
            update(shared, |s| {
                s.stopped = r.stopped;
                s.failures.extend(r.failures);
                s.phase = "done";
            });
            return;
        }
        Backend::None { .. } => {
            update(shared, |s| s.phase = "done");
            return;
        }
    }
    let roots = crate::c3_groups::session_dirs(backend, session_group);
    let uptime = proc_table::entry::uptime_secs(Path::new("/proc")).unwrap_or(0.0);
    // A command may start while we run: a group that appears after the first pass is stopped by
    // the next one (it belongs to the ended session), up to the stop deadline.
    let mut all_groups: Vec<Group> = Vec::new();
    let mut done_rels: BTreeSet<PathBuf> = BTreeSet::new();
    for _pass in 0..4 {
        let mut failures = Vec::new();
        let groups: Vec<Group> = session_groups(&roots, &mut failures)
            .into_iter()
            .filter(|g| !done_rels.contains(&g.rel) || listed(g).into_iter().any(alive))
            .collect();
        update(shared, |r| r.failures.extend(failures));
        if groups.is_empty() {
            break;
        }
        let any_live = stop_groups(&groups, v2, deadlines.stop, uptime, shared);
        for g in groups {
            if done_rels.insert(g.rel.clone()) {
                all_groups.push(g);
            }
        }
        if !any_live || Instant::now() >= deadlines.stop {
            break;
        }
    }
    before_verify();
    update(shared, |r| r.phase = "verify");
    if let Some(id) = session_id {
        let found = crate::c7_verify::marked_alive(id, deadlines.remove);
        update(shared, |r| match found {
            Ok(list) => {
                r.marker_survivors = list;
                r.verified = true;
            }
            Err(e) => r.failures.push(e),
        });
    }
    update(shared, |r| r.phase = "remove");
    all_groups.sort_by(|a, b| b.rel.cmp(&a.rel));
    remove(&all_groups, &roots, deadlines.remove, shared);
    update(shared, |r| r.phase = "done");
}

/// Steps 1–3 over `groups`; returns whether any of them held processes.
fn stop_groups(groups: &[Group], v2: bool, until: Instant, uptime: f64, shared: &Shared) -> bool {
    let held = hold(groups, v2, until, shared);
    if held.is_empty() {
        return false;
    }
    update(shared, |r| r.phase = "name");
    let mut outcomes: Vec<GroupOutcome> = groups
        .iter()
        .map(|g| GroupOutcome::new(&g.rel.display().to_string()))
        .collect();
    for (i, pids) in &held {
        for e in name(pids, until, uptime) {
            outcomes[*i].add(e);
        }
        outcomes[*i].held = pids.len();
    }
    update(shared, |r| r.phase = "kill");
    let mut failures = Vec::new();
    let seen: BTreeSet<i32> = held.values().flatten().copied().collect();
    let survivors = kill_all(
        groups,
        &mut outcomes,
        seen,
        v2,
        until,
        uptime,
        &mut failures,
    );
    outcomes.retain(|o| o.count > 0 || o.held > 0);
    let total: usize = outcomes.iter().map(|o| o.held.max(o.count)).sum();
    update(shared, |r| {
        r.stopped.extend(outcomes);
        r.killed += total.saturating_sub(survivors.len());
        if !survivors.is_empty() {
            r.failures.push(format!(
                "{} process(es) still running in the session's groups when the stop deadline passed",
                survivors.len()
            ));
        }
        r.survivors.extend(survivors);
        r.failures.extend(failures);
    });
    true
}

/// The old single-call form: stop, verify nothing, return the report (tests, cleanup guards).
pub fn stop_session(backend: &Backend, session_group: &str, deadline: Instant) -> EndReport {
    let shared: Shared = Arc::default();
    stop_session_into(
        backend,
        session_group,
        None,
        Deadlines {
            stop: deadline,
            remove: deadline,
        },
        &shared,
        &|| {},
    );
    let guard = shared.lock().unwrap_or_else(|p| p.into_inner());
    guard.clone()
}

fn stop_systemd(session_group: &str, report: &mut EndReport) {
    let slice = crate::c3_groups::systemd_slice(session_group);
    match std::process::Command::new("systemctl")
        .args(systemd_stop_args(session_group))
        .stdin(std::process::Stdio::null())
        .output()
    {
        Ok(out) if out.status.success() => {
            let mut g = GroupOutcome::new(&format!(
                "{slice} (systemd; processes are not listed on this backend)"
            ));
            g.held = 1;
            report.stopped.push(g);
        }
        // 5: the unit was never loaded — the session ran no contained command.
        Ok(out) if out.status.code() == Some(5) => {}
        Ok(out) => report.failures.push(format!(
            "systemctl --user stop {slice} failed: {}",
            hook_io::escape_text(String::from_utf8_lossy(&out.stderr).trim(), 300)
        )),
        Err(e) => report.failures.push(format!("cannot run systemctl: {e}")),
    }
}
