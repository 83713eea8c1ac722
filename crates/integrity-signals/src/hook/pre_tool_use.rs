//! PreToolUse: the writes to what keeps the guards in place (I3), durable memory in a tainted
//! session, the I1 signals of the call (paths, network destinations, identical-call runs) and the
//! deny with its code ([`crate::codes`]). The network destinations come from
//! [`i1_signals::network_signals`], one call site.

use super::durable_memory::durable_memory_write;
use super::{now_secs, now_text, Deps, Verdict};
use crate::bash_facts::{self, Access, BashFacts};
use crate::i1_signals::{self, Call};
use crate::i3_tamper::{Hit, Protected};
use crate::i5_modes::{self, Mode};
use crate::signal::{Kind, Signal};
use hook_io::{Answer, HookInput};
use serde_json::{json, Value};
use std::path::Path;

fn tamper_signal(hit: &Hit, call: &Call) -> Signal {
    Signal::observed(
        Kind::GuardTamper,
        &[
            ("path", json!(hit.path)),
            ("timestamp", json!(call.timestamp)),
            ("tool_use_id", json!(call.tool_use_id)),
            ("tool_name", json!(call.tool_name)),
            ("protects", json!(hit.what.describe())),
            ("how", json!(hit.how)),
        ],
    )
}

/// I3 hits of a call: Write/Edit paths and the Bash command's writes.
pub fn tamper_hits(
    call: &Call,
    protected: &Protected,
    home: Option<&Path>,
    facts: Option<&BashFacts>,
) -> Vec<Hit> {
    let mut hits: Vec<Hit> = i1_signals::tool_paths(call, home)
        .into_iter()
        .filter(|(_, a, _)| matches!(a, Access::Write { .. }))
        .filter_map(|(p, _, _)| {
            protected.protection(&p).map(|what| Hit {
                path: p.display().to_string(),
                what,
                how: format!("{} writes it", call.tool_name),
            })
        })
        .collect();
    if let Some(f) = facts {
        hits.extend(protected.bash_hits(f));
    }
    hits
}

pub(super) fn pre_tool_use(input: &HookInput, deps: &Deps) -> Verdict {
    let mut tool_input = input.tool_input.clone().unwrap_or(json!({}));
    let stripped = safety_kernel::strip_asserted_authority(&mut tool_input);
    let tool_name = input.tool_name.as_deref().unwrap_or("");
    let tool_use_id = input.tool_use_id.as_deref().unwrap_or("");
    let timestamp = now_text();
    let cwd = input
        .cwd
        .as_deref()
        .filter(|c| c.starts_with('/'))
        .map(Path::new);
    let call = Call {
        tool_name,
        input: &tool_input,
        tool_use_id,
        cwd,
        timestamp: &timestamp,
    };
    let facts = (tool_name == "Bash")
        .then(|| tool_input.get("command").and_then(Value::as_str))
        .flatten()
        .map(|c| {
            bash_facts::analyse(
                c,
                &bash_facts::Env {
                    cwd,
                    home: deps.home.as_deref(),
                    vars: &deps.shell_vars,
                },
            )
        });

    let hits = tamper_hits(&call, &deps.protected, deps.home.as_deref(), facts.as_ref());
    let mut signals: Vec<Signal> = hits.iter().map(|h| tamper_signal(h, &call)).collect();
    let memory = durable_memory_write(
        &call,
        deps,
        facts.as_ref(),
        input.session_id.as_deref(),
        input.transcript_path.as_deref().map(Path::new),
    );

    let settings = deps.settings(input.cwd.as_deref());
    let path_signals = i1_signals::path_signals(&call, &settings, facts.as_ref());
    let would_deny = !hits.is_empty()
        || path_signals
            .iter()
            .any(|s| i5_modes::denies(deps.mode, s.kind));
    let network = i1_signals::network_signals(&call, &settings, facts.as_ref(), "pending");
    let past_bound = facts.as_ref().and_then(|f| f.past_bound.first());
    let deny = would_deny
        || past_bound.is_some()
        || memory.is_some()
        || network.iter().any(|s| i5_modes::denies(deps.mode, s.kind));
    // Whether the call runs is known later (another guard may refuse it): the report resolves
    // `pending` from the audit log ([`crate::outcomes`]).
    let decision = if deny { "blocked" } else { "pending" };
    signals.extend(path_signals);
    signals.extend(network.into_iter().map(|mut s| {
        s.evidence.insert("decision".into(), json!(decision));
        s
    }));
    if let Some((place, text)) = i1_signals::written_text(&call, facts.as_ref()) {
        let at = i1_signals::Written {
            place: &place,
            timestamp: &timestamp,
            tool_use_id: Some(tool_use_id),
        };
        signals.extend(i1_signals::judge_signal(deps.phrases(), &text, at));
    }
    let run_error = record_retry(&call, input.session_id.as_deref(), deps, &mut signals);
    let (code, answer) = match refusal(
        &hits,
        past_bound,
        memory.as_ref(),
        deny,
        &signals,
        deps.mode,
    ) {
        Some((code, answer)) => (Some(code), answer),
        None => (None, Answer::Silent),
    };
    let audit = json!({
        "requirement": code.map_or(if hits.is_empty() { "I1" } else { "I3" }, crate::codes::requirement),
        "code": code,
        "decision": if deny { "deny" } else { "allow" },
        "tamper": hits.iter().map(|h| json!({"path": h.path, "protects": h.what.describe(), "how": h.how})).collect::<Vec<_>>(),
        "durable_memory_while_tainted": memory.as_ref().map(|(p, t)| json!({"path": p, "taint": t})),
        "stripped_fields": stripped.iter().map(|s| s.path.clone()).collect::<Vec<_>>(),
        "bash_incomplete": facts.as_ref().and_then(|f| f.incomplete.clone()),
        "scripts_past_bound": facts.as_ref().map(|f| f.past_bound.clone()),
        "ledger_error": run_error,
    });
    Verdict {
        answer,
        signals,
        audit,
    }
}

/// Counts the call in the session's run of identical calls (I1's retry signal fires once, on the
/// call past the threshold); the ledger's error, if it could not count, for the audit record.
fn record_retry(
    call: &Call,
    session_id: Option<&str>,
    deps: &Deps,
    signals: &mut Vec<Signal>,
) -> Option<String> {
    let store = deps.store.as_ref().ok()?;
    let fp = i1_signals::call_fingerprint(call.tool_name, call.input);
    match store.record_call(session_id, &fp, call.tool_use_id, now_secs()) {
        Ok(run) if run.count == i1_signals::RETRY_THRESHOLD + 1 => {
            signals.push(i1_signals::retry_signal(
                call,
                run.count,
                &run.first_tool_use_id,
            ));
            None
        }
        Ok(_) => None,
        Err(e) => Some(e),
    }
}

/// The deny of a PreToolUse call and its code, if it is refused: a write to something protected
/// first (I3), then durable memory in a tainted session, then the first signal the mode denies.
fn refusal(
    hits: &[Hit],
    past_bound: Option<&String>,
    memory: Option<&(String, String)>,
    deny: bool,
    signals: &[Signal],
    mode: Mode,
) -> Option<(&'static str, Answer)> {
    let deny_with = |code: &'static str, refused: &str, remedy: &str, note: Option<String>| {
        let answer = Answer::Deny {
            event: "PreToolUse".into(),
            reason: safety_kernel::feedback::reason(code, refused, remedy),
            system_message: note,
        };
        Some((code, answer))
    };
    if let Some(h) = hits.first() {
        let what = h.what.describe();
        return deny_with(
            crate::codes::tamper(h.what),
            &format!("this call would change {what} ({})", h.path),
            "Guard settings, binaries, config and logs are changed only by the maintainer; leave them as they are and carry on with the task, or ask the maintainer.",
            Some(format!("integrity-signals denied a write to {what} ({}).", h.path)),
        );
    }
    if let Some(path) = past_bound {
        return deny_with(
            crate::codes::I3_PAST_BOUND,
            &format!("`{path}` is more scripts deep or larger than is read, so whether it changes the suite's files is unknown"),
            "Run the innermost script directly, or shorten the chain of scripts.",
            Some(format!("integrity-signals refused a command whose script it could not read ({path}).")),
        );
    }
    if let Some((path, _)) = memory {
        return deny_with(
            crate::codes::I3_DURABLE_MEMORY,
            &super::durable_memory::memory_refused(path),
            super::durable_memory::MEMORY_REMEDY,
            Some(format!(
                "integrity-signals denied a durable-memory write in a tainted session ({path})."
            )),
        );
    }
    if !deny {
        return None;
    }
    let first = signals
        .iter()
        .find(|s| i5_modes::denies(mode, s.kind))
        .map(|s| s.kind);
    let refused = match first {
        Some(Kind::RestrictedPath) => "this call touches a restricted path",
        Some(Kind::NetworkEscape) => "this call contacts a host outside the network allow-list",
        _ => "this call reads outside the workspace root",
    };
    deny_with(
        crate::codes::i1(first),
        refused,
        "Work inside the workspace with the allowed hosts; if the task needs more, say so and stop.",
        None,
    )
}
