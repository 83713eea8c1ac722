//! Writing a file so that readers see the old contents or the new, never half: the bytes go to a
//! new file in the same folder (a rename does not cross file systems), are flushed to disk, and
//! the new file is renamed over the old one.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` new-then-rename. The file gets `mode` when given; otherwise an
/// existing file's mode is kept, and a new file follows the umask (0o666 before it). The
/// parent folder must exist. On failure the temporary file is removed and `path` is unchanged.
pub fn write_atomically(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    let mode = mode.or_else(|| {
        std::fs::metadata(path)
            .ok()
            .map(|m| m.permissions().mode() & 0o7777)
    });
    let tmp = temp_path(path);
    let written = write_new(&tmp, bytes, mode).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A name beside `path` no other writer uses: hidden, with the process id and a per-process
/// serial (two threads of one process never share it).
fn temp_path(path: &Path) -> PathBuf {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    ))
}

fn write_new(tmp: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    // A file left by a process that died with our pid is stale: remove it.
    let _ = std::fs::remove_file(tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode.unwrap_or(0o666))
        .open(tmp)?;
    // The umask may have narrowed a kept mode; set it exactly.
    if let Some(m) = mode {
        f.set_permissions(std::fs::Permissions::from_mode(m))?;
    }
    f.write_all(bytes)?;
    f.sync_data()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode_of(p: &Path) -> u32 {
        std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp-"))
            .collect()
    }

    #[test]
    fn replaces_contents_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write_atomically(&p, b"one", None).unwrap();
        write_atomically(&p, b"two", None).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert!(leftovers(dir.path()).is_empty());
    }

    #[test]
    fn keeps_an_existing_mode_and_sets_a_given_one_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("hook");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o750)).unwrap();
        write_atomically(&p, b"new", None).unwrap();
        assert_eq!(mode_of(&p), 0o750);
        write_atomically(&p, b"newer", Some(0o600)).unwrap();
        assert_eq!(mode_of(&p), 0o600);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        // Renaming a file over a non-empty folder fails: the target stays as it was.
        let p = dir.path().join("target");
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join("inside"), b"x").unwrap();
        assert!(write_atomically(&p, b"new", None).is_err());
        assert!(p.join("inside").exists());
        assert!(leftovers(dir.path()).is_empty());
        // A missing parent folder is an error, not a created folder.
        assert!(write_atomically(&dir.path().join("no/such/file"), b"x", None).is_err());
        assert!(!dir.path().join("no").exists());
    }

    #[test]
    fn concurrent_writers_never_leave_a_torn_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("shared");
        std::thread::scope(|s| {
            for i in 0..8u8 {
                let p = &p;
                s.spawn(move || {
                    for _ in 0..20 {
                        write_atomically(p, &[i; 4096], None).unwrap();
                    }
                });
            }
        });
        let body = std::fs::read(&p).unwrap();
        assert_eq!(body.len(), 4096);
        assert!(body.iter().all(|b| *b == body[0]));
        assert!(leftovers(dir.path()).is_empty());
    }
}
