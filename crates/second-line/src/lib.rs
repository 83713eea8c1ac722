//! The second line inside agent commands (requirement C10, issue 17): what really runs is judged
//! where it runs, with the kernel's own mechanisms, on Linux.
//!
//! * [`enter`] — the prefix's side: start the command's supervisor, enter a private mount
//!   namespace with the suite's files read-only ([`mounts`], [`protected`]), install the
//!   seccomp filter ([`syscalls`]) and hand its listener over;
//! * [`supervisor`] — answers every notification of the command's process tree: execs judged by
//!   the [`judge::ExecJudge`]s (folded with K1), writes to protected paths refused (I3);
//! * [`watchdog`] — stands in for a supervisor that died: its tree's execs fail closed with a
//!   line (`C10.unanswered`) instead of hanging or failing silently;
//! * [`network`] — `connect` to a non-local address: I1 evidence, K5 taint, `network_allow`;
//! * [`rules_adapter`] — the guards' own rule code as judges (G2–G6, M3); [`repo_cache`] keeps
//!   the repositories they open for the supervisor's life, lent only while unchanged on disk
//!   ([`fs_events`]: the kernel's change events spare the `stat`s while nothing happened);
//! * [`broker`] — C11: the session's credential broker found or started ([`broker_process`]),
//!   its environment and the credential files with the placeholder ([`credential_files`])
//!   given to the command;
//! * [`service`] — a system install's exec-gate service: the supervisors run as the suite's own
//!   user, out of the agent's reach (issue 40);
//! * [`layers`] — which layers this host and user can have, for `--report`;
//! * [`pid_files`] — the session's running supervisors, and SessionEnd's stop over them
//!   ([`stop_session`], [`stop_session_after`]).
//!
//! The pure parts ([`judge`], [`protected`], [`layers`]'s plan) build everywhere; the kernel
//! parts only on Linux.

/// The second line's own sub-codes, from `spec/second-line.md`.
pub mod codes;
pub mod credential_files;
pub mod fs_events;
pub mod identity;
pub mod judge;
pub mod protected;
pub mod repo_cache;
pub mod rules_adapter;

#[cfg(target_os = "linux")]
pub mod broker;
#[cfg(target_os = "linux")]
pub mod broker_process;
#[cfg(target_os = "linux")]
pub mod cli_process;
#[cfg(target_os = "linux")]
pub mod enter;
#[cfg(target_os = "linux")]
pub mod layers;
#[cfg(target_os = "linux")]
pub mod mounts;
#[cfg(target_os = "linux")]
pub mod namespace_calls;
#[cfg(target_os = "linux")]
pub mod network;
#[cfg(target_os = "linux")]
pub mod notify;
#[cfg(target_os = "linux")]
pub mod service;
#[cfg(target_os = "linux")]
pub mod supervisor;
#[cfg(target_os = "linux")]
pub mod syscalls;
#[cfg(target_os = "linux")]
pub mod user_namespace;
#[cfg(target_os = "linux")]
pub mod watchdog;

#[cfg(target_os = "linux")]
pub mod pid_files;

#[cfg(target_os = "linux")]
pub use pid_files::{start_time, stop_session, stop_session_after, PID_DIR};
