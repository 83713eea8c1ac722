//! The facts of a system install's exec-gate service (issue 40 item 2) that the prefix, the
//! service, the hooks reading its records and the installer share: where it listens, which
//! account it runs as with which capabilities, and where it keeps its records.

use std::path::{Path, PathBuf};

/// Where the service listens (a `SOCK_SEQPACKET` socket every local user may connect to).
pub const SOCKET: &str = "/run/agent-guards/exec-gate.sock";

/// The system account the service runs as (the installer creates it).
pub const USER: &str = "agent-guards";

/// The capabilities the service keeps after dropping to [`USER`], by number and name:
/// another user's processes' memory, cwd and descriptors in `/proc` (`CAP_SYS_PTRACE`), their
/// repositories and config in folders only they may read (`CAP_DAC_READ_SEARCH`), and a place
/// ahead of the command in the run queue (`CAP_SYS_NICE`).
pub const KEPT_CAPABILITIES: &[(u32, &str)] = &[
    (2, "CAP_DAC_READ_SEARCH"),
    (19, "CAP_SYS_PTRACE"),
    (23, "CAP_SYS_NICE"),
];

/// The service's state: [`USER`]'s, so an agent command can neither edit nor remove what the
/// service records there.
pub const STATE_DIR: &str = "/var/lib/agent-guards";

/// The service's records about the agent commands of user `uid`: a state dir of the same shape
/// as a user's (`sessions/<id>/...`).
pub fn state_dir(uid: u32) -> PathBuf {
    Path::new(STATE_DIR).join("users").join(uid.to_string())
}
