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

#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case_id: String,
    pub file: String,
    pub signal: String,
    pub expect: String,
    pub passed: bool,
    pub detail: String,
}

#[derive(Debug, Clone, Default)]
pub struct Report {
    pub cases: Vec<CaseResult>,
    pub error: Option<String>,
}

impl Report {
    /// Passes when every case passed and every kind has a raising and a non-raising case.
    pub fn passed(&self) -> bool {
        self.error.is_none()
            && !self.cases.is_empty()
            && self.cases.iter().all(|c| c.passed)
            && self.missing_coverage().is_empty()
    }

    /// Kinds without both a raising fixture and a near miss.
    pub fn missing_coverage(&self) -> Vec<String> {
        Kind::ALL
            .iter()
            .filter(|k| {
                let has = |e: &str| {
                    self.cases
                        .iter()
                        .any(|c| c.signal == k.id() && c.expect == e)
                };
                !(has("raise") && has("no_signal"))
            })
            .map(|k| k.id().to_string())
            .collect()
    }

    pub fn to_json(&self) -> Value {
        json!({
            "binary": "integrity-signals",
            "status": if self.passed() { "pass" } else { "fail" },
            "case_count": self.cases.len(),
            "passed_case_count": self.cases.iter().filter(|c| c.passed).count(),
            "missing_coverage": self.missing_coverage(),
            "error": self.error,
            "failures": self.cases.iter().filter(|c| !c.passed).map(|c| json!({
                "case_id": c.case_id, "file": c.file, "detail": c.detail
            })).collect::<Vec<_>>(),
        })
    }
}

/// Runs the embedded fixtures.
pub fn run_embedded() -> Report {
    let cases: Vec<(String, String)> = embedded::EMBEDDED
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    run_cases(&cases)
}

/// Runs fixture texts (`(file name, JSON text)`).
pub fn run_cases(cases: &[(String, String)]) -> Report {
    let base = std::env::temp_dir().join(format!(
        "integrity-selftest-{}-{}",
        std::process::id(),
        session_store::time::unix_now()
    ));
    if let Err(e) = std::fs::create_dir_all(&base) {
        return Report {
            cases: Vec::new(),
            error: Some(format!("{}: {e}", base.display())),
        };
    }
    let mut report = Report::default();
    for (i, (file, text)) in cases.iter().enumerate() {
        let dir = base.join(i.to_string());
        report.cases.push(run_case(file, text, &dir));
    }
    let _ = std::fs::remove_dir_all(&base);
    report
}

fn failed(file: &str, case: &Value, detail: String) -> CaseResult {
    let s = |k: &str| crate::text_or_empty(case.get(k));
    CaseResult {
        case_id: s("case_id"),
        file: file.to_string(),
        signal: s("signal"),
        expect: s("expect"),
        passed: false,
        detail,
    }
}

fn run_case(file: &str, text: &str, dir: &Path) -> CaseResult {
    let case: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return failed(file, &Value::Null, format!("not JSON: {e}")),
    };
    match replay(&case, dir) {
        Ok((kinds, decision, code)) => {
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
            let mut r = failed(file, &case, detail);
            r.passed = ok && Kind::from_id(signal).is_some();
            r
        }
        Err(e) => failed(file, &case, e),
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
