//! `--selftest`: replays the fixtures (`fixtures/integrity-signals/I*/`, embedded at build time)
//! through the live hook code in a temporary state dir, and checks each one's expectation.
//!
//! A fixture is one JSON object:
//!
//! ```json
//! {"case_id": "...", "signal": "<kind id>", "expect": "raise" | "no_signal",
//!  "expect_decision": "deny" | "allow",            // optional: the last PreToolUse's decision
//!  "expect_code": "I3.settings",                   // optional: the code its deny reason starts with
//!  "config": { ...config keys... },                // optional
//!  "transcript": [ {...}, ... ],                   // optional: JSON lines, path as $TRANSCRIPT
//!  "events": [ {payload} | {"repeat": N, "payload": {...}} ],
//!  "ingest": [ ...signals... ]}                    // optional: a harness's signals file
//! ```
//!
//! `raise` passes when the session's score holds a signal of the kind (with the evidence its kind
//! requires — unscored signals do not count); `no_signal` passes when it holds none. The verdict is
//! always recomputed; nothing stored in a fixture is trusted.

use crate::hook::{self, Deps};
use crate::i4_scoring;
use crate::i5_modes::Mode;
use crate::ingest;
use crate::signal::Kind;
use hook_io::{Answer, HookInput};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_fixtures.rs"));
}

/// The fixture HOME: fixtures name paths under it literally.
pub const FIXTURE_HOME: &str = "/home/fixture";

/// `--selftest`: replays every embedded fixture with [`check`] (through [`hook_replay::replay`])
/// and requires every kind to be covered both ways; returns the record and whether it passed.
pub fn run_embedded() -> (Value, bool) {
    let (mut record, replayed) = hook_replay::replay(
        "integrity-signals",
        env!("CARGO_PKG_VERSION"),
        embedded::EMBEDDED,
        |_, case| check(case),
    );
    let cases: Vec<Value> = embedded::EMBEDDED
        .iter()
        .filter_map(|(_, text)| serde_json::from_str(text).ok())
        .collect();
    let missing = missing_coverage(&cases);
    let passed = replayed && missing.is_empty();
    record["missing_coverage"] = json!(missing);
    record["status"] = json!(if passed { "pass" } else { "fail" });
    (record, passed)
}

/// Kinds without both a raising fixture and a near miss among `cases`.
pub fn missing_coverage(cases: &[Value]) -> Vec<String> {
    let has = |k: Kind, e: &str| {
        cases
            .iter()
            .any(|c| c["signal"] == k.id() && c["expect"] == e)
    };
    Kind::ALL
        .iter()
        .filter(|k| !(has(**k, "raise") && has(**k, "no_signal")))
        .map(|k| k.id().to_string())
        .collect()
}

/// A temporary folder for one case's state, removed on drop.
struct CaseDir(PathBuf);

impl CaseDir {
    fn new() -> CaseDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let name = format!("integrity-selftest-{}-{n}", std::process::id());
        CaseDir(std::env::temp_dir().join(name))
    }
}

impl Drop for CaseDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Replays one case through the live hook code in a temporary state dir; `Err` says how the
/// outcome differed from the case's expectation.
pub fn check(case: &Value) -> Result<(), String> {
    let dir = CaseDir::new();
    let (kinds, decision, code) = replay(case, &dir.0)?;
    let signal = case.get("signal").and_then(Value::as_str).unwrap_or("");
    let expect = case.get("expect").and_then(Value::as_str).unwrap_or("");
    let present = kinds.iter().any(|k| k == signal);
    let mut ok = match expect {
        "raise" => present,
        "no_signal" => !present,
        _ => false,
    };
    let mut detail = format!("scored kinds {kinds:?}");
    if let Some(want) = case.get("expect_decision").and_then(Value::as_str) {
        ok &= decision.as_deref() == Some(want);
        detail.push_str(&format!(
            "; last PreToolUse decision {decision:?}, expected {want}"
        ));
    }
    if let Some(want) = case.get("expect_code").and_then(Value::as_str) {
        ok &= code.as_deref() == Some(want);
        detail.push_str(&format!("; deny code {code:?}, expected {want}"));
    }
    if Kind::from_id(signal).is_none() {
        return Err(format!("no such signal kind {signal:?}"));
    }
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expect} {signal}: {detail}"))
    }
}

/// The scored kinds, the last PreToolUse decision and the code its deny reason starts with.
type Replayed = (Vec<String>, Option<String>, Option<String>);

/// Replays one case.
fn replay(case: &Value, dir: &Path) -> Result<Replayed, String> {
    let state = dir.join("state");
    let transcript = dir.join("transcript.jsonl");
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    if let Some(Value::Array(lines)) = case.get("transcript") {
        let body: Vec<String> = lines.iter().map(Value::to_string).collect();
        std::fs::write(&transcript, body.join("\n")).map_err(|e| e.to_string())?;
    }
    let config: guard_config::Config = match case.get("config") {
        Some(c) => serde_json::from_value(c.clone()).map_err(|e| format!("config: {e}"))?,
        None => guard_config::Config::default(),
    };
    let loaded = guard_config::Loaded {
        config,
        ..Default::default()
    };
    let state_s = state.to_string_lossy().into_owned();
    let env = move |k: &str| match k {
        "HOME" => Some(FIXTURE_HOME.to_string()),
        "XDG_STATE_HOME" => Some(state_s.clone()),
        "CLAUDE_PROJECT_DIR" => Some("/work/proj".to_string()),
        _ => None,
    };
    let deps = Deps::new(&env, &loaded, None);
    let session = "fixture-session";
    let mut decision = None;
    let mut code = None;
    for ev in case
        .get("events")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let (repeat, payload) = match ev.get("payload") {
            Some(p) => (
                ev.get("repeat").and_then(Value::as_u64).unwrap_or(1),
                p.clone(),
            ),
            None => (1, ev),
        };
        let mut payload = payload;
        if let Some(m) = payload.as_object_mut() {
            m.entry("session_id").or_insert(json!(session));
            m.entry("cwd").or_insert(json!("/work/proj"));
            if m.get("transcript_path").and_then(Value::as_str) == Some("$TRANSCRIPT") {
                m.insert(
                    "transcript_path".into(),
                    json!(transcript.to_string_lossy()),
                );
            }
        }
        let input = HookInput::from_value(payload).map_err(|e| format!("payload: {e}"))?;
        for _ in 0..repeat {
            let v = hook::run(&input, &deps);
            if input.event == hook_io::Event::PreToolUse {
                code = match &v.answer {
                    Answer::Deny { reason, .. } => reason.split_once(": ").map(|(c, _)| c.into()),
                    _ => None,
                };
                let denied = matches!(v.answer, Answer::Deny { .. });
                decision = Some(if denied { "deny" } else { "allow" }.to_string());
            }
        }
    }
    let store = deps.store.clone()?;
    if let Some(items) = case.get("ingest") {
        // A rejected file stores nothing, exactly as the subcommand does.
        if let Ok(signals) = ingest::parse(&items.to_string()) {
            store.append_signals(Some(session), &signals)?;
        }
    }
    let (signals, _) = store.signals(Some(session))?;
    let score = i4_scoring::score(&signals);
    let _ = hook::write_report(&store, Some(session), Mode::Observe, &[]);
    Ok((
        score
            .scored
            .iter()
            .map(|s| s.kind.id().to_string())
            .collect(),
        decision,
        code,
    ))
}

/// The fixtures folder of the source tree (tests read it directly).
pub fn source_fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/integrity-signals")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_needs_a_raising_case_and_a_near_miss() {
        let all: Vec<Value> = Kind::ALL
            .iter()
            .flat_map(|k| ["raise", "no_signal"].map(|e| json!({"signal": k.id(), "expect": e})))
            .collect();
        assert!(missing_coverage(&all).is_empty());
        let first = Kind::ALL[0].id();
        let without: Vec<Value> = all
            .into_iter()
            .filter(|c| !(c["signal"] == first && c["expect"] == "no_signal"))
            .collect();
        assert_eq!(missing_coverage(&without), [first]);
    }

    #[test]
    fn a_case_of_no_known_kind_fails() {
        let why = check(&json!({"signal": "nope", "expect": "no_signal", "events": []}));
        assert!(why.unwrap_err().contains("\"nope\""));
    }
}
