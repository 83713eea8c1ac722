//! Issue 19: no remedy one guard gives is refused by another. Every reason is collected by
//! replaying the guards' fixtures (nothing hand-kept), then walked through the other guards.

use guard_agreement::{remedy_commands, reports_after, GivenReason};
use phrase_gate::{EgressGate, Status};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// The world a command is judged in by gh-write-guard when the reason came from another guard: an
/// agent on a feature branch of its own repository.
fn ordinary_world() -> Value {
    json!({
        "cwd": "/repo", "origin": ["acme", "app"], "current_branch": "feature/x",
        "branch_rules": {}, "branch_rules_default": [], "environ": {},
        "primary_checkout": {}, "primary_checkout_default": false,
        "ref_resolves": [], "ref_resolves_default": true, "git_config_aliases": {}
    })
}

/// gh-write-guard's reasons, each with the world (case `env`) it was given in.
fn gh_write_guard_reasons() -> Vec<(GivenReason, Value)> {
    let mut files = Vec::new();
    json_files(&fixtures().join("gh-write-guard"), &mut files);
    json_files(&fixtures().join("conformance/gh-write-guard"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let cases: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        for case in cases.as_array().into_iter().flatten() {
            let r = gh_write_guard::cases::replay(case);
            if let Some(text) = r.reason {
                let reason = GivenReason {
                    binary: "gh-write-guard",
                    case: r.id,
                    text,
                    command: Some(r.command),
                };
                out.push((reason, case.get("env").cloned().unwrap_or(Value::Null)));
            }
        }
    }
    out
}

/// The reasons a guard built while its own self-test replayed its fixtures.
fn captured(binary: &'static str, replay: impl FnOnce()) -> Vec<GivenReason> {
    safety_kernel::feedback::capture::take();
    replay();
    let mut texts = safety_kernel::feedback::capture::take();
    texts.sort();
    texts.dedup();
    texts
        .into_iter()
        .map(|text| GivenReason {
            binary,
            case: "self-test".into(),
            text,
            command: None,
        })
        .collect()
}

/// egress-audit's block reasons over its embedded fixtures.
fn egress_reasons() -> Vec<GivenReason> {
    let gate = EgressGate::baseline();
    let mut texts: Vec<String> = egress_audit::cases::embedded_cases()
        .unwrap()
        .iter()
        .map(|c| gate.evaluate(&c.text))
        .filter(|r| r.status == Status::Red)
        .map(|r| egress_audit::e5_hook::block_reason(&r))
        .collect();
    texts.sort();
    texts.dedup();
    texts
        .into_iter()
        .map(|text| GivenReason {
            binary: "egress-audit",
            case: "fixtures".into(),
            text,
            command: None,
        })
        .collect()
}

/// Whether model-tier-guard, the real binary, refuses `command` as a Bash call.
fn model_tier_guard_refuses(command: &str) -> Option<String> {
    let home = hook_replay::sandbox::Sandbox::new(e2e_harness::bin("model-tier-guard"));
    let payload = json!({
        "hook_event_name": "PreToolUse", "session_id": "agreement", "tool_name": "Bash",
        "tool_use_id": "t1", "tool_input": {"command": command},
        "cwd": home.path().to_string_lossy(), "transcript_path": "/nonexistent"
    });
    let out = home.run(payload.to_string().as_bytes());
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let decision = answer["hookSpecificOutput"]["permissionDecision"].as_str();
    (decision == Some("deny") || answer["decision"] == "block").then(|| answer.to_string())
}

#[test]
fn no_remedy_one_guard_gives_is_refused_by_another() {
    let with_worlds = gh_write_guard_reasons();
    let mut worlds: BTreeMap<String, Value> = BTreeMap::new();
    let mut reasons: Vec<GivenReason> = Vec::new();
    for (r, env) in with_worlds {
        worlds.insert(r.text.clone(), env);
        reasons.push(r);
    }
    let counts_before = reasons.len();
    reasons.extend(captured("model-tier-guard", || {
        model_tier_guard::fixtures::selftest();
    }));
    reasons.extend(captured("integrity-signals", || {
        integrity_signals::selftest::run_embedded();
    }));
    reasons.extend(captured("tool-containment", || {
        tool_containment::selftest::run();
    }));
    reasons.extend(captured("stray-process-sweep", || {
        stray_process_sweep::selftest::run();
    }));
    reasons.extend(egress_reasons());
    let mut per_binary: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &reasons {
        *per_binary.entry(r.binary).or_default() += 1;
    }
    println!("reasons collected: {per_binary:?} ({counts_before} from gh-write-guard cases)");
    for b in [
        "gh-write-guard",
        "model-tier-guard",
        "integrity-signals",
        "egress-audit",
    ] {
        assert!(
            per_binary.get(b).copied().unwrap_or(0) > 0,
            "no reason from {b}"
        );
    }

    let gate = EgressGate::baseline();
    let mut problems = Vec::new();
    let mut walked_reports = 0;
    let mut red_without_the_refusal = 0;
    let mut walked_commands = 0;
    let mut judged: BTreeMap<String, Option<String>> = BTreeMap::new();
    for r in &reasons {
        // The final message after the refusal.
        for message in reports_after(r) {
            walked_reports += 1;
            let record = if r.binary == "egress-audit" {
                if gate.mentions_tripwire(&message) {
                    problems.push(format!("E5 reason holds a tripwire: {message}"));
                }
                gate.evaluate(&message)
            } else {
                if gate.evaluate(&message).status == Status::Red {
                    red_without_the_refusal += 1;
                }
                gate.evaluate_with(&message, &[r.as_recorded()])
            };
            if record.status == Status::Red {
                problems.push(format!(
                    "egress-audit blocks the report after {} {} ({:?}): {message}",
                    r.binary,
                    r.case,
                    record
                        .violations()
                        .map(|v| v.diagnostic_id)
                        .collect::<Vec<_>>()
                ));
            }
        }
        // The commands the remedy tells the agent to run.
        for command in remedy_commands(&r.text) {
            walked_commands += 1;
            let env = worlds.get(&r.text).cloned().unwrap_or_else(ordinary_world);
            let (world, cx) = gh_write_guard::fake_world::FakeWorld::from_env(
                &env,
                guard_config::Config::default(),
            );
            if let Some(deny) = gh_write_guard::judge(&command, &cx, &world).reason() {
                problems.push(format!(
                    "gh-write-guard refuses `{command}`, the remedy of {} {}: {deny}",
                    r.binary, r.case
                ));
            }
            let mtg = judged
                .entry(command.clone())
                .or_insert_with(|| model_tier_guard_refuses(&command));
            if let Some(answer) = mtg {
                problems.push(format!(
                    "model-tier-guard refuses `{command}`, the remedy of {} {}: {answer}",
                    r.binary, r.case
                ));
            }
        }
    }
    println!(
        "walked {walked_reports} final messages and {walked_commands} remedy commands over {} reasons; \
         {red_without_the_refusal} of the messages are blocked when the refusal is not recorded",
        reasons.len()
    );
    println!(
        "remedy commands judged: {:?}",
        judged.keys().collect::<Vec<_>>()
    );
    assert!(
        problems.is_empty(),
        "{} disagreements:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
