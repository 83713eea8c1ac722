//! Replaying decision cases: the conformance cases (`cases.json`) and our fixtures
//! (`fixtures/gh-write-guard/G*/*.json`, same shape, embedded for `--selftest`). A case is
//! `{id, requirement, command, expected: "deny"|"allow", env, config?}`; the world is the case's
//! `env` ([`FakeWorld`]), and a deny must name the case's requirement unless the case says
//! `"any_requirement": true`. A case may pin the deny's sub-code (`"code": "G4.rule"`, see
//! [`crate::codes`]): one of the denies must carry it.

use crate::fake_world::FakeWorld;
use crate::finding::{Code, Requirement};
use crate::judge::judge;
use serde_json::Value;

/// The review helper the conformance cases assume (conformance README).
pub const CONFORMANCE_REVIEW_HELPER: &str = "python3 scripts/pr_review.py reply";

/// One replayed case.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub id: String,
    pub requirement: Option<Requirement>,
    pub command: String,
    pub expected: String,
    pub got: String,
    /// The requirement the deny named.
    pub named: Option<Requirement>,
    /// The sub-code the deny named.
    pub named_code: Option<Code>,
    pub reason: Option<String>,
    /// The decision is the expected one.
    pub passed: bool,
    /// For a deny: a finding of the case's requirement is among the denies (or the case does
    /// not insist on one), and so is one with the case's `code` when it pins one.
    pub requirement_matched: bool,
}

/// The config a case assumes: its `config` object (`review_helper`, `protected_branches`,
/// `primary_checkout`), else the conformance default (the review helper).
fn case_config(case: &Value) -> guard_config::Config {
    let mut config = guard_config::Config {
        review_helper: Some(CONFORMANCE_REVIEW_HELPER.to_string()),
        ..Default::default()
    };
    if let Some(c) = case.get("config").and_then(Value::as_object) {
        if let Some(v) = c.get("review_helper") {
            config.review_helper = v.as_str().map(str::to_string);
        }
        if let Some(v) = c.get("protected_branches").and_then(Value::as_array) {
            config.protected_branches = v
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect();
        }
        if let Some(v) = c.get("primary_checkout").and_then(Value::as_str) {
            let word = toml::Value::String(v.to_string());
            config.primary_checkout = Some(guard_config::CheckoutConfig::from_toml(&word));
        }
    }
    config
}

/// Replays one case.
pub fn replay(case: &Value) -> CaseResult {
    let text = |key: &str, missing: &str| {
        let v = case.get(key).and_then(Value::as_str);
        v.unwrap_or(missing).to_string()
    };
    let (id, command, expected) = (text("id", "?"), text("command", ""), text("expected", "?"));
    let requirement = case.get("requirement").and_then(|r| {
        r.as_u64().and_then(Requirement::from_number).or_else(|| {
            let s = r.as_str()?;
            Requirement::ALL.iter().copied().find(|q| q.id() == s)
        })
    });
    // A pinned code that names no code never matches (a typo must not pass silently).
    let code = case
        .get("code")
        .map(|c| c.as_str().and_then(Code::parse).ok_or(()));
    let any = case.get("any_requirement").and_then(Value::as_bool) == Some(true);
    let (world, cx) =
        FakeWorld::from_env(case.get("env").unwrap_or(&Value::Null), case_config(case));
    let decision = judge(&command, &cx, &world);
    let deny = decision.deny();
    let got = if deny.is_some() { "deny" } else { "allow" }.to_string();
    let named = deny.map(|f| f.requirement);
    let passed = got == expected;
    let requirement_matched = expected != "deny"
        || any
        || requirement.is_none()
        || decision
            .findings
            .iter()
            .any(|f| f.is_deny() && Some(f.requirement) == requirement);
    let code_matched = match code {
        None => true,
        Some(Err(())) => false,
        Some(Ok(c)) => decision
            .findings
            .iter()
            .any(|f| f.is_deny() && f.code == Some(c)),
    };
    CaseResult {
        id,
        requirement,
        command,
        expected,
        got,
        named,
        named_code: deny.and_then(|f| f.code),
        reason: decision.reason(),
        passed,
        requirement_matched: requirement_matched && code_matched,
    }
}

/// Replays every case of a JSON array (one file).
pub fn replay_all(text: &str) -> Result<Vec<CaseResult>, String> {
    let cases: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let cases = cases.as_array().ok_or("not a JSON array of cases")?;
    Ok(cases.iter().map(replay).collect())
}
