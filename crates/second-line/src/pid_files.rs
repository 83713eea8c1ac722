//! The session's record of its running supervisors (one file per supervisor in
//! `sessions/<id>/second-line/`, named by its pid) and SessionEnd's stop over them.
//!
//! A file holds the supervisor's start time on its first line and, once its watchdog runs, the
//! watchdog's pid and start time on the second (`<pid> <start>`): the start time tells a live
//! process from a later one that reuses its pid, and the watchdog is stopped with the supervisor
//! it stands in for, before it (so it never takes over from a supervisor SessionEnd stops).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Folder of the session dir where each running supervisor keeps a file named by its pid
/// (session-store owns the name: the sweep reads the same records).
pub const PID_DIR: &str = session_store::paths::SUPERVISORS_DIR;

/// The start time of a process (field 22 of `/proc/<pid>/stat`), which tells a live process
/// from a later one that reuses its pid.
pub fn start_time(pid: u32) -> Option<String> {
    stat_fields(pid).map(|(_, start)| start)
}

/// (state, start time) of a process.
fn stat_fields(pid: u32) -> Option<(String, String)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let mut rest = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = rest.next()?.to_string();
    Some((state, rest.nth(18)?.to_string()))
}

/// Whether the process `pid` that started at `start` still runs (a zombie does not: it has
/// exited and only waits to be reaped).
pub fn running(pid: u32, start: &str) -> bool {
    stat_fields(pid).is_some_and(|(state, t)| t == start && state != "Z" && state != "X")
}

/// One supervisor's record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub pid: u32,
    pub start: String,
    /// The watchdog that answers in the supervisor's place if it dies.
    pub watchdog: Option<(u32, String)>,
}

impl Record {
    /// The file's text.
    pub fn text(&self) -> String {
        match &self.watchdog {
            Some((pid, start)) => format!("{}\n{pid} {start}\n", self.start),
            None => format!("{}\n", self.start),
        }
    }

    fn parse(pid: u32, text: &str) -> Record {
        let mut lines = text.lines();
        let start = lines.next().unwrap_or("").trim().to_string();
        let watchdog = lines.next().and_then(|l| {
            let (p, s) = l.trim().split_once(' ')?;
            Some((p.parse().ok()?, s.to_string()))
        });
        Record {
            pid,
            start,
            watchdog,
        }
    }

    /// Its processes that still run: the watchdog first.
    fn live(&self) -> Vec<(u32, String)> {
        let own = (self.pid, self.start.clone());
        self.watchdog
            .iter()
            .cloned()
            .chain(std::iter::once(own))
            .filter(|(p, s)| !s.is_empty() && running(*p, s))
            .collect()
    }
}

/// Writes (or rewrites) the record of a supervisor; returns the file.
pub fn write(session_dir: &Path, record: &Record) -> Option<PathBuf> {
    let dir = session_dir.join(PID_DIR);
    std::fs::create_dir_all(&dir).ok()?;
    let f = dir.join(record.pid.to_string());
    std::fs::write(&f, record.text()).ok().map(|_| f)
}

fn records(session_dir: &Path) -> Vec<(PathBuf, Record)> {
    let dir = session_dir.join(PID_DIR);
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        out.push((e.path(), Record::parse(pid, &text)));
    }
    out
}

/// Stops the session's supervisors (and their watchdogs) now: SIGKILL, then waits (bounded)
/// until they are gone. Returns the supervisors' pids that were stopped.
pub fn stop_session(session_dir: &Path) -> Vec<u32> {
    stop_session_after(session_dir, Duration::ZERO, Duration::from_secs(2))
}

/// SessionEnd's stop, after the session's processes were killed: a supervisor whose process
/// tree is gone exits by itself once it has written its last records, so it gets `grace` to do
/// so; what still runs then is killed (watchdog first) and awaited for up to `wait`. When this
/// returns, none of the session's supervisors or watchdogs runs (or `wait` passed), so a check
/// for leftovers that follows does not find one on its way out. Returns the supervisors' pids
/// that were killed.
pub fn stop_session_after(session_dir: &Path, grace: Duration, wait: Duration) -> Vec<u32> {
    let all = records(session_dir);
    let live = || -> Vec<(u32, String)> { all.iter().flat_map(|(_, r)| r.live()).collect() };
    let until = Instant::now() + grace;
    while !live().is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut stopped = Vec::new();
    for (_, r) in &all {
        for (pid, _) in r.live() {
            // SAFETY: signalling a process whose pid and start time we recorded.
            if unsafe { libc::kill(pid as i32, libc::SIGKILL) } == 0 && pid == r.pid {
                stopped.push(pid);
            }
        }
    }
    let until = Instant::now() + wait;
    while !live().is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(2));
    }
    for (f, _) in &all {
        let _ = std::fs::remove_file(f);
    }
    stopped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_with_and_without_its_watchdog() {
        let r = Record {
            pid: 10,
            start: "123".into(),
            watchdog: Some((11, "124".into())),
        };
        assert_eq!(Record::parse(10, &r.text()), r);
        let bare = Record {
            watchdog: None,
            ..r.clone()
        };
        assert_eq!(Record::parse(10, &bare.text()), bare);
        // The format before watchdogs: the start time alone, no newline.
        assert_eq!(Record::parse(10, "123"), bare);
    }

    #[test]
    fn this_process_runs_and_a_reused_pid_does_not_count() {
        let me = std::process::id();
        let start = start_time(me).unwrap();
        assert!(running(me, &start));
        assert!(!running(me, "1"));
    }
}
