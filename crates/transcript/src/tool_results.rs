//! Tool calls in a transcript and the results that came back for them, newest first.
//!
//! A tool call is a `tool_use` block of an `assistant` line; its result is a `tool_result` block
//! (same id, `is_error`) of a later `user` line. The file is walked backwards and every line that
//! can hold either is parsed as JSON: the shape of the line (spacing, key order, escapes) does not
//! matter, only what it says. Lines that name neither (`tool_` appears in both keys) and hold no
//! `\u` escape are skipped unparsed, so a transcript of long assistant texts costs a byte scan.
//! A caller looking for the most recent run of something stops as soon as it has it.

use memchr::memmem;
use serde_json::Value;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::path::Path;

/// One tool call, with its result (if one was written).
#[derive(Debug, Clone)]
pub struct CallRef<'a> {
    pub tool_use_id: String,
    pub tool_name: String,
    pub input: Value,
    result: Option<ToolResult>,
    _lines: PhantomData<&'a [u8]>,
}

/// A tool result: its text (text blocks joined), error flag and the line's timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolResult {
    pub text: String,
    pub is_error: bool,
    pub timestamp: Option<String>,
}

impl CallRef<'_> {
    /// The call's result, `None` while none was written.
    pub fn result(&self) -> Option<ToolResult> {
        self.result.clone()
    }
}

/// Reads the tail of the transcript at `path` and visits its calls newest first.
pub fn calls_newest_first_in_file(
    path: &Path,
    visit: &mut dyn FnMut(&CallRef) -> ControlFlow<()>,
) -> Result<(), String> {
    let bytes = crate::read_tail(path, crate::TAIL_BYTES)?;
    calls_newest_first(&bytes, visit);
    Ok(())
}

/// Whether a line may hold a tool call or result: a cheap test before the parse. Every such line
/// names `tool_use` / `tool_use_id` / `tool_result`; a key spelled with `\u` escapes is parsed too.
fn may_hold_tools(line: &[u8], tool: &memmem::Finder, escape: &memmem::Finder) -> bool {
    tool.find(line).is_some() || escape.find(line).is_some()
}

/// The results a parsed `user` line carries, by call id.
fn results_of(entry: &Value, into: &mut HashMap<String, ToolResult>) {
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
        // Walking backwards, the first result met for an id is its newest.
        into.entry(id.to_string()).or_insert_with(|| ToolResult {
            text: result_text(b.get("content")),
            is_error: b.get("is_error").and_then(Value::as_bool) == Some(true),
            timestamp: timestamp.clone(),
        });
    }
}

/// Visits the session's tool calls in JSON-lines `bytes`, newest first, until `visit` breaks.
/// Sidechain (subagent) calls are not the session's and are skipped.
pub fn calls_newest_first(bytes: &[u8], visit: &mut dyn FnMut(&CallRef) -> ControlFlow<()>) {
    let tool = memmem::Finder::new(b"tool_");
    let escape = memmem::Finder::new(b"\\u");
    // Results seen so far (they follow their calls, so they are met first), by call id.
    let mut results: HashMap<String, ToolResult> = HashMap::new();
    let mut end = bytes.len();
    while end > 0 {
        let start = memchr::memrchr(b'\n', &bytes[..end])
            .map(|i| i + 1)
            .unwrap_or(0);
        let line = &bytes[start..end];
        end = start.saturating_sub(1);
        if start == 0 {
            end = 0;
        }
        if !may_hold_tools(line, &tool, &escape) {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        match entry.get("type").and_then(Value::as_str) {
            Some("user") => {
                results_of(&entry, &mut results);
                continue;
            }
            Some("assistant") if !crate::last_text::is_skipped(&entry) => {}
            _ => continue,
        }
        let Some(Value::Array(blocks)) = entry.pointer("/message/content") else {
            continue;
        };
        for b in blocks.iter().rev() {
            if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let (Some(id), Some(name)) = (
                b.get("id").and_then(Value::as_str),
                b.get("name").and_then(Value::as_str),
            ) else {
                continue;
            };
            let call = CallRef {
                tool_use_id: id.to_string(),
                tool_name: name.to_string(),
                input: b.get("input").cloned().unwrap_or(Value::Null),
                result: results.get(id).cloned(),
                _lines: PhantomData,
            };
            if visit(&call).is_break() {
                return;
            }
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

    fn all(t: &str) -> Vec<(String, Option<ToolResult>)> {
        let mut out = Vec::new();
        calls_newest_first(t.as_bytes(), &mut |c| {
            out.push((c.tool_use_id.clone(), c.result()));
            ControlFlow::Continue(())
        });
        out
    }

    #[test]
    fn newest_first_with_results_on_demand() {
        let t = [
            call("a", "cargo test"),
            result("a", "Exit code 101\ntest result: FAILED", true),
            call("b", "ls"),
            json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b",
                "content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}]}})
            .to_string(),
            "garbage line".to_string(),
            call("c", "cargo test"),
        ]
        .join("\n");
        let x = all(&t);
        let ids: Vec<&str> = x.iter().map(|(i, _)| i.as_str()).collect();
        assert_eq!(ids, vec!["c", "b", "a"]);
        assert_eq!(x[0].1, None, "no result yet");
        assert_eq!(x[1].1.as_ref().unwrap().text, "x\ny");
        let a = x[2].1.as_ref().unwrap();
        assert!(a.is_error);
        assert_eq!(a.text, "Exit code 101\ntest result: FAILED");
        assert_eq!(a.timestamp.as_deref(), Some("2026-12-01T00:00:00Z"));
    }

    #[test]
    fn lines_are_parsed_whatever_their_spacing_or_escapes() {
        // The same call and result, written with spaces after the separators (as Python's
        // json.dumps or a pretty printer would) and with a key spelled with a \\u escape.
        let call = r#"{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "a", "name": "Bash", "input": {"command": "cargo test"}}]}}"#;
        let result = r#"{"type": "user", "message": {"content": [{"type": "tool_result", "tool\u005fuse_id": "a", "content": "Exit code 101", "is_error": true}]}}"#;
        let x = all(&[call, result].join("\n"));
        assert_eq!(x.len(), 1);
        assert!(x[0].1.as_ref().unwrap().is_error);
        // A tool output that quotes a result line is text, not a result.
        let quoting = json!({"type":"user","message":{"content":[{"type":"tool_result",
            "tool_use_id":"b","content":"{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"is_error\":false}"}]}})
        .to_string();
        let x = all(&[call, result, &quoting].join("\n"));
        assert!(x[0].1.as_ref().unwrap().is_error, "{x:?}");
    }

    #[test]
    fn stops_when_asked_and_skips_sidechains() {
        let side = json!({"type":"assistant","isSidechain":true,"message":{"content":[
            {"type":"tool_use","id":"s","name":"Bash","input":{"command":"cargo test"}}]}})
        .to_string();
        let t = [call("a", "x"), call("b", "y"), side].join("\n");
        let mut seen = Vec::new();
        calls_newest_first(t.as_bytes(), &mut |c| {
            seen.push(c.tool_use_id.clone());
            ControlFlow::Break(())
        });
        assert_eq!(seen, vec!["b"]);
        assert!(all("").is_empty());
    }
}
