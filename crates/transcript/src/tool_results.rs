//! Tool calls in a transcript and the results that came back for them.
//!
//! A tool call is a `tool_use` block of an `assistant` line; its result is a `tool_result` block
//! (same id, `is_error`) of a later `user` line. Only lines that can hold what the caller wants are
//! parsed: a byte search finds `tool_use` blocks, and a `tool_result` line is parsed only when it
//! names the id of a call the caller selected. A 10 MiB transcript of large tool outputs is
//! therefore mostly searched, not parsed.

use memchr::memmem;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

/// One selected tool call and what came back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExchange {
    pub tool_use_id: String,
    pub tool_name: String,
    pub input: Value,
    /// The result's text (text blocks joined), `None` while no result was seen.
    pub result: Option<String>,
    pub is_error: bool,
    /// The result line's `timestamp`, if any.
    pub timestamp: Option<String>,
}

/// Most selected calls waiting for their result at once; older ones are dropped first.
const MAX_PENDING: usize = 256;

/// Reads the tail of the transcript at `path` and returns the selected exchanges, in file order.
pub fn tool_exchanges(
    path: &Path,
    select: &dyn Fn(&str, &Value) -> bool,
) -> Result<Vec<ToolExchange>, String> {
    let bytes = crate::read_tail(path, crate::TAIL_BYTES)?;
    Ok(tool_exchanges_in(&bytes, select))
}

/// The exchanges in JSON-lines `bytes` whose call `select(tool_name, input)` accepts, in file order.
pub fn tool_exchanges_in(bytes: &[u8], select: &dyn Fn(&str, &Value) -> bool) -> Vec<ToolExchange> {
    let use_finder = memmem::Finder::new(b"\"type\":\"tool_use\"");
    let result_finder = memmem::Finder::new(b"\"type\":\"tool_result\"");
    let mut out: Vec<ToolExchange> = Vec::new();
    // id -> index into `out`, for calls still waiting for a result.
    let mut pending: HashMap<String, usize> = HashMap::new();
    for line in bytes.split(|b| *b == b'\n') {
        if use_finder.find(line).is_some() {
            collect_calls(line, select, &mut out, &mut pending);
        }
        if !pending.is_empty() && result_finder.find(line).is_some() {
            let named = pending
                .keys()
                .any(|id| memmem::find(line, id.as_bytes()).is_some());
            if named {
                collect_results(line, &mut out, &mut pending);
            }
        }
    }
    out
}

fn collect_calls(
    line: &[u8],
    select: &dyn Fn(&str, &Value) -> bool,
    out: &mut Vec<ToolExchange>,
    pending: &mut HashMap<String, usize>,
) {
    let Ok(entry) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    if entry.get("type").and_then(Value::as_str) != Some("assistant")
        || crate::last_text::is_skipped(&entry)
    {
        return;
    }
    let Some(Value::Array(blocks)) = entry.pointer("/message/content") else {
        return;
    };
    for b in blocks {
        if b.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let (Some(id), Some(name)) = (
            b.get("id").and_then(Value::as_str),
            b.get("name").and_then(Value::as_str),
        ) else {
            continue;
        };
        let input = b.get("input").cloned().unwrap_or(Value::Null);
        if !select(name, &input) {
            continue;
        }
        if pending.len() >= MAX_PENDING {
            if let Some(oldest) = pending
                .iter()
                .min_by_key(|(_, i)| **i)
                .map(|(k, _)| k.clone())
            {
                pending.remove(&oldest);
            }
        }
        pending.insert(id.to_string(), out.len());
        out.push(ToolExchange {
            tool_use_id: id.to_string(),
            tool_name: name.to_string(),
            input,
            result: None,
            is_error: false,
            timestamp: None,
        });
    }
}

fn collect_results(line: &[u8], out: &mut [ToolExchange], pending: &mut HashMap<String, usize>) {
    let Ok(entry) = serde_json::from_slice::<Value>(line) else {
        return;
    };
    if entry.get("type").and_then(Value::as_str) != Some("user") {
        return;
    }
    let Some(Value::Array(blocks)) = entry.pointer("/message/content") else {
        return;
    };
    let timestamp = entry
        .get("timestamp")
        .and_then(Value::as_str)
        .map(str::to_string);
    for b in blocks {
        if b.get("type").and_then(Value::as_str) != Some("tool_result") {
            continue;
        }
        let Some(id) = b.get("tool_use_id").and_then(Value::as_str) else {
            continue;
        };
        let Some(index) = pending.remove(id) else {
            continue;
        };
        if let Some(x) = out.get_mut(index) {
            x.result = Some(result_text(b.get("content")));
            x.is_error = b.get("is_error").and_then(Value::as_bool) == Some(true);
            x.timestamp = timestamp.clone();
        }
    }
}

fn result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, cmd: &str) -> String {
        json!({"type":"assistant","message":{"id":format!("m{id}"),"content":[
            {"type":"tool_use","id":id,"name":"Bash","input":{"command":cmd}}]}})
        .to_string()
    }
    fn result(id: &str, text: &str, err: bool) -> String {
        json!({"type":"user","timestamp":"2026-12-01T00:00:00Z","message":{"role":"user","content":[
            {"type":"tool_result","tool_use_id":id,"content":text,"is_error":err}]}})
        .to_string()
    }

    #[test]
    fn pairs_selected_calls_with_their_results() {
        let t = [
            call("a", "cargo test"),
            result("a", "Exit code 101\ntest result: FAILED", true),
            call("b", "ls"),
            result("b", "x", false),
            call("c", "cargo test"),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"c",
                "content":[{"type":"text","text":"ok"}]}]}})
            .to_string(),
            call("d", "cargo test"),
            "garbage line".to_string(),
        ]
        .join("\n");
        let tests = |name: &str, input: &Value| {
            name == "Bash"
                && input["command"]
                    .as_str()
                    .is_some_and(|c| c.contains("test"))
        };
        let x = tool_exchanges_in(t.as_bytes(), &tests);
        assert_eq!(x.len(), 3);
        assert_eq!(
            x[0].result.as_deref(),
            Some("Exit code 101\ntest result: FAILED")
        );
        assert!(x[0].is_error);
        assert_eq!(x[0].timestamp.as_deref(), Some("2026-12-01T00:00:00Z"));
        assert_eq!(x[1].result.as_deref(), Some("ok"));
        assert!(!x[1].is_error);
        assert_eq!(x[2].result, None, "no result yet");
    }

    #[test]
    fn sidechain_calls_are_not_the_session_s() {
        let side = json!({"type":"assistant","isSidechain":true,"message":{"content":[
            {"type":"tool_use","id":"s","name":"Bash","input":{"command":"cargo test"}}]}})
        .to_string();
        let t = [side, result("s", "ok", false)].join("\n");
        assert!(tool_exchanges_in(t.as_bytes(), &|_, _| true).is_empty());
    }
}
