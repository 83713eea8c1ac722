//! S4: honest limits — what the sweep could not see.

use proc_table::TableRead;

/// Whether this build can read the process table: Linux (`/proc`), unless built with
/// `--cfg agent_guards_portable` (so CI tests the other branch on Linux).
pub const PROCESS_TABLE_HERE: bool = cfg!(all(target_os = "linux", not(agent_guards_portable)));

/// The SessionEnd report where the process table cannot be read (macOS, the BSDs): the sweep says
/// it did not look rather than report that nothing was left.
pub fn no_process_table() -> String {
    let system = if cfg!(agent_guards_portable) {
        format!(
            "{}, built with --cfg agent_guards_portable",
            std::env::consts::OS
        )
    } else {
        std::env::consts::OS.to_string()
    };
    format!(
        "stray-process-sweep (S4): cannot see processes on this system ({system}): the sweep reads each process's parent and environment from /proc, which only Linux has; processes this session left running were not looked for."
    )
}

/// One line per blind spot of this sweep.
pub fn limits(read: &TableRead) -> Vec<String> {
    let mut out = Vec::new();
    if read.other_users > 0 {
        out.push(format!(
            "{} process(es) of other users (their environment is not read)",
            read.other_users
        ));
    }
    if read.env_unreadable > 0 {
        out.push(format!(
            "{} process(es) of this user whose environment could not be read (zombies, kernel threads, raced exits)",
            read.env_unreadable
        ));
    }
    if read.env_truncated > 0 {
        out.push(format!(
            "{} process(es) with an environment over {} MiB, read only in part (a session marker past that is unseen)",
            read.env_truncated,
            proc_table::entry::ENVIRON_BYTES >> 20
        ));
    }
    if read.started_before_agent > 0 {
        out.push(format!(
            "{} process(es) of this user started before the agent, whose environment was not read (an earlier run of a resumed session)",
            read.started_before_agent
        ));
    }
    out.push(
        "processes that cleared or replaced their environment and left the agent's process tree"
            .into(),
    );
    out
}
