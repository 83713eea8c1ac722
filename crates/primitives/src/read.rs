//! Bounded reads of small files (configs, `/proc` entries): at most `limit` bytes, regular files
//! only, so a hook never blocks on a FIFO or reads a huge file.

use std::io::Read;
use std::path::Path;

/// The longest shell command a guard reads (the Bash tool's `command`): a longer one is past the
/// read bound, a typed unknown each guard answers (issue 47: a 7.4 MiB command cost each guard
/// 0.3-1 GB, and in a small memory group they were killed with no answer). The same size as the
/// largest script read (command-effects' `MAX_SCRIPT_BYTES`).
pub const MAX_COMMAND_BYTES: usize = 1024 * 1024;

/// The first `limit` bytes of the regular file at `path`; `None` when it is not a regular file
/// or cannot be read.
pub fn prefix(path: &Path, limit: u64) -> Option<Vec<u8>> {
    // Only regular files, checked on the open handle: opening a FIFO would block the caller.
    let file = crate::no_wait::open_regular(path, std::fs::OpenOptions::new().read(true)).ok()?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_at_most_the_limit_of_regular_files_only() {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        let manifest = std::fs::read(crate_dir.join("Cargo.toml")).unwrap();
        assert_eq!(
            prefix(&crate_dir.join("Cargo.toml"), 9).unwrap(),
            b"[package]"
        );
        assert_eq!(
            prefix(&crate_dir.join("Cargo.toml"), 1 << 20).unwrap(),
            manifest
        );
        assert_eq!(prefix(crate_dir, 100), None, "a folder");
        assert_eq!(prefix(Path::new("/dev/zero"), 100), None, "a device");
        assert_eq!(prefix(&crate_dir.join("no-such-file"), 100), None);
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        assert_eq!(prefix(&fifo, 100), None, "a FIFO is not opened");
    }
}
