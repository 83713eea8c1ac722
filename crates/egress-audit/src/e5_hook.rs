//! E5: the Stop / SubagentStop hook.
//!
//! Red in `enforce` mode blocks the stop with a reason that states the remedy and contains no
//! tripwire phrase (so the model cannot learn the tables from it, and an echo of the reason cannot
//! trip the gate again). When the stop is already a continuation (`stop_hook_active`) and still red,
//! the stop is let through and the user is told; `report` mode only records and tells the user.
//! Every verdict goes to the audit log with its evidence.

use crate::refusals::RefusalSource;
use crate::transcript;
use hook_io::{Answer, Event, HookInput};
use phrase_gate::egress::{detector, GateRecord};
use phrase_gate::{EgressGate, Status};
use serde_json::{json, Value};
use std::path::Path;

/// Config `egress_mode`: anything other than `report` enforces (fail closed).
pub use guard_config::EgressMode as Mode;

/// The decision and the audit record that explains it.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub answer: Answer,
    pub audit: Value,
}

/// The text the gate judges: `last_assistant_message`, else the transcript's last assistant text.
pub fn final_text(input: &HookInput) -> Result<Option<String>, String> {
    if let Some(t) = input
        .last_assistant_message
        .as_ref()
        .filter(|t| !t.is_empty())
    {
        return Ok(Some(t.clone()));
    }
    match input.transcript_path.as_deref().filter(|p| !p.is_empty()) {
        Some(p) => transcript::last_assistant_text(Path::new(p)),
        None => Ok(None),
    }
}

/// The code of a red record: named for its first violation ([`crate::codes`]).
pub fn block_code(record: &GateRecord) -> &'static str {
    record
        .violations()
        .next()
        .map_or(crate::codes::E5_HAND_BACK, |row| {
            crate::codes::of_detector(row.diagnostic_id)
        })
}

/// The reason the model sees on a block: its code, what was refused, remedies. No phrase of
/// any table, no matching internals.
pub fn block_reason(record: &GateRecord) -> String {
    let mut remedies = Vec::new();
    for row in record.violations() {
        if let Some(d) = detector(row.diagnostic_id) {
            remedies.push(d.remedy);
        }
    }
    safety_kernel::feedback::reason(
        block_code(record),
        "this final message hands work back to the operator, so it was not sent",
        &remedies.join(" "),
    )
}

/// Decides a Stop or SubagentStop payload. `notice` is a config problem to pass on to the user;
/// `refusals` is asked, only for a red message, which guard refusals this session recorded.
pub fn judge(
    input: &HookInput,
    gate: &EgressGate,
    mode: Mode,
    notice: Option<String>,
    refusals: &dyn RefusalSource,
) -> Verdict {
    let base = json!({
        "binary": "egress-audit",
        "event": input.event.name(),
        "session_id": input.session_id,
        "agent_id": input.agent_id,
    });
    if !matches!(input.event, Event::Stop | Event::SubagentStop) {
        return Verdict {
            answer: notice_or_silent(notice),
            audit: merge(
                base,
                json!({"decision": "ignored", "why": "not a Stop or SubagentStop event"}),
            ),
        };
    }
    let text = match final_text(input) {
        Ok(Some(t)) => t,
        Ok(None) => {
            return Verdict {
                answer: notice_or_silent(notice),
                audit: merge(
                    base,
                    json!({"decision": "allow", "why": "no final text to judge"}),
                ),
            }
        }
        Err(e) => {
            let msg = format!("egress-audit could not read the final message: {e}");
            return Verdict {
                answer: Answer::Notice {
                    system_message: join_notice(Some(msg), notice),
                },
                audit: merge(
                    base,
                    json!({"decision": "allow", "why": "unreadable transcript", "error": e}),
                ),
            };
        }
    };
    let (record, refusal_note) = evaluate_with_refusals(gate, &text, refusals);
    let evidence = json!({
        "requirement": "E5",
        "code": (record.status != Status::Green).then(|| block_code(&record)),
        "record": record,
        "recorded_refusals": refusal_note,
        "text": clip(&text, 4000),
        "text_chars": text.chars().count(),
        "stop_hook_active": input.stop_hook_active,
        "mode": mode.as_str(),
    });
    if record.status == Status::Green {
        return Verdict {
            answer: notice_or_silent(notice),
            audit: merge(merge(base, evidence), json!({"decision": "allow"})),
        };
    }
    let ids: Vec<&str> = record.violations().map(|r| r.diagnostic_id).collect();
    let user_note = format!(
        "egress-audit: the final message was red ({}){}",
        ids.join(", "),
        match (mode, input.stop_hook_active) {
            (Mode::Report, _) => "; report mode, recorded only.",
            (Mode::Enforce, true) =>
                "; already continued once, so the stop was let through and recorded.",
            (Mode::Enforce, false) => "; the agent was asked to continue.",
        }
    );
    let (answer, decision) = match (mode, input.stop_hook_active) {
        (Mode::Enforce, false) => (
            Answer::Block {
                reason: block_reason(&record),
                system_message: notice,
            },
            "block",
        ),
        _ => (
            Answer::Notice {
                system_message: join_notice(Some(user_note), notice),
            },
            "allow_recorded",
        ),
    };
    Verdict {
        answer,
        audit: merge(merge(base, evidence), json!({"decision": decision})),
    }
}

/// The gate's record, re-judged with this session's recorded refusals when the text is red. The
/// note (for the audit log) says how many refusals were read, or why none could be: an unreadable
/// log counts as no refusal, so the message is judged on its own words.
fn evaluate_with_refusals(
    gate: &EgressGate,
    text: &str,
    source: &dyn RefusalSource,
) -> (GateRecord, Value) {
    let record = gate.evaluate(text);
    if record.status == Status::Green {
        return (record, Value::Null);
    }
    match source.refusals() {
        Ok(found) if found.is_empty() => (record, json!({"count": 0})),
        Ok(found) => (
            gate.evaluate_with(text, &found),
            json!({"count": found.len()}),
        ),
        Err(e) => (record, json!({"error": e})),
    }
}

fn clip(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

fn notice_or_silent(notice: Option<String>) -> Answer {
    match notice {
        Some(system_message) => Answer::Notice { system_message },
        None => Answer::Silent,
    }
}

fn join_notice(a: Option<String>, b: Option<String>) -> String {
    [a, b].into_iter().flatten().collect::<Vec<_>>().join(" ")
}

fn merge(mut a: Value, b: Value) -> Value {
    if let (Some(a), Value::Object(b)) = (a.as_object_mut(), b) {
        a.extend(b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refusals::NoRefusals;

    fn stop(text: &str, active: bool) -> HookInput {
        HookInput::from_value(json!({
            "hook_event_name": "Stop", "session_id": "s1",
            "stop_hook_active": active, "last_assistant_message": text
        }))
        .unwrap()
    }

    /// The baseline gate's verdict with no config notice and no recorded refusal.
    fn judge_baseline(input: &HookInput, mode: Mode) -> Verdict {
        judge(input, &EgressGate::baseline(), mode, None, &NoRefusals)
    }

    #[test]
    fn red_blocks_with_a_clean_reason() {
        let gate = EgressGate::baseline();
        let v = judge(
            &stop("Done. You can run make smoke to verify.", false),
            &gate,
            Mode::Enforce,
            None,
            &NoRefusals,
        );
        let Answer::Block { reason, .. } = &v.answer else {
            panic!("{:?}", v.answer)
        };
        assert!(reason.starts_with("E5.command-handed-back: "), "{reason}");
        assert_eq!(v.audit["code"], "E5.command-handed-back");
        assert!(!gate.mentions_tripwire(reason), "{reason}");
        assert!(reason.chars().count() <= safety_kernel::MAX_REASON_CHARS);
        assert_eq!(v.audit["decision"], "block");
    }

    #[test]
    fn every_combination_of_violations_gives_a_clean_reason() {
        let gate = EgressGate::baseline();
        let text = "My mistake. You can run it. Let me know if you want me to continue.";
        let v = judge(&stop(text, false), &gate, Mode::Enforce, None, &NoRefusals);
        let Answer::Block { reason, .. } = &v.answer else {
            panic!()
        };
        assert!(!gate.mentions_tripwire(reason), "{reason}");
        assert_eq!(v.audit["record"]["violation_count"], 3);
        // Every remedy whole: the reason fits the K4 bound without clipping.
        assert!(!reason.ends_with("..."), "{reason}");
        assert!(reason.contains("name its id"), "{reason}");
    }

    #[test]
    fn continuation_still_red_is_let_through_and_told() {
        let v = judge_baseline(&stop("You can run make smoke", true), Mode::Enforce);
        let Answer::Notice { system_message } = &v.answer else {
            panic!("{:?}", v.answer)
        };
        assert!(system_message.contains("command_displacement_to_operator"));
        assert_eq!(v.audit["decision"], "allow_recorded");
    }

    #[test]
    fn report_mode_never_blocks() {
        let v = judge_baseline(&stop("You can run make smoke", false), Mode::Report);
        assert!(matches!(v.answer, Answer::Notice { .. }));
    }

    #[test]
    fn green_is_silent_and_other_events_ignored() {
        let v = judge_baseline(
            &stop("I ran make smoke; it passed with exit code 0.", false),
            Mode::Enforce,
        );
        assert_eq!(v.answer, Answer::Silent);
        let pre = HookInput::from_value(json!({"hook_event_name": "PreToolUse"})).unwrap();
        let v = judge_baseline(&pre, Mode::Enforce);
        assert_eq!(v.answer, Answer::Silent);
        assert_eq!(v.audit["decision"], "ignored");
    }

    #[test]
    fn falls_back_to_the_transcript() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, r#"{"type":"assistant","message":{"id":"a","content":[{"type":"text","text":"Try running make"}]}}"#).unwrap();
        let input = HookInput::from_value(json!({
            "hook_event_name": "SubagentStop", "transcript_path": p.to_string_lossy()
        }))
        .unwrap();
        let v = judge_baseline(&input, Mode::Enforce);
        assert!(matches!(v.answer, Answer::Block { .. }));
    }

    #[test]
    fn config_notice_reaches_the_user() {
        let v = judge(
            &stop("all good", false),
            &EgressGate::baseline(),
            Mode::Enforce,
            Some("config broken".into()),
            &NoRefusals,
        );
        assert_eq!(
            v.answer,
            Answer::Notice {
                system_message: "config broken".into()
            }
        );
    }
    struct Recorded(Vec<phrase_gate::RecordedRefusal>);
    impl RefusalSource for Recorded {
        fn refusals(&self) -> Result<Vec<phrase_gate::RecordedRefusal>, String> {
            Ok(self.0.clone())
        }
    }
    struct Unreadable;
    impl RefusalSource for Unreadable {
        fn refusals(&self) -> Result<Vec<phrase_gate::RecordedRefusal>, String> {
            Err("audit.jsonl: not a regular file".into())
        }
    }

    fn g4_push() -> Recorded {
        Recorded(vec![phrase_gate::RecordedRefusal {
            binary: "gh-write-guard".into(),
            requirement: Some("G4".into()),
            command: Some("git push origin main".into()),
        }])
    }

    #[test]
    fn a_named_recorded_refusal_excuses_the_hand_back_but_not_a_mistake() {
        let gate = EgressGate::baseline();
        let report =
            "G4 refused `git push origin main`; the push is left to you: please run it yourself.";
        let v = judge(&stop(report, false), &gate, Mode::Enforce, None, &g4_push());
        assert_eq!(v.answer, Answer::Silent, "{}", v.audit);
        assert_eq!(v.audit["recorded_refusals"]["count"], 1);
        // The same words with nothing recorded, or an unreadable log, are judged on their own.
        for source in [&NoRefusals as &dyn RefusalSource, &Unreadable] {
            let v = judge(&stop(report, false), &gate, Mode::Enforce, None, source);
            assert!(matches!(v.answer, Answer::Block { .. }), "{}", v.audit);
        }
        for still_red in [
            // A refusal is no capture of a mistake.
            "My mistake: G4 refused `git push origin main`.",
            // A hand-back that does not name the refusal stays red.
            "Please run `npm publish` yourself.",
        ] {
            let v = judge(
                &stop(still_red, false),
                &gate,
                Mode::Enforce,
                None,
                &g4_push(),
            );
            assert!(matches!(v.answer, Answer::Block { .. }), "{still_red}");
        }
    }
}
