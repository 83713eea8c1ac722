//! Taint the transcript shows. The ledger is in the state folder, which an agent command can
//! remove or rewrite; the transcript holds every completed tool call of the session too. A
//! session whose ledger says clean is checked against it: the first main-thread call that
//! came back without an error and whose type taints ([`crate::source_of`]) is the source. The
//! same rule as at PostToolUse (a failed call does not taint), read from a second place.

use crate::source::{source_of, TaintPolicy, TaintSource};
use std::ops::ControlFlow;
use std::path::Path;

/// The newest completed call in the transcript at `path` that taints, with its `tool_use_id`.
/// A transcript that cannot be read shows nothing (the ledger is the first record).
pub fn transcript_source(path: &Path, policy: &TaintPolicy) -> Option<(TaintSource, String)> {
    let mut found = None;
    let _ = transcript::calls_newest_first_in_file(path, &mut |c| {
        let completed = c.result_is_error() == Some(false);
        if completed {
            if let Some(s) = source_of(&c.tool_name, &c.input, policy) {
                found = Some((s, c.tool_use_id.clone()));
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lines(calls: &[(&str, &str, serde_json::Value, bool)]) -> String {
        let mut out = Vec::new();
        for (id, tool, input, err) in calls {
            out.push(json!({"type":"assistant","message":{"content":[
                {"type":"tool_use","id":id,"name":tool,"input":input}]}}));
            out.push(json!({"type":"user","message":{"content":[
                {"type":"tool_result","tool_use_id":id,"content":"x","is_error":err}]}}));
        }
        out.iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn completed_fetches_taint_and_failed_ones_do_not() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("t.jsonl");
        let policy = TaintPolicy::default();
        std::fs::write(
            &p,
            lines(&[
                ("a", "Read", json!({"file_path": "/w/a"}), false),
                ("b", "WebFetch", json!({"url": "https://e.example"}), true),
            ]),
        )
        .unwrap();
        assert!(transcript_source(&p, &policy).is_none());
        std::fs::write(
            &p,
            lines(&[
                (
                    "a",
                    "Bash",
                    json!({"command": "curl -s https://e.example"}),
                    false,
                ),
                ("b", "Read", json!({"file_path": "/w/a"}), false),
            ]),
        )
        .unwrap();
        let (s, id) = transcript_source(&p, &policy).unwrap();
        assert_eq!((s.tool.as_str(), id.as_str()), ("Bash", "a"));
        assert!(transcript_source(&t.path().join("absent"), &policy).is_none());
    }
}
