//! S1: finds what outlived the session.
//!
//! The agent is `CLAUDE_PID` when that process is alive and is the CLI, else the nearest ancestor
//! of the sweep that is the CLI. Survivors are
//! (a) descendants of the agent in a session other than the agent's — every Bash tool shell runs
//!     in a session of its own, so at session end a live one is a leftover — excluding the sweep
//!     and its ancestors, hooks still running (`AI_AGENT=..._harness`) and subtrees of the agent's
//!     children that lack `CLAUDE_CODE_CHILD_SESSION=1` (MCP servers);
//! (b) processes anywhere on the host, of the same user, whose environment carries
//!     `CLAUDE_CODE_SESSION_ID=<this session>` and `CLAUDE_CODE_CHILD_SESSION=1`: the reparented
//!     grandchildren a tree walk cannot see.
//! On `reason` `clear` or `resume` the CLI lives on: only processes of the ended session count.
//!
//! Everything here is pure over a table of [`ProcEntry`].

use proc_table::ProcEntry;
use std::collections::{HashMap, HashSet};

/// The table, indexed.
pub struct Index<'a> {
    pub by_pid: HashMap<i32, &'a ProcEntry>,
    pub children: HashMap<i32, Vec<i32>>,
}

impl<'a> Index<'a> {
    pub fn new(entries: &'a [ProcEntry]) -> Index<'a> {
        let mut by_pid = HashMap::with_capacity(entries.len());
        let mut children: HashMap<i32, Vec<i32>> = HashMap::with_capacity(entries.len());
        for e in entries {
            by_pid.insert(e.pid, e);
            children.entry(e.ppid).or_default().push(e.pid);
        }
        Index { by_pid, children }
    }

    /// `pid` and its ancestors, nearest first (bounded against cycles in a raced table).
    pub fn ancestry(&self, pid: i32) -> Vec<i32> {
        let mut out = vec![pid];
        let mut cur = pid;
        while let Some(e) = self.by_pid.get(&cur) {
            if e.ppid <= 0 || out.contains(&e.ppid) || out.len() > 4096 {
                break;
            }
            out.push(e.ppid);
            cur = e.ppid;
        }
        out
    }

    fn is_descendant(&self, pid: i32, of: i32) -> bool {
        self.ancestry(pid).iter().skip(1).any(|p| *p == of)
    }
}

/// Is this process the Claude Code CLI? The native binary is `claude` / `claude.exe`; an npm
/// install may run it as `node .../claude-code/cli.js`. (A test may start any program under the
/// name `claude` to stand in for the CLI.)
pub fn is_cli(e: &ProcEntry) -> bool {
    let argv0 = e.cmdline.split_whitespace().next().unwrap_or("");
    let base = argv0.rsplit('/').next().unwrap_or(argv0);
    let named = |n: &str| n == "claude" || n == "claude.exe";
    named(&e.comm)
        || named(base)
        || ((e.comm == "node" || base == "node") && e.cmdline.contains("claude"))
}

/// The suite's hook binaries: a process running one of them with no argument is a hook of the
/// CLI (SessionEnd hooks run beside the sweep), whatever its environment says.
const SUITE_HOOKS: [&str; 6] = [
    "tool-containment",
    "stray-process-sweep",
    "integrity-signals",
    "model-tier-guard",
    "gh-write-guard",
    "egress-audit",
];

/// Is this process a hook the CLI is running? `AI_AGENT=…_harness` (2.1.332 and later), or one
/// of the suite's binaries in hook mode (no argument; `comm` is cut at 15 characters).
pub fn is_hook(e: &ProcEntry) -> bool {
    if e.env.harness {
        return true;
    }
    let mut words = e.cmdline.split_whitespace();
    let argv0 = words.next().unwrap_or("");
    let base = argv0.rsplit('/').next().unwrap_or(argv0);
    let hook_mode = words.next().is_none();
    SUITE_HOOKS.iter().any(|h| {
        (base == *h && hook_mode)
            || (e.cmdline.is_empty() && h.starts_with(&e.comm) && e.comm.len() >= 12)
    })
}

impl Index<'_> {
    /// Is `pid` a hook, or below one, on its way up to `agent` (exclusive)?
    pub fn under_hook(&self, pid: i32, agent: Option<i32>) -> bool {
        for p in self.ancestry(pid) {
            if Some(p) == agent {
                return false;
            }
            if self.by_pid.get(&p).is_some_and(|e| is_hook(e)) {
                return true;
            }
        }
        false
    }
}

/// How the agent was found.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Agent {
    pub pid: i32,
    pub sid: i32,
    pub how: &'static str,
}

/// Finds the agent process (S1), or says why not (S3).
pub fn find_agent(index: &Index, claude_pid: Option<i32>, self_pid: i32) -> Result<Agent, String> {
    if let Some(p) = claude_pid {
        if let Some(e) = index.by_pid.get(&p).filter(|e| is_cli(e)) {
            return Ok(Agent {
                pid: e.pid,
                sid: e.sid,
                how: "CLAUDE_PID",
            });
        }
    }
    for p in index.ancestry(self_pid).into_iter().skip(1) {
        if let Some(e) = index.by_pid.get(&p).filter(|e| is_cli(e)) {
            return Ok(Agent {
                pid: e.pid,
                sid: e.sid,
                how: "nearest CLI ancestor",
            });
        }
    }
    Err(match claude_pid {
        Some(p) => format!(
            "CLAUDE_PID={p} is not a live Claude Code process and no ancestor of the sweep is"
        ),
        None => "CLAUDE_PID is not set and no ancestor of the sweep is the Claude Code CLI".into(),
    })
}

/// What the sweep is looking for.
#[derive(Debug, Clone)]
pub struct Query {
    pub session_id: String,
    /// The SessionEnd `reason`.
    pub reason: Option<String>,
    pub self_pid: i32,
    pub uid: u32,
}

impl Query {
    /// `clear` / `resume`: the CLI lives on, only the ended session's processes count.
    pub fn cli_lives_on(&self) -> bool {
        matches!(self.reason.as_deref(), Some("clear") | Some("resume"))
    }
}

/// The survivors' pids, sorted.
pub fn survivors(index: &Index, query: &Query, agent: Option<&Agent>) -> Vec<i32> {
    let excluded: HashSet<i32> = index.ancestry(query.self_pid).into_iter().collect();
    let ours = |e: &ProcEntry| e.env.session_id.as_deref() == Some(query.session_id.as_str());
    let mut found: HashSet<i32> = HashSet::new();
    if let Some(agent) = agent {
        for child in index.children.get(&agent.pid).into_iter().flatten() {
            let Some(c) = index.by_pid.get(child) else {
                continue;
            };
            if is_hook(c) || (c.env.readable && !c.env.child_session) {
                continue; // a hook still running, or an MCP server: not the session's work
            }
            if query.cli_lives_on() && c.env.readable && !ours(c) {
                continue;
            }
            let mut stack = vec![*child];
            while let Some(p) = stack.pop() {
                let Some(e) = index.by_pid.get(&p) else {
                    continue;
                };
                if is_hook(e) {
                    continue; // a hook's own subtree is the hook's work
                }
                if !excluded.contains(&p) && e.sid != agent.sid {
                    found.insert(p);
                }
                stack.extend(index.children.get(&p).into_iter().flatten());
            }
        }
    }
    for e in index.by_pid.values() {
        if e.uid != query.uid || !e.env.child_session || !ours(e) || excluded.contains(&e.pid) {
            continue;
        }
        if index.under_hook(e.pid, agent.map(|a| a.pid)) {
            continue;
        }
        if let Some(a) = agent {
            let inside = index.is_descendant(e.pid, a.pid);
            if e.pid == a.pid || (inside && (e.env.harness || e.sid == a.sid)) {
                continue;
            }
        }
        found.insert(e.pid);
    }
    let mut out: Vec<i32> = found.into_iter().collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_table::EnvMarker;

    pub fn p(pid: i32, ppid: i32, sid: i32, cmd: &str, env: Option<(&str, bool)>) -> ProcEntry {
        ProcEntry {
            pid,
            ppid,
            pgid: pid,
            sid,
            uid: 1000,
            age_secs: 10,
            comm: cmd
                .split_whitespace()
                .next()
                .unwrap_or("")
                .rsplit('/')
                .next()
                .unwrap()
                .into(),
            start_ticks: 0,
            cmdline: cmd.into(),
            env: match env {
                Some((s, child)) => EnvMarker {
                    session_id: Some(s.into()),
                    child_session: child,
                    harness: false,
                    readable: true,
                    truncated: false,
                },
                None => EnvMarker {
                    readable: true,
                    ..EnvMarker::default()
                },
            },
        }
    }

    fn query(reason: Option<&str>) -> Query {
        Query {
            session_id: "S".into(),
            reason: reason.map(str::to_string),
            self_pid: 90,
            uid: 1000,
        }
    }

    fn table() -> Vec<ProcEntry> {
        let mut hook = p(90, 10, 90, "/opt/stray-process-sweep", Some(("S", true)));
        hook.env.harness = true;
        vec![
            p(1, 0, 1, "/sbin/init", None),
            p(10, 1, 10, "/usr/bin/claude -p x", None),
            p(90, 10, 90, "/opt/stray-process-sweep", None),
            p(20, 10, 20, "bash -c tool", Some(("S", true))), // a tool shell left running
            p(21, 20, 20, "sleep 300", Some(("S", true))),
            p(30, 10, 10, "helper same session", Some(("S", true))), // shares the agent's session
            p(40, 10, 40, "npx mcp-server", Some(("S", false))),     // MCP: no child marker
            p(41, 40, 41, "node mcp", Some(("S", false))),
            p(50, 1, 50, "daemon 300", Some(("S", true))), // double-forked, reparented
            p(60, 1, 60, "other session daemon", Some(("T", true))),
            hook,
        ]
    }

    #[test]
    fn finds_tree_and_marker_survivors_only() {
        let mut t = table();
        t.remove(2); // the plain pid-90 entry; keep the hook-marked one
        let idx = Index::new(&t);
        let agent = find_agent(&idx, Some(10), 90).unwrap();
        assert_eq!(agent.how, "CLAUDE_PID");
        assert_eq!(
            survivors(&idx, &query(None), Some(&agent)),
            vec![20, 21, 50]
        );
    }

    #[test]
    fn agent_falls_back_to_the_nearest_cli_ancestor() {
        let t = table();
        let idx = Index::new(&t);
        assert_eq!(
            find_agent(&idx, Some(21), 90).unwrap().how,
            "nearest CLI ancestor"
        );
        assert_eq!(find_agent(&idx, None, 90).unwrap().pid, 10);
        assert!(find_agent(&idx, Some(999), 1).is_err());
    }

    #[test]
    fn clear_counts_only_the_ended_session() {
        let mut t = table();
        t.push(p(70, 10, 70, "bash -c newer", Some(("NEW", true))));
        let idx = Index::new(&t);
        let agent = find_agent(&idx, Some(10), 90).unwrap();
        let s = survivors(&idx, &query(Some("clear")), Some(&agent));
        assert!(!s.contains(&70), "{s:?}");
        let s = survivors(&idx, &query(Some("other")), Some(&agent));
        assert!(s.contains(&70), "{s:?}");
    }

    #[test]
    fn without_an_agent_the_marker_search_still_runs() {
        let t = table();
        let idx = Index::new(&t);
        assert_eq!(survivors(&idx, &query(None), None), vec![20, 21, 30, 50]);
    }

    #[test]
    fn the_suites_own_hooks_are_not_leftovers_even_without_the_harness_marker() {
        // An older CLI sets no AI_AGENT: SessionEnd hooks beside the sweep carry the session's
        // marker and run in sessions of their own (seen in 6 of 22 real sessions).
        let mut t = table();
        t.remove(2);
        // Each of these carries the ended session's marker.
        let marked = |pid, ppid, sid, cmd| p(pid, ppid, sid, cmd, Some(("S", true)));
        t.extend([
            marked(80, 10, 80, "/opt/ag/bin/tool-containment"),
            marked(81, 80, 80, "systemctl --user stop x"),
            marked(82, 10, 82, "/opt/ag/bin/integrity-signals"),
            // Reparented out of the tree, still a hook's child by its chain? No: that one counts.
            marked(83, 1, 83, "/opt/ag/bin/egress-audit"),
            // Look-alikes that stay: the binary run with an argument is a command, not a hook.
            marked(84, 10, 84, "/opt/ag/bin/gh-write-guard explain x"),
        ]);
        let idx = Index::new(&t);
        let agent = find_agent(&idx, Some(10), 90).unwrap();
        let s = survivors(&idx, &query(None), Some(&agent));
        assert_eq!(s, vec![20, 21, 50, 84], "{s:?}");
        assert!(is_hook(&p(1, 0, 1, "tool-containment", None)));
        let mut cut = p(5, 1, 5, "", None);
        cut.comm = "stray-process-s".into();
        assert!(is_hook(&cut), "comm is cut at 15 characters");
    }
}
