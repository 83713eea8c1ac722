//! PostToolUse / PostToolUseFailure: taint at the source (K5), the latest result per runner kept
//! for I2, and timeout abuse (I1).

use super::{now_secs, now_text, Deps, Verdict};
use crate::i1_signals::{self, Call};
use crate::i2_fabricated_claims as i2;
use crate::signal::Signal;
use hook_io::{Answer, Event, HookInput};
use serde_json::{json, Value};
use std::path::Path;

/// Records taint at the source (K5) for a completed call: the type of the call decides, never
/// what it returned.
fn record_taint(input: &HookInput, deps: &Deps) -> Result<Option<String>, String> {
    let (Some(tool), Ok(store)) = (input.tool_name.as_deref(), &deps.store) else {
        return Ok(None);
    };
    let tool_input = input.tool_input.clone().unwrap_or(json!({}));
    let own = input
        .cwd
        .as_deref()
        .and_then(|c| taint::origin_owner(Path::new(c)));
    let policy = taint::TaintPolicy::new(deps.config.trusted_mcp_servers.clone(), own);
    let Some(source) = taint::source_of(tool, &tool_input, &policy) else {
        return Ok(None);
    };
    taint::record(
        &store.session(input.session_id.as_deref()),
        &source,
        input.tool_use_id.as_deref(),
        &now_text(),
    )
    .map(|_| Some(format!("{} ({})", source.kind.as_str(), source.detail)))
    .map_err(|e| e.to_string())
}

/// The output text and error flag of a tool result.
fn result_text(input: &HookInput) -> (String, bool) {
    if input.event == Event::PostToolUseFailure {
        return (crate::text_or_empty(input.raw.get("error")), true);
    }
    match &input.tool_response {
        Some(Value::String(s)) => (s.clone(), false),
        Some(Value::Object(o)) => {
            let part = |k: &str| crate::text_or_empty(o.get(k));
            let (out, err) = (part("stdout"), part("stderr"));
            let text = match (out.is_empty(), err.is_empty()) {
                (_, true) => out,
                (true, false) => err,
                (false, false) => format!("{out}\n{err}"),
            };
            let code = o
                .get("exit_code")
                .or(o.get("exitCode"))
                .and_then(Value::as_i64);
            match code {
                Some(c) if c != 0 => (format!("Exit code {c}\n{text}"), true),
                _ => (text, false),
            }
        }
        _ => (String::new(), false),
    }
}

pub(super) fn post_tool_use(input: &HookInput, deps: &Deps) -> Verdict {
    let taint_audit = match record_taint(input, deps) {
        Ok(t) => json!({"taint_source": t}),
        Err(e) => json!({"taint_error": e}),
    };
    let silent = |why: &str| Verdict {
        answer: Answer::Silent,
        signals: Vec::new(),
        audit: json!({"decision": "recorded", "why": why, "taint": taint_audit}),
    };
    if input.tool_name.as_deref() != Some("Bash") {
        return silent("not a Bash result");
    }
    let tool_input = input.tool_input.clone().unwrap_or(json!({}));
    let Some(command) = tool_input.get("command").and_then(Value::as_str) else {
        return silent("no command");
    };
    let tool_use_id = input.tool_use_id.as_deref().unwrap_or("");
    let timestamp = now_text();
    let (output, is_error) = result_text(input);
    let runners = i2::runners_of(command);
    let result = i2::result_of(command, tool_use_id, &output, is_error, &timestamp);
    let mut ledger_error = None;
    if let Ok(store) = &deps.store {
        if let Err(e) =
            store.record_result(input.session_id.as_deref(), &runners, &result, now_secs())
        {
            ledger_error = Some(e);
        }
    }
    let interrupted = input
        .tool_response
        .as_ref()
        .and_then(|r| r.get("interrupted"))
        .and_then(Value::as_bool)
        == Some(true);
    let timed_out = interrupted || (is_error && output.to_ascii_lowercase().contains("timed out"));
    let duration = input.raw.get("duration_ms").and_then(Value::as_u64);
    let call = Call {
        tool_name: "Bash",
        input: &tool_input,
        tool_use_id,
        cwd: None,
        timestamp: &timestamp,
    };
    let signals: Vec<Signal> = i1_signals::timeout_signal(&call, timed_out, duration)
        .into_iter()
        .collect();
    Verdict {
        answer: Answer::Silent,
        signals,
        audit: json!({
            "requirement": "I2",
            "decision": "recorded",
            "runners": runners.iter().map(|r| r.key()).collect::<Vec<_>>(),
            "failed": result.failed,
            "exit_code": result.exit_code,
            "ledger_error": ledger_error,
            "taint": taint_audit,
        }),
    }
}
