//! How far a session's log has been sent: a small file beside the log, replaced whole
//! (new-then-rename), so a crash leaves the old position or the new, never half.
//!
//! Why a cursor and not a spool: the audit log already holds every record, written by the hooks
//! after their answer. Copying each record into a queue would add a write on the hook's path;
//! reading the log from a remembered position adds none. The log is the agent's to replace, so
//! the cursor also remembers which log it is about (device, inode and a hash of its first line):
//! a different or shorter log is read from its start.

use primitives::no_wait::open_regular;
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The cursor file in each session folder.
pub const CURSOR_FILE: &str = "otlp-cursor.json";

/// How much of a log's start names it (its first line, up to this).
const HEAD_BYTES: u64 = 4096;

/// Which log a position is about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogIdentity {
    /// The file system's device.
    pub dev: u64,
    /// The file's inode.
    pub ino: u64,
    /// FNV-1a of the log's first line (up to 4 KiB); 0 for an empty log.
    pub head: u64,
}

/// One session's export position.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// The log the offset is in.
    pub log: LogIdentity,
    /// Bytes of the log already sent (always a line's start, unless `resync`).
    pub offset: u64,
    /// The offset is inside a line (the queue bound cut there): the rest of that line is skipped.
    #[serde(default)]
    pub resync: bool,
    /// Records sent from this log.
    #[serde(default)]
    pub sent: u64,
    /// Records never sent because the queue was full (they are still in the log).
    #[serde(default)]
    pub skipped_records: u64,
    /// Their bytes.
    #[serde(default)]
    pub skipped_bytes: u64,
}

/// The cursor file of the session folder `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(CURSOR_FILE)
}

/// The cursor in `dir`: the log's start when there is none, or it cannot be read (a damaged
/// cursor resends the session's records: more rather than fewer).
pub fn read(dir: &Path) -> Cursor {
    crate::file::read(&path_in(dir)).unwrap_or_default()
}

/// Writes the cursor of `dir`, new-then-rename.
pub fn write(dir: &Path, cursor: &Cursor) -> std::io::Result<()> {
    crate::file::write(&path_in(dir), cursor)
}

/// Opens the log at `path` without waiting (a regular file only) and names it.
pub fn open_log(path: &Path) -> std::io::Result<(File, LogIdentity, u64)> {
    let mut file = open_regular(path, OpenOptions::new().read(true))?;
    let meta = file.metadata()?;
    let mut head = Vec::new();
    (&mut file).take(HEAD_BYTES).read_to_end(&mut head)?;
    let first = head.split(|b| *b == b'\n').next().unwrap_or_default();
    let identity = LogIdentity {
        dev: std::os::unix::fs::MetadataExt::dev(&meta),
        ino: std::os::unix::fs::MetadataExt::ino(&meta),
        head: if first.is_empty() {
            0
        } else {
            primitives::hash::fnv1a(first)
        },
    };
    Ok((file, identity, meta.len()))
}

/// The cursor to read `log` (of `len` bytes) from: `cursor` when it is about this log and within
/// it, else a fresh one at its start (a replaced or truncated log holds new records).
pub fn for_log(cursor: Cursor, log: LogIdentity, len: u64) -> Cursor {
    let same = cursor.log == log || (cursor.offset == 0 && !cursor.resync);
    if same && cursor.offset <= len {
        Cursor { log, ..cursor }
    } else {
        Cursor {
            log,
            ..Cursor::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_survives_a_round_trip_and_a_damaged_one_reads_as_the_start() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()), Cursor::default());
        let c = Cursor {
            offset: 12,
            sent: 2,
            ..Cursor::default()
        };
        write(dir.path(), &c).unwrap();
        assert_eq!(read(dir.path()), c);
        std::fs::write(path_in(dir.path()), b"{half").unwrap();
        assert_eq!(read(dir.path()), Cursor::default());
    }

    #[test]
    fn a_replaced_or_shorter_log_is_read_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("audit.jsonl");
        std::fs::write(&log, b"{\"a\":1}\n{\"b\":2}\n").unwrap();
        let (_, id, len) = open_log(&log).unwrap();
        let at = Cursor {
            log: id,
            offset: 8,
            ..Cursor::default()
        };
        assert_eq!(for_log(at.clone(), id, len).offset, 8);
        // Truncated below the offset.
        assert_eq!(for_log(at.clone(), id, 4).offset, 0);
        // Another file (a new inode), or the same inode with another first line.
        std::fs::remove_file(&log).unwrap();
        std::fs::write(&log, b"{\"c\":3}\n{\"d\":4}\n").unwrap();
        let (_, other, len) = open_log(&log).unwrap();
        assert_ne!(other, id);
        assert_eq!(for_log(at, other, len).offset, 0);
    }
}
