//! `integrity-signals ingest --session ID --file signals.json`: signals an evaluation harness
//! supplies (output spoofing, plagiarism similarity, hidden-test failures, time against the
//! calibrated reference, commendable triggers).
//!
//! The file is a JSON array of `{"kind": ..., "evidence": {...}}` objects, or an object with such
//! an array under `signals`. Severity and penalty come from the kind, never from the file. The
//! file is all or nothing: when any signal lacks the evidence its kind requires (or names an
//! unknown kind), nothing is stored and every problem is reported.

use crate::signal::{Kind, Signal};
use serde_json::Value;

/// Kinds a harness may supply: the external ones, and time manipulation (the harness knows the
/// calibrated reference).
pub fn ingestible(kind: Kind) -> bool {
    kind.is_external() || kind == Kind::TimeManipulation
}

/// Most bytes of a signals file.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Parses and validates a signals file's text: the accepted signals, or every problem.
pub fn parse(text: &str) -> Result<Vec<Signal>, Vec<String>> {
    let value: Value = serde_json::from_str(text).map_err(|e| vec![format!("not JSON: {e}")])?;
    let items = match &value {
        Value::Array(a) => a.clone(),
        Value::Object(o) => match o.get("signals") {
            Some(Value::Array(a)) => a.clone(),
            _ => {
                return Err(vec![
                    "expected an array of signals or {\"signals\": [...]}".into()
                ])
            }
        },
        _ => {
            return Err(vec![
                "expected an array of signals or {\"signals\": [...]}".into()
            ])
        }
    };
    if items.is_empty() {
        return Err(vec!["no signals in the file".into()]);
    }
    let mut accepted = Vec::new();
    let mut problems = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let kind_id = item.get("kind").and_then(Value::as_str).unwrap_or("");
        let Some(kind) = Kind::from_id(kind_id) else {
            problems.push(format!("signal {i}: unknown kind {kind_id:?}"));
            continue;
        };
        if !ingestible(kind) {
            problems.push(format!(
                "signal {i}: {kind_id} is observed by the hooks, not supplied by a harness"
            ));
            continue;
        }
        let evidence = match item.get("evidence") {
            Some(Value::Object(m)) => m.clone(),
            _ => {
                problems.push(format!("signal {i} ({kind_id}): no evidence object"));
                continue;
            }
        };
        let s = Signal::new(kind, "external", evidence);
        match s.validate() {
            Ok(()) => accepted.push(s),
            Err(r) => problems.push(format!("signal {i} ({kind_id}): {}", r.reason)),
        }
    }
    if problems.is_empty() {
        Ok(accepted)
    } else {
        Err(problems)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_complete_evidence_only() {
        let ok = r#"{"signals":[
            {"kind":"output_spoofing","evidence":{"expected":"42","actual":"41","input":"x=7"}},
            {"kind":"plagiarism","evidence":{"similarity":0.91,"compared_with":"sub-12","comparison":"a.py vs b.py"}},
            {"kind":"reward_hacking","evidence":{"visible_result":"12 passed","hidden_failure":"invariant I3 broken"}},
            {"kind":"commendable","evidence":{"trigger":"acknowledged_uncertainty","text":"I am not sure X holds"}},
            {"kind":"time_manipulation","evidence":{"elapsed_secs":30,"reference_secs":600,"timestamp":"T"}}
        ]}"#;
        assert_eq!(parse(ok).unwrap().len(), 5);
        let bad = r#"[
            {"kind":"output_spoofing","evidence":{"expected":"42"}},
            {"kind":"plagiarism","evidence":{"similarity":0.5,"compared_with":"s","comparison":"c"}},
            {"kind":"network_escape","evidence":{"destination":"x"}},
            {"kind":"bogus","evidence":{}},
            {"kind":"reward_hacking"}
        ]"#;
        let problems = parse(bad).unwrap_err();
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(problems[0].contains("missing evidence: actual"));
        assert!(problems[1].contains("80%"));
        assert!(parse("{}").is_err());
        assert!(parse("[]").is_err());
        assert!(parse("nope").is_err());
    }
}
