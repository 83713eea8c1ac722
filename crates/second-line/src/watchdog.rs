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
pub const C10_UNANSWERED: &str = "C10.unanswered";

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
/// close. Returns the listener when the watchdog must take over (the supervisor is gone and
/// processes still carry the filter); `None`: nothing to do, exit.
pub fn wait_for_takeover(link: &OwnedFd) -> Option<(OwnedFd, bool)> {
    let (listener, mount_layer) = crate::enter::receive_fd(link.as_raw_fd(), None).ok()?;
    let mut b = [0u8; 1];
    loop {
        // SAFETY: reading into a 1-byte buffer; blocks until the supervisor's end closes.
        let n = unsafe { libc::read(link.as_raw_fd(), b.as_mut_ptr().cast(), 1) };
        if n < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        break;
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
