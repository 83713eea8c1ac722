//! One sweep over the real process table: read (bounded by a deadline), discover (S1), report
//! (S2), with failures (S3) and limits (S4) recorded. Sends no signal.

use crate::s1_discovery::{find_agent, survivors, Index, Query};
use crate::s2_report::{kill_command, render, roots};
use crate::s3_delivery::StoredReport;
use std::path::Path;
use std::time::Instant;

/// Inputs of a sweep besides the table.
#[derive(Debug, Clone)]
pub struct Request {
    pub query: Query,
    /// `CLAUDE_PID` from the hook's environment, if it parses.
    pub claude_pid: Option<i32>,
    pub project: Option<String>,
    pub deadline: Instant,
    /// The suite's own processes of this session (exec-gate supervisors and their watchdogs, and
    /// the OTLP sender, as recorded: pid and start time): never a leftover of the agent (issues
    /// 47, 45), when the running process is still that one and runs one of the suite's binaries
    /// that run such processes.
    pub suite_own: Vec<(i32, u64)>,
}

/// The binaries the suite's own processes run: the prefix (forked as the supervisor and its
/// watchdog) and the hook that starts itself again as the OTLP sender.
const SUITE_PROCESS_BINARIES: [&str; 2] =
    ["tool-containment", session_store::paths::OTLP_SENDER_BINARY];

/// Whether `e` is one of the suite's recorded processes: same pid and start time as recorded
/// (not a later process that reuses the pid) and running one of the suite's binaries (a record
/// the agent wrote for its own leftover does not hide it).
fn is_suite_own(proc_root: &Path, e: &proc_table::ProcEntry, own: &[(i32, u64)]) -> bool {
    own.contains(&(e.pid, e.start_ticks))
        && std::fs::read_link(proc_root.join(e.pid.to_string()).join("exe"))
            .ok()
            .and_then(|p| {
                p.file_name()
                    .map(|n| SUITE_PROCESS_BINARIES.iter().any(|b| n == *b))
            })
            .unwrap_or(false)
}

/// Reads what the sweep needs from `proc_root`, phase by phase, so a 5,000-process table stays
/// well under 100 ms (S5): every `stat` first (cheap); command lines only for the processes whose
/// name decides whether they are the CLI (`node`, our own ancestors, `CLAUDE_PID`); environments
/// only for this user's processes that started no earlier than the agent (a process spawned by
/// this session cannot be older than the CLI that spawned it; the others are counted, S4).
/// Survivors' command lines are read after discovery ([`fill_survivors`]).
pub fn read_lean(proc_root: &Path, req: &Request) -> std::io::Result<proc_table::TableRead> {
    let mut read = proc_table::read_stats(proc_root, Some(req.deadline))?;
    let by_pid: std::collections::HashMap<i32, usize> = read
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.pid, i))
        .collect();
    // Command lines that decide "is the CLI".
    let mut chain = Vec::new();
    let mut cur = Some(req.query.self_pid);
    while let Some(p) = cur.and_then(|p| by_pid.get(&p).copied()) {
        if chain.contains(&p) || chain.len() > 4096 {
            break;
        }
        chain.push(p);
        cur = Some(read.entries[p].ppid).filter(|pp| *pp > 0);
    }
    if let Some(i) = req.claude_pid.and_then(|p| by_pid.get(&p).copied()) {
        chain.push(i);
    }
    for (i, e) in read.entries.iter_mut().enumerate() {
        // `is_hook` on an entry without a command line looks at the (cut) `comm`.
        if e.comm == "node" || chain.contains(&i) || crate::s1_discovery::is_hook(e) {
            proc_table::fill_cmdline(proc_root, e);
        }
    }
    let (agent_start, agent_pid) = {
        let index = Index::new(&read.entries);
        match find_agent(&index, req.claude_pid, req.query.self_pid) {
            Ok(a) => (index.by_pid.get(&a.pid).map(|e| e.start_ticks), Some(a.pid)),
            Err(_) => (None, None),
        }
    };
    let covered = match agent_pid {
        Some(agent) => under_tool_shells(proc_root, &mut read.entries, agent, &req.query),
        None => std::collections::HashSet::new(),
    };
    for e in read.entries.iter_mut() {
        if covered.contains(&e.pid) {
            continue;
        }
        let kernel_thread = e.pid == 2 || e.ppid == 2;
        if e.uid != req.query.uid {
            read.other_users += 1;
            continue;
        }
        if kernel_thread {
            continue;
        }
        if agent_start.is_some_and(|start| e.start_ticks < start) {
            read.started_before_agent += 1;
            continue;
        }
        if std::time::Instant::now() >= req.deadline {
            read.truncated = true;
            break;
        }
        proc_table::fill_env(proc_root, e);
        if !e.env.readable {
            read.env_unreadable += 1;
        } else if e.env.truncated {
            read.env_truncated += 1;
        }
    }
    Ok(read)
}

/// The processes below the agent's tool shells (its direct children that carry this session's
/// marker and are no hook), whose environments are not read: discovery decides each of them by
/// the agent's tree and their session alone, whatever their environment says (a scale run of
/// 4,000 tool processes read 4,000 environments: S5, issue 47). The direct children's own
/// environments are read here, first.
fn under_tool_shells(
    proc_root: &Path,
    entries: &mut [proc_table::ProcEntry],
    agent: i32,
    query: &crate::s1_discovery::Query,
) -> std::collections::HashSet<i32> {
    let mut children: std::collections::HashMap<i32, Vec<usize>> = Default::default();
    for (i, e) in entries.iter().enumerate() {
        children.entry(e.ppid).or_default().push(i);
    }
    let mut covered = std::collections::HashSet::new();
    for &c in children.get(&agent).into_iter().flatten() {
        let e = &mut entries[c];
        if e.uid != query.uid {
            continue;
        }
        proc_table::fill_env(proc_root, e);
        let tool_shell = e.env.readable
            && e.env.child_session
            && e.env.session_id.as_deref() == Some(query.session_id.as_str())
            && !crate::s1_discovery::is_hook(e);
        covered.insert(e.pid);
        if !tool_shell {
            continue;
        }
        let mut stack: Vec<usize> = children.get(&e.pid).cloned().unwrap_or_default();
        while let Some(i) = stack.pop() {
            if covered.insert(entries[i].pid) {
                stack.extend(children.get(&entries[i].pid).into_iter().flatten());
            }
        }
    }
    covered
}

/// Reads the command lines of `pids` (the survivors) into `entries`.
pub fn fill_survivors(proc_root: &Path, entries: &mut [proc_table::ProcEntry], pids: &[i32]) {
    for e in entries.iter_mut() {
        if e.cmdline.is_empty() && pids.binary_search(&e.pid).is_ok() {
            proc_table::fill_cmdline(proc_root, e);
        }
    }
}

/// Sweeps `proc_root` (normally `/proc`).
pub fn sweep(proc_root: &Path, req: &Request) -> StoredReport {
    let mut failures = Vec::new();
    let mut read = match read_lean(proc_root, req) {
        Ok(r) => r,
        Err(e) => {
            failures.push(format!(
                "could not read the process table at {}: {e}",
                proc_root.display()
            ));
            proc_table::TableRead::default()
        }
    };
    if read.truncated {
        failures.push(format!(
            "hit its deadline after reading {} processes; the rest were not searched",
            read.entries.len()
        ));
    }
    // Discovery needs no command line; the survivors' are read for the report.
    let found = {
        let index = Index::new(&read.entries);
        let agent = find_agent(&index, req.claude_pid, req.query.self_pid).ok();
        survivors(&index, &req.query, agent.as_ref())
    };
    fill_survivors(proc_root, &mut read.entries, &found);
    let index = Index::new(&read.entries);
    let agent = if read.entries.is_empty() {
        None
    } else {
        match find_agent(&index, req.claude_pid, req.query.self_pid) {
            Ok(a) => Some(a),
            Err(why) => {
                failures.push(format!(
                    "could not find the agent process ({why}); its process tree was not searched, only the session's environment marker"
                ));
                None
            }
        }
    };
    let mut found = survivors(&index, &req.query, agent.as_ref());
    found.retain(|p| {
        !index
            .by_pid
            .get(p)
            .is_some_and(|e| is_suite_own(proc_root, e, &req.suite_own))
    });
    let group_of = |pid: i32| {
        std::fs::read_to_string(proc_root.join(pid.to_string()).join("cgroup"))
            .ok()
            .and_then(|t| proc_table::containment_group(&t))
    };
    let roots = roots(&index, &found, &group_of);
    let kill = (!roots.is_empty()).then(|| kill_command(&index, &roots));
    let limits = crate::s4_limits::limits(&read);
    let text = render(
        &req.query.session_id,
        &roots,
        kill.as_deref().unwrap_or(""),
        &failures,
        &limits,
    );
    StoredReport {
        binary: "stray-process-sweep".into(),
        session_id: req.query.session_id.clone(),
        reason: req.query.reason.clone(),
        project: req.project.clone(),
        time: session_store::time::now_rfc3339(),
        agent: agent.map(|a| serde_json::json!({"pid": a.pid, "sid": a.sid, "how": a.how})),
        roots,
        kill_command: kill,
        failures,
        limits,
        text,
        seen: false,
        seen_at: None,
    }
}
