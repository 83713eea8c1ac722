//! The session's taint in the ledger: recorded once a source is seen, never cleared.
//!
//! Shape under the ledger key `taint`:
//! `{"tainted": true, "count": N, "first": {evidence}, "evidence": [{evidence}, ...]}` where each
//! evidence is `{tool, kind, detail, tool_use_id, time}`; `evidence` keeps the first
//! [`MAX_EVIDENCE`] sources (the count keeps counting).

use crate::source::{TaintPolicy, TaintSource};
use serde_json::{json, Map, Value};
use session_store::{Session, StoreError};
use std::ops::ControlFlow;
use std::path::Path;

/// The file a hook creates in the session folder when a taint source could not be recorded in
/// the ledger (locked, disk full, immutable): later hooks check it first. Its content is one line
/// of evidence; its presence alone taints.
pub const UNRECORDED_MARKER: &str = "taint-unrecorded";

/// The ledger key a session's first hook (SessionStart) writes, so that a ledger missing later
/// in the session is known to have been removed.
pub const OPENED_KEY: &str = "session_opened";

/// The ledger key that holds the taint.
pub const LEDGER_KEY: &str = "taint";

/// Evidence entries kept per session.
pub const MAX_EVIDENCE: usize = 32;

/// What the ledger says about a session's taint.
#[derive(Debug, Clone, PartialEq)]
pub struct TaintState {
    /// Whether any taint source was recorded for the session.
    pub tainted: bool,
    /// Number of taint sources recorded.
    pub count: u64,
    /// The first source's evidence (`tool`, `kind`, `detail`, `tool_use_id`, `time`).
    pub first: Option<Value>,
}

impl TaintState {
    /// The state held in a ledger map. Any `taint` value that is not a well-formed record but
    /// is present still reads as tainted: a damaged entry must not untaint a session.
    pub fn from_ledger(map: &Map<String, Value>) -> TaintState {
        // A ledger rebuilt after damage may have lost a recorded taint: fail closed.
        if let Some(Value::String(moved)) = map.get(session_store::RECOVERED_KEY) {
            if map.get(LEDGER_KEY).is_none() {
                return TaintState {
                    tainted: true,
                    count: 1,
                    first: Some(serde_json::json!({
                        "tool": "ledger",
                        "detail": format!("the session ledger was damaged (kept at {moved}); earlier taint may be lost"),
                    })),
                };
            }
        }
        let Some(entry) = map.get(LEDGER_KEY) else {
            return TaintState {
                tainted: false,
                count: 0,
                first: None,
            };
        };
        TaintState {
            tainted: entry.get("tainted").and_then(Value::as_bool) != Some(false)
                || entry.get("count").and_then(Value::as_u64).unwrap_or(0) > 0,
            count: entry.get("count").and_then(Value::as_u64).unwrap_or(1),
            first: entry.get("first").cloned(),
        }
    }

    /// Tainted because recorded state was lost (`detail` says how): fail closed.
    pub fn lost(detail: String) -> TaintState {
        TaintState {
            tainted: true,
            count: 1,
            first: Some(json!({"tool": "ledger", "detail": detail})),
        }
    }

    /// One line for the audit log or a user message: the first source.
    pub fn summary(&self) -> String {
        match &self.first {
            Some(f) => format!(
                "{} ({}) at {}",
                f.get("tool").and_then(Value::as_str).unwrap_or("?"),
                f.get("detail").and_then(Value::as_str).unwrap_or(""),
                f.get("time").and_then(Value::as_str).unwrap_or("?"),
            ),
            None if self.tainted => "a recorded taint source".into(),
            None => "not tainted".into(),
        }
    }
}

/// Marks the session tainted by `source`. `time` is an RFC 3339 timestamp. Returns the state
/// after the update. When the ledger cannot take it, the [`UNRECORDED_MARKER`] is left instead
/// (so later hooks still read the session as tainted) and the error is returned: the caller must
/// treat the session as tainted for the rest of its own run.
pub fn record(
    session: &Session,
    source: &TaintSource,
    tool_use_id: Option<&str>,
    time: &str,
) -> Result<TaintState, StoreError> {
    let recorded = record_in_ledger(session, source, tool_use_id, time).inspect_err(|e| {
        let line = json!({"tool": source.tool, "kind": source.kind.as_str(),
            "detail": source.detail, "tool_use_id": tool_use_id, "time": time,
            "ledger_error": e.to_string()});
        let _ = leave_marker(session, &line.to_string());
    });
    relay_to_service(session, source, tool_use_id, time);
    recorded
}

/// How long a hook waits for the exec-gate service to acknowledge a taint (after its answer).
const RELAY_BOUND: std::time::Duration = std::time::Duration::from_secs(2);

/// Under a system install, the taint also goes to the exec-gate service, which keeps it where the
/// agent's user cannot remove it ([`Session::mirror`] reads it back). Not acknowledged: the
/// [`UNRECORDED_MARKER`] (the session reads as tainted). The service's own records are not sent.
fn relay_to_service(
    session: &Session,
    source: &TaintSource,
    tool_use_id: Option<&str>,
    time: &str,
) {
    if !session_store::service::installed()
        || session.dir().starts_with(session_store::service::STATE_DIR)
    {
        return;
    }
    let request = json!({"taint": {"session": folder_name(session), "tool": source.tool,
        "kind": source.kind.as_str(), "detail": source.detail, "tool_use_id": tool_use_id,
        "time": time}});
    let sent = session_store::service::relay(
        Path::new(session_store::service::SOCKET),
        request.to_string().as_bytes(),
        RELAY_BOUND,
    );
    if let Err(e) = sent {
        let mut line = request["taint"].clone();
        line["service_error"] = json!(e);
        let _ = leave_marker(session, &line.to_string());
    }
}

/// Records a taint the exec-gate service received from a hook of user `uid`'s (`request` is the
/// `taint` member [`relay_to_service`] sends) in the service's folder for that user.
pub fn record_relayed(state_dir: &Path, request: &Value) -> Result<(), String> {
    let field = |k: &str| request.get(k).and_then(Value::as_str);
    let session = field("session").ok_or("a relayed taint without a session")?;
    let kind = field("kind")
        .and_then(crate::source::TaintKind::from_name)
        .ok_or("a relayed taint of no known kind")?;
    let source = TaintSource {
        kind,
        tool: field("tool").unwrap_or("?").to_string(),
        detail: field("detail").unwrap_or_default().to_string(),
    };
    let session = Session::new(state_dir, Some(session));
    record_in_ledger(
        &session,
        &source,
        field("tool_use_id"),
        field("time").unwrap_or_default(),
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// Creates the marker (no wait: a FIFO or a held file in its place is fine, its name is enough).
fn leave_marker(session: &Session, line: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(session.dir())?;
    let path = session.dir().join(UNRECORDED_MARKER);
    let mut file = primitives::no_wait::open_regular(
        &path,
        std::fs::OpenOptions::new().create(true).append(true),
    )?;
    file.write_all(format!("{line}\n").as_bytes())
}

/// Writes [`OPENED_KEY`] into the ledger (SessionStart), naming the session's folder: from then
/// on a ledger missing in a session whose transcript shows completed calls was removed, and a
/// ledger opened for another folder (or never opened) was put in its place; both read as tainted.
pub fn open_session(session: &Session, time: &str) -> Result<(), StoreError> {
    let folder = folder_name(session);
    session.ledger().update(|m| {
        m.entry(OPENED_KEY)
            .or_insert_with(|| json!({"time": time, "folder": folder}));
    })
}

fn folder_name(session: &Session) -> String {
    session
        .dir()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Why the ledger in the session's folder is not the one this session opened, or `None`: it
/// names another session's folder (a clean ledger of an older session copied over this one's).
/// A ledger with no opening is taken as this session's: hooks of a harness (or an install)
/// without SessionStart write it too, and refusing them all would be a false refusal; a forged
/// opening is the agent's to write anyway while the ledger is its user's (the system install,
/// issue 40, moves it out of reach).
fn not_this_sessions(map: &Map<String, Value>, session: &Session) -> Option<String> {
    let folder = map.get(OPENED_KEY)?.get("folder").and_then(Value::as_str)?;
    let own = folder_name(session);
    (folder != own).then(|| {
        format!("the session's ledger was opened for another session ({folder:?}, this one is {own:?}): taint cannot be ruled out")
    })
}

fn record_in_ledger(
    session: &Session,
    source: &TaintSource,
    tool_use_id: Option<&str>,
    time: &str,
) -> Result<TaintState, StoreError> {
    let evidence = json!({
        "tool": source.tool,
        "kind": source.kind.as_str(),
        "detail": source.detail,
        "tool_use_id": tool_use_id,
        "time": time,
    });
    session.ledger().update(|map| {
        let mut entry = match map.remove(LEDGER_KEY) {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let count = entry.get("count").and_then(Value::as_u64).unwrap_or(0) + 1;
        entry.insert("tainted".into(), Value::Bool(true));
        entry.insert("count".into(), json!(count));
        if !entry.get("first").is_some_and(Value::is_object) {
            entry.insert("first".into(), evidence.clone());
        }
        let list = entry
            .entry("evidence")
            .or_insert_with(|| Value::Array(Vec::new()));
        if !list.is_array() {
            *list = Value::Array(Vec::new());
        }
        if let Value::Array(items) = list {
            if items.len() < MAX_EVIDENCE {
                items.push(evidence);
            }
        }
        map.insert(LEDGER_KEY.into(), Value::Object(entry));
        TaintState::from_ledger(map)
    })
}

/// The session's taint as recorded: the [`UNRECORDED_MARKER`] first, then the ledger; then the
/// same in the session's mirror (the exec-gate service's records under a system install,
/// [`Session::mirror`]), where a taint counts as much as here. A mirror folder that does not
/// exist holds nothing; one that exists but cannot be read is an error, never clean.
pub fn taint_state(session: &Session) -> Result<TaintState, StoreError> {
    let own = recorded_taint(session)?;
    if own.tainted {
        return Ok(own);
    }
    match session.mirror() {
        Some(m) if std::fs::symlink_metadata(m.dir()).is_ok() => recorded_taint(&m),
        _ => Ok(own),
    }
}

/// One folder's recorded taint: its marker, then its ledger.
fn recorded_taint(session: &Session) -> Result<TaintState, StoreError> {
    let marker = session.dir().join(UNRECORDED_MARKER);
    if std::fs::symlink_metadata(&marker).is_ok() {
        return Ok(TaintState::lost(format!(
            "a taint source could not be recorded in the ledger ({} is there)",
            marker.display()
        )));
    }
    Ok(TaintState::from_ledger(&session.ledger().read()?))
}

/// Why taint cannot be ruled out where it matters (M5, I3), or `None` when the session is
/// clean: recorded taint (the marker, the ledger), a ledger that cannot be read (damaged, a FIFO
/// in its place), a completed tainting call in the transcript the ledger does not show (a ledger
/// rewritten), or a ledger missing although the transcript shows completed calls (removed: the
/// first hook of a session writes it, [`open_session`]). One reader for every guard (issue 47).
pub fn cannot_rule_out(
    session: &Session,
    transcript: Option<&Path>,
    policy: &TaintPolicy,
) -> Option<String> {
    match taint_state(session) {
        Err(e) => Some(format!(
            "the session ledger could not be read ({e}): taint cannot be ruled out"
        )),
        Ok(state) if state.tainted => Some(state.summary()),
        Ok(_) => {
            // The transcript keeps what the ledger may have lost (K5: taint survives the state).
            if let Some((src, id)) = transcript.and_then(|t| crate::transcript_source(t, policy)) {
                return Some(format!(
                    "the transcript shows {} ({}) in call {id}",
                    src.kind.as_str(),
                    src.detail
                ));
            }
            state_lost(session, transcript)
        }
    }
}

/// Why the session's recorded state cannot be trusted to be whole, or `None`: a taint source
/// could not be recorded ([`UNRECORDED_MARKER`]), the ledger is missing although the transcript
/// shows completed calls (removed: the first hook of a session writes it), or the ledger is not
/// the one this session opened (older than the session's start, or another session's).
pub fn state_lost(session: &Session, transcript: Option<&Path>) -> Option<String> {
    let marker = session.dir().join(UNRECORDED_MARKER);
    if std::fs::symlink_metadata(&marker).is_ok() {
        return Some(format!(
            "a taint source could not be recorded in the ledger ({} is there)",
            marker.display()
        ));
    }
    let underway = || transcript.map_or(0, completed_calls) > 0;
    if std::fs::symlink_metadata(session.ledger().path()).is_ok() {
        return match session.ledger().read() {
            Ok(map) => not_this_sessions(&map, session),
            Err(e) => Some(format!(
                "the session ledger could not be read ({e}): taint cannot be ruled out"
            )),
        };
    }
    underway().then(|| {
        "the session's ledger is missing although the transcript shows completed tool calls: taint cannot be ruled out".to_string()
    })
}

/// Tool calls of the main thread that have a result in the transcript (stops at the first).
fn completed_calls(transcript: &Path) -> usize {
    let mut n = 0;
    let _ = transcript::calls_newest_first_in_file(transcript, &mut |c| {
        if c.result().is_some() {
            n += 1;
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    });
    n
}

/// Whether the session is tainted (once tainted, always tainted).
pub fn is_tainted(session: &Session) -> Result<bool, StoreError> {
    Ok(taint_state(session)?.tainted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::TaintKind;

    fn source(detail: &str) -> TaintSource {
        TaintSource {
            kind: TaintKind::WebFetch,
            tool: "WebFetch".into(),
            detail: detail.into(),
        }
    }

    #[test]
    fn a_taint_the_service_recorded_counts_and_an_unreadable_mirror_is_no_answer() {
        let user = tempfile::tempdir().unwrap();
        let service = tempfile::tempdir().unwrap();
        let s = Session::new(user.path(), Some("sess-m")).with_mirror_in(service.path());
        assert!(!is_tainted(&s).unwrap(), "no mirror folder: nothing there");
        let m = s.mirror().unwrap();
        record(&m, &source("https://pasted.example"), None, "t").unwrap();
        assert!(
            is_tainted(&s).unwrap(),
            "the service's record taints the session"
        );
        std::fs::write(m.dir().join("ledger.json"), b"{broken").unwrap();
        assert!(taint_state(&s).is_err(), "a damaged mirror is not clean");
    }

    #[test]
    fn a_ledger_rebuilt_after_damage_reads_as_tainted() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(dir.path(), Some("sess-d"));
        s.ensure().unwrap();
        std::fs::write(s.dir().join("ledger.json"), b"{broken").unwrap();
        assert!(is_tainted(&s).is_err(), "a damaged ledger is an error");
        let _ = s.ledger().update(|m| {
            m.insert("counter".into(), Value::from(1));
        });
        assert!(
            is_tainted(&s).unwrap(),
            "state may have been lost: fail closed"
        );
    }

    #[test]
    fn records_evidence_and_stays_tainted() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(dir.path(), Some("sess-1"));
        assert!(!is_tainted(&s).unwrap());
        let st = record(
            &s,
            &source("https://a.example"),
            Some("toolu_1"),
            "2026-12-01T00:00:00.000Z",
        )
        .unwrap();
        assert!(st.tainted);
        assert_eq!(st.count, 1);
        record(
            &s,
            &source("https://b.example"),
            None,
            "2026-12-01T00:00:01.000Z",
        )
        .unwrap();
        let st = taint_state(&s).unwrap();
        assert_eq!(st.count, 2);
        let first = st.first.clone().unwrap();
        assert_eq!(first["detail"], "https://a.example");
        assert_eq!(first["tool_use_id"], "toolu_1");
        assert_eq!(first["kind"], "web_fetch");
        assert!(st.summary().contains("WebFetch (https://a.example)"));
        // Other keys of the ledger are untouched; a later writer cannot untaint by accident.
        s.ledger()
            .update(|m| {
                m.insert("main_model".into(), json!("claude-opus-5"));
            })
            .unwrap();
        assert!(is_tainted(&s).unwrap());
        // Another session is not tainted.
        assert!(!is_tainted(&Session::new(dir.path(), Some("sess-2"))).unwrap());
    }

    #[test]
    fn evidence_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(dir.path(), Some("s"));
        for i in 0..(MAX_EVIDENCE + 5) {
            record(&s, &source(&format!("u{i}")), None, "t").unwrap();
        }
        let map = s.ledger().read().unwrap();
        assert_eq!(
            map[LEDGER_KEY]["evidence"].as_array().unwrap().len(),
            MAX_EVIDENCE
        );
        assert_eq!(map[LEDGER_KEY]["count"], json!(MAX_EVIDENCE + 5));
    }

    #[test]
    fn a_damaged_entry_still_reads_as_tainted() {
        let mut m = Map::new();
        m.insert(LEDGER_KEY.into(), json!("garbage"));
        assert!(TaintState::from_ledger(&m).tainted);
        m.insert(LEDGER_KEY.into(), json!({"tainted": false}));
        assert!(!TaintState::from_ledger(&m).tainted);
        assert!(!TaintState::from_ledger(&Map::new()).tainted);
    }

    /// A transcript with one completed `ls` call (nothing that taints).
    fn transcript_with_a_completed_call(dir: &Path) -> std::path::PathBuf {
        let t = dir.join("t.jsonl");
        let lines = [
            json!({"type": "assistant", "message": {"content": [
                {"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "ls"}}]}}),
            json!({"type": "user", "message": {"content": [
                {"type": "tool_result", "tool_use_id": "a", "content": "x"}]}}),
        ];
        let text: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(&t, text.join("\n") + "\n").unwrap();
        t
    }

    #[test]
    fn a_taint_the_ledger_cannot_take_still_taints() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(dir.path(), Some("held"));
        open_session(&s, "t0").unwrap();
        // Another process holds the ledger's lock (an agent's `flock -x 9 9<ledger.lock`).
        let holder = std::process::Command::new("flock")
            .arg("-x")
            .arg(s.dir().join("ledger.lock"))
            .args(["sleep", "30"])
            .spawn()
            .unwrap();
        let lock_taken = std::time::Instant::now();
        while std::fs::OpenOptions::new()
            .write(true)
            .open(s.dir().join("ledger.lock"))
            .unwrap()
            .try_lock()
            .is_ok()
        {
            assert!(
                lock_taken.elapsed().as_secs() < 10,
                "flock never took the lock"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let err = record(&s, &source("https://a.example"), Some("toolu_9"), "t1");
        let mut holder = holder;
        let _ = holder.kill();
        let _ = holder.wait();
        assert!(err.is_err(), "the ledger was held");
        assert!(s.dir().join(UNRECORDED_MARKER).exists());
        let st = taint_state(&s).unwrap();
        assert!(st.tainted, "the marker taints");
        let policy = TaintPolicy::default();
        let why = cannot_rule_out(&s, None, &policy).unwrap();
        assert!(why.contains("could not be recorded"), "{why}");
    }

    #[test]
    fn a_removed_ledger_in_a_session_underway_cannot_be_ruled_out() {
        let dir = tempfile::tempdir().unwrap();
        let s = Session::new(dir.path(), Some("gone"));
        let t = transcript_with_a_completed_call(dir.path());
        let policy = TaintPolicy::default();
        open_session(&s, "t0").unwrap();
        assert_eq!(cannot_rule_out(&s, Some(&t), &policy), None, "clean");
        std::fs::remove_file(s.ledger().path()).unwrap();
        let why = cannot_rule_out(&s, Some(&t), &policy).unwrap();
        assert!(why.contains("ledger is missing"), "{why}");
        // A session that has not begun its calls (no completed call yet) is not refused.
        let fresh = Session::new(dir.path(), Some("fresh"));
        assert_eq!(cannot_rule_out(&fresh, None, &policy), None);
    }

    #[test]
    fn a_ledger_this_session_did_not_open_cannot_be_ruled_out() {
        let dir = tempfile::tempdir().unwrap();
        let t = transcript_with_a_completed_call(dir.path());
        let policy = TaintPolicy::default();
        // A clean ledger from another session, copied over this one's (`cp -p` keeps even its
        // times): it names the other folder.
        let other = Session::new(dir.path(), Some("other"));
        open_session(&other, "t0").unwrap();
        let s = Session::new(dir.path(), Some("this"));
        open_session(&s, "t1").unwrap();
        assert_eq!(cannot_rule_out(&s, Some(&t), &policy), None, "its own");
        std::fs::copy(other.ledger().path(), s.ledger().path()).unwrap();
        let why = cannot_rule_out(&s, Some(&t), &policy).unwrap();
        assert!(why.contains("another session"), "{why}");
        // A ledger with no opening (a harness or an install without SessionStart) is this
        // session's: not refused for that alone.
        std::fs::write(s.ledger().path(), br#"{"main_model": "x"}"#).unwrap();
        assert_eq!(cannot_rule_out(&s, Some(&t), &policy), None);
        // An opening from an older release (no folder named) is taken as this session's.
        std::fs::write(s.ledger().path(), br#"{"session_opened": {"time": "t"}}"#).unwrap();
        assert_eq!(cannot_rule_out(&s, Some(&t), &policy), None);
    }
}
