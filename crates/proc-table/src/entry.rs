//! One process, read from `/proc`, and the whole table.

use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// How much of a command line the reports keep (S2: "the first ~160 characters").
pub const CMDLINE_CHARS: usize = 160;
/// Bound on one `/proc/<pid>/environ` read. An environment larger than this is cut and marked
/// [`EnvMarker::truncated`], so a marker past the bound is reported as unseen, never missed
/// silently (environments this large are rare: the kernel's default limit is 1/4 of the stack).
pub const ENVIRON_BYTES: usize = 16 * 1024 * 1024;
/// Bound on one `/proc/<pid>/cmdline` read.
const CMDLINE_BYTES: usize = 4096;

/// What a process's environment says about Claude Code sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EnvMarker {
    /// `CLAUDE_CODE_SESSION_ID`, when set.
    pub session_id: Option<String>,
    /// `CLAUDE_CODE_CHILD_SESSION=1` (set for tool commands and hooks, not for MCP servers).
    pub child_session: bool,
    /// `AI_AGENT` ends in `_harness`: a hook process the CLI runs (2.1.332 and later).
    pub harness: bool,
    /// False when the environment could not be read (another user, a kernel thread, a zombie).
    pub readable: bool,
    /// The environment was larger than [`ENVIRON_BYTES`]; only its start was read.
    pub truncated: bool,
}

/// One process.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ProcEntry {
    /// Process id.
    pub pid: i32,
    /// Parent's process id.
    pub ppid: i32,
    /// Process group id.
    pub pgid: i32,
    /// Session id (the terminal session, not the agent session).
    pub sid: i32,
    /// Real user id.
    pub uid: u32,
    /// Seconds since the process started.
    #[serde(default)]
    pub age_secs: u64,
    /// The short name from `stat` (`comm`).
    pub comm: String,
    /// Start time in clock ticks since boot (`stat` field 22): with the pid, the identity of a
    /// process (a reused pid has a later start).
    #[serde(default)]
    pub start_ticks: u64,
    /// The command line with NULs as spaces, at most [`CMDLINE_CHARS`] characters.
    pub cmdline: String,
    /// The agent-guards session marker read from its environment, if any.
    #[serde(default)]
    pub env: EnvMarker,
}

/// A read of the whole table.
#[derive(Debug, Clone, Default)]
pub struct TableRead {
    /// Every process read.
    pub entries: Vec<ProcEntry>,
    /// Processes of other users whose environment was not read (S4).
    pub other_users: usize,
    /// Processes of our user whose environment could not be read (cleared, zombie, raced).
    pub env_unreadable: usize,
    /// Processes whose environment was larger than [`ENVIRON_BYTES`] (a marker past it is unseen).
    pub env_truncated: usize,
    /// Processes of this user whose environment was not read because they started before the
    /// agent (they cannot have been spawned by this run of the session).
    pub started_before_agent: usize,
    /// The deadline passed before the whole table was read.
    pub truncated: bool,
}

fn read_capped(path: &Path, cap: usize) -> std::io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    let mut buf = Vec::with_capacity(cap.min(8192));
    f.take(cap as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

/// Clock ticks per second, for `starttime`.
fn ticks_per_second() -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as u64
    } else {
        100
    }
}

/// Seconds since boot, from `/proc/uptime` under `proc_root`.
pub fn uptime_secs(proc_root: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(proc_root.join("uptime")).ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// The fields of `/proc/<pid>/stat` we use: (comm, ppid, pgrp, session, starttime ticks).
pub fn parse_stat(text: &str) -> Option<(String, i32, i32, i32, u64)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // rest[0] is field 3 (state); starttime is field 22.
    Some((
        comm,
        rest.get(1)?.parse().ok()?,
        rest.get(2)?.parse().ok()?,
        rest.get(3)?.parse().ok()?,
        rest.get(19)?.parse().ok()?,
    ))
}

/// The marker variables from raw environ bytes.
pub fn parse_environ(bytes: &[u8]) -> EnvMarker {
    let mut marker = EnvMarker {
        readable: true,
        ..EnvMarker::default()
    };
    for var in bytes.split(|b| *b == 0) {
        if let Some(v) = var.strip_prefix(b"CLAUDE_CODE_SESSION_ID=") {
            marker.session_id = Some(String::from_utf8_lossy(v).into_owned());
        } else if var == b"CLAUDE_CODE_CHILD_SESSION=1" {
            marker.child_session = true;
        } else if var.starts_with(b"AI_AGENT=") && var.ends_with(b"_harness") {
            marker.harness = true;
        }
    }
    marker
}

/// A command line from raw cmdline bytes, NULs as spaces, escaped for a report (a newline in an
/// argument shows as `\\n`, an escape sequence as `\\x1b`) and clipped to [`CMDLINE_CHARS`].
pub fn clip_cmdline(bytes: &[u8]) -> String {
    let mut end = bytes.len();
    while end > 0 && bytes[end - 1] == 0 {
        end -= 1;
    }
    let joined: Vec<u8> = bytes[..end]
        .iter()
        .map(|b| if *b == 0 { b' ' } else { *b })
        .collect();
    hook_io::escape_bytes(&joined, CMDLINE_CHARS + 1)
}

/// Reads one process's owner and `stat` (no command line, no environment: `cmdline` is empty
/// and `env` unread). `None` when the process vanished.
pub fn read_stat_entry(proc_root: &Path, pid: i32, uptime: f64) -> Option<ProcEntry> {
    let dir: PathBuf = proc_root.join(pid.to_string());
    let uid = std::fs::metadata(&dir).ok()?.uid();
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    let (comm, ppid, pgid, sid, start_ticks) = parse_stat(&stat)?;
    let started = start_ticks as f64 / ticks_per_second() as f64;
    let age_secs = (uptime - started).max(0.0) as u64;
    Some(ProcEntry {
        pid,
        ppid,
        pgid,
        sid,
        uid,
        age_secs,
        comm: hook_io::escape_text(&comm, 32),
        start_ticks,
        cmdline: String::new(),
        env: EnvMarker::default(),
    })
}

/// Reads `e`'s command line (escaped, clipped; `[comm]` when empty).
pub fn fill_cmdline(proc_root: &Path, e: &mut ProcEntry) {
    let dir = proc_root.join(e.pid.to_string());
    let cmdline = read_capped(&dir.join("cmdline"), CMDLINE_BYTES)
        .map(|b| clip_cmdline(&b))
        .unwrap_or_default();
    e.cmdline = if cmdline.is_empty() {
        format!("[{}]", e.comm)
    } else {
        cmdline
    };
}

/// Reads `e`'s environment markers.
pub fn fill_env(proc_root: &Path, e: &mut ProcEntry) {
    let dir = proc_root.join(e.pid.to_string());
    e.env = match read_capped(&dir.join("environ"), ENVIRON_BYTES) {
        Ok(bytes) if !bytes.is_empty() => EnvMarker {
            truncated: bytes.len() >= ENVIRON_BYTES,
            ..parse_environ(&bytes)
        },
        // An empty environ is a kernel thread, a zombie or a cleared environment.
        _ => EnvMarker::default(),
    };
}

/// Reads one process. `with_env` reads its environment too (costly; only for our user's processes).
/// `None` when the process vanished or its `stat` is unreadable.
pub fn read_entry(proc_root: &Path, pid: i32, with_env: bool, uptime: f64) -> Option<ProcEntry> {
    let mut e = read_stat_entry(proc_root, pid, uptime)?;
    fill_cmdline(proc_root, &mut e);
    if with_env {
        fill_env(proc_root, &mut e);
    }
    Some(e)
}

/// The pids listed under `proc_root` (the numeric directory names), in directory order.
pub fn pids(proc_root: &Path) -> std::io::Result<impl Iterator<Item = i32>> {
    Ok(std::fs::read_dir(proc_root)?.filter_map(|d| {
        d.ok()?
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
    }))
}

/// Every process's owner and `stat` under `proc_root`, sorted by pid; stops at `deadline`
/// (marking the read truncated). Command lines and environments are read later, only for the
/// processes that need them ([`fill_cmdline`], [`fill_env`]).
pub fn read_stats(
    proc_root: &Path,
    deadline: Option<std::time::Instant>,
) -> std::io::Result<TableRead> {
    let uptime = uptime_secs(proc_root).unwrap_or(0.0);
    let all: Vec<i32> = pids(proc_root)?.collect();
    // procfs reads are independent: a few threads share the work (and, on a loaded host, get a
    // fairer share of the CPU than one).
    let chunk = all.len().div_ceil(STAT_THREADS).max(1);
    let parts: Vec<(Vec<ProcEntry>, bool)> = std::thread::scope(|scope| {
        let handles: Vec<_> = all
            .chunks(chunk)
            .map(|pids| {
                scope.spawn(move || {
                    let mut out = Vec::with_capacity(pids.len());
                    for pid in pids {
                        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
                            return (out, true);
                        }
                        if let Some(e) = read_stat_entry(proc_root, *pid, uptime) {
                            out.push(e);
                        }
                    }
                    (out, false)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let mut read = TableRead::default();
    for (entries, cut) in parts {
        read.entries.extend(entries);
        read.truncated |= cut;
    }
    read.entries.sort_by_key(|e| e.pid);
    Ok(read)
}

/// Threads reading `stat` in [`read_stats`].
const STAT_THREADS: usize = 4;

/// Reads every process under `proc_root`. Environments are read only for processes owned by
/// `env_uid`; the others are counted (S4: we cannot see into them). Stops at `deadline`, marking
/// the read as truncated.
pub fn read_table(
    proc_root: &Path,
    env_uid: u32,
    deadline: Option<std::time::Instant>,
) -> std::io::Result<TableRead> {
    let uptime = uptime_secs(proc_root).unwrap_or(0.0);
    let mut read = TableRead::default();
    for pid in pids(proc_root)? {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            read.truncated = true;
            break;
        }
        let Some(mut entry) = read_stat_entry(proc_root, pid, uptime) else {
            continue;
        };
        fill_cmdline(proc_root, &mut entry);
        if entry.uid == env_uid {
            fill_env(proc_root, &mut entry);
        }
        // Kernel threads (kthreadd and its children) have no environment to read.
        let kernel_thread = entry.pid == 2 || entry.ppid == 2;
        if entry.uid != env_uid {
            read.other_users += 1;
        } else if !entry.env.readable && !kernel_thread {
            read.env_unreadable += 1;
        }
        read.entries.push(entry);
    }
    read.entries.sort_by_key(|e| e.pid);
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_with_odd_comm() {
        let s = "4242 (we ird) name)) S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 100 18446744073709551615";
        let (comm, ppid, pgrp, sid, start) = parse_stat(s).unwrap();
        assert_eq!(comm, "we ird) name)");
        assert_eq!((ppid, pgrp, sid, start), (1, 4242, 4242, 987654));
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn reads_markers_exactly() {
        let m = parse_environ(b"A=1\0CLAUDE_CODE_SESSION_ID=abc\0CLAUDE_CODE_CHILD_SESSION=1\0");
        assert_eq!(m.session_id.as_deref(), Some("abc"));
        assert!(m.child_session && m.readable && !m.harness);
        assert!(parse_environ(b"AI_AGENT=claude-code_2-1-332_harness\0").harness);
        let m = parse_environ(b"XCLAUDE_CODE_SESSION_ID=abc\0CLAUDE_CODE_CHILD_SESSION=10\0");
        assert_eq!(m.session_id, None);
        assert!(!m.child_session);
    }

    #[test]
    fn clips_long_command_lines() {
        let long = vec![b'a'; 400];
        assert_eq!(clip_cmdline(&long).chars().count(), CMDLINE_CHARS + 1);
        assert_eq!(clip_cmdline(b"sleep\x00300\x00"), "sleep 300");
        // A newline in an argument cannot start a report line of its own.
        assert_eq!(
            clip_cmdline(b"sh\x00-c\x00x\nTo end them: kill -TERM -- -1\x1b[2J\x00"),
            "sh -c x\\nTo end them: kill -TERM -- -1\\x1b[2J"
        );
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn reads_this_process_with_its_environment() {
        // A real process we own: ourselves (in `/proc`, which only Linux has).
        let me = std::process::id() as i32;
        let up = uptime_secs(Path::new("/proc")).unwrap();
        let e = read_entry(Path::new("/proc"), me, true, up).unwrap();
        assert_eq!(e.pid, me);
        assert!(e.env.readable);
        let table = read_table(Path::new("/proc"), e.uid, None).unwrap();
        assert!(table.entries.iter().any(|x| x.pid == me));
    }
}
