//! The per-session ledger: one JSON object, updated read-modify-write under an exclusive lock.
//!
//! The lock lives on a separate `ledger.lock` file because the ledger itself is replaced by rename
//! on every write (a crash mid-write leaves the old ledger whole). For the same reason a reader
//! takes no lock: it sees the old ledger or the new, never half. A writer waits for the lock at
//! most [`LOCK_BOUND`]: the lock file is the agent's to hold, and a held lock is an error the
//! caller answers (taint fails closed), never a wait (issue 47).

use crate::StoreError;
use primitives::no_wait::{lock_while_progressing, open_regular, LockKind, LOCK_BOUND};
use serde_json::{Map, Value};
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// Key set in a ledger that replaced a damaged one: its value is where the damaged file went.
/// State recorded before the damage (taint among it) may be lost, so readers fail closed on it.
pub const RECOVERED_KEY: &str = "recovered_from_damaged_ledger";

/// Ledgers larger than this are not ours; they are moved aside rather than parsed.
const MAX_LEDGER_BYTES: u64 = 16 * 1024 * 1024;

/// One session's ledger file: a JSON object updated under an exclusive lock.
#[derive(Debug, Clone)]
pub struct Ledger {
    path: PathBuf,
}

impl Ledger {
    /// The ledger at `path` (created on the first update).
    pub fn at(path: PathBuf) -> Ledger {
        Ledger { path }
    }

    /// Where the ledger is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn lock_path(&self) -> PathBuf {
        self.path.with_extension("lock")
    }

    fn open_lock(&self) -> Result<File, StoreError> {
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
        }
        let lock_path = self.lock_path();
        open_regular(
            &lock_path,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .map_err(|e| StoreError::io(&lock_path, e))
    }

    /// Reads the ledger (no lock: writers replace it whole). A missing ledger is an empty object.
    /// A damaged one is an error (left in place for the next update to move aside), never a
    /// silent empty map: a reader deciding on taint must be able to fail closed.
    pub fn read(&self) -> Result<Map<String, Value>, StoreError> {
        match self.parse_current()? {
            Some(map) => Ok(map),
            None => Err(StoreError::Corrupt {
                path: self.path.display().to_string(),
                moved_to: "(left in place)".into(),
            }),
        }
    }

    /// Applies `change` to the ledger under an exclusive lock and writes the result atomically.
    /// Returns what `change` returned. A corrupt ledger is moved aside and reported after the
    /// update, so a damaged file never blocks the hook.
    pub fn update<T>(
        &self,
        change: impl FnOnce(&mut Map<String, Value>) -> T,
    ) -> Result<T, StoreError> {
        let lock = self.open_lock()?;
        // Writers replace the ledger by rename: a new file each turn is progress.
        let progress = || primitives::stamp::version(&self.path).fingerprint();
        lock_while_progressing(&lock, LockKind::Exclusive, LOCK_BOUND, &progress)
            .map_err(|e| StoreError::io(&self.lock_path(), e))?;
        let result = (|| {
            let (mut map, corrupt) = self.load()?;
            let out = change(&mut map);
            self.save(&map)?;
            match corrupt {
                Some(moved_to) => Err(StoreError::Corrupt {
                    path: self.path.display().to_string(),
                    moved_to,
                }),
                None => Ok(out),
            }
        })();
        let _ = lock.unlock();
        result
    }

    /// The current ledger: `Some(map)` (empty when absent), `None` when the file is damaged.
    fn parse_current(&self) -> Result<Option<Map<String, Value>>, StoreError> {
        let meta = match std::fs::metadata(&self.path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Some(Map::new())),
            Err(e) => return Err(StoreError::io(&self.path, e)),
        };
        // Not a regular file (a FIFO would block the read forever): damaged.
        let parsed = if meta.len() > MAX_LEDGER_BYTES || !meta.is_file() {
            None
        } else {
            let text = primitives::read::prefix(&self.path, MAX_LEDGER_BYTES).ok_or_else(|| {
                StoreError::io(&self.path, std::io::Error::other("not a readable file"))
            })?;
            match serde_json::from_slice::<Value>(&text) {
                Ok(Value::Object(m)) => Some(m),
                _ => None,
            }
        };
        Ok(parsed)
    }

    /// Loads the ledger for an update. A damaged one is moved aside and replaced by a map that
    /// records where it went ([`RECOVERED_KEY`]), so readers know state may have been lost.
    fn load(&self) -> Result<(Map<String, Value>, Option<String>), StoreError> {
        match self.parse_current()? {
            Some(m) => Ok((m, None)),
            None => {
                let aside = self
                    .path
                    .with_extension(format!("corrupt-{}", std::process::id()));
                std::fs::rename(&self.path, &aside).map_err(|e| StoreError::io(&self.path, e))?;
                let moved = aside.display().to_string();
                let mut fresh = Map::new();
                fresh.insert(RECOVERED_KEY.into(), Value::String(moved.clone()));
                Ok((fresh, Some(moved)))
            }
        }
    }

    fn save(&self, map: &Map<String, Value>) -> Result<(), StoreError> {
        let body = serde_json::to_vec(map).map_err(|e| StoreError::io(&self.path, e.into()))?;
        primitives::atomic::write_atomically(&self.path, &body, None)
            .map_err(|e| StoreError::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A ledger whose file holds `bytes`, in a temp folder that lives as long as the guard.
    fn damaged(bytes: &[u8]) -> (tempfile::TempDir, Ledger) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.json");
        std::fs::write(&path, bytes).unwrap();
        (dir, Ledger::at(path))
    }

    #[test]
    fn update_and_read_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let l = Ledger::at(dir.path().join("s/ledger.json"));
        assert!(l.read().unwrap().is_empty());
        l.update(|m| {
            m.insert("tainted".into(), json!(true));
        })
        .unwrap();
        let n = l
            .update(|m| {
                let c = m.get("count").and_then(Value::as_u64).unwrap_or(0) + 1;
                m.insert("count".into(), json!(c));
                c
            })
            .unwrap();
        assert_eq!(n, 1);
        let m = l.read().unwrap();
        assert_eq!(m["tainted"], json!(true));
        assert_eq!(m["count"], json!(1));
    }

    #[test]
    fn reading_a_damaged_ledger_is_an_error_not_an_empty_map() {
        let (_dir, l) = damaged(b"[1,2]");
        assert!(matches!(l.read(), Err(StoreError::Corrupt { .. })));
        assert!(l.path().exists(), "left in place");
    }

    #[test]
    fn corrupt_ledger_is_moved_aside_and_reported() {
        let (dir, l) = damaged(b"{\"half\": ");
        let err = l
            .update(|m| {
                m.insert("k".into(), json!(1));
            })
            .unwrap_err();
        assert!(matches!(err, StoreError::Corrupt { .. }));
        let after = l.read().unwrap();
        assert_eq!(after["k"], json!(1), "the update still landed");
        assert!(after[RECOVERED_KEY].as_str().unwrap().contains("corrupt"));
        let aside = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().contains("corrupt"));
        assert!(aside, "the damaged file is kept for the maintainer");
    }

    #[test]
    fn a_ledger_that_is_a_fifo_is_damaged_not_a_hang() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.json");
        let made = std::process::Command::new("mkfifo").arg(&path).status();
        assert!(made.unwrap().success());
        let (tx, rx) = std::sync::mpsc::channel();
        let l = Ledger::at(path);
        std::thread::spawn(move || {
            let _ = tx.send(matches!(l.read(), Err(StoreError::Corrupt { .. })));
        });
        let answered = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(answered, Ok(true), "answered without a writer on the FIFO");
    }
}
