//! C7's verify step: after the kill, which processes of the session are still alive, found by
//! the session's marker rather than by group membership (a process can leave its group; a group
//! can be removed under it).
//!
//! A process counts when its environment carries `CLAUDE_CODE_SESSION_ID=<session>` and
//! `CLAUDE_CODE_CHILD_SESSION=1` (what the CLI sets for tool commands), it is not a hook
//! (`AI_AGENT=…_harness`), and it is neither this process nor one of its ancestors.

use proc_table::entry::{parse_stat, uptime_secs};
use proc_table::{read_entry, ProcEntry};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;
use std::time::Instant;

/// Bound on the environment read per process (the marker is set by the CLI at spawn, early).
const ENVIRON_BYTES: u64 = proc_table::entry::ENVIRON_BYTES as u64;

/// This process and its ancestors, by pid.
pub fn self_and_ancestors() -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    let mut pid = std::process::id() as i32;
    while pid > 1 && out.insert(pid) {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            break;
        };
        match parse_stat(&stat) {
            Some((_, ppid, ..)) => pid = ppid,
            None => break,
        }
    }
    out
}

/// Does the environment in `bytes` carry the marker of `session_id` (and is it not a hook)?
pub fn carries_marker(bytes: &[u8], session_id: &str) -> bool {
    let m = proc_table::entry::parse_environ(bytes);
    m.session_id.as_deref() == Some(session_id) && m.child_session && !m.harness
}

/// The live processes carrying `session_id`'s marker. Stops reading at `until` and says so.
pub fn marked_alive(session_id: &str, until: Instant) -> Result<Vec<ProcEntry>, String> {
    let proc_root = Path::new("/proc");
    let skip = self_and_ancestors();
    let uptime = uptime_secs(proc_root).unwrap_or(0.0);
    let needle = format!("CLAUDE_CODE_SESSION_ID={session_id}\0");
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(proc_root).map_err(|e| format!("cannot read /proc to verify: {e}"))?;
    let mut buf = Vec::new();
    for dirent in entries.flatten() {
        if Instant::now() >= until {
            return Err(format!(
                "the deadline passed while checking /proc for survivors ({} found so far)",
                out.len()
            ));
        }
        let Some(pid) = dirent
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if skip.contains(&pid) {
            continue;
        }
        buf.clear();
        let Ok(f) = std::fs::File::open(dirent.path().join("environ")) else {
            continue;
        };
        if f.take(ENVIRON_BYTES).read_to_end(&mut buf).is_err() {
            continue;
        }
        // A cheap substring test first; the exact parse only for candidates.
        if !contains(&buf, needle.as_bytes()) || !carries_marker(&buf, session_id) {
            continue;
        }
        if !crate::c7_session_end::alive(pid) {
            continue;
        }
        if let Some(e) = read_entry(proc_root, pid, true, uptime) {
            out.push(e);
        }
    }
    Ok(out)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_is_exact() {
        let env = b"A=1\0CLAUDE_CODE_SESSION_ID=s1\0CLAUDE_CODE_CHILD_SESSION=1\0";
        assert!(carries_marker(env, "s1"));
        assert!(!carries_marker(env, "s"));
        let hook = b"CLAUDE_CODE_SESSION_ID=s1\0CLAUDE_CODE_CHILD_SESSION=1\0AI_AGENT=claude-code_2_harness\0";
        assert!(
            !carries_marker(hook, "s1"),
            "a running hook is not a leftover"
        );
        assert!(!carries_marker(b"CLAUDE_CODE_SESSION_ID=s1\0", "s1"));
    }

    #[test]
    fn our_own_chain_is_skipped() {
        let chain = self_and_ancestors();
        assert!(chain.contains(&(std::process::id() as i32)));
    }
}
