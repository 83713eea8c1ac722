//! Stop: judge-manipulating text in the final message (I1) and claims its latest runs contradict
//! (I2), with the latest result per runner taken from the ledger or the transcript.

use super::{now_text, Deps, Verdict};
use crate::i1_signals;
use crate::i2_fabricated_claims::{self as i2, RunResult, Runner};
use crate::signal::{Kind, Signal};
use crate::store;
use hook_io::{Answer, HookInput};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::Path;

/// The most recent result of each `wanted` runner. The ledger's (written at PostToolUse, so never
/// behind the transcript, which the CLI writes asynchronously) is used unless the transcript holds
/// a newer matching call with a result (one the ledger missed). The transcript is walked newest
/// first and the walk stops as soon as every runner is decided.
pub fn latest_results(
    transcript: Option<&[u8]>,
    wanted: &[Runner],
    ledger: &dyn Fn(Runner) -> Option<RunResult>,
) -> HashMap<Runner, RunResult> {
    let from_ledger: HashMap<Runner, RunResult> = wanted
        .iter()
        .filter_map(|r| ledger(*r).map(|l| (*r, l)))
        .collect();
    let mut newer: HashMap<Runner, RunResult> = HashMap::new();
    let mut ledger_seen: HashSet<Runner> = HashSet::new();
    if let Some(bytes) = transcript {
        transcript::calls_newest_first(bytes, &mut |c| {
            let Some(cmd) = c
                .input
                .get("command")
                .and_then(Value::as_str)
                .filter(|_| c.tool_name == "Bash")
            else {
                return ControlFlow::Continue(());
            };
            let mut runners: Option<Vec<Runner>> = None;
            for r in wanted {
                if ledger_seen.contains(r) {
                    continue;
                }
                if from_ledger
                    .get(r)
                    .is_some_and(|l| l.tool_use_id == c.tool_use_id)
                {
                    ledger_seen.insert(*r);
                    continue;
                }
                if newer.contains_key(r) {
                    continue;
                }
                if runners
                    .get_or_insert_with(|| i2::runners_of(cmd))
                    .contains(r)
                {
                    if let Some(res) = c.result() {
                        let ts = res.timestamp.unwrap_or_default();
                        newer.insert(
                            *r,
                            i2::result_of(cmd, &c.tool_use_id, &res.text, res.is_error, &ts),
                        );
                    }
                }
            }
            let decided = wanted.iter().all(|r| {
                ledger_seen.contains(r) || (!from_ledger.contains_key(r) && newer.contains_key(r))
            });
            if decided {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
    }
    wanted
        .iter()
        .filter_map(|r| {
            let chosen = match from_ledger.get(r) {
                // The ledger's call is in the transcript: a newer match found before it wins.
                Some(l) if ledger_seen.contains(r) => newer.get(r).cloned().or(Some(l.clone())),
                // Not (yet) in the transcript: the ledger is the newest record.
                Some(l) => Some(l.clone()),
                None => newer.get(r).cloned(),
            };
            chosen.map(|c| (*r, c))
        })
        .collect()
}

pub(super) fn stop(input: &HookInput, deps: &Deps) -> Verdict {
    let timestamp = now_text();
    let transcript_path = input
        .transcript_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(Path::new);
    let mut errors = Vec::new();
    let text = match input
        .last_assistant_message
        .as_deref()
        .filter(|t| !t.is_empty())
    {
        Some(t) => t.to_string(),
        None => match transcript_path.map(transcript::last_assistant_text) {
            Some(Ok(Some(t))) => t,
            Some(Err(e)) => {
                errors.push(e);
                String::new()
            }
            _ => String::new(),
        },
    };
    let at = i1_signals::Written {
        place: "final message",
        timestamp: &timestamp,
        tool_use_id: None,
    };
    let mut signals: Vec<Signal> = i1_signals::judge_signal(deps.phrases(), &text, at)
        .into_iter()
        .collect();
    let claims = i2::claims(deps.phrases(), &text);
    if !claims.is_empty() {
        let ledger = match &deps.store {
            Ok(s) => s.ledger(input.session_id.as_deref()).unwrap_or_else(|e| {
                errors.push(e);
                Default::default()
            }),
            Err(_) => Default::default(),
        };
        let bytes = match transcript_path.map(|p| transcript::read_tail(p, transcript::TAIL_BYTES))
        {
            Some(Ok(b)) => Some(b),
            Some(Err(e)) => {
                errors.push(e);
                None
            }
            None => None,
        };
        let wanted: Vec<Runner> = claims.iter().map(|(r, _)| *r).collect();
        let found = latest_results(bytes.as_deref(), &wanted, &|r| {
            store::ledger_result(&ledger, r)
        });
        let latest = |r: Runner| found.get(&r).cloned();
        signals.extend(i2::check(deps.phrases(), &text, &latest, &timestamp));
    }
    let fabricated = signals.iter().find(|s| s.kind == Kind::FabricatedClaim);
    let answer = match fabricated {
        Some(s) => Answer::Notice {
            system_message: format!(
                "integrity-signals: I2 fabricated claim recorded: the final message says \"{}\" but the last `{}` run failed.",
                i1_signals::clip(s.evidence.get("claim").and_then(Value::as_str).unwrap_or(""), 120),
                i1_signals::clip(s.evidence.get("command").and_then(Value::as_str).unwrap_or(""), 80),
            ),
        },
        None => Answer::Silent,
    };
    Verdict {
        answer,
        signals,
        audit: json!({
            "requirement": "I2",
            "decision": "recorded",
            "claims": claims.iter().map(|(r, c)| json!({"runner": r.key(), "claim": c})).collect::<Vec<_>>(),
            "errors": errors,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use transcript::test_lines::{bash_call as call, tool_result as result};

    fn ledger_entry(id: &str, failed: bool) -> RunResult {
        let out = if failed {
            "Exit code 1\n1 failed"
        } else {
            "3 passed"
        };
        i2::result_of("pytest", id, out, failed, "T")
    }

    #[test]
    fn the_newest_result_wins_between_ledger_and_transcript() {
        let t = [
            call("a", "pytest"),
            result("a", "Exit code 1\n1 failed", true),
            call("b", "ls"),
            result("b", "x", false),
        ]
        .join("\n");
        let bytes = t.as_bytes();
        let tests = [Runner::Tests];
        // Transcript only.
        let r = latest_results(Some(bytes), &tests, &|_| None);
        assert_eq!(r[&Runner::Tests].tool_use_id, "a");
        assert!(r[&Runner::Tests].failed);
        // The ledger has a newer run the transcript does not show yet (the CLI writes it late).
        let r = latest_results(Some(bytes), &tests, &|_| Some(ledger_entry("c", false)));
        assert_eq!(r[&Runner::Tests].tool_use_id, "c");
        // The ledger's run is in the transcript and a newer one follows it: the newer one wins.
        let t2 = format!(
            "{t}\n{}\n{}",
            call("d", "pytest -x"),
            result("d", "2 passed", false)
        );
        let r = latest_results(Some(t2.as_bytes()), &tests, &|_| {
            Some(ledger_entry("a", true))
        });
        assert_eq!(r[&Runner::Tests].tool_use_id, "d");
        assert!(!r[&Runner::Tests].failed);
        // Nothing anywhere: no result.
        assert!(latest_results(None, &tests, &|_| None).is_empty());
        // Any command: the newest Bash call.
        assert_eq!(
            latest_results(Some(bytes), &[Runner::Any], &|_| None)[&Runner::Any].tool_use_id,
            "b"
        );
    }
}
