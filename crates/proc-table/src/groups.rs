//! Recognising a containment group in `/proc/<pid>/cgroup`.
//!
//! tool-containment puts every agent command under `<anchor>/agent-guards/session-<id>/cmd-<n>`;
//! this module owns that folder name so the sweep and the containment binary agree on it.

/// The folder under which tool-containment creates its session groups.
pub const CONTAINMENT_ROOT: &str = "agent-guards";

/// The containment group path (as the kernel prints it) of a process, from the text of its
/// `/proc/<pid>/cgroup`, or `None` when it sits in no containment group.
pub fn containment_group(cgroup_text: &str) -> Option<String> {
    let needle = format!("/{CONTAINMENT_ROOT}/session-");
    cgroup_text.lines().find_map(|line| {
        // `hierarchy-id:controllers:path`; the path may itself contain ':'.
        let path = line.splitn(3, ':').nth(2)?;
        path.contains(&needle).then(|| path.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_group_on_v1_and_v2() {
        let v1 =
            "8:pids:/agent-guards/session-abc/cmd-1\n4:memory:/x/agent-guards/session-abc/cmd-1\n";
        assert_eq!(
            containment_group(v1).as_deref(),
            Some("/agent-guards/session-abc/cmd-1")
        );
        let v2 = "0::/user.slice/agent-guards/session-s/cmd-9\n";
        assert!(containment_group(v2).is_some());
        assert_eq!(containment_group("8:pids:/\n0::/\n"), None);
        assert_eq!(containment_group("garbage"), None);
    }
}
