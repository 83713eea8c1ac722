//! S3: loud failures and delivery.
//!
//! The report goes to stderr with exit 2 (the only SessionEnd channel a user sees), a JSON copy
//! goes to the session's state dir, and a pending copy per project is kept so that the next
//! SessionStart in the same project repeats an unread report to the user as `systemMessage`;
//! showing it there marks it seen.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The JSON copy of one sweep.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct StoredReport {
    pub binary: String,
    pub session_id: String,
    pub reason: Option<String>,
    pub project: Option<String>,
    pub time: String,
    pub agent: Option<serde_json::Value>,
    pub roots: Vec<crate::s2_report::Root>,
    pub kill_command: Option<String>,
    pub failures: Vec<String>,
    pub limits: Vec<String>,
    /// The text shown on stderr.
    pub text: String,
    pub seen: bool,
    pub seen_at: Option<String>,
}

/// The state dir's file names.
pub const REPORT_FILE: &str = "stray-process-sweep.json";
const PENDING_DIR: &str = "pending-sweep";
/// Pending reports larger than this are not ours; they are not read.
const MAX_PENDING_BYTES: u64 = 4 * 1024 * 1024;

/// Where the pending report of a project lives.
pub fn pending_path(state_dir: &Path, project: &str) -> PathBuf {
    state_dir
        .join(PENDING_DIR)
        .join(format!("{}.json", session_store::session_dir_name(project)))
}

/// Writes `value` as pretty JSON, creating the folder.
fn write_report(path: &Path, value: &StoredReport) -> Result<(), String> {
    let parent = path.parent().ok_or("no parent dir")?;
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let body = serde_json::to_vec_pretty(value).map_err(|e| e.to_string())?;
    primitives::atomic::write_atomically(path, &body, None)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Stores the JSON copy in the session's folder and, with a project, the pending copy.
pub fn store(state_dir: &Path, report: &StoredReport) -> Result<(), String> {
    let session = session_store::Session::new(state_dir, Some(&report.session_id));
    write_report(&session.dir().join(REPORT_FILE), report)?;
    if let Some(project) = &report.project {
        write_report(&pending_path(state_dir, project), report)?;
    }
    Ok(())
}

/// SessionStart: the unread report of this project, marked seen as it is handed out.
pub fn take_unread(state_dir: &Path, project: &str) -> Result<Option<StoredReport>, String> {
    let path = pending_path(state_dir, project);
    // Bounded like the config: regular files only, size and time bounded, never blocking.
    let text = match guard_config::read::read_regular(
        &path,
        MAX_PENDING_BYTES,
        guard_config::read::READ_TIME_BOUND,
    ) {
        Ok(None) => return Ok(None),
        Ok(Some(bytes)) => bytes,
        Err(e) => return Err(format!("{} {e}", path.display())),
    };
    let mut report: StoredReport =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if report.seen {
        return Ok(None);
    }
    report.seen = true;
    report.seen_at = Some(session_store::time::now_rfc3339());
    write_report(&path, &report)?;
    report.seen = false;
    Ok(Some(report))
}

/// The stored roots that still run, re-checked against `proc_root` now: a pid is kept only when
/// a process with that pid and the same start time runs (a reused pid has a later start) and,
/// when its environment can be read, it still carries the reported session's id. A report
/// without start times cannot be re-checked and keeps nothing.
pub fn recheck(report: &StoredReport, proc_root: &Path) -> Vec<crate::s2_report::Root> {
    let uptime = proc_table::entry::uptime_secs(proc_root).unwrap_or(0.0);
    let mut live = Vec::new();
    for root in &report.roots {
        if root.starts.len() != root.pids.len() {
            continue;
        }
        let mut kept = root.clone();
        kept.pids.clear();
        kept.starts.clear();
        for (pid, start) in root.pids.iter().zip(&root.starts) {
            let Some(mut e) = proc_table::entry::read_stat_entry(proc_root, *pid, uptime) else {
                continue;
            };
            if e.start_ticks != *start {
                continue;
            }
            proc_table::fill_env(proc_root, &mut e);
            if e.env.readable && e.env.session_id.as_deref() != Some(report.session_id.as_str()) {
                continue;
            }
            kept.pids.push(*pid);
            kept.starts.push(*start);
            if *pid == root.pid {
                kept.age_secs = e.age_secs;
                kept.age = proc_table::format_age(e.age_secs);
            }
        }
        if !kept.pids.is_empty() {
            kept.processes = kept.pids.len();
            live.push(kept);
        }
    }
    live
}

/// The SessionStart message for an unread report, built from what still runs now (`live`, from
/// [`recheck`]); `None` when nothing does. The command to end them names only the re-checked
/// pids, never a process group (its members were not re-checked).
pub fn start_message(report: &StoredReport, live: &[crate::s2_report::Root]) -> Option<String> {
    if live.is_empty() {
        return None;
    }
    let pids: Vec<String> = live
        .iter()
        .flat_map(|r| r.pids.iter().map(i32::to_string))
        .collect();
    let kill = format!("kill -TERM -- {}", pids.join(" "));
    let text = crate::s2_report::render(
        &report.session_id,
        live,
        &kill,
        &report.failures,
        &report.limits,
    );
    Some(format!(
        "stray-process-sweep: at the end of session {} ({}) processes were left running; re-checked now (same pid and start time), these still run:\n{text}",
        hook_io::escape_text(&report.session_id, 80),
        hook_io::escape_text(&report.time, 40),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> StoredReport {
        StoredReport {
            binary: "stray-process-sweep".into(),
            session_id: "S".into(),
            reason: Some("other".into()),
            project: Some("/work/p".into()),
            time: "t".into(),
            agent: None,
            roots: vec![],
            kill_command: None,
            failures: vec!["x".into()],
            limits: vec![],
            text: "the text".into(),
            seen: false,
            seen_at: None,
        }
    }

    #[test]
    fn a_stored_report_is_handed_out_once() {
        let dir = tempfile::tempdir().unwrap();
        store(dir.path(), &report()).unwrap();
        assert!(dir.path().join("sessions/S").join(REPORT_FILE).is_file());
        assert_eq!(take_unread(dir.path(), "/work/other").unwrap(), None);
        let got = take_unread(dir.path(), "/work/p").unwrap().unwrap();
        assert_eq!(got.text, "the text");
        assert_eq!(
            take_unread(dir.path(), "/work/p").unwrap(),
            None,
            "seen now"
        );
    }

    fn root_of(pid: i32, start: u64) -> crate::s2_report::Root {
        crate::s2_report::Root {
            pid,
            pgid: pid,
            sid: pid,
            age_secs: 1,
            age: "1s".into(),
            command: "sleep".into(),
            processes: 1,
            containment_group: None,
            pids: vec![pid],
            starts: vec![start],
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_repeat_names_only_processes_that_still_run_with_the_same_start() {
        let mut child = std::process::Command::new("sleep")
            .arg("1000")
            .env("CLAUDE_CODE_SESSION_ID", "S")
            .spawn()
            .unwrap();
        let pid = child.id() as i32;
        let proc_root = Path::new("/proc");
        // spawn() returns once the child entered execve, before the kernel has laid out its new
        // environment: until then `environ` reads empty (unreadable, which a re-check keeps).
        let environ = proc_root.join(pid.to_string()).join("environ");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::fs::read(&environ).map_or(true, |b| b.is_empty())
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        let start = proc_table::entry::read_stat_entry(proc_root, pid, 0.0)
            .unwrap()
            .start_ticks;
        let mut r = report();
        r.roots = vec![root_of(pid, start), root_of(pid, start + 1)];
        let live = recheck(&r, proc_root);
        assert_eq!(live.len(), 1, "a different start time is another process");
        let msg = start_message(&r, &live).unwrap();
        assert!(
            msg.contains(&format!("To end them: kill -TERM -- {pid}")),
            "{msg}"
        );
        assert!(
            !msg.contains(&format!("-{pid} ")),
            "no process group on a repeat: {msg}"
        );
        // Another session's process with the same pid and start is not ours.
        r.session_id = "OTHER".into();
        assert!(recheck(&r, proc_root).is_empty());
        r.session_id = "S".into();
        // A report without start times cannot be re-checked: nothing is repeated.
        r.roots[0].starts.clear();
        r.roots.truncate(1);
        assert!(recheck(&r, proc_root).is_empty());
        child.kill().unwrap();
        child.wait().unwrap();
        r.roots = vec![root_of(pid, start)];
        assert!(recheck(&r, proc_root).is_empty(), "gone: nothing to repeat");
        assert_eq!(start_message(&r, &[]), None);
    }
}
