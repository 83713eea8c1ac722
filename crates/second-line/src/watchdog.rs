//! The supervisor's stand-in. A supervisor killed from outside would leave its command's tree to
//! the kernel, which fails every further exec with `ENOSYS` and no line, and a notification the
//! supervisor had received but not answered would never be answered. So each supervisor forks a
//! watchdog (before it serves, while the prefix is still setting up) that keeps a copy of the
//! listener and sleeps on a socket only the supervisor holds the other end of. When that end
//! closes while processes still carry the filter, the supervisor died: the watchdog answers the
//! notification it left open and serves the listener in its place, failing every exec closed
//! with one line (`C10.unanswered`), so the command never hangs and never runs an exec nobody
//! judged. Writes to protected paths and connects are still checked as before.

use crate::notify::{self, tell, Answer};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU64, Ordering};

/// The sub-code of an exec refused because the command's supervisor died.
pub use crate::codes::C10_UNANSWERED;

/// How long an exec may wait for the supervisor's answer (one judgement, or one notification
/// not yet received) before the watchdog decides the supervisor is stuck (a read that blocks, a
/// supervisor stopped with SIGSTOP): it is ended, and the watchdog fails that exec and every
/// later one closed, as for a supervisor that died (issue 47: "the supervisor judges under a
/// deadline and fails the exec closed past it").
pub const JUDGE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(5);

/// How often the watchdog looks at the supervisor while it waits.
const TICK_MS: i32 = 250;

/// The reason on the line and in the record.
pub fn unanswered_reason() -> String {
    format!("{C10_UNANSWERED}: the second line's supervisor for this command died, so its execs can no longer be judged; start the command again")
}

/// The notification the supervisor is handling, in memory shared with its watchdog: (flag,
/// id, pid). Ids are handed out in order, so the watchdog also answers any later one the dead
/// supervisor had received.
pub struct InFlight {
    cells: *const [AtomicU64; 3],
}

// SAFETY: the cells are atomics in a mapping that lives as long as the process.
unsafe impl Send for InFlight {}
// SAFETY: as above.
unsafe impl Sync for InFlight {}

/// How many ids after the recorded one the watchdog probes for unanswered notifications.
const PROBE: u64 = 16;

impl InFlight {
    /// A page shared with the processes forked after it.
    pub fn new() -> io::Result<InFlight> {
        // SAFETY: an anonymous shared mapping, never unmapped (it lives as long as the process).
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4096,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(InFlight { cells: p.cast() })
    }

    fn cells(&self) -> &[AtomicU64; 3] {
        // SAFETY: the mapping is zeroed, aligned and lives as long as the process.
        unsafe { &*self.cells }
    }

    /// Marks a received notification as being handled.
    pub fn set(&self, id: u64, pid: u32) {
        let c = self.cells();
        c[1].store(id, Ordering::Relaxed);
        c[2].store(pid as u64, Ordering::Relaxed);
        c[0].store(1, Ordering::Release);
    }

    /// The notification is answered.
    pub fn clear(&self) {
        self.cells()[0].store(0, Ordering::Release);
    }

    /// The id of the last notification the supervisor took (kept after it is answered): it
    /// changes while the supervisor makes progress.
    fn last_id(&self) -> u64 {
        self.cells()[1].load(Ordering::Relaxed)
    }

    fn get(&self) -> Option<(u64, u32)> {
        let c = self.cells();
        (c[0].load(Ordering::Acquire) == 1).then(|| {
            (
                c[1].load(Ordering::Relaxed),
                c[2].load(Ordering::Relaxed) as u32,
            )
        })
    }
}

/// Answers what a dead supervisor left unanswered: the notification it was handling (with the
/// line, its process is known) and any later one it had received (still pending in the kernel
/// as received: `NOTIF_ID_VALID` says so; not yet received ones are served normally).
pub fn answer_orphans(listener: RawFd, in_flight: &InFlight) {
    let Some((id, pid)) = in_flight.get() else {
        return;
    };
    for probe in id..id.wrapping_add(PROBE) {
        if !notify::still_valid(listener, probe) {
            continue;
        }
        if probe == id {
            tell(
                pid,
                &format!("agent-guards: refused an exec ({})", unanswered_reason()),
            );
        }
        let _ = notify::respond(listener, probe, Answer::Fail(libc::EPERM));
    }
    in_flight.clear();
}

/// The watchdog's side of the link: waits for the listener, then for the supervisor's end to
/// close, or for the supervisor to leave an exec unanswered past [`JUDGE_DEADLINE`] (then it is
/// ended with SIGKILL, which closes its end). Returns the listener when the watchdog must take
/// over (the supervisor is gone and processes still carry the filter); `None`: nothing to do.
pub fn wait_for_takeover(
    link: &OwnedFd,
    in_flight: &InFlight,
    supervisor: u32,
) -> Option<(OwnedFd, bool)> {
    let (listener, mount_layer) = crate::enter::receive_fd(link.as_raw_fd(), None).ok()?;
    let mut stuck = Stuck::default();
    loop {
        // Woken only by the supervisor's end closing, the listener hanging up, or the tick: the
        // listener is not polled for a notification waiting (that is readable until the
        // supervisor takes it, and polling it made this loop spin beside every judged call,
        // taking the CPU the supervisor and the command needed: issue 47, C8).
        let mut fds = [
            libc::pollfd {
                fd: link.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: listener.as_raw_fd(),
                events: 0,
                revents: 0,
            },
        ];
        // SAFETY: two valid pollfds; a bounded wait.
        let r = unsafe { libc::poll(fds.as_mut_ptr(), 2, TICK_MS) };
        if r < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        // The supervisor's end closed (or failed): it is gone.
        if fds[0].revents != 0 {
            break;
        }
        // The listener hung up: the tree is gone; nothing to stand in for.
        if fds[1].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return None;
        }
        // Waiting on the supervisor: a notification in hand, or one not yet received.
        let waiting = in_flight.get().is_some() || notification_waiting(&listener);
        if stuck.observe(waiting, in_flight.last_id(), std::time::Instant::now()) {
            // SAFETY: ending the stuck supervisor (our parent's pid as recorded); its end of the
            // link closes with it, and the loop takes over on the next poll.
            unsafe {
                libc::kill(supervisor as i32, libc::SIGKILL);
            }
        }
    }
    let mut p = libc::pollfd {
        fd: listener.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no wait. A hung-up listener: the tree is gone, the supervisor
    // ended normally.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    let gone = r > 0 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0;
    (!gone).then_some((listener, mount_layer))
}

/// Whether a notification waits on `listener`, not yet received (a look, no wait).
fn notification_waiting(listener: &OwnedFd) -> bool {
    let mut p = libc::pollfd {
        fd: listener.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no wait.
    let r = unsafe { libc::poll(&mut p, 1, 0) };
    r > 0 && p.revents & libc::POLLIN != 0
}

/// What the watchdog has seen of the supervisor's progress: since when it has been waited on
/// with no notification handled (the last id it took stays the same).
#[derive(Debug, Default)]
struct Stuck {
    since: Option<(u64, std::time::Instant)>,
}

impl Stuck {
    /// Takes one look (`waiting`: an exec waits on the supervisor; `last_id`: the last
    /// notification it took); `true` when it has been waited on with no progress for
    /// [`JUDGE_DEADLINE`].
    fn observe(&mut self, waiting: bool, last_id: u64, now: std::time::Instant) -> bool {
        if !waiting {
            self.since = None;
            return false;
        }
        match self.since {
            Some((seen, t)) if seen == last_id => now.duration_since(t) >= JUDGE_DEADLINE,
            _ => {
                self.since = Some((last_id, now));
                false
            }
        }
    }
}

#[cfg(test)]
mod stuck_tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn no_progress_for_the_deadline_is_stuck_and_progress_resets_it() {
        let t0 = Instant::now();
        let later = |ms: u64| t0 + Duration::from_millis(ms);
        let deadline = JUDGE_DEADLINE.as_millis() as u64;
        let mut s = Stuck::default();
        // Idle: never stuck, however long.
        assert!(!s.observe(false, 7, t0));
        assert!(!s.observe(false, 7, later(deadline * 3)));
        // Waited on with no notification taken since (a judgement that blocks, a supervisor
        // stopped before it received the next one).
        assert!(!s.observe(true, 7, later(deadline * 3)));
        assert!(!s.observe(true, 7, later(deadline * 4 - 1)));
        assert!(s.observe(true, 7, later(deadline * 4)));
        // Progress (a later id) starts the clock again; a pause in between resets it too.
        let mut s = Stuck::default();
        assert!(!s.observe(true, 7, later(0)));
        assert!(!s.observe(true, 8, later(deadline)));
        assert!(!s.observe(false, 8, later(deadline + 10)));
        assert!(!s.observe(true, 8, later(deadline * 2)));
    }
}
