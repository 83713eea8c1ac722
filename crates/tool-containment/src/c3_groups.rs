//! C3: a group per command, named for the session.
//!
//! Layout: `<anchor>/agent-guards/session-<id>/cmd-<pid>-<nanos>`, where `<anchor>` is the
//! caller's own cgroup on v1 (per controller) and the v2 anchor of [`crate::c4_backends`]. Each
//! command group carries `pids.max` and the memory ceiling (`memory.max` + `memory.swap.max=0` on
//! v2; `memory.limit_in_bytes` + `memory.memsw.limit_in_bytes` on v1 where swap accounting
//! exists). The prefix moves itself into the group before it `exec`s the shell, so the command
//! and everything it forks, backgrounds or `setsid`s stay under the ceilings after the shell exits.
//!
//! The cgroup work is direct cgroupfs writes (`write_file`): `mkdir`, the ceiling files, the
//! pid into `cgroup.procs` (or `0` into v1 `tasks`). Each failure names the file and the kernel's
//! error. (cgroups-rs did this until it was replaced; why and what it cost: the crate README.)

use crate::c4_backends::Backend;
use crate::c5_ceilings::{Ceilings, Memory, Tasks};
use proc_table::CONTAINMENT_ROOT;
use std::path::{Path, PathBuf};

/// The session group's folder name: `session-<id>`, the id made safe the way the state dir does.
pub fn session_group_name(session_id: Option<&str>) -> String {
    match session_id.filter(|s| !s.is_empty()) {
        Some(id) => format!("session-{}", session_store::session_dir_name(id)),
        None => "session-_no-session".to_string(),
    }
}

/// The group of commands run without a session id by the CLI with pid `cli_pid`:
/// `session-_no-session-<pid>-<start ticks>` (the start time keeps a reused pid apart).
/// `None` when that process cannot be read.
pub fn no_session_group_of(cli_pid: i32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{cli_pid}/stat")).ok()?;
    let (.., start) = proc_table::entry::parse_stat(&stat)?;
    Some(format!("session-_no-session-{cli_pid}-{start}"))
}

/// A command group's folder name, unique per command: the prefix's pid plus the clock, so a
/// reused pid later in the session never joins an older group.
pub fn command_group_name(pid: u32, nanos: u128) -> String {
    format!("cmd-{pid}-{:x}", nanos % (1u128 << 64))
}

/// The session's group directories for a backend (one per hierarchy).
pub fn session_dirs(backend: &Backend, session_group: &str) -> Vec<PathBuf> {
    match backend {
        Backend::V2 { anchor, .. } => vec![anchor.join(CONTAINMENT_ROOT).join(session_group)],
        Backend::V1(d) => vec![
            d.pids.join(CONTAINMENT_ROOT).join(session_group),
            d.memory.join(CONTAINMENT_ROOT).join(session_group),
        ],
        Backend::Systemd { .. } | Backend::None { .. } => Vec::new(),
    }
}

fn err(what: &str, path: &Path, e: impl std::fmt::Display) -> String {
    format!("{what} {}: {e}", path.display())
}

/// `pids.max` text (v1 and v2 alike).
fn tasks_value(t: Tasks) -> String {
    match t {
        Tasks::Max => "max".to_string(),
        Tasks::Limit(n) => n.min(i64::MAX as u64).to_string(),
    }
}

/// Memory ceiling text: v2 `memory.max` spells no ceiling `max`, v1 `memory.limit_in_bytes` `-1`.
fn memory_value(m: Memory, v2: bool) -> String {
    match m {
        Memory::Max if v2 => "max".to_string(),
        Memory::Max => "-1".to_string(),
        Memory::Bytes(b) => b.min(i64::MAX as u64).to_string(),
    }
}

/// Writes `value` to the cgroupfs file `name` in `dir`, one `write(2)` (cgroupfs reads each write
/// as one command). The error names what was being done, the file and the kernel's answer.
fn write_file(dir: &Path, name: &str, value: &str, what: &str) -> Result<(), String> {
    let file = dir.join(name);
    std::fs::write(&file, value).map_err(|e| err(what, &file, e))
}

/// Enables `pids` and `memory` for the children of `dir` (v2), unless already on.
fn enable_v2_controllers(dir: &Path) -> Result<(), String> {
    let file = dir.join("cgroup.subtree_control");
    let current = std::fs::read_to_string(&file).unwrap_or_default();
    let words: Vec<&str> = current.split_whitespace().collect();
    if words.contains(&"pids") && words.contains(&"memory") {
        return Ok(());
    }
    std::fs::write(&file, "+pids +memory").map_err(|e| err("cannot enable controllers in", dir, e))
}

fn mkdir(dir: &Path) -> Result<(), String> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(err("cannot create", dir, e)),
    }
}

/// Creates the command group `cmd` under the session group, sets the ceilings and moves `pid`
/// into it. Returns the leaf directories. On failure, the leaves it created are removed again.
pub fn enter(
    backend: &Backend,
    session_group: &str,
    cmd: &str,
    ceilings: &Ceilings,
    pid: u32,
) -> Result<Vec<PathBuf>, String> {
    match backend {
        Backend::V1(d) => {
            // SessionEnd may remove a just-made group before we are in it: try again, so a
            // command starting while its session ends never runs without its ceilings.
            let mut last = Err(String::new());
            for _ in 0..3 {
                last = enter_v1(d, session_group, cmd, ceilings, pid);
                match &last {
                    Err(e) if e.contains("No such file") => continue,
                    _ => break,
                }
            }
            if last.is_ok() {
                sweep_empty_siblings(
                    &d.pids.join(CONTAINMENT_ROOT).join(session_group),
                    &d.memory.join(CONTAINMENT_ROOT).join(session_group),
                    cmd,
                );
            }
            last
        }
        Backend::V2 { anchor, .. } => {
            let root = anchor.join(CONTAINMENT_ROOT);
            let session = root.join(session_group);
            let leaf = session.join(cmd);
            let result = (|| {
                if !session.is_dir() {
                    enable_v2_controllers(anchor)?;
                    mkdir(&root)?;
                    enable_v2_controllers(&root)?;
                    mkdir(&session)?;
                }
                enable_v2_controllers(&session)?;
                mkdir(&leaf)?;
                let tasks = tasks_value(ceilings.tasks);
                write_file(&leaf, "pids.max", &tasks, "cannot set")?;
                let memory = memory_value(ceilings.memory, true);
                write_file(&leaf, "memory.max", &memory, "cannot set")?;
                if leaf.join("memory.swap.max").exists() {
                    write_file(&leaf, "memory.swap.max", "0", "cannot set")?;
                }
                write_file(&leaf, "cgroup.procs", &pid.to_string(), "cannot enter")?;
                Ok(vec![leaf.clone()])
            })();
            if result.is_err() {
                let _ = std::fs::remove_dir(&leaf);
            }
            result
        }
        Backend::Systemd { .. } | Backend::None { .. } => {
            Err(format!("{} has no directory to enter", backend.name()))
        }
    }
}

/// Removes at most this many empty sibling groups per command, so the work per command is
/// bounded and a long session never piles up thousands of finished groups.
const SIBLINGS_SWEPT: usize = 8;

/// Removes finished (empty) sibling command groups: `rmdir` fails at once on a group that still
/// holds processes, so the live ones stay. Starts at a place picked by our pid, so live groups
/// early in the listing cannot keep the empty ones behind them forever.
fn sweep_empty_siblings(pids_session: &Path, memory_session: &Path, own: &str) {
    let Ok(entries) = std::fs::read_dir(pids_session) else {
        return;
    };
    let names: Vec<std::ffi::OsString> = entries
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| {
            n.to_str()
                .is_some_and(|s| s.starts_with("cmd-") && s != own)
        })
        .collect();
    if names.is_empty() {
        return;
    }
    let start = std::process::id() as usize % names.len();
    for name in names
        .iter()
        .cycle()
        .skip(start)
        .take(names.len().min(SIBLINGS_SWEPT))
    {
        if std::fs::remove_dir(pids_session.join(name)).is_ok() {
            let _ = std::fs::remove_dir(memory_session.join(name));
        }
    }
}

/// Creates the session group when missing, holding the session as a whole to the ceilings too.
fn ensure_v1_session(
    d: &crate::c4_backends::V1Dirs,
    session_group: &str,
    ceilings: &Ceilings,
) -> Result<(), String> {
    let pids_session = d.pids.join(CONTAINMENT_ROOT).join(session_group);
    let mem_session = d.memory.join(CONTAINMENT_ROOT).join(session_group);
    if pids_session.is_dir() && mem_session.is_dir() {
        return Ok(());
    }
    for dir in [&pids_session, &mem_session] {
        if let Some(parent) = dir.parent() {
            std::fs::create_dir_all(parent).map_err(|e| err("cannot create", parent, e))?;
        }
        mkdir(dir)?;
    }
    let tasks = tasks_value(ceilings.tasks);
    write_file(&pids_session, "pids.max", &tasks, "cannot set")?;
    let memory = memory_value(ceilings.memory, false);
    write_file(&mem_session, "memory.limit_in_bytes", &memory, "cannot set")
}

fn enter_v1(
    d: &crate::c4_backends::V1Dirs,
    session_group: &str,
    cmd: &str,
    ceilings: &Ceilings,
    pid: u32,
) -> Result<Vec<PathBuf>, String> {
    ensure_v1_session(d, session_group, ceilings)?;
    let pids_leaf = d.pids.join(CONTAINMENT_ROOT).join(session_group).join(cmd);
    let mem_leaf = d
        .memory
        .join(CONTAINMENT_ROOT)
        .join(session_group)
        .join(cmd);
    let result = (|| {
        mkdir(&pids_leaf)?;
        mkdir(&mem_leaf)?;
        write_file(
            &pids_leaf,
            "pids.max",
            &tasks_value(ceilings.tasks),
            "cannot set",
        )?;
        let limit = memory_value(ceilings.memory, false);
        write_file(&mem_leaf, "memory.limit_in_bytes", &limit, "cannot set")?;
        // Swap off where the host allows: memsw exists only with swap accounting.
        if mem_leaf.join("memory.memsw.limit_in_bytes").exists() {
            write_file(
                &mem_leaf,
                "memory.memsw.limit_in_bytes",
                &limit,
                "cannot set",
            )?;
        }
        // Ourselves, single-threaded: `0` in `tasks` moves the calling thread, which the kernel
        // does without the global threadgroup lock and its RCU grace period (milliseconds per
        // move through `cgroup.procs`; see the README). Another process: its whole thread group.
        let (file, who) = if pid == std::process::id() {
            ("tasks", "0".to_string())
        } else {
            ("cgroup.procs", pid.to_string())
        };
        write_file(&pids_leaf, file, &who, "cannot enter")?;
        write_file(&mem_leaf, file, &who, "cannot enter")?;
        Ok(vec![pids_leaf.clone(), mem_leaf.clone()])
    })();
    if result.is_err() {
        let _ = std::fs::remove_dir(&pids_leaf);
        let _ = std::fs::remove_dir(&mem_leaf);
    }
    result
}

/// The systemd unit names for a session: its slice and one scope per command. systemd reads `-`
/// in a slice name as nesting, so the session id's dashes become underscores.
pub fn systemd_slice(session_group: &str) -> String {
    format!("agent_guards_{}.slice", session_group.replace('-', "_"))
}

/// The `systemd-run` invocation for one command: arguments and the extra environment. The script
/// travels in the environment, never in argv, so systemd cannot expand `${...}` in it; the scope
/// runs this binary again with [`crate::c1_invocation::RUN_FROM_ENV_FLAG`], which execs the shell.
pub fn systemd_run_invocation(
    self_exe: &Path,
    shell: &str,
    script: &std::ffi::OsStr,
    session_group: &str,
    cmd: &str,
    ceilings: &Ceilings,
) -> (Vec<String>, Vec<(String, std::ffi::OsString)>) {
    let tasks = match ceilings.tasks {
        Tasks::Max => "infinity".to_string(),
        Tasks::Limit(n) => n.to_string(),
    };
    let memory = match ceilings.memory {
        Memory::Max => "infinity".to_string(),
        Memory::Bytes(b) => b.to_string(),
    };
    let args = vec![
        "--user".to_string(),
        "--scope".to_string(),
        "--quiet".to_string(),
        "--collect".to_string(),
        format!("--slice={}", systemd_slice(session_group)),
        format!("--unit=agent_guards_{}", cmd.replace('-', "_")),
        "-p".to_string(),
        format!("TasksMax={tasks}"),
        "-p".to_string(),
        format!("MemoryMax={memory}"),
        "-p".to_string(),
        "MemorySwapMax=0".to_string(),
        "--".to_string(),
        self_exe.display().to_string(),
        crate::c1_invocation::RUN_FROM_ENV_FLAG.to_string(),
    ];
    let env = vec![
        (
            crate::c1_invocation::SCRIPT_ENV.to_string(),
            script.to_os_string(),
        ),
        (crate::c1_invocation::SHELL_ENV.to_string(), shell.into()),
    ];
    (args, env)
}

/// `systemctl --user stop <slice>`: the SessionEnd stop for the systemd backend.
pub fn systemd_stop_args(session_group: &str) -> Vec<String> {
    vec!["--user".into(), "stop".into(), systemd_slice(session_group)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ceilings(tasks: Tasks, memory: Memory) -> Ceilings {
        Ceilings {
            tasks,
            memory,
            notices: vec![],
        }
    }

    #[test]
    fn ceiling_texts_are_what_each_cgroup_version_reads() {
        assert_eq!(tasks_value(Tasks::Max), "max");
        assert_eq!(tasks_value(Tasks::Limit(4096)), "4096");
        assert_eq!(tasks_value(Tasks::Limit(u64::MAX)), i64::MAX.to_string());
        assert_eq!(memory_value(Memory::Max, true), "max");
        assert_eq!(memory_value(Memory::Max, false), "-1");
        assert_eq!(memory_value(Memory::Bytes(1 << 30), false), "1073741824");
    }

    #[test]
    fn a_failed_write_names_the_file_and_the_kernels_answer() {
        let t = tempfile::tempdir().unwrap();
        let gone = t.path().join("removed-group");
        let e = write_file(&gone, "pids.max", "10", "cannot set").unwrap_err();
        assert!(e.starts_with("cannot set "), "{e}");
        assert!(e.contains("removed-group/pids.max"), "{e}");
        // The V1 retry in `enter` looks for exactly this text.
        assert!(e.contains("No such file"), "{e}");
    }

    #[test]
    fn names_are_safe_and_unique() {
        assert_eq!(session_group_name(Some("3f2a-bc")), "session-3f2a-bc");
        assert_eq!(session_group_name(None), "session-_no-session");
        let odd = session_group_name(Some("../x"));
        assert!(!odd.contains('/') && !odd.contains(".."));
        assert_ne!(command_group_name(7, 1), command_group_name(7, 2));
    }

    #[test]
    fn systemd_run_keeps_the_script_out_of_argv() {
        let script = "echo ${HOME} $(id) 'q'";
        let (args, env) = systemd_run_invocation(
            Path::new("/opt/ag/tool-containment"),
            "bash",
            script.as_ref(),
            "session-ab-cd",
            "cmd-12-ff",
            &ceilings(Tasks::Limit(4096), Memory::Bytes(1 << 30)),
        );
        assert!(args.iter().all(|a| !a.contains("${HOME}")));
        assert_eq!(&args[..4], ["--user", "--scope", "--quiet", "--collect"]);
        assert!(args.contains(&"--slice=agent_guards_session_ab_cd.slice".to_string()));
        assert!(args.contains(&"TasksMax=4096".to_string()));
        assert!(args.contains(&"MemoryMax=1073741824".to_string()));
        assert!(args.contains(&"MemorySwapMax=0".to_string()));
        let tail: Vec<&str> = args[args.len() - 3..].iter().map(String::as_str).collect();
        assert_eq!(tail, ["--", "/opt/ag/tool-containment", "--run-from-env"]);
        assert_eq!(
            env,
            vec![
                ("AGENT_CONTAINMENT_SCRIPT".to_string(), script.into()),
                ("AGENT_CONTAINMENT_SHELL".to_string(), "bash".into())
            ]
        );
        let (args, _) = systemd_run_invocation(
            Path::new("/x"),
            "zsh",
            "ls".as_ref(),
            "session-s",
            "cmd-1-1",
            &ceilings(Tasks::Max, Memory::Max),
        );
        assert!(args.contains(&"TasksMax=infinity".to_string()));
        assert!(args.contains(&"MemoryMax=infinity".to_string()));
        assert_eq!(
            systemd_stop_args("session-ab-cd"),
            ["--user", "stop", "agent_guards_session_ab_cd.slice"]
        );
    }
}
