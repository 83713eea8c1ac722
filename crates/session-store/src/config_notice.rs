//! A config problem, said once per session: the first hook of a session that finds the config
//! wrong records it in the audit log and passes the notice to the user; later hooks of the same
//! session stay quiet about the same text (a changed config is said again).
//!
//! The mark is a file in the session folder named after a hash of the notice, created with
//! `create_new`, so concurrent hooks agree on who says it. When the mark cannot be made (no state
//! dir, a read-only disk) the notice is said anyway: better twice than never.

use crate::Session;
use serde_json::json;

/// The notice to pass on now: `notice` the first time in the session of `session_id` under
/// `state_dir`, `None` after that. Without a state dir it is always passed on.
pub fn once(
    state_dir: Option<&std::path::Path>,
    session_id: Option<&str>,
    binary: &str,
    notice: Option<String>,
) -> Option<String> {
    let notice = notice?;
    match state_dir {
        Some(dir) if !first_in_session(&Session::new(dir, session_id), binary, &notice) => None,
        _ => Some(notice),
    }
}

/// Whether `notice` should go to the user now (the first time in this session). The first time,
/// an audit record (`kind: "config_problem"`) is appended too.
pub fn first_in_session(session: &Session, binary: &str, notice: &str) -> bool {
    if session.ensure().is_err() {
        return true;
    }
    let mark = session.dir().join(format!(
        "config-notice-{:016x}",
        primitives::hash::fnv1a(notice.as_bytes())
    ));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&mark)
    {
        Ok(_) => {
            let record = json!({
                "binary": binary,
                "decision": crate::Decision::Recorded.as_str(),
                "kind": "config_problem",
                "time": crate::time::now_rfc3339(),
                "notice": notice,
            });
            // The notice still reaches the user when the audit log cannot be written.
            let _ = session.audit().append(&record);
            true
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => false,
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn said_once_per_session_and_text_and_recorded_once() {
        let state = tempfile::tempdir().unwrap();
        let s1 = Session::new(state.path(), Some("s1"));
        let n = "agent-guards config: `primary_checkout` = \"alow\": not a recognised word";
        assert!(first_in_session(&s1, "gh-write-guard", n));
        assert!(!first_in_session(&s1, "egress-audit", n));
        assert!(first_in_session(&s1, "egress-audit", "another problem"));
        let s2 = Session::new(state.path(), Some("s2"));
        assert!(
            first_in_session(&s2, "egress-audit", n),
            "a new session hears it again"
        );
        let (records, _) = s1.audit().read_all().unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0]["kind"], "config_problem");
        assert_eq!(records[0]["binary"], "gh-write-guard");
        assert_eq!(records[0]["notice"], n);
    }

    #[test]
    fn once_passes_the_notice_on_the_first_time_only() {
        let state = tempfile::tempdir().unwrap();
        let n = || Some("bad config".to_string());
        assert_eq!(once(Some(state.path()), Some("s"), "b", n()), n());
        assert_eq!(once(Some(state.path()), Some("s"), "b", n()), None);
        assert_eq!(once(Some(state.path()), Some("s"), "b", None), None);
        assert_eq!(once(None, Some("s"), "b", n()), n());
    }

    #[test]
    fn without_a_usable_session_folder_the_notice_is_said() {
        let state = tempfile::tempdir().unwrap();
        let file = state.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        let s = Session::new(&file, Some("s"));
        assert!(first_in_session(&s, "b", "n"));
        assert!(first_in_session(&s, "b", "n"));
    }
}
