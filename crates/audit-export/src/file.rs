//! The exporter's own small JSON files (cursors, state): read bounded from a regular file only,
//! written whole new-then-rename, so a reader sees the old value or the new one and a FIFO in
//! their place never blocks the sender or the report.

use serde::{de::DeserializeOwned, Serialize};
use std::path::Path;

/// The most of such a file that is read.
const MAX_BYTES: u64 = 64 * 1024;

/// The value in `path`; `None` when missing, not a regular file, or not that value.
pub fn read<T: DeserializeOwned>(path: &Path) -> Option<T> {
    primitives::read::prefix(path, MAX_BYTES).and_then(|b| serde_json::from_slice(&b).ok())
}

/// Writes `value` to `path` (mode 0600), new-then-rename.
pub fn write<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    primitives::atomic::write_atomically(path, &bytes, Some(0o600))
}
