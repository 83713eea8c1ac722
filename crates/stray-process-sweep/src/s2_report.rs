//! S2: reports roots, never kills.
//!
//! Survivors are grouped into subtrees; each root is reported with its pid, process group,
//! session, age, the first ~160 characters of its command line, how many processes are under it,
//! and whether it sits in a containment group. The report ends with the exact command that would
//! end them. Nothing in this crate sends a signal.

use crate::s1_discovery::Index;
use proc_table::format_age;
use std::collections::{BTreeMap, HashSet};

/// One reported subtree.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Root {
    pub pid: i32,
    pub pgid: i32,
    pub sid: i32,
    pub age_secs: u64,
    pub age: String,
    pub command: String,
    /// Survivors in this subtree, the root included.
    pub processes: usize,
    /// The containment group it runs in, if any.
    pub containment_group: Option<String>,
    /// Every survivor pid in the subtree.
    pub pids: Vec<i32>,
    /// The start time (clock ticks since boot) of each pid in `pids`, so a later repeat can tell
    /// the same process from a reused pid. Empty in reports written before it was kept.
    #[serde(default)]
    pub starts: Vec<u64>,
}

/// Groups `survivors` into subtrees. `group_of` tells a root's containment group (read from
/// `/proc/<pid>/cgroup` in production; only called for roots).
pub fn roots(
    index: &Index,
    survivors: &[i32],
    group_of: &dyn Fn(i32) -> Option<String>,
) -> Vec<Root> {
    let set: HashSet<i32> = survivors.iter().copied().collect();
    let mut members: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    for &p in survivors {
        // Climb while the parent is a survivor too (bounded against a raced cycle).
        let mut root = p;
        for _ in 0..4096 {
            match index.by_pid.get(&root) {
                Some(e) if set.contains(&e.ppid) && e.ppid != root => root = e.ppid,
                _ => break,
            }
        }
        members.entry(root).or_default().push(p);
    }
    members
        .into_iter()
        .filter_map(|(root, mut pids)| {
            let e = index.by_pid.get(&root)?;
            pids.sort_unstable();
            let starts = pids
                .iter()
                .map(|p| index.by_pid.get(p).map_or(0, |x| x.start_ticks))
                .collect();
            Some(Root {
                pid: e.pid,
                pgid: e.pgid,
                sid: e.sid,
                age_secs: e.age_secs,
                age: format_age(e.age_secs),
                command: e.cmdline.clone(),
                processes: pids.len(),
                containment_group: group_of(e.pid).map(|g| hook_io::escape_text(&g, 200)),
                pids,
                starts,
            })
        })
        .collect()
}

/// The exact command that would end the survivors: whole process groups where every member of
/// the group is a survivor, single pids elsewhere (a group shared with a live non-survivor, such
/// as the agent's, is never targeted).
pub fn kill_command(index: &Index, roots: &[Root]) -> String {
    let survivors: HashSet<i32> = roots.iter().flat_map(|r| r.pids.iter().copied()).collect();
    // pgid -> every member a survivor (one pass over the table).
    let mut group_clean: std::collections::HashMap<i32, bool> = std::collections::HashMap::new();
    for x in index.by_pid.values() {
        let ok = group_clean.entry(x.pgid).or_insert(true);
        *ok &= survivors.contains(&x.pid);
    }
    let mut targets: Vec<String> = Vec::new();
    let mut seen_groups = HashSet::new();
    for r in roots {
        for &p in &r.pids {
            let Some(e) = index.by_pid.get(&p) else {
                continue;
            };
            let whole_group = e.pgid > 1 && group_clean.get(&e.pgid) == Some(&true);
            if whole_group {
                if seen_groups.insert(e.pgid) {
                    targets.push(format!("-{}", e.pgid));
                }
            } else {
                targets.push(p.to_string());
            }
        }
    }
    format!("kill -TERM -- {}", targets.join(" "))
}

/// The report text for the user.
pub fn render(
    session_id: &str,
    roots: &[Root],
    kill: &str,
    failures: &[String],
    limits: &[String],
) -> String {
    let mut out = Vec::new();
    let session_id = hook_io::escape_text(session_id, 80);
    for f in failures {
        out.push(format!(
            "stray-process-sweep ({}) COULD NOT COMPLETE: {}",
            crate::codes::S3_INCOMPLETE,
            hook_io::escape_text(f, 300)
        ));
    }
    if roots.is_empty() {
        if !failures.is_empty() {
            out.push(
                "No survivors were found in what could be searched; this is not a clean bill."
                    .into(),
            );
        }
    } else {
        let total: usize = roots.iter().map(|r| r.processes).sum();
        out.push(format!(
            "stray-process-sweep (S1): {total} process(es) in {} subtree(s) outlived session {session_id}; nothing was killed:",
            roots.len()
        ));
        for r in roots {
            out.push(format!(
                "  pid {} pgid {} sid {} age {} [{} process(es)] [{}] {}",
                r.pid,
                r.pgid,
                r.sid,
                r.age,
                r.processes,
                match &r.containment_group {
                    Some(g) => format!("in containment group {g}"),
                    None => "not contained".into(),
                },
                r.command
            ));
        }
        if !kill.is_empty() {
            out.push(format!("To end them: {kill}"));
        }
    }
    if !out.is_empty() {
        for l in limits {
            out.push(format!("Not visible to the sweep (S4): {l}"));
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_table::{EnvMarker, ProcEntry};

    fn e(pid: i32, ppid: i32, pgid: i32) -> ProcEntry {
        ProcEntry {
            pid,
            ppid,
            pgid,
            sid: pgid,
            uid: 0,
            age_secs: 95,
            comm: "x".into(),
            start_ticks: 0,
            cmdline: format!("cmd{pid}"),
            env: EnvMarker::default(),
        }
    }

    #[test]
    fn groups_subtrees_and_builds_a_safe_kill_command() {
        let t = vec![
            e(10, 1, 10),
            e(20, 10, 20),
            e(21, 20, 20),
            e(22, 21, 20),
            e(30, 1, 10),
        ];
        let idx = Index::new(&t);
        // 30 shares pgid 10 with the agent (10), which is not a survivor: single pid.
        let r = roots(&idx, &[20, 21, 22, 30], &|p| {
            (p == 20).then(|| "/agent-guards/session-s/cmd-1".into())
        });
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].pid, r[0].processes), (20, 3));
        assert_eq!(r[0].age, "1m35s");
        assert!(r[0].containment_group.is_some() && r[1].containment_group.is_none());
        assert_eq!(kill_command(&idx, &r), "kill -TERM -- -20 30");
        let text = render(
            "S",
            &r,
            &kill_command(&idx, &r),
            &[],
            &["1 process of other users".into()],
        );
        assert!(text.contains("4 process(es) in 2 subtree(s)"), "{text}");
        assert!(text.contains("To end them: kill -TERM -- -20 30"));
    }

    #[test]
    fn failures_are_distinct_from_nothing_found() {
        assert_eq!(render("S", &[], "", &[], &["x".into()]), "");
        let t = render("S", &[], "", &["could not read /proc".into()], &[]);
        assert!(t.contains("COULD NOT COMPLETE") && t.contains("not a clean bill"));
    }
}
