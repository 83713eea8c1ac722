//! One version of a file, for a holder that keeps what it read from it (a parsed config, the
//! ledger's rules) and reads it again only when the file changed: identity, owner, mode, size
//! and both times in nanoseconds. A version written within the last second ([`SETTLED`]) is not
//! trusted: file times can be coarse, and a write in the same tick as the read would look
//! unchanged.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long ago a file must have changed for its version to be trusted.
pub const SETTLED: Duration = Duration::from_secs(1);

/// One version of the file at a path (absent counts: a file that appears is a change).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// Nothing there (or it cannot be stat'ed).
    Absent,
    /// The file's identity, owner, mode, size and times as `(seconds, nanoseconds)`.
    File {
        /// Device and inode: a file replaced by a rename is another file.
        id: (u64, u64),
        /// Owner and mode.
        owner_mode: (u32, u32),
        /// Size in bytes.
        size: u64,
        /// Modification and change times.
        times: [(i64, i64); 2],
    },
}

impl Version {
    /// One number that differs between versions (with overwhelming likelihood): a holder that
    /// only needs "did it change" ([`crate::no_wait::lock_while_progressing`]).
    pub fn fingerprint(&self) -> u64 {
        match self {
            Version::Absent => 0,
            Version::File {
                id,
                owner_mode,
                size,
                times,
            } => {
                let words = [
                    id.0,
                    id.1,
                    u64::from(owner_mode.0) << 32 | u64::from(owner_mode.1),
                    *size,
                    times[0].0 as u64,
                    times[0].1 as u64,
                    times[1].0 as u64,
                    times[1].1 as u64,
                ];
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                crate::hash::fnv1a(&bytes) | 1
            }
        }
    }
}

/// The version of the file at `path` now.
pub fn version(path: &Path) -> Version {
    match std::fs::metadata(path) {
        Ok(m) => Version::File {
            id: (m.dev(), m.ino()),
            owner_mode: (m.uid(), m.mode()),
            size: m.size(),
            times: [(m.mtime(), m.mtime_nsec()), (m.ctime(), m.ctime_nsec())],
        },
        Err(_) => Version::Absent,
    }
}

/// The version of the file at `path`, or `None` when it changed within [`SETTLED`] (the holder
/// reads it again next time).
pub fn settled(path: &Path) -> Option<Version> {
    let v = version(path);
    let settled = SystemTime::now().checked_sub(SETTLED)?;
    match v {
        Version::File { times, .. } if times.iter().any(|t| !before(*t, settled)) => None,
        v => Some(v),
    }
}

/// Where a long-lived holder gets a file's settled version: by `stat` ([`ByStat`]), or from a
/// source that stats only after the kernel reported a change (the exec gate's supervisor, whose
/// judgements ask about the same few files on every exec).
pub trait Versions: Send + Sync {
    /// What [`settled`] would answer for `path` now.
    fn settled(&self, path: &Path) -> Option<Version>;
}

/// [`settled`] itself: one `stat` per question.
pub struct ByStat;

impl Versions for ByStat {
    fn settled(&self, path: &Path) -> Option<Version> {
        settled(path)
    }
}

/// Whether the file time `(seconds, nanoseconds)` is before `t`.
pub fn before((secs, nanos): (i64, i64), t: SystemTime) -> bool {
    let Ok(t) = t.duration_since(UNIX_EPOCH) else {
        return false;
    };
    (secs, nanos) < (t.as_secs() as i64, i64::from(t.subsec_nanos()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_trusted_once_settled_and_changes_with_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        assert_eq!(settled(&path), Some(Version::Absent), "absent is settled");
        std::fs::write(&path, "a").unwrap();
        assert_eq!(settled(&path), None, "just written");
        std::thread::sleep(SETTLED + Duration::from_millis(100));
        let first = settled(&path).expect("settled");
        assert_eq!(first, version(&path));
        assert_ne!(first, Version::Absent);
        // The same size, written again: the times tell.
        std::fs::write(&path, "b").unwrap();
        assert_ne!(version(&path), first);
        assert_eq!(settled(&path), None);
    }
}
