//! The CLI that runs the session holds the maintainer's credentials (its launch environment, the
//! tokens and keys in its memory) while every agent command runs as the same user: from a
//! command, `/proc/<CLI pid>/environ` and `/proc/<CLI pid>/mem` (or a thread's, `/proc/<tid>/`)
//! would hand them over, placeholders or not (C11, issue 38). Inside the command's mount
//! namespace the CLI's `/proc` entries are hidden under an empty read-only tmpfs, and the filter
//! refuses the calls that read another process's memory or take its descriptors
//! (`process_vm_readv`/`writev`, `pidfd_getfd`: [`crate::namespace_calls`]); `ptrace` attach was
//! refused already. Threads the CLI starts after the command began are not hidden.

use std::path::PathBuf;

/// The CLI's pid: `CLAUDE_PID` (the CLI sets it for its commands), else the prefix's parent
/// (the CLI runs the prefix itself). Never pid 1 or 0: init is nobody's CLI.
pub fn pid(env: &dyn Fn(&str) -> Option<String>) -> Option<u32> {
    env("CLAUDE_PID")
        .and_then(|p| p.trim().parse().ok())
        .or_else(|| Some(std::os::unix::process::parent_id()))
        .filter(|p| *p > 1)
}

/// The `/proc` folders of `pid` and of each of its threads (a thread's folder reaches the same
/// memory and environment). Bounded: at most 4096 threads.
pub fn proc_entries(pid: u32) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from(format!("/proc/{pid}"))];
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten().take(4096) {
            if let Some(tid) = t.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) {
                if tid != pid {
                    out.push(PathBuf::from(format!("/proc/{tid}")));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cli_is_claude_pid_else_the_parent_and_never_init() {
        assert_eq!(pid(&|_| Some("4242".into())), Some(4242));
        assert_eq!(
            pid(&|_| None),
            Some(std::os::unix::process::parent_id()).filter(|p| *p > 1)
        );
        assert_eq!(pid(&|_| Some("1".into())), None);
        let threads = std::thread::spawn(|| proc_entries(std::process::id()));
        let entries = threads.join().unwrap();
        assert_eq!(
            entries[0],
            PathBuf::from(format!("/proc/{}", std::process::id()))
        );
        assert!(
            entries.len() >= 2,
            "the test runner's threads are listed: {entries:?}"
        );
    }
}
