//! The session's taint in the ledger: recorded once a source is seen, never cleared.
//!
//! Shape under the ledger key `taint`:
//! `{"tainted": true, "count": N, "first": {evidence}, "evidence": [{evidence}, ...]}` where each
//! evidence is `{tool, kind, detail, tool_use_id, time}`; `evidence` keeps the first
//! [`MAX_EVIDENCE`] sources (the count keeps counting).

use crate::source::TaintSource;
use serde_json::{json, Map, Value};
use session_store::{Session, StoreError};

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
/// after the update.
pub fn record(
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

/// The session's taint as recorded in its ledger.
pub fn taint_state(session: &Session) -> Result<TaintState, StoreError> {
    Ok(TaintState::from_ledger(&session.ledger().read()?))
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
}
