//! Fixture cases (`fixtures/model-tier-guard/M*/**.json`), embedded for `--selftest`, and the
//! runner that replays one through [`crate::judge`] in a scratch HOME, project and state dir.
//!
//! A case: `{case_id, requirement, description, payload, env?, launch_args?, config?, files?,
//! ledger?, expect: {decision, code?, requirement?, reason_contains?, reason_excludes?, tainted?,
//! main_model?}}`. `code` is the sub-code ([`crate::codes`]) the reason starts with and the audit
//! record carries. Strings may use `{home}`, `{project}`, `{state}` and `{managed}` (the managed
//! settings folder) for the scratch folders; `files` maps paths to contents (agent folders,
//! settings files). `launch_args` is the CLI's command line; without it the command line counts
//! as unreadable. `decision` is the audit
//! decision (`deny`, `block`, `allow`, `record`, `critical`) or `silent` when nothing is recorded.

use crate::host::Host;
use crate::m1_tiers::TierPolicy;
use crate::{judge, Ctx};
use hook_io::HookInput;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// The fixtures compiled into the binary.
pub mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_fixtures.rs"));
}

/// A scratch folder removed on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> std::io::Result<Scratch> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "model-tier-guard-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        std::fs::create_dir_all(&p)?;
        Ok(Scratch(p))
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The scratch layout of one case.
pub struct Layout {
    pub home: PathBuf,
    pub project: PathBuf,
    pub state: PathBuf,
    /// Stands in for `/etc/claude-code` (in-process runs only: the binary reads the real one).
    pub managed: PathBuf,
}

impl Layout {
    pub fn under(root: &Path) -> Layout {
        Layout {
            home: root.join("home"),
            project: root.join("project"),
            state: root.join("state"),
            managed: root.join("managed"),
        }
    }

    pub fn fill(&self, text: &str) -> String {
        text.replace("{home}", &self.home.display().to_string())
            .replace("{project}", &self.project.display().to_string())
            .replace("{state}", &self.state.display().to_string())
            .replace("{managed}", &self.managed.display().to_string())
    }

    pub fn fill_value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.fill(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.fill_value(x)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| (self.fill(k), self.fill_value(x)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// Creates the folders, the case's files and its initial ledger.
    pub fn prepare(&self, case: &Value) -> Result<(), String> {
        for d in [&self.home, &self.project, &self.state] {
            std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
        }
        if let Some(files) = case.get("files").and_then(Value::as_object) {
            for (path, body) in files {
                let p = PathBuf::from(self.fill(path));
                if let Some(parent) = p.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                let text = match body {
                    Value::String(s) => self.fill(s),
                    other => self.fill_value(other).to_string(),
                };
                std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
            }
        }
        if let Some(Value::Object(config)) = case.get("config") {
            // The maintainer's config file, for runs of the real binary (lists of strings only).
            let dir = self.home.join(".config/agent-guards");
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let text: String = config.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
            std::fs::write(dir.join("config.toml"), text).map_err(|e| e.to_string())?;
        }
        if let Some(Value::Object(ledger)) = case.get("ledger") {
            let sid = case.pointer("/payload/session_id").and_then(Value::as_str);
            let session = session_store::Session::new(&self.state.join("agent-guards"), sid);
            let filled = self.fill_value(&Value::Object(ledger.clone()));
            session
                .ledger()
                .update(|m| {
                    if let Value::Object(f) = filled {
                        m.extend(f);
                    }
                })
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The case's environment, with the scratch HOME and state dir.
    pub fn env(&self, case: &Value) -> Vec<(String, String)> {
        let mut env = vec![
            ("HOME".to_string(), self.home.display().to_string()),
            (
                "XDG_STATE_HOME".to_string(),
                self.state.display().to_string(),
            ),
            (
                "XDG_CONFIG_HOME".to_string(),
                self.home.join(".config").display().to_string(),
            ),
        ];
        if let Some(extra) = case.get("env").and_then(Value::as_object) {
            for (k, v) in extra {
                env.push((k.clone(), self.fill(v.as_str().unwrap_or_default())));
            }
        }
        env
    }
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub case_id: String,
    pub passed: bool,
    pub problems: Vec<String>,
}

/// The strings of `expect[key]` (an array; anything else is none).
fn strings<'a>(expect: &'a Value, key: &str) -> impl Iterator<Item = &'a str> {
    expect
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// Checks what a run produced against the case's `expect`.
pub fn check(
    case: &Value,
    decision: &str,
    reason: Option<&str>,
    ledger: &Map<String, Value>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let expect = case.get("expect").cloned().unwrap_or(json!({}));
    if let Some(want) = expect.get("decision").and_then(Value::as_str) {
        if want != decision {
            problems.push(format!("decision {decision:?}, expected {want:?}"));
        }
    }
    let r = reason.unwrap_or("");
    for s in strings(&expect, "reason_contains") {
        if !r.contains(s) {
            problems.push(format!("reason lacks {s:?}: {r:?}"));
        }
    }
    for s in strings(&expect, "reason_excludes") {
        if r.contains(s) {
            problems.push(format!("reason contains {s:?}: {r:?}"));
        }
    }
    if r.chars().count() > safety_kernel::MAX_REASON_CHARS {
        problems.push("reason longer than the K4 bound".into());
    }
    // A clipped reason has lost the end of its remedy.
    if r.ends_with("...") {
        problems.push(format!("reason clipped to the K4 bound: {r:?}"));
    }
    if let Some(want) = expect.get("tainted").and_then(Value::as_bool) {
        let got = taint::TaintState::from_ledger(ledger).tainted;
        if got != want {
            problems.push(format!("tainted {got}, expected {want}"));
        }
    }
    if let Some(want) = expect.get("main_model").and_then(Value::as_str) {
        let got = ledger
            .get(crate::main_model::LEDGER_KEY)
            .and_then(|e| e.get("model"))
            .and_then(Value::as_str);
        if got != Some(want) {
            problems.push(format!("ledger main model {got:?}, expected {want:?}"));
        }
    }
    problems
}

/// Checks the case's `expect.code` against the audit record's `code`, and that a reason starts
/// with the code the record carries.
fn check_code(case: &Value, code: Option<&str>, reason: Option<&str>) -> Vec<String> {
    let mut problems = Vec::new();
    let want = case.pointer("/expect/code").and_then(Value::as_str);
    if want.is_some() && want != code {
        problems.push(format!("code {code:?}, expected {want:?}"));
    }
    if let (Some(r), Some(c)) = (reason, code) {
        if !r.starts_with(&format!("{c}: ")) {
            problems.push(format!("reason does not start with its code {c:?}: {r:?}"));
        }
    }
    if let (Some(_), None) = (reason, code) {
        problems.push("a reason without a code in the audit record".into());
    }
    problems
}

/// Replays a case in-process.
pub fn run_case(case: &Value) -> CaseResult {
    let case_id = case
        .get("case_id")
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    let fail = |p: String| CaseResult {
        case_id: case_id.clone(),
        passed: false,
        problems: vec![p],
    };
    let scratch = match Scratch::new("case") {
        Ok(s) => s,
        Err(e) => return fail(format!("scratch dir: {e}")),
    };
    let layout = Layout::under(scratch.path());
    if let Err(e) = layout.prepare(case) {
        return fail(format!("prepare: {e}"));
    }
    let payload = layout.fill_value(case.get("payload").unwrap_or(&Value::Null));
    let input = match HookInput::from_value(payload) {
        Ok(i) => i,
        Err(e) => return fail(format!("payload: {e}")),
    };
    let session_id = input.session_id.clone();
    let host = Host {
        env: layout.env(case).into_iter().collect(),
        launch_args: case.get("launch_args").and_then(|a| {
            a.as_array().map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(|s| layout.fill(s))
                    .collect()
            })
        }),
        managed_dir: Some(layout.managed.clone()),
    };
    let config = case.get("config");
    let tiers_cfg: Option<Vec<String>> = config
        .and_then(|c| c.get("maintainer_only_tiers"))
        .and_then(|v| serde_json::from_value(v.clone()).ok());
    let ctx = Ctx {
        host,
        tiers: TierPolicy::from_config(tiers_cfg.as_deref()),
        trusted_mcp_servers: config
            .and_then(|c| c.get("trusted_mcp_servers"))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default(),
        state_dir: Some(layout.state.join("agent-guards")),
        now: "2026-12-01T00:00:00.000Z".into(),
        config_notice: None,
    };
    let verdict = judge(input, &ctx);
    // The first audit record's field `key`, as text.
    let audit = |key: &str| {
        let record = verdict.audit.first();
        record.and_then(|r| r.get(key)).and_then(Value::as_str)
    };
    let decision = audit("decision").unwrap_or("silent").to_string();
    let reason = audit("reason").map(str::to_string);
    let ledger =
        session_store::Session::new(&layout.state.join("agent-guards"), session_id.as_deref())
            .ledger()
            .read()
            .unwrap_or_default();
    let mut problems = check(case, &decision, reason.as_deref(), &ledger);
    let code = audit("code");
    problems.extend(check_code(case, code, reason.as_deref()));
    if std::env::var_os("MTG_DUMP_CODES").is_some() {
        eprintln!("CODE\t{case_id}\t{}", code.unwrap_or("-"));
    }
    CaseResult {
        case_id,
        passed: problems.is_empty(),
        problems,
    }
}

/// The embedded cases: (path, parsed case).
pub fn embedded_cases() -> Result<Vec<(String, Value)>, String> {
    embedded::EMBEDDED
        .iter()
        .map(|(path, text)| {
            serde_json::from_str(text)
                .map(|v| (path.to_string(), v))
                .map_err(|e| format!("{path}: {e}"))
        })
        .collect()
}

/// The requirements M1–M6 without a fixture folder among `paths`.
fn requirements_without_fixtures<'a>(paths: impl Iterator<Item = &'a str>) -> Vec<&'static str> {
    let seen: std::collections::BTreeSet<&str> =
        paths.filter_map(|p| p.split('/').next()).collect();
    ["M1", "M2", "M3", "M4", "M5", "M6"]
        .into_iter()
        .filter(|m| !seen.contains(m))
        .collect()
}

/// `--selftest`: every embedded case (replayed by [`hook_replay::replay`]), and at least one per
/// requirement M1–M6.
pub fn selftest() -> (Value, bool) {
    let (mut record, replayed) = hook_replay::replay(
        "model-tier-guard",
        env!("CARGO_PKG_VERSION"),
        embedded::EMBEDDED,
        |_, case| {
            let r = run_case(case);
            match r.passed {
                true => Ok(()),
                false => Err(r.problems.join("; ")),
            }
        },
    );
    let missing = requirements_without_fixtures(embedded::EMBEDDED.iter().map(|(p, _)| *p));
    let passed = replayed && missing.is_empty();
    record["requirements_without_fixtures"] = json!(missing);
    record["status"] = json!(if passed { "pass" } else { "fail" });
    (record, passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_requirement_without_a_fixture_folder_is_named() {
        let paths = ["M1/a.json", "M3/deep/b.json", "M6/c.json", "M2x/d.json"];
        assert_eq!(
            requirements_without_fixtures(paths.into_iter()),
            ["M2", "M4", "M5"]
        );
    }
}
