//! S3: loud failures and delivery.
//!
//! The report goes to stderr with exit 2 (the only SessionEnd channel a user sees), a JSON copy
//! goes to the session's state dir, and a pending copy per project is kept so that the next
//! SessionStart in the same project repeats an unread report to the user as `systemMessage`;
//! showing it there marks it seen.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The JSON copy of one sweep.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct StoredReport {
    pub binary: String,
    pub session_id: String,
    pub reason: Option<String>,
    pub project: Option<String>,
    pub time: String,
    pub agent: Option<serde_json::Value>,
    pub roots: Vec<crate::s2_report::Root>,
    pub kill_command: Option<String>,
    pub failures: Vec<String>,
    pub limits: Vec<String>,
    /// The text shown on stderr.
    pub text: String,
    pub seen: bool,
    pub seen_at: Option<String>,
}

/// The state dir's file names.
pub const REPORT_FILE: &str = "stray-process-sweep.json";
const PENDING_DIR: &str = "pending-sweep";
/// Pending reports larger than this are not ours; they are not read.
const MAX_PENDING_BYTES: u64 = 4 * 1024 * 1024;

/// Where the pending report of a project lives.
pub fn pending_path(state_dir: &Path, project: &str) -> PathBuf {
    state_dir
        .join(PENDING_DIR)
        .join(format!("{}.json", session_store::session_dir_name(project)))
}

fn write_atomically(path: &Path, value: &StoredReport) -> Result<(), String> {
    let parent = path.parent().ok_or("no parent dir")?;
    std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let body = serde_json::to_vec_pretty(value).map_err(|e| e.to_string())?;
    std::fs::write(&tmp, body).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Stores the JSON copy in the session's folder and, with a project, the pending copy.
pub fn store(state_dir: &Path, report: &StoredReport) -> Result<(), String> {
    let session = session_store::Session::new(state_dir, Some(&report.session_id));
    write_atomically(&session.dir().join(REPORT_FILE), report)?;
    if let Some(project) = &report.project {
        write_atomically(&pending_path(state_dir, project), report)?;
    }
    Ok(())
}

/// SessionStart: the unread report of this project, marked seen as it is handed out.
pub fn take_unread(state_dir: &Path, project: &str) -> Result<Option<StoredReport>, String> {
    let path = pending_path(state_dir, project);
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {e}", path.display())),
        Ok(m) if m.len() > MAX_PENDING_BYTES => {
            return Err(format!("{} is too large", path.display()))
        }
        Ok(_) => {}
    }
    let text = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut report: StoredReport =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if report.seen {
        return Ok(None);
    }
    report.seen = true;
    report.seen_at = Some(session_store::time::now_rfc3339());
    write_atomically(&path, &report)?;
    report.seen = false;
    Ok(Some(report))
}

/// The SessionStart message for an unread report.
pub fn start_message(report: &StoredReport) -> String {
    format!(
        "stray-process-sweep: at the end of session {} ({}) this was reported and may still be true:\n{}",
        report.session_id, report.time, report.text
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> StoredReport {
        StoredReport {
            binary: "stray-process-sweep".into(),
            session_id: "S".into(),
            reason: Some("other".into()),
            project: Some("/work/p".into()),
            time: "t".into(),
            agent: None,
            roots: vec![],
            kill_command: None,
            failures: vec!["x".into()],
            limits: vec![],
            text: "the text".into(),
            seen: false,
            seen_at: None,
        }
    }

    #[test]
    fn a_stored_report_is_handed_out_once() {
        let dir = tempfile::tempdir().unwrap();
        store(dir.path(), &report()).unwrap();
        assert!(dir.path().join("sessions/S").join(REPORT_FILE).is_file());
        assert_eq!(take_unread(dir.path(), "/work/other").unwrap(), None);
        let got = take_unread(dir.path(), "/work/p").unwrap().unwrap();
        assert!(start_message(&got).contains("the text"));
        assert_eq!(
            take_unread(dir.path(), "/work/p").unwrap(),
            None,
            "seen now"
        );
    }
}
