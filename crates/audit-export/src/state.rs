//! What the sender remembers across runs for the report: the last batch sent, the last error,
//! the running total. One small file in the state folder, replaced whole; written by the sender
//! only (never by a hook).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The state file in the state folder.
pub const STATE_FILE: &str = "otlp-export.json";
/// The sender's lock (one sender at a time; a second one does not wait, it says "busy").
pub const LOCK_FILE: &str = "otlp-export.lock";

/// A batch the collector took.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// When (RFC 3339).
    pub time: String,
    /// Records in that run.
    pub records: u64,
}

/// A failure, one line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// When (RFC 3339).
    pub time: String,
    /// What happened.
    pub message: String,
}

/// The sender's memory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The last run that sent records.
    pub last_sent: Option<Sent>,
    /// The last failure (kept after a later success: the report shows both with their times).
    pub last_error: Option<Failure>,
    /// Records sent in all runs.
    #[serde(default)]
    pub sent_total: u64,
}

/// The state file of `state_dir`.
pub fn path(state_dir: &Path) -> PathBuf {
    state_dir.join(STATE_FILE)
}

/// The state, or the empty one (bounded read of a regular file).
pub fn read(state_dir: &Path) -> State {
    crate::file::read(&path(state_dir)).unwrap_or_default()
}

/// Writes the state, new-then-rename.
pub fn write(state_dir: &Path, state: &State) -> std::io::Result<()> {
    crate::file::write(&path(state_dir), state)
}
