//! Opening and locking files the agent can touch, never waiting on it (issue 47).
//!
//! The suite's state lives where the agent's user can write, rename and lock. Opening a FIFO put
//! in place of a record blocks until a writer comes; taking a lock someone holds blocks until they
//! let go. A hook must answer within the CLI's timeout whatever the agent did, so every open of
//! such a file goes through [`open_regular`] (non-blocking, then "is it a regular file?" on the
//! handle itself, so nothing can be swapped in between) and every lock through [`lock_within`]
//! (a bounded wait, then an error that says the lock is held).

use std::fs::{File, OpenOptions, TryLockError};
use std::io;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a lock is waited for with no progress: hooks that run at once hold it for one write
/// each (a millisecond or a few, a synced rename more on a slow disk), so the file changes while
/// they take turns; nothing changing for this long means somebody is holding it on purpose.
pub const LOCK_BOUND: Duration = Duration::from_millis(250);

/// Opens `path` with `options` without blocking (a FIFO opens at once, or fails), and keeps the
/// handle only when it is a regular file.
pub fn open_regular(path: &Path, options: &mut OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other(
            "not a regular file (a FIFO, device or folder in its place)",
        ));
    }
    Ok(file)
}

/// Shared or exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    /// Readers.
    Shared,
    /// One writer.
    Exclusive,
}

/// When this process last gave up on a lock: for a while after that, locks are tried once and
/// not waited for, so a hook that touches several held files pays the bound once, not per file.
static GAVE_UP_AT: Mutex<Option<Instant>> = Mutex::new(None);

/// How long a lock given up on makes later ones not wait.
const GIVE_UP_MEMORY: Duration = Duration::from_secs(2);

/// Takes the lock on `file`, waiting at most `bound` (not at all shortly after a lock in this
/// process was given up on); past it, an error naming the hold.
pub fn lock_within(file: &File, kind: LockKind, bound: Duration) -> io::Result<()> {
    lock_while_progressing(file, kind, bound, &|| 0)
}

/// [`lock_within`], where `bound` counts from the last change of `progress` (a value that moves
/// while other writers take turns, such as the locked file's size): a lock handed from writer to
/// writer is waited for as long as they keep writing, one that nobody uses is given up after
/// `bound`. The hook's own deadline bounds the whole.
pub fn lock_while_progressing(
    file: &File,
    kind: LockKind,
    bound: Duration,
    progress: &dyn Fn() -> u64,
) -> io::Result<()> {
    let recently_held = GAVE_UP_AT
        .lock()
        .map(|g| g.is_some_and(|t| t.elapsed() < GIVE_UP_MEMORY))
        .unwrap_or(false);
    let bound = if recently_held { Duration::ZERO } else { bound };
    let mut until = Instant::now() + bound;
    let mut seen = progress();
    let mut pause = Duration::from_micros(200);
    loop {
        let tried = match kind {
            LockKind::Shared => file.try_lock_shared(),
            LockKind::Exclusive => file.try_lock(),
        };
        match tried {
            Ok(()) => return Ok(()),
            Err(TryLockError::Error(e)) => return Err(e),
            Err(TryLockError::WouldBlock) => {}
        }
        let now = Instant::now();
        let moved = progress();
        if moved != seen {
            seen = moved;
            until = now + bound;
        } else if now >= until {
            if let Ok(mut g) = GAVE_UP_AT.lock() {
                *g = Some(Instant::now());
            }
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "locked by another process, with no write for {} ms",
                    bound.as_millis()
                ),
            ));
        }
        std::thread::sleep(pause.min(until.saturating_duration_since(now)));
        pause = (pause * 2).min(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_at_once_and_a_held_lock_within_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        // Reading a FIFO with no writer, appending to one with no reader: neither waits.
        assert!(open_regular(&fifo, OpenOptions::new().read(true)).is_err());
        assert!(open_regular(&fifo, OpenOptions::new().append(true)).is_err());
        assert!(open_regular(dir.path(), OpenOptions::new().read(true)).is_err());

        let path = dir.path().join("log");
        let holder = open_regular(&path, OpenOptions::new().create(true).append(true)).unwrap();
        // A lock held by another open file description (as another process's flock would be).
        holder.lock().unwrap();
        let other = open_regular(&path, OpenOptions::new().read(true)).unwrap();
        let started = Instant::now();
        let err = lock_within(&other, LockKind::Exclusive, Duration::from_millis(50)).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
        assert!(err.to_string().contains("locked by another process"));
        assert!(started.elapsed() < Duration::from_secs(2));
        // Writers taking turns (the file changes) are waited for past the bound.
        let ticks = std::sync::atomic::AtomicU64::new(0);
        let until = Instant::now() + Duration::from_millis(150);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(150));
                holder.unlock().unwrap();
            });
            *GAVE_UP_AT.lock().unwrap() = None;
            let progress = || {
                // Moves until the holder lets go.
                match Instant::now() < until {
                    true => ticks.fetch_add(1, std::sync::atomic::Ordering::SeqCst),
                    false => 0,
                }
            };
            lock_while_progressing(
                &other,
                LockKind::Exclusive,
                Duration::from_millis(20),
                &progress,
            )
            .expect("a lock that changes hands is waited for");
        });
        other.unlock().unwrap();
        holder.lock().unwrap();
        assert!(started.elapsed() < Duration::from_secs(2));
        holder.unlock().unwrap();
        lock_within(&other, LockKind::Shared, Duration::from_millis(50)).unwrap();
    }
}
