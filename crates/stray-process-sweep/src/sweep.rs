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
}

/// Sweeps `proc_root` (normally `/proc`).
pub fn sweep(proc_root: &Path, req: &Request) -> StoredReport {
    let mut failures = Vec::new();
    let read = match proc_table::read_table(proc_root, req.query.uid, Some(req.deadline)) {
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
    let found = survivors(&index, &req.query, agent.as_ref());
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
