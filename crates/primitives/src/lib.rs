//! One helper per primitive, shared by every crate of the workspace, so a fix lands in one place:
//!
//! * [`atomic`] — write a file new-then-rename (same folder, fsync, mode kept), so a reader sees
//!   the old contents or the new, never half;
//! * [`hash`] — FNV-1a, a stable short name for a text (file names, fingerprints; not a security
//!   boundary);
//! * [`wildcard`] — shell-style wildcards (`*`, `?`, `[...]`) in the dialect each caller's source
//!   defines (branch patterns, refspecs, ssh `Host` lines, shell words), matched by `globset`;
//! * [`read`] — bounded reads of small regular files (configs, `/proc` entries);
//! * [`stamp`] — one version of a file, for a holder that reads it again only when it changed;
//! * [`time`] — RFC 3339 timestamps for records.

#![warn(missing_docs)]

pub mod atomic;
pub mod hash;
pub mod read;
pub mod stamp;
pub mod time;
pub mod wildcard;
