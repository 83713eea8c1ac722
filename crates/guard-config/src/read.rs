//! Reading the config file without ever blocking a hook.
//!
//! A config that is a FIFO, a device, or sits on a stalled network home folder must not hang the
//! hook before it answers: the harness would let the call through at its own timeout. So the file
//! is opened non-blocking (a FIFO open returns at once), checked to be a regular file on the open
//! descriptor (no race between check and read), read up to a size bound, and the whole read runs
//! on a helper thread that the caller waits for at most [`READ_TIME_BOUND`]. A read that does not
//! finish in time is abandoned (the thread stays blocked; the hook answers and exits) and reported
//! as an unreadable config, so the guards go on with their defaults.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// How long a hook waits for its config file.
pub const READ_TIME_BOUND: Duration = Duration::from_millis(250);
/// Files larger than this are not configs; refuse rather than read them.
pub const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Why a file could not be read, as one line (the path is added by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Not a regular file (what it is instead: a FIFO, a device, a folder...).
    NotRegular(&'static str),
    /// Larger than the bound, in bytes.
    TooLarge(u64),
    /// Not read within the bound.
    TimedOut(Duration),
    /// What the operating system said.
    Io(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotRegular(kind) => write!(f, "is a {kind}, not a regular file"),
            ReadError::TooLarge(limit) => write!(f, "is larger than {limit} bytes"),
            ReadError::TimedOut(d) => {
                write!(f, "could not be read within {} ms", d.as_millis())
            }
            ReadError::Io(e) => write!(f, "cannot be read: {e}"),
        }
    }
}

fn kind_of(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// Reads `path` on the calling thread: non-blocking open, regular files only, at most `max_bytes`.
/// `Ok(None)` when the file does not exist.
pub fn read_regular_now(path: &Path, max_bytes: u64) -> Result<Option<Vec<u8>>, ReadError> {
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadError::Io(e.to_string())),
    };
    let meta = file.metadata().map_err(|e| ReadError::Io(e.to_string()))?;
    if !meta.file_type().is_file() {
        return Err(ReadError::NotRegular(kind_of(meta.file_type())));
    }
    if meta.len() > max_bytes {
        return Err(ReadError::TooLarge(max_bytes));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The size can grow between fstat and read: the bound holds on what is read.
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(e.to_string()))?;
    if bytes.len() as u64 > max_bytes {
        return Err(ReadError::TooLarge(max_bytes));
    }
    Ok(Some(bytes))
}

/// [`read_regular_now`] on a helper thread, waited for at most `within`.
pub fn read_regular(
    path: &Path,
    max_bytes: u64,
    within: Duration,
) -> Result<Option<Vec<u8>>, ReadError> {
    let owned: PathBuf = path.to_path_buf();
    within_time(within, move || read_regular_now(&owned, max_bytes))
        .unwrap_or(Err(ReadError::TimedOut(within)))
}

/// Runs `work` on a helper thread and waits at most `within` for its result; `None` when it did
/// not finish in time (or could not start). The thread is left to finish or block on its own.
pub fn within_time<T: Send + 'static>(
    within: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("bounded-read".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .ok()?;
    rx.recv_timeout(within).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path we own.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("config.toml");
        mkfifo(&p);
        let t = Instant::now();
        let r = read_regular(&p, MAX_CONFIG_BYTES, Duration::from_secs(5));
        assert_eq!(r, Err(ReadError::NotRegular("FIFO")));
        // Not a timing assertion: a blocked open would wait for the 5 s bound.
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn special_files_and_oversize_files_are_refused() {
        assert_eq!(
            read_regular_now(Path::new("/dev/zero"), 10),
            Err(ReadError::NotRegular("character device"))
        );
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            read_regular_now(dir.path(), 10),
            Err(ReadError::NotRegular("directory"))
        );
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'#'; 11]).unwrap();
        assert_eq!(read_regular_now(&big, 10), Err(ReadError::TooLarge(10)));
        std::fs::write(&big, b"a = 1").unwrap();
        assert_eq!(read_regular_now(&big, 10), Ok(Some(b"a = 1".to_vec())));
        assert_eq!(read_regular_now(&dir.path().join("none"), 10), Ok(None));
    }

    #[test]
    fn work_that_stalls_is_abandoned_at_the_bound() {
        // A read stuck in the kernel (a stalled network mount) looks like this from the caller:
        // the worker never returns. The caller still gets its answer at the bound.
        let (_keep, stalled) = mpsc::channel::<()>();
        let got = within_time(Duration::from_millis(50), move || stalled.recv().is_ok());
        assert_eq!(got, None);
        assert_eq!(within_time(Duration::from_secs(5), || 7), Some(7));
    }
}
