//! One helper per primitive, shared by every crate of the workspace, so a fix lands in one place:
//!
//! * [`after_answer`] — work a hook defers until its answer is out, run under a bound;
//! * [`atomic`] — write a file new-then-rename (same folder, fsync, mode kept), so a reader sees
//!   the old contents or the new, never half;
//! * [`hash`] — FNV-1a, a stable short name for a text (file names, fingerprints; not a security
//!   boundary);
//! * [`wildcard`] — shell-style wildcards (`*`, `?`, `[...]`) in the dialect each caller's source
//!   defines (branch patterns, refspecs, ssh `Host` lines, shell words), matched by `globset`;
//! * [`home`] — the home folder as bash finds it (`$HOME`, else the password database);
//! * [`no_wait`] — open a file only when it is a regular one, and lock it within a bound, so the
//!   agent cannot make a hook wait (a FIFO in its place, a lock held);
//! * [`read`] — bounded reads of small regular files (configs, `/proc` entries);
//! * [`stamp`] — one version of a file, for a holder that reads it again only when it changed;
//! * [`time`] — RFC 3339 timestamps for records.

#![warn(missing_docs)]

pub mod after_answer;
pub mod atomic;
pub mod error_text;
pub mod hash;
pub mod home;
pub mod no_wait;
pub mod read;
pub mod stamp;
pub mod time;
pub mod users;
pub mod wildcard;
