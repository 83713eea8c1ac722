//! The sender that outlives the hook (issue 45 item 2): who starts it, when, and what it does.
//!
//! A hook never sends and never waits on the sender. The host hook ([`HOST_BINARY`], at
//! SessionEnd and at Stop) calls [`start_after_answer`]: after its answer is printed it decides
//! ([`should_start`]) and starts its own binary again with [`ARG`], in a session and process group
//! of its own, with stdin, stdout and stderr on `/dev/null` (the CLI reads a hook's stdout until
//! it closes: an inherited pipe would make the CLI wait for the sender). Nothing there takes a
//! lock, so an agent holding the sender's lock cannot make a hook wait.
//!
//! That process ([`main`]) takes the sender's lock of the state folder without waiting (another
//! sender runs: it leaves at once), records itself for the stray-process sweep ([`RECORD_FILE`]),
//! marks the queue pending ([`PENDING_FILE`]), and flushes every session in rounds
//! ([`next`]) for at most [`LIFETIME`]. The mark is cleared only when the last round sent
//! everything it saw; a sender that stopped early (collector down, out of time, killed) leaves
//! it, and the host's next Stop starts a sender again (the later hook: integrity-signals is not
//! registered at SessionStart, and its Stop comes at the end of every turn of the next session).

use crate::flush::{flush_held, try_lock};
use crate::{ExportError, Exporter};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The argument the host binary dispatches to [`main`].
pub const ARG: &str = "otlp-send";
/// The binary the sender runs as (it starts itself again); the stray-process sweep accepts a
/// recorded sender only when it runs this binary.
pub const HOST_BINARY: &str = session_store::paths::OTLP_SENDER_BINARY;
/// The longest a sender lives.
pub const LIFETIME: Duration = Duration::from_secs(20);
/// After a round that sent nothing new, how long the sender keeps looking before it leaves: the
/// other SessionEnd hooks write their records beside it, just after it starts.
pub const SETTLE: Duration = Duration::from_secs(2);
/// How often it looks for new records meanwhile.
pub const POLL: Duration = Duration::from_millis(250);
/// Failed rounds (collector down, refusing, too slow) before it leaves the rest to a later one.
pub const MAX_FAILURES: u32 = 3;
/// The wait after the first failed round; doubled after each further one.
pub const RETRY: Duration = Duration::from_secs(1);
/// The running sender, `<pid> <start time in clock ticks>`, in the state folder: the
/// stray-process sweep reads it ([`recorded`]) to tell it from the agent's leftovers.
pub const RECORD_FILE: &str = session_store::paths::OTLP_SENDER_RECORD;
/// Present while records may be left unsent by a sender that stopped early.
pub const PENDING_FILE: &str = "otlp-pending";

/// When a hook of the host runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// The session ends: its records (and any left before) go now.
    SessionEnd,
    /// A later hook: it picks up what a sender left.
    Later,
}

/// Whether a hook at `moment` starts a sender: never while the exporter is off; at SessionEnd
/// always; later only while a sender left records ([`PENDING_FILE`]).
pub fn should_start(moment: Moment, exporter_on: bool, pending: bool) -> bool {
    exporter_on
        && match moment {
            Moment::SessionEnd => true,
            Moment::Later => pending,
        }
}

/// Hands the decision and the start to the work done after the hook's answer is printed
/// (`primitives::after_answer`): nothing here reads, writes or waits before the answer.
pub fn start_after_answer(moment: Moment, state_dir: PathBuf, config: guard_config::Config) {
    // A failure to start is said on the hook's stderr; the records wait for the next sender.
    let _ = primitives::after_answer::defer(Box::new(move || {
        let on = matches!(
            Exporter::from_config(&|k| std::env::var(k).ok(), &config),
            Ok(Some(_))
        );
        let pending = std::fs::symlink_metadata(state_dir.join(PENDING_FILE)).is_ok();
        if !should_start(moment, on, pending) {
            return Ok(());
        }
        start().map(drop)
    }));
}

/// Starts this binary as a detached sender (own session and process group, stdio on
/// `/dev/null`, working folder `/`); returns its pid without waiting for it.
pub fn start() -> Result<u32, String> {
    let exe = std::env::current_exe().map_err(|e| format!("OTLP sender not started: {e}"))?;
    if exe.file_name().is_none_or(|n| n != HOST_BINARY) {
        // The sweep recognises the sender by this binary: another would be reported as a leftover.
        return Err(format!(
            "OTLP sender not started: it runs as {HOST_BINARY}, not {}",
            exe.display()
        ));
    }
    let mut cmd = Command::new(&exe);
    cmd.arg(ARG)
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    use std::os::unix::process::CommandExt;
    // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    // The child is never waited for: the hook exits at once and init reaps it.
    cmd.spawn()
        .map(|c| c.id())
        .map_err(|e| format!("OTLP sender not started: {}: {e}", exe.display()))
}

/// What one round of the sender ended with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Round {
    /// Records the collector took.
    pub sent: u64,
    /// The collector failed (down, refusing, too slow) or a file could not be read or written.
    pub failed: bool,
    /// The sender's lifetime ended before everything went.
    pub out_of_time: bool,
}

/// What the sender does after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Another round after this wait.
    Again(Duration),
    /// It leaves; `all_sent`: the last round left nothing it saw (the pending mark is cleared).
    Done {
        /// Nothing seen is left.
        all_sent: bool,
    },
}

/// After `round` (the `failures`-th failure in a row when it failed; nothing new sent for
/// `quiet`; `left` of the lifetime): retry a failure after [`RETRY`], doubling, at most
/// [`MAX_FAILURES`] times; after a success keep looking every [`POLL`] until [`SETTLE`] passes
/// with nothing new.
pub fn next(round: Round, failures: u32, quiet: Duration, left: Duration) -> Next {
    if round.failed {
        let wait = RETRY * 2u32.pow(failures.saturating_sub(1).min(8));
        return if failures < MAX_FAILURES && wait < left {
            Next::Again(wait)
        } else {
            Next::Done { all_sent: false }
        };
    }
    if round.out_of_time {
        return Next::Done { all_sent: false };
    }
    if quiet >= SETTLE || POLL >= left {
        return Next::Done { all_sent: true };
    }
    Next::Again(POLL)
}

/// How a sender run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// No session folder: nothing to send, nothing written.
    Nothing,
    /// Another sender holds the lock.
    Busy,
    /// Its rounds ended; `all_sent` as in [`Next::Done`].
    Ran {
        /// Nothing seen is left.
        all_sent: bool,
    },
}

/// The sender process: the state folder and exporter of its environment, at most [`LIFETIME`].
/// Exit 0 when done (or off, or another sender runs), 3 when records are left, 2 on an error.
pub fn main() -> i32 {
    let Ok(state_dir) = session_store::state_dir(&|k| std::env::var(k).ok()) else {
        return 2;
    };
    match Exporter::from_process() {
        Ok(Some(exporter)) => match run(&state_dir, &exporter, Instant::now() + LIFETIME) {
            Ok(Ended::Ran { all_sent: false }) => 3,
            Ok(_) => 0,
            Err(_) => 2,
        },
        // Off: nothing is read or written.
        Ok(None) => 0,
        Err(_) => 2,
    }
}

/// One sender's life over `state_dir` with `exporter`, until `end`.
pub fn run(state_dir: &Path, exporter: &Exporter, end: Instant) -> Result<Ended, ExportError> {
    if !state_dir.join("sessions").is_dir() {
        return Ok(Ended::Nothing);
    }
    let Some(lock) = try_lock(state_dir)? else {
        return Ok(Ended::Busy);
    };
    let record = state_dir.join(RECORD_FILE);
    let pending = state_dir.join(PENDING_FILE);
    // Without a start time (no /proc) there is no sweep to tell.
    if let Some(start) = own_start_ticks() {
        let text = format!("{} {start}\n", std::process::id());
        write(&record, text.as_bytes())?;
    }
    // Set before the first send: a sender killed mid-run leaves it for the next hook.
    write(&pending, primitives::time::now_rfc3339().as_bytes())?;
    let all_sent = rounds(state_dir, exporter, end);
    if all_sent {
        let _ = std::fs::remove_file(&pending);
    }
    let _ = std::fs::remove_file(&record);
    drop(lock);
    Ok(Ended::Ran { all_sent })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    primitives::atomic::write_atomically(path, bytes, Some(0o600)).map_err(|source| {
        ExportError::Io {
            path: path.display().to_string(),
            source,
        }
    })
}

/// Flushes in rounds until [`next`] says done; returns whether everything seen went.
fn rounds(state_dir: &Path, exporter: &Exporter, end: Instant) -> bool {
    let mut failures = 0;
    let mut last_new = Instant::now();
    loop {
        let round = match flush_held(state_dir, exporter, end) {
            Ok(r) => Round {
                sent: r.sent,
                failed: r.error.is_some(),
                out_of_time: r.out_of_time,
            },
            Err(_) => Round {
                sent: 0,
                failed: true,
                out_of_time: false,
            },
        };
        failures = if round.failed { failures + 1 } else { 0 };
        let now = Instant::now();
        if round.sent > 0 {
            last_new = now;
        }
        match next(
            round,
            failures,
            now - last_new,
            end.saturating_duration_since(now),
        ) {
            Next::Again(wait) => std::thread::sleep(wait),
            Next::Done { all_sent } => return all_sent,
        }
    }
}

/// This process's start time in clock ticks since boot (`/proc/self/stat` field 22).
fn own_start_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    proc_table::entry::parse_stat(&stat).map(|(.., start)| start)
}

/// The running sender as recorded in `state_dir`: (pid, start time in clock ticks). A bounded
/// read of a regular file; the reader still checks that the live process with that pid started
/// then and runs [`HOST_BINARY`] (the agent can write this file).
pub fn recorded(state_dir: &Path) -> Option<(i32, u64)> {
    session_store::paths::otlp_sender(state_dir)
}

/// Whether a sender left records for a later one.
pub fn pending(state_dir: &Path) -> bool {
    std::fs::symlink_metadata(state_dir.join(PENDING_FILE)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_starts_a_sender_at_session_end_and_later_only_for_what_was_left() {
        assert!(should_start(Moment::SessionEnd, true, false));
        assert!(should_start(Moment::Later, true, true));
        assert!(!should_start(Moment::Later, true, false));
        // Off: never, whatever was left.
        assert!(!should_start(Moment::SessionEnd, false, true));
        assert!(!should_start(Moment::Later, false, true));
    }

    #[test]
    fn rounds_retry_failures_a_few_times_and_settle_after_success() {
        let ok = |sent| Round {
            sent,
            failed: false,
            out_of_time: false,
        };
        let failed = Round {
            sent: 0,
            failed: true,
            out_of_time: false,
        };
        let long = Duration::from_secs(15);
        assert_eq!(next(failed, 1, Duration::ZERO, long), Next::Again(RETRY));
        assert_eq!(
            next(failed, 2, Duration::ZERO, long),
            Next::Again(RETRY * 2)
        );
        assert_eq!(
            next(failed, MAX_FAILURES, Duration::ZERO, long),
            Next::Done { all_sent: false }
        );
        // No retry that would outlive the sender.
        assert_eq!(
            next(failed, 1, Duration::ZERO, RETRY / 2),
            Next::Done { all_sent: false }
        );
        assert_eq!(
            next(
                Round {
                    out_of_time: true,
                    ..ok(5)
                },
                0,
                Duration::ZERO,
                Duration::ZERO
            ),
            Next::Done { all_sent: false }
        );
        assert_eq!(next(ok(5), 0, Duration::ZERO, long), Next::Again(POLL));
        assert_eq!(next(ok(0), 0, SETTLE / 2, long), Next::Again(POLL));
        assert_eq!(next(ok(0), 0, SETTLE, long), Next::Done { all_sent: true });
        assert_eq!(
            next(ok(0), 0, Duration::ZERO, POLL / 2),
            Next::Done { all_sent: true }
        );
    }

    #[test]
    fn the_record_reads_back_and_nonsense_is_no_record() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(recorded(dir.path()), None);
        std::fs::write(dir.path().join(RECORD_FILE), "123 456789\n").unwrap();
        assert_eq!(recorded(dir.path()), Some((123, 456789)));
        std::fs::write(dir.path().join(RECORD_FILE), "123\n").unwrap();
        assert_eq!(recorded(dir.path()), None);
        assert!(own_start_ticks().is_some_and(|t| t > 0));
    }
}
