//! Where the suite keeps what it learns: one folder per session under the state dir.
//!
//! * [`paths`] — the state dir (`$XDG_STATE_HOME/agent-guards`, default `~/.local/state/agent-guards`)
//!   and safe folder names for session ids;
//! * [`ledger`] — per-session state (taint, counters, cached lookups, recorded model) updated under an
//!   exclusive file lock and written new-then-renamed, so concurrent hooks and crashes never corrupt it;
//! * [`audit`] — the JSON-lines audit log: full evidence for the maintainer, one line per decision,
//!   appended under a lock so concurrent hooks never interleave lines;
//! * [`journal`] — each audit record's copy in the system journal (or syslog), where the agent's
//!   user cannot erase it;
//! * [`config_notice`] — a config problem said to the user once per session, and recorded.

#![warn(missing_docs)]

pub mod audit;
pub mod config_notice;
pub mod journal;
pub mod ledger;
pub mod paths;
pub mod record;
pub mod service;
pub mod time;

pub use audit::AuditLog;
pub use ledger::{Ledger, RECOVERED_KEY};
pub use paths::{session_dir_name, state_dir, Session};
pub use record::{AuditRecord, Decision};

/// Errors of the store, each one line.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Neither `XDG_STATE_HOME` nor `HOME` names a state dir.
    #[error("no state dir: neither XDG_STATE_HOME nor HOME is set")]
    NoStateDir,
    /// A file operation failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A ledger that was not a JSON object, moved aside.
    #[error("{path}: damaged ledger (not a JSON object); moved aside to {moved_to}")]
    Corrupt {
        /// The ledger.
        path: String,
        /// Where the damaged file went.
        moved_to: String,
    },
}

impl StoreError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.display().to_string(),
            source,
        }
    }
}
