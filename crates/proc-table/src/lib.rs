//! The process table as the two process-facing binaries need it.
//!
//! * [`entry`] — one process: ids, owner, age, command line, and the Claude Code environment marker
//!   (`CLAUDE_CODE_SESSION_ID`, `CLAUDE_CODE_CHILD_SESSION`) read straight from `/proc/<pid>/environ`;
//! * [`age`] — ages as people read them (`59s`, `1m30s`, `4h12m`);
//! * [`groups`] — how a containment group shows up in `/proc/<pid>/cgroup`, so the sweep can say
//!   whether a survivor is bounded and tool-containment can name what it stopped.
//!
//! `/proc` in this shape is Linux's: elsewhere every read finds nothing (the callers check
//! `stray_process_sweep::s4_limits::PROCESS_TABLE_HERE` and tool-containment's
//! `no_cgroups::CONTAINMENT_HERE` first and say what they cannot see). The code is portable Rust,
//! so it builds everywhere.
//!
//! Reads are bounded (command lines and environments are capped) and a process that vanishes
//! mid-read is skipped, never an error: the table changes while we read it.

#![warn(missing_docs)]

pub mod age;
pub mod entry;
pub mod groups;

pub use age::format_age;
pub use entry::{
    fill_cmdline, fill_env, read_entry, read_stats, read_table, EnvMarker, ProcEntry, TableRead,
    CMDLINE_CHARS,
};
pub use groups::{containment_group, CONTAINMENT_ROOT};
